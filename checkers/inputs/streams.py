"""Counter-based random streams: every value is a pure function of (key, trial, position).

A check draws every input of every trial in one go. Each input of a dims draw
has a 64-bit key (`input_key`: a hash of the draw key and the input's name).
Trial `t` of that input has the stream key `mix(key + (t + 1)·γ)`, and the
`i`-th 64-bit word of that stream is `mix(stream + (i + 1)·γ)`: SplitMix64,
with `γ` its odd golden-ratio increment and `mix` its variant-13 finaliser
(Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014). A trial's values therefore depend on nothing but the key, the
trial number and the position, never on which or how many other trials are
drawn with it, and a whole (trials × values) block costs a handful of
vectorised integer operations instead of one generator per trial and input.

Distributions, from 53-bit uniforms `u = (word >> 11) · 2⁻⁵³` in [0, 1):
uniform reals scale `u`; integers in [low, high) are `low + ⌊u·(high - low)⌋`;
normals come in pairs from two words by Box–Muller with `1 - u` (never 0)
as the radius' uniform; lognormals are `exp` of normals.

Large blocks. Where one call asks for at least `BULK` values per trial, the
stream's next four words set the state of one numpy PCG64 per trial (128-bit
state from the first two, increment from the last two with its low bit set),
which draws that block with numpy's own algorithms (ziggurat normals): for
blocks that size this is faster than Box–Muller on stream words, and setting a
state costs about a microsecond. The choice depends on the block's size alone,
so it too is the same in any batch. Rows of a block of at least `PARALLEL`
values are drawn in threads (numpy fills arrays without holding the GIL); each
row's values are fixed by its own state, whichever thread draws it.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = (np.uint64(s) for s in (30, 27, 31, 11))
_UNIT = 2.0**-53
BULK = 256
PARALLEL = 1 << 16  # values in a large block from which its rows are drawn in threads


def mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on a uint64 array (wrapping arithmetic)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def input_key(base: Sequence[int], name: str) -> int:
    """The 64-bit key of one input of one dims draw (`base` is the draw's key words)."""
    raw = json.dumps([[int(w) for w in base], name], ensure_ascii=False).encode()
    return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "little")


class Stream:
    """The streams of one input for several trials; each call takes the next positions.

    Every method returns an array with a leading axis over the trials, in the
    order they were given. Positions are counted the same way whatever the
    trials, so trial `t`'s values are the same in any batch.
    """

    def __init__(self, key: int, trials: Sequence[int] | np.ndarray) -> None:
        t = np.asarray(trials, dtype=np.uint64).reshape(-1)
        self._trial_keys = mix(np.uint64(key & 0xFFFFFFFFFFFFFFFF) + (t + np.uint64(1)) * _GAMMA)
        self._used = 0

    @property
    def trials(self) -> int:
        return int(self._trial_keys.shape[0])

    def words(self, n: int) -> np.ndarray:
        """The next `n` 64-bit words of every trial's stream: (trials, n) uint64."""
        positions = np.arange(self._used + 1, self._used + n + 1, dtype=np.uint64)
        self._used += n
        return mix(self._trial_keys[:, None] + positions[None, :] * _GAMMA)

    def _block(
        self, shape: tuple[int, ...], dtype: Any, fill: Callable[[np.random.Generator, Any], None]
    ) -> np.ndarray | None:
        """A large block: each trial's row filled by a numpy PCG64 whose state the stream
        sets (None when the block is small)."""
        n = _size(shape)
        if n < BULK:
            return None
        out = np.empty((self.trials, n), dtype=dtype)
        words = self.words(4)

        def draw(rows: Sequence[int]) -> None:
            bits = np.random.PCG64(0)
            gen = np.random.Generator(bits)
            for r in rows:
                bits.state = pcg64_state(words[r])
                fill(gen, out[r])

        workers = _workers()
        if workers > 1 and self.trials > 1 and out.size >= PARALLEL:
            # numpy fills without the GIL: the rows are independent, so threads share them
            list(_pool().map(draw, [range(k, self.trials, workers) for k in range(workers)]))
        else:
            draw(range(self.trials))
        return out.reshape(self.trials, *shape)

    def random(self, shape: tuple[int, ...]) -> np.ndarray:
        """Uniform in [0, 1), 53 bits: (trials, *shape) float64."""
        block = self._block(shape, np.float64, lambda g, row: g.random(out=row))
        if block is not None:
            return block
        n = _size(shape)
        return ((self.words(n) >> _S11) * _UNIT).reshape(self.trials, *shape)

    def uniform(self, low: float, high: float, shape: tuple[int, ...]) -> np.ndarray:
        return low + (high - low) * self.random(shape)

    def integers(self, low: int, high: int, shape: tuple[int, ...] = ()) -> np.ndarray:
        """Integers in [low, high): (trials, *shape) int64."""
        if high <= low:
            raise ValueError(f"integers: empty range [{low}, {high})")
        block = self._block(
            shape, np.int64, lambda g, row: _put(row, g.integers(low, high, row.size))
        )
        if block is not None:
            return block
        picked = np.floor(self.random(shape) * (high - low)).astype(np.int64)
        return low + np.minimum(picked, high - low - 1)

    def standard_normal(self, shape: tuple[int, ...]) -> np.ndarray:
        """Standard normals (Box–Muller on stream words below `BULK`): (trials, *shape)."""
        block = self._block(shape, np.float64, lambda g, row: g.standard_normal(out=row))
        if block is not None:
            return block
        n = _size(shape)
        pairs = (n + 1) // 2
        u = (self.words(2 * pairs) >> _S11) * _UNIT
        radius = np.sqrt(-2.0 * np.log1p(-u[:, :pairs]))  # 1 - u lies in (0, 1]
        angle = (2.0 * np.pi) * u[:, pairs:]
        both = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
        return both[:, :n].reshape(self.trials, *shape)

    def lognormal(self, mean: float, sigma: float, shape: tuple[int, ...]) -> np.ndarray:
        return np.exp(mean + sigma * self.standard_normal(shape))


def pcg64_state(words: Sequence[int] | np.ndarray) -> Any:
    """The PCG64 state that four 64-bit stream words give (see the module's docstring)."""
    w = [int(x) for x in words]
    return {
        "bit_generator": "PCG64",
        "state": {"state": (w[0] << 64) | w[1], "inc": (w[2] << 64) | w[3] | 1},
        "has_uint32": 0,
        "uinteger": 0,
    }


_POOL: tuple[int, ThreadPoolExecutor] | None = None
_POOL_LOCK = threading.Lock()


def _workers() -> int:
    return min(8, os.cpu_count() or 1)


def _pool() -> ThreadPoolExecutor:
    """This process's sampling threads (made again after a fork)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL[0] != os.getpid():
            _POOL = (os.getpid(), ThreadPoolExecutor(_workers(), thread_name_prefix="sampling"))
        return _POOL[1]


def _put(row: np.ndarray, values: np.ndarray) -> None:
    row[...] = values


def _size(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


def seed_words(*parts: Any) -> tuple[int, ...]:
    """Four 32-bit words from a hash of JSON-able parts (stable across runs and machines)."""
    raw = json.dumps(parts, ensure_ascii=False, separators=(",", ":")).encode()
    digest = hashlib.sha256(raw).digest()
    return tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))
