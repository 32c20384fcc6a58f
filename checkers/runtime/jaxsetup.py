"""JAX configuration shared by every checker: float64 on, optional persistent compile cache,
a bound on JAX's in-memory cache of traced functions.

Importing `checkers` has JAX switch on `jax_enable_x64` (the float64 reference needs it)
as soon as JAX is imported (`checkers.lazyjax`). The web process imports `app` without
`checkers`, so it is unaffected.

The persistent cache is on when `$PROOFBRIDGE_JAX_CACHE_DIR` names a directory
(or `configure_compilation_cache(path)` is called; the CLI and the worker use
their `jax_cache_dir` setting, `var/jax-cache` by default). The directory then
holds JAX's compilation cache and, under `proofbridge-programs/`, the
harness's store of compiled checker programs (see `program_store`), which lets
a fresh process skip tracing as well as compiling. Unset or empty: both off.

JAX keeps, in memory, the jaxpr of a jitted function for every distinct type of
arguments it was traced at, without a limit, for as long as the function lives.
jnp's own functions (`jnp.take`, `jnp.einsum`, `jnp.where`, ...) live as long as
the process, so over a corpus of statements of many different shapes that cache
only grows: about 10,000 jaxprs and 120 MB in each process that checks half of
the upstream tree. `bound_trace_cache`, called by the harness after every
check, empties it once it holds more than `MAX_TRACED_JAXPRS`.

A trace that an exception ends (the evaluator refusing a statement, as it does for most
`unsupported` theorems) is never freed by JAX 0.10 where it made a constant: each
constant's tracer has a `weakref.finalize` whose callback is a method of the trace, and
the trace's frame holds that tracer, so the global registry of finalizers keeps the
whole trace (every equation, tracer and constant) alive. `release_abandoned_traces`,
called after every derivation and every check, detaches those callbacks; the cycle is
then ordinary garbage.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import weakref
from typing import Any

from checkers.lazyjax import jax, loaded, on_import
from checkers.runtime import program_store

# `checkers.lazyjax` switches float64 on when JAX is imported, and traceback filtering off:
# an exception that leaves a JAX transformation (the evaluator's refusal of a statement,
# raised while tracing it) is not rewritten to hide JAX's frames, since filtering walks
# every frame of the evaluator's deep recursion against JAX's paths, which took a sixth of
# the time of deciding a theorem `unsupported`. The reasons a check reports are the
# exceptions' messages, which filtering leaves unchanged.

CACHE_DIR_VARIABLE = "PROOFBRIDGE_JAX_CACHE_DIR"

# Past this many traced jaxprs (about 12 MB), the cache is emptied between two checks. One
# check of the upstream tree adds at most about 300. Over half of that tree, emptying it
# cost 20,400 traces instead of 16,800, about half a millisecond each: 2 s in 3 minutes.
MAX_TRACED_JAXPRS = 1024


def configure_compilation_cache(path: str | os.PathLike[str] | None = None) -> str | None:
    """Turn on JAX's persistent compilation cache in `path` (default: $PROOFBRIDGE_JAX_CACHE_DIR).

    Every compiled program is cached, however quick its compilation was, and the
    harness's program store is kept in the same directory. Returns the directory
    in use, or None when no directory is configured (cache off).
    """
    if path is None:
        path = os.environ.get(CACHE_DIR_VARIABLE) or None
    if path is None:
        return None
    directory = os.path.abspath(os.fspath(path))
    os.makedirs(directory, exist_ok=True)

    def configure(jax_module: Any) -> None:
        jax_module.config.update("jax_compilation_cache_dir", directory)
        jax_module.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        jax_module.config.update("jax_persistent_cache_min_entry_size_bytes", 0)

    on_import(configure)  # now, or when JAX is first imported
    program_store.set_directory(directory)
    return directory


def _cpu_only() -> bool:
    """Whether JAX's backend can only be the CPU, decided without importing JAX:
    `$JAX_PLATFORMS` names the CPU alone, or nothing installed could give JAX another
    backend (no plugin: neither the `jax_plugins` namespace package nor an entry point of
    that group; no libtpu; a jaxlib built without CUDA or ROCm). A process that checks
    only stored interpreted programs then never imports JAX."""
    platforms = os.environ.get("JAX_PLATFORMS", "").strip().lower()
    if platforms:
        return {p.strip() for p in platforms.split(",") if p.strip()} == {"cpu"}
    if any(importlib.util.find_spec(m) is not None for m in ("jax_plugins", "libtpu")):
        return False
    try:
        if importlib.metadata.entry_points(group="jax_plugins"):
            return False
        jaxlib = importlib.metadata.version("jaxlib")
    except importlib.metadata.PackageNotFoundError:
        return False
    return not any(tag in jaxlib for tag in ("cuda", "rocm"))


@functools.cache
def device_kind() -> str:
    """'gpu' when JAX's default backend is a GPU, else 'cpu'."""
    if not loaded() and _cpu_only():
        return "cpu"
    backend = jax.default_backend().lower()
    return "gpu" if backend in ("gpu", "cuda", "rocm") else "cpu"


@functools.cache
def device_name() -> str:
    """What results name as their device: 'cpu', or the accelerator's name as JAX gives it
    (for example 'NVIDIA H200')."""
    if device_kind() == "cpu":
        return "cpu"
    device = jax.devices()[0]
    return str(getattr(device, "device_kind", "") or device.platform)


def trace_cache() -> Any | None:
    """JAX's cache of traced jaxprs (`jax._src.interpreters.partial_eval.trace_to_jaxpr`
    in jax 0.10), or None when this version of JAX has no such cache (or JAX was never
    imported: nothing was traced)."""
    if not loaded():
        return None
    try:
        from jax._src.interpreters import partial_eval
    except ImportError:
        return None
    cache = getattr(partial_eval, "trace_to_jaxpr", None)
    if callable(getattr(cache, "cache_info", None)) and callable(
        getattr(cache, "cache_clear", None)
    ):
        return cache
    return None


def bound_trace_cache(limit: int | None = None) -> bool:
    """Empty JAX's cache of traced jaxprs when it holds more than `limit` of them
    (default `MAX_TRACED_JAXPRS`); say whether it did. Dropping them changes no result:
    a function is traced again when it is next called with those argument types."""
    cache = trace_cache()
    if limit is None:
        limit = MAX_TRACED_JAXPRS
    if cache is None or cache.cache_info().currsize <= limit:
        return False
    cache.cache_clear()
    return True


def release_abandoned_traces() -> int:
    """Detach the finalizers JAX registered for the constants of its traces (see the module
    docstring) and return how many. A trace that ended normally has none left; one that
    is still running only keeps its constants' values until it ends (they are its own)."""
    registry = getattr(weakref.finalize, "_registry", None)
    if not registry:
        return 0
    released = 0
    for f, info in list(registry.items()):
        func = getattr(info, "func", None)
        owner = type(getattr(func, "__self__", None))
        if getattr(func, "__name__", "") == "finalize_const" and owner.__name__.endswith(
            "JaxprTrace"
        ):
            f.detach()
            released += 1
    return released
