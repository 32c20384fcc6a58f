"""What a checking process holds: large NumPy arrays given back to the system as soon as
they are freed (glibc), and the objects it loaded once kept out of the cyclic collector.

glibc's malloc serves a request of 128 KiB or more from a mapping of its own,
unmapped when it is freed; but each time such a block is freed it raises that
threshold to the block's size (up to 32 MiB), so that later arrays of that size
come from the heap instead. A heap goes back to the system only from its top,
and a check makes many arrays of a few hundred KiB to a few MiB (inputs, the
interpreter's intermediate values) among small objects that live on: after
half of the upstream tree a checking process held 177 MB of freed heap beside
135 MB in use. With the threshold fixed at 128 KiB (which also stops glibc
moving it) every large array keeps a mapping of its own, and the process
stayed 90 MB smaller, no slower.

`checkers` calls `keep_large_arrays_mapped()` when it is imported; elsewhere than
glibc it does nothing.

Python's cyclic garbage collector, in its oldest generation, walks every object the
process holds. Checking makes and drops objects by the million (JAX's tracers and
equations, the evaluator's values: over every 8th upstream theorem in one process the
youngest generation was collected 4,086 times), so the oldest generation was collected
13 times there, each time walking everything the process held, the modules and the
environment of declarations it loaded included (186,000 objects when a worker starts,
880,000 by the end): 4.2-4.5 s in two runs, 8 % of the checking time.
`keep_loaded_objects_uncollected()`, called by a check worker once it has loaded the
environment, moves what the process holds then out of the collector's reach
(`gc.freeze`: those objects are still freed by their reference counts) and collects the
oldest generation a tenth as often (`OLDEST_GENERATION_THRESHOLD`). Freezing alone left
19 collections of that generation taking 3.1 s (fewer objects under watch fill it
sooner); with both, 3 taking 0.8 s, and the collector took 1.8 s in all instead of
5.2-5.6 s; the process ended no larger (980 MB against 1,005 MB). Only for processes
whose lifetime is bounded, as check workers' is: a cycle among frozen objects that later
becomes garbage is not collected until the process ends.

CPython (3.11 on) keeps the frames of Python calls on a stack of chunks: a call that does
not fit in the current chunk maps a new one (16 KiB at first, `mmap`), and the return that
empties it unmaps it at once. The evaluator recurses to deep and varying depths, so a
check crosses a chunk's edge back and forth: over every 8th upstream theorem in one
process, 292,000 mappings and as many unmappings, two in five of its page faults.
`on_one_stack_chunk` makes the call it is given from a frame that asks for more than
half of a `STACK_CHUNK_BYTES` chunk: CPython maps one chunk of that size, the frame keeps
its (untouched, so never resident) first half, and every frame the call makes below it
fits in the other half up to a depth of thousands of calls, so none maps a chunk of its
own. Over the same theorems: 4,900 mappings, 40 % fewer page faults, half the system
time; in concurrent pairs the check was 5.0 % and 4.0 % faster (a 1 MiB chunk, set up by
the benchmark script) and 3.8 % (this code against the commit before it). Elsewhere than
CPython it is a plain call.
"""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "MMAP_THRESHOLD",
    "OLDEST_GENERATION_THRESHOLD",
    "keep_large_arrays_mapped",
    "STACK_CHUNK_BYTES",
    "keep_loaded_objects_uncollected",
    "on_one_stack_chunk",
]

T = TypeVar("T")

MMAP_THRESHOLD = 128 * 1024  # glibc's own initial value
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number, from glibc's malloc.h


def keep_large_arrays_mapped() -> bool:
    """Fix glibc's mmap threshold at `MMAP_THRESHOLD`; False where there is no glibc
    `mallopt` (or it refuses)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))


# collections of the middle generation between two of the oldest (Python's default: 10)
OLDEST_GENERATION_THRESHOLD = 100


def keep_loaded_objects_uncollected() -> int:
    """Leave every object this process holds now out of the cyclic collector's walks from
    now on (`gc.freeze`), and collect the oldest generation a tenth as often; returns how
    many objects were frozen. For a process that lives a bounded time (see the module)."""
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, OLDEST_GENERATION_THRESHOLD)
    return gc.get_freeze_count()


STACK_CHUNK_BYTES = 2 * 2**20
# CPython maps a chunk for a frame of `size` slots as the smallest power of two (from 16
# KiB) holding size + 1,000 slots of 8 bytes: a frame of this many slots gets a chunk of
# STACK_CHUNK_BYTES and leaves the other half of it to the frames below
_FRAME_SLOTS = STACK_CHUNK_BYTES // 2 // 8


def _call(fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
    return fn(*args, **kwargs)


# a code object's stack size is only an upper bound on what its frame uses: a larger one is
# safe, and makes each call of _call ask for that much room on the frame stack
_call.__code__ = _call.__code__.replace(co_stacksize=_FRAME_SLOTS)


def on_one_stack_chunk(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)`, its frames on one stack chunk of `STACK_CHUNK_BYTES` mapped
    once for the call (see the module)."""
    return _call(fn, args, kwargs)
