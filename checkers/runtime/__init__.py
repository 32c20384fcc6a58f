"""The JAX runtime: its configuration, the compilation cache, the program store, memory.

jaxsetup (float64, the persistent compilation cache, device names, trace caches),
program_store (traced programs kept on disk), memory (large arrays given back to
the system). JAX itself is imported lazily (checkers.lazyjax).
"""

from checkers.runtime.jaxsetup import configure_compilation_cache, device_kind
from checkers.runtime.memory import keep_large_arrays_mapped

__all__ = ["configure_compilation_cache", "device_kind", "keep_large_arrays_mapped"]
