"""Sampling: named samplers, reproducible keys, dimension draws and `Fin` enumeration.

Keys. Every random value is drawn from a numpy `Generator` whose seed is a
hash of (theorem name, seed, dims) plus the trial number and the input's name,
so that any single trial can be redrawn on its own, on any machine, and adding
an input to a checker does not change the values of the others. Sampling runs
in numpy, outside the compiled program: it costs no compilation and is the
same on every device.

`Fin` inputs. When the product of the ranges of a trial's `fin` inputs is at
most the number of trials, every index tuple is enumerated: trial `t` takes
tuple number `t mod P` in row-major order (the first input varies slowest), so
each tuple is checked at least once and the real inputs are fresh in every
trial. Otherwise each `fin` input is drawn uniformly. `nat` and `index_map`
inputs are always drawn.

Stress. In float64 mode, two trials in every 8 scale the continuous real
inputs by 1e-3 and by 10, so that both the absolute and the relative part of the
tolerance are exercised (with enumerated `Fin` tuples the cycle shifts by one
each round, so every tuple meets every scale); the low-precision modes draw at
scale 1.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from checkers import seeding
from checkers.core import FIN, INDEX_MAP, NAT, REAL, DimConstraint, InputSpec

Key = np.random.Generator
Sample = Callable[[Key], np.ndarray]
SamplerFactory = Callable[[tuple[int, ...]], Sample]


@dataclass(frozen=True)
class Sampler:
    """A named distribution: `factory(shape)` returns `(key) -> array of that shape`."""

    name: str
    factory: SamplerFactory
    stress: bool  # whether the trial's stress scale applies


SAMPLERS: dict[str, Sampler] = {}


def _sampler(name: str, *, stress: bool = True) -> Callable[[SamplerFactory], SamplerFactory]:
    def register(factory: SamplerFactory) -> SamplerFactory:
        SAMPLERS[name] = Sampler(name, factory, stress)
        return factory

    return register


@_sampler("normal")
def normal(shape: tuple[int, ...]) -> Sample:
    return lambda key: key.standard_normal(shape)


@_sampler("uniform")
def uniform(shape: tuple[int, ...]) -> Sample:
    return lambda key: key.uniform(-1.0, 1.0, shape)


@_sampler("positive")
def positive(shape: tuple[int, ...]) -> Sample:
    return lambda key: key.lognormal(0.0, 1.0, shape)


@_sampler("nonnegative")
def nonnegative(shape: tuple[int, ...]) -> Sample:
    return lambda key: np.abs(key.standard_normal(shape))


@_sampler("unit", stress=False)
def unit(shape: tuple[int, ...]) -> Sample:
    return lambda key: key.uniform(0.0, 1.0, shape)


@_sampler("small_int", stress=False)
def small_int(shape: tuple[int, ...]) -> Sample:
    return lambda key: key.integers(-3, 4, shape).astype(np.float64)


@_sampler("zeros", stress=False)
def zeros(shape: tuple[int, ...]) -> Sample:
    return lambda key: np.zeros(shape)


@_sampler("ones", stress=False)
def ones(shape: tuple[int, ...]) -> Sample:
    return lambda key: np.ones(shape)


STRESS_CYCLE = (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1e-3, 10.0)


def stress_scale(trial: int, dtype: str) -> float:
    return STRESS_CYCLE[trial % len(STRESS_CYCLE)] if dtype == "float64" else 1.0


def apply_constraint(x: np.ndarray, constraint: str | None) -> np.ndarray:
    """Make a drawn real array satisfy `positive`, `nonnegative` or `nonzero`."""
    if constraint is None:
        return x
    if constraint == "nonnegative":
        return np.abs(x)
    if constraint == "positive":
        x = np.abs(x)
    return np.where(x == 0, 1.0, x)


def satisfies(x: np.ndarray, constraint: str | None) -> bool:
    if constraint == "positive":
        return bool(np.all(x > 0))
    if constraint == "nonnegative":
        return bool(np.all(x >= 0))
    if constraint == "nonzero":
        return bool(np.all(x != 0))
    return True


# --- keys ------------------------------------------------------------------


def seed_words(*parts: Any) -> tuple[int, ...]:
    """Four 32-bit words from a hash of JSON-able parts (stable across runs and machines)."""
    raw = json.dumps(parts, ensure_ascii=False, separators=(",", ":")).encode()
    digest = hashlib.sha256(raw).digest()
    return tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))


def draw_key(name: str, seed: int, dims: Mapping[str, int]) -> tuple[int, ...]:
    """The key of one dims draw of one theorem at one seed."""
    return seed_words("trial", name, int(seed), sorted((k, int(v)) for k, v in dims.items()))


_WORD = 1 << 32


def input_key(base: tuple[int, ...], trial: int, input_name: str) -> Key:
    entropy = [*base, int(trial), zlib.crc32(input_name.encode())]
    if all(0 <= w < _WORD for w in entropy):
        # the same entropy words as the list, which SeedSequence would otherwise
        # convert one Python int at a time (three times slower)
        words: list[int] | np.ndarray = np.array(entropy, dtype=np.uint32)
    else:
        words = entropy
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(words)))


# --- Fin enumeration -------------------------------------------------------


@dataclass(frozen=True)
class FinPlan:
    """How the `fin` inputs of a draw are chosen: enumerated (cycled over trials) or drawn."""

    names: tuple[str, ...]
    highs: tuple[int, ...]
    enumerated: bool

    @property
    def total(self) -> int:
        n = 1
        for h in self.highs:
            n *= h
        return n

    def tuple_for(self, trial: int) -> dict[str, int]:
        """The enumerated index tuple of a trial (row-major, first input slowest)."""
        rest = trial % self.total
        values: dict[str, int] = {}
        for name, high in zip(reversed(self.names), reversed(self.highs), strict=True):
            rest, values[name] = divmod(rest, high)
        return {n: values[n] for n in self.names}


def fin_plan(specs: Mapping[str, InputSpec], trials: int) -> FinPlan:
    names = tuple(n for n, s in specs.items() if s.kind == FIN)
    highs = tuple(int(specs[n].high or 0) for n in names)
    plan = FinPlan(names, highs, enumerated=False)
    return FinPlan(names, highs, enumerated=bool(names) and 0 < plan.total <= trials)


# --- trials ----------------------------------------------------------------


def sample_input(spec: InputSpec, key: Key, scale: float = 1.0) -> np.ndarray:
    """One input's value in one trial (float64 for reals, int64 otherwise)."""
    if spec.kind == REAL:
        sampler = SAMPLERS.get(spec.distribution)
        if sampler is None:
            raise ValueError(
                f"unknown distribution {spec.distribution!r} (known: {', '.join(sorted(SAMPLERS))})"
            )
        x = np.asarray(sampler.factory(spec.shape)(key), dtype=np.float64).reshape(spec.shape)
        if sampler.stress and scale != 1.0:
            x = x * scale
        return apply_constraint(x, spec.constraint)
    if spec.kind == NAT:
        assert spec.hi is not None
        return np.asarray(key.integers(spec.lo, spec.hi + 1), dtype=np.int64)
    if spec.kind == FIN:
        return np.asarray(key.integers(0, spec.high or 1), dtype=np.int64)
    if spec.kind == INDEX_MAP:
        return key.integers(0, max(spec.high or 0, 1), spec.shape).astype(np.int64)
    raise ValueError(f"unknown input kind {spec.kind!r}")


