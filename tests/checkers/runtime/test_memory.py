"""Large arrays kept in mappings of their own (checkers/runtime/memory.py), on glibc."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

# after an 8 MiB array is freed, whether a 2 MiB one is served by a mapping of its own
PROBE = """
import ctypes, sys
import numpy as np
if sys.argv[1] == "checkers":
    import checkers
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]
mallinfo2 = ctypes.CDLL(None).mallinfo2
mallinfo2.restype = Info
a = np.ones(1 << 20)
del a
before = mallinfo2().hblkhd
b = np.ones(1 << 18)
print(mallinfo2().hblkhd - before >= b.nbytes)
"""


def _glibc_mallinfo2() -> bool:
    try:
        return hasattr(ctypes.CDLL(None), "mallinfo2")
    except OSError:
        return False


def _probe(imports: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PROOFBRIDGE_JAX_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, imports], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(not _glibc_mallinfo2(), reason="glibc's malloc (mallinfo2) only")
def test_import_checkers_keeps_large_arrays_mapped():
    # without it glibc raises its threshold to the freed 8 MiB and serves 2 MiB from the heap
    assert _probe("numpy") == "False"
    assert _probe("checkers") == "True"


# what `keep_loaded_objects_uncollected` leaves the collector, in a process of its own
FROZEN = """
import gc, weakref
from checkers.runtime.memory import OLDEST_GENERATION_THRESHOLD, keep_loaded_objects_uncollected

class Node:
    pass

loaded = [Node() for _ in range(1000)]
frozen = keep_loaded_objects_uncollected()
assert frozen >= 1000, frozen
assert gc.get_threshold()[2] == OLDEST_GENERATION_THRESHOLD
tracked = {id(o) for o in gc.get_objects()}
assert not any(id(o) in tracked for o in loaded)  # out of the collector's walks
gone = []
ref = weakref.ref(loaded[0], lambda _: gone.append(True))
del loaded[0]
assert gone  # still freed by its reference count
a, b = Node(), Node()
a.other, b.other = b, a
ref = weakref.ref(a)
del a, b
gc.collect()
assert ref() is None  # a cycle made afterwards is still collected
print("ok")
"""


def test_loaded_objects_are_frozen_and_later_cycles_still_collected() -> None:
    out = subprocess.run(
        [sys.executable, "-c", FROZEN],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def _page_faults_of(fn: Callable[..., object], *args: object) -> int:
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    fn(*args)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def _descend(depth: int) -> int:
    return 0 if depth == 0 else 1 + _descend(depth - 1)


def _oscillate(times: int) -> int:
    # from this frame, 200 calls deep and back, again and again: the frames cross the edge
    # of CPython's 16 KiB frame-stack chunks each time
    return sum(_descend(200) for _ in range(times))


@pytest.mark.skipif(
    sys.implementation.name != "cpython" or sys.version_info < (3, 11),
    reason="CPython's chunked frame stack (3.11 on)",
)
def test_frames_below_on_one_stack_chunk_map_no_chunk_of_their_own() -> None:
    from checkers.runtime.memory import on_one_stack_chunk

    # each crossing maps a fresh chunk, whose first page faults in
    assert _page_faults_of(_oscillate, 2000) >= 2000
    assert _page_faults_of(on_one_stack_chunk, _oscillate, 2000) < 100


def test_on_one_stack_chunk_calls_through() -> None:
    from checkers.runtime.memory import on_one_stack_chunk

    assert on_one_stack_chunk(divmod, 7, 2) == (3, 1)
    assert on_one_stack_chunk(sorted, [3, 1, 2], reverse=True) == [3, 2, 1]
    assert on_one_stack_chunk(_descend, 900) == 900
    with pytest.raises(ZeroDivisionError):
        on_one_stack_chunk(divmod, 1, 0)
