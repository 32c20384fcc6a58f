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
"""

from __future__ import annotations

import ctypes
import gc

__all__ = [
    "MMAP_THRESHOLD",
    "OLDEST_GENERATION_THRESHOLD",
    "keep_large_arrays_mapped",
    "keep_loaded_objects_uncollected",
]

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