def sample_trial(
    specs: Mapping[str, InputSpec],
    plan: FinPlan,
    base: tuple[int, ...],
    trial: int,
    dtype: str = "float64",
) -> dict[str, np.ndarray]:
    """Every input of one trial, reproducibly from (draw key, trial)."""
    return _sample_trial(specs, plan, trial, dtype, lambda name: input_key(base, trial, name))


def _sample_trial(
    specs: Mapping[str, InputSpec],
    plan: FinPlan,
    trial: int,
    dtype: str,
    key: Callable[[str], Key],
) -> dict[str, np.ndarray]:
    enumerated = plan.tuple_for(trial) if plan.enumerated else {}
    # when index tuples repeat every P trials, shift the stress cycle by one per round so
    # that each tuple meets every scale rather than always the same one
    scale = stress_scale(trial + (trial // plan.total if plan.enumerated else 0), dtype)
    values: dict[str, np.ndarray] = {}
    for name, spec in specs.items():
        if name in enumerated:
            values[name] = np.asarray(enumerated[name], dtype=np.int64)
        else:
            values[name] = sample_input(spec, key(name), scale)
    return values


def sample_batch(
    specs: Mapping[str, InputSpec],
    plan: FinPlan,
    base: tuple[int, ...],
    trials: Iterable[int],
    dtype: str = "float64",
) -> dict[str, np.ndarray]:
    """`sample_trial` for several trials, stacked along a new leading axis.

    The same values as `sample_trial`, with the generators of all trials seeded
    at once (`seeding`), which is several times faster.
    """
    trials = [int(t) for t in trials]
    drawn = [n for n in specs if not (plan.enumerated and n in plan.names)]
    crcs = [zlib.crc32(n.encode()) for n in drawn]
    keys: dict[tuple[int, str], Key] = {}
    if drawn and trials and all(0 <= t < _WORD for t in trials):
        entropy = np.array(
            [[*base, t, crc] for t in trials for crc in crcs], dtype=np.uint64
        ).reshape(-1, len(base) + 2)
        made = iter(seeding.generators(entropy))
        keys = {(t, n): next(made) for t in trials for n in drawn}

    def key_for(trial: int) -> Callable[[str], Key]:
        return lambda name: (
            keys[trial, name] if (trial, name) in keys else input_key(base, trial, name)
        )

    rows = [_sample_trial(specs, plan, t, dtype, key_for(t)) for t in trials]
    return {name: np.stack([r[name] for r in rows]) for name in specs}


# --- dimension draws -------------------------------------------------------


class DimsError(ValueError):
    """No dimensions satisfy the pins and constraints."""


_ENUMERATION_LIMIT = 20_000
_SPREAD_POOL = 2_048


def draw_dims(
    name: str,
    seed: int,
    dim_names: Sequence[str],
    *,
    fixed: Mapping[str, int] | None = None,
    pinned: Mapping[str, int] | None = None,
    constraints: Sequence[DimConstraint] = (),
    draws: int = 4,
    low: int = 1,
    high: int = 5,
) -> list[dict[str, int]]:
    """Reproducible dims draws: distinct small values per draw, distinct draws.

    Fixed dims (literals of the statement) always win over pins; pinned dims
    keep their value in every draw; the free ones take values in `low..high`
    (widened so that all free dims can differ), all different within a draw
    when possible. Returns at most `draws` draws (fewer when fewer exist).
    Raises DimsError when nothing satisfies the constraints.
    """
    fixed = dict(fixed or {})
    pins = {k: int(v) for k, v in (pinned or {}).items() if k in dim_names and k not in fixed}
    free = [d for d in dim_names if d not in fixed and d not in pins]
    top = max(high, low + len(free) - 1)
    rng = np.random.default_rng(list(seed_words("dims", name, int(seed), sorted(pins.items()))))

    def complete(values: Sequence[int]) -> dict[str, int]:
        out = dict(zip(free, (int(v) for v in values), strict=True))
        out.update(pins)
        ordered = {d: out[d] for d in dim_names if d in out}
        ordered.update(fixed)
        return ordered

    def ok(dims: Mapping[str, int]) -> bool:
        return all(c.holds(dims) for c in constraints)

    if (top - low + 1) ** len(free) <= _ENUMERATION_LIMIT:
        candidates = [complete(v) for v in itertools.product(range(low, top + 1), repeat=len(free))]
        candidates = [c for c in candidates if ok(c)]
        distinct = [c for c in candidates if len({c[d] for d in free}) == len(free)]
        repeated = [c for c in candidates if len({c[d] for d in free}) != len(free)]
        order = [distinct[i] for i in rng.permutation(len(distinct))]
        order += [repeated[i] for i in rng.permutation(len(repeated))]
        # the candidates are shuffled, so a prefix is as good a pool as all of them
        pool = order[:_SPREAD_POOL]
        chosen = _spread(pool, free, draws, n_distinct=min(len(distinct), len(pool)))
    else:
        chosen = []
        seen: set[tuple[int, ...]] = set()
        for _ in range(1000 * draws):
            values = rng.choice(np.arange(low, top + 1), size=len(free), replace=False)
            key = tuple(int(v) for v in values)
            dims = complete(key)
            if key not in seen and ok(dims):
                seen.add(key)
                chosen.append(dims)
                if len(chosen) == draws:
                    break
    if not chosen:
        what = ", ".join(str(c) for c in constraints) or "the constraints"
        where = f"{low}..{top}" if free else "the given values"
        given = {**pins, **fixed}
        raise DimsError(
            f"no dimensions in {where} satisfy {what}"
            + (f" with {_format_dims(given)}" if given else "")
        )
    return chosen


def _spread(
    order: Sequence[dict[str, int]], free: Sequence[str], draws: int, *, n_distinct: int
) -> list[dict[str, int]]:
    """Up to `draws` candidates from `order` (shuffled, the distinct-valued ones first) such
    that each free dimension takes as many different values across the draws as it can:
    every pick is the earliest candidate that keeps distinct values within the draw and
    brings the most values not drawn yet, so no dimension stays at one value by chance."""
    chosen: list[dict[str, int]] = []
    taken: set[int] = set()
    seen: dict[str, set[int]] = {d: set() for d in free}
    while len(chosen) < min(draws, len(order)):
        best, best_key = -1, (-1, -1)
        for i, c in enumerate(order):
            if i in taken:
                continue
            key = (int(i < n_distinct), sum(c[d] not in seen[d] for d in free))
            if key > best_key:
                best, best_key = i, key
        taken.add(best)
        chosen.append(order[best])
        for d in free:
            seen[d].add(order[best][d])
    return chosen


def _format_dims(dims: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in dims.items())
