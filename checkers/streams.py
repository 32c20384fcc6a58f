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
stream's next word seeds one numpy `Generator(PCG64(word))` per trial, which
draws that block (numpy's own uniform, integer and normal algorithms). At that
size seeding a generator costs less than a tenth of what it saves; the choice
depends on the block's size alone, so it too is the same in any batch.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import numpy as np

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = (np.uint64(s) for s in (30, 27, 31, 11))
_UNIT = 2.0**-53
BULK = 4096


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

    def _generators(self, n: int) -> list[np.random.Generator] | None:
        """One numpy generator per trial, seeded from the next word, for a large block."""
        if n < BULK:
            return None
        return [np.random.Generator(np.random.PCG64(int(w))) for w in self.words(1)[:, 0]]

    def _bulk(self, shape: tuple[int, ...], rows: list[np.ndarray]) -> np.ndarray:
        return np.stack(rows).reshape(self.trials, *shape) if rows else np.empty((0, *shape))

    def random(self, shape: tuple[int, ...]) -> np.ndarray:
        """Uniform in [0, 1), 53 bits: (trials, *shape) float64."""
        n = _size(shape)
        gens = self._generators(n)
        if gens is not None:
            return self._bulk(shape, [g.random(n) for g in gens])
        return ((self.words(n) >> _S11) * _UNIT).reshape(self.trials, *shape)

    def uniform(self, low: float, high: float, shape: tuple[int, ...]) -> np.ndarray:
        return low + (high - low) * self.random(shape)

    def integers(self, low: int, high: int, shape: tuple[int, ...] = ()) -> np.ndarray:
        """Integers in [low, high): (trials, *shape) int64."""
        if high <= low:
            raise ValueError(f"integers: empty range [{low}, {high})")
        n = _size(shape)
        gens = self._generators(n)
        if gens is not None:
            return self._bulk(shape, [g.integers(low, high, n, dtype=np.int64) for g in gens])
        picked = np.floor(self.random(shape) * (high - low)).astype(np.int64)
        return low + np.minimum(picked, high - low - 1)

    def standard_normal(self, shape: tuple[int, ...]) -> np.ndarray:
        """Standard normals by Box–Muller: (trials, *shape) float64."""
        n = _size(shape)
        gens = self._generators(n)
        if gens is not None:
            return self._bulk(shape, [g.standard_normal(n) for g in gens])
        pairs = (n + 1) // 2
        u = (self.words(2 * pairs) >> _S11) * _UNIT
        radius = np.sqrt(-2.0 * np.log1p(-u[:, :pairs]))  # 1 - u lies in (0, 1]
        angle = (2.0 * np.pi) * u[:, pairs:]
        both = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
        return both[:, :n].reshape(self.trials, *shape)

    def lognormal(self, mean: float, sigma: float, shape: tuple[int, ...]) -> np.ndarray:
        return np.exp(mean + sigma * self.standard_normal(shape))


def _size(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n
