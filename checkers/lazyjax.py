"""JAX, imported where first used, and configured the moment it is imported.

Deciding what a statement needs (`checkers.analysis.coverage`, the static part of deriving a
checker) reads term trees and the library's tables and computes nothing, yet most modules
of the language and the library name `jnp` at their top: importing them would cost a
process JAX's import (over a second) for nothing. They take `jax`, `jnp`, `lax` and the
few other JAX modules they use from here instead: each is a stand-in that imports the
module on the first attribute asked of it and from then on answers from that module's
own namespace.

Whoever imports JAX first, through a stand-in or directly (`import jax` in the harness, a
registered checker, a project's vocabulary pack), `install()` has it configured before
any array exists: float64 on (the reference precision), traceback filtering off (see
`checkers.runtime.jaxsetup`), then whatever was asked for before the import (`on_import`). It is
installed when this module is imported, which the `checkers` package does first.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
import types
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

__all__ = ["install", "jax", "jcore", "jnp", "jsp", "lax", "loaded", "on_import"]

_pending: list[Callable[[Any], None]] = []
_lock = threading.RLock()


def loaded() -> bool:
    return "jax" in sys.modules and getattr(sys.modules["jax"], "config", None) is not None


def _configure(jax_module: Any) -> None:
    jax_module.config.update("jax_enable_x64", True)
    # an exception leaving a JAX transformation keeps JAX's frames (checkers.runtime.jaxsetup)
    jax_module.config.update("jax_traceback_filtering", "off")
    with _lock:
        pending, _pending[:] = list(_pending), []
    for callback in pending:
        callback(jax_module)


def on_import(callback: Callable[[Any], None]) -> None:
    """Call `callback(jax)` now if JAX is imported, else as soon as it is."""
    with _lock:
        if not loaded():
            _pending.append(callback)
            return
    callback(sys.modules["jax"])


class _ConfigureAfter(importlib.abc.Loader):
    """The loader of `jax`, configuring the module once it has run."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self._loader.exec_module(module)
        _configure(module)


class _JaxFinder(importlib.abc.MetaPathFinder):
    """Finds `jax` as the other finders do, wrapping its loader in `_ConfigureAfter`."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "jax":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _ConfigureAfter(spec.loader)
                return spec
        return None


_FINDER = _JaxFinder()


def install() -> None:
    """Configure JAX now if it is imported, else when it is (idempotent)."""
    with _lock:
        if loaded():
            _configure(sys.modules["jax"])  # what it sets is set again: no change
        elif _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)


class _Module(types.ModuleType):
    """A stand-in for the module `name`, imported on the first attribute asked of it."""

    def __init__(self, name: str) -> None:
        super().__init__(f"lazy {name}")
        self.__dict__["_target"] = name

    def __getattr__(self, attribute: str) -> Any:
        module = importlib.import_module(self.__dict__["_target"])
        # answer every later lookup from the module's own namespace, as the module would
        self.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
        return getattr(module, attribute)


if TYPE_CHECKING:
    import jax
    import jax.extend.core as jcore
    import jax.numpy as jnp
    import jax.scipy.special as jsp
    from jax import lax
else:
    jax = _Module("jax")
    jnp = _Module("jax.numpy")
    lax = _Module("jax.lax")
    jsp = _Module("jax.scipy.special")
    jcore = _Module("jax.extend.core")


install()
