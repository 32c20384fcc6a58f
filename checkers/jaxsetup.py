"""JAX configuration shared by every checker: float64 on, optional persistent compile cache.

Importing `checkers` switches on `jax_enable_x64` (the float64 reference needs
it). The web process imports `app` without `checkers`, so it is unaffected.

The persistent cache is on when `$PROOFBRIDGE_JAX_CACHE_DIR` names a directory
(or `configure_compilation_cache(path)` is called; the CLI and the worker use
their `jax_cache_dir` setting, `var/jax-cache` by default). The directory then
holds JAX's compilation cache and, under `proofbridge-programs/`, the
harness's store of compiled checker programs (see `program_store`), which lets
a fresh process skip tracing as well as compiling. Unset or empty: both off.
"""

from __future__ import annotations

import functools
import os

import jax

from checkers import program_store

jax.config.update("jax_enable_x64", True)

CACHE_DIR_VARIABLE = "PROOFBRIDGE_JAX_CACHE_DIR"


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
    jax.config.update("jax_compilation_cache_dir", directory)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    program_store.set_directory(directory)
    return directory


@functools.cache
def device_kind() -> str:
    """'gpu' when JAX's default backend is a GPU, else 'cpu'."""
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
