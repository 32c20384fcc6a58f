"""Package facades that import on first use.

A package names its public parts in `__all__`, and each is imported from the
module that defines it only when first asked for: importing the package, or one module
of it, loads none of the others, nor what they import (the checkers and JAX, the
readers and the Lean parser). Type checkers read the package's `TYPE_CHECKING` imports
instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, homes: Mapping[str, Sequence[str]]) -> Callable[[str], Any]:
    """The module `__getattr__` of `package`: each name listed under a module in `homes`
    (`{"ingest": ["ingest_batch", ...]}`) is that module's, imported when first asked for.
    Any other name is no attribute, so that `from package import submodule` imports it."""
    home = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name: str) -> Any:
        if name not in home:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{home[name]}"), name)

    return __getattr__
