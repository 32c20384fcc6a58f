"""Many numpy generators at once, each exactly `PCG64(SeedSequence(entropy))`.

Sampling draws every input of every trial from its own generator (see
`sampling`), so a check of 64 trials over 4 dims draws builds about a thousand
of them. numpy builds each `SeedSequence` and seeds each `PCG64` one at a time
in about 25 µs, which made seeding the largest cost of a check whose programs
are already compiled. Here the SeedSequence algorithm (numpy's
`bit_generator.pyx`: the entropy is hashed into a pool of four 32-bit words,
which `generate_state` hashes into the words PCG64 is seeded with) runs on
whole arrays of entropy at once, and each generator is seeded from its
precomputed words through numpy's public `ISeedSequence` interface. The
streams are bit-for-bit those of `PCG64(SeedSequence(entropy))`; the tests
compare them on random entropy.

Only entropy given as 32-bit words (every value below 2**32) without a spawn
key is handled; that is all `sampling` uses.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from numpy.random.bit_generator import ISeedSequence

POOL_SIZE = 4
_INIT_A = 0x43B0D7E5
_MULT_A = 0x931E8875
_INIT_B = 0x8B51F9DD
_MULT_B = 0x58F38DED
_MIX_MULT_L = 0xCA01F9DD
_MIX_MULT_R = 0x4973F715
_XSHIFT = np.uint64(16)
_M32 = np.uint64(0xFFFFFFFF)


class _Hash:
    """numpy's `hashmix`, with its running hash constant, on uint32 values held in uint64."""

    def __init__(self) -> None:
        self.const = _INIT_A

    def __call__(self, value: np.ndarray) -> np.ndarray:
        value = (value ^ np.uint64(self.const)) & _M32
        self.const = (self.const * _MULT_A) & 0xFFFFFFFF
        value = (value * np.uint64(self.const)) & _M32
        return value ^ (value >> _XSHIFT)


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    left = np.multiply(np.uint64(_MIX_MULT_L), x, dtype=np.uint64)
    right = np.multiply(np.uint64(_MIX_MULT_R), y, dtype=np.uint64)
    result = np.subtract(left, right, dtype=np.uint64) & _M32
    return result ^ (result >> _XSHIFT)


def pcg64_seeds(entropy: np.ndarray) -> np.ndarray:
    """`SeedSequence(row).generate_state(4, np.uint64)` for every row of 32-bit entropy words.

    `entropy` has shape (k, n), n >= 1, every value in [0, 2**32). Returns (k, 4) uint64.
    """
    words = np.asarray(entropy, dtype=np.uint64)
    if words.ndim != 2 or words.shape[1] < 1:
        raise ValueError(f"entropy must be a (k, n) array with n >= 1, got shape {words.shape}")
    if words.size and int(words.max()) > 0xFFFFFFFF:
        raise ValueError("entropy words must be below 2**32")
    k, n = words.shape
    hashmix = _Hash()
    zeros = np.zeros(k, dtype=np.uint64)
    pool = [hashmix(words[:, i] if i < n else zeros) for i in range(POOL_SIZE)]
    for src in range(POOL_SIZE):
        for dst in range(POOL_SIZE):
            if src != dst:
                pool[dst] = _mix(pool[dst], hashmix(pool[src]))
    for src in range(POOL_SIZE, n):
        for dst in range(POOL_SIZE):
            pool[dst] = _mix(pool[dst], hashmix(words[:, src]))
    const = _INIT_B
    out = []
    for i in range(2 * 4):  # 4 uint64 = 8 uint32 words, cycling through the pool
        value = (pool[i % POOL_SIZE] ^ np.uint64(const)) & _M32
        const = (const * _MULT_B) & 0xFFFFFFFF
        value = (value * np.uint64(const)) & _M32
        out.append(value ^ (value >> _XSHIFT))
    # little-endian pairs of uint32 words make the uint64 words
    return np.stack([out[2 * j] | (out[2 * j + 1] << np.uint64(32)) for j in range(4)], axis=1)


class Seeded(ISeedSequence):
    """A seed sequence whose `generate_state(4, uint64)` was computed by `pcg64_seeds`."""

    __slots__ = ("_state",)

    def __init__(self, state: np.ndarray) -> None:
        self._state = np.asarray(state, dtype=np.uint64)

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        if n_words != 4 or np.dtype(dtype) != np.uint64:
            raise ValueError("only the state PCG64 asks for (4 uint64 words) is precomputed")
        return self._state.copy()


def generators(entropy: np.ndarray) -> list[np.random.Generator]:
    """`Generator(PCG64(SeedSequence(row)))` for every row of 32-bit entropy words."""
    # PCG64 takes any ISeedSequence (numpy's stubs only name SeedSequence)
    return [
        np.random.Generator(np.random.PCG64(cast(Any, Seeded(s)))) for s in pcg64_seeds(entropy)
    ]
