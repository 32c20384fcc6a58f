"""Large arrays kept in mappings of their own (checkers/memory.py), on glibc."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

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
from checkers.memory import OLDEST_GENERATION_THRESHOLD, keep_loaded_objects_uncollected

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
