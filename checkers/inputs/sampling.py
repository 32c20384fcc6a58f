"""Sampling: named samplers, reproducible keys and `Fin` enumeration (the dimension draws,
`draw_dims`, are in dims.py and named here too).

Keys. Every random value is a pure function of (theorem name, seed, dims),
the input's name, the trial number and its position (`streams`), so that any
single trial can be redrawn on its own, on any machine, that a batch of trials
is drawn for all trials at once, and that adding an input to a checker does not
change the values of the others. Sampling runs in numpy, outside the compiled
program: it costs no compilation and is the same on every device.

`Fin` inputs. When the product of the ranges of a trial's `fin` inputs is at
most the number of trials, every index tuple is enumerated: trial `t` takes
tuple number `t mod P` in row-major order (the first input varies slowest), so
each tuple is checked at least once and the real inputs are fresh in every
trial. Otherwise each `fin` input is drawn uniformly. `nat` and `index_map`
inputs are always drawn.

Scales. In float64 mode each trial draws all its stressed real inputs at one
scale, from `STRESS_CYCLE` by trial number: 1 in five trials of every eight,
then 1e-3, 10 and 1e3. Unit scale is where most of a statement's structure
lives; 1e-3 makes the absolute part of the tolerance matter, 10 and 1e3 the
relative part, and 1e3 also refutes bounds that are only loose at small values
(`x ≤ 2 + A` written for `x ≤ 2 * A`); beyond 1e3 float64 overflows too often
in ordinary statements (a product of a few dozen inputs, an `exp`). With `P`
enumerated `Fin` tuples, trial `t` (tuple `t mod P` of round `t div P`) takes
scale number `t`, or `t + t div P` where `P` is even: every tuple meets every
scale in turn, whatever `P`, and the first eight trials meet every scale, as
without enumeration (numbering by `t mod P + t div P` left a statement with
three tuples at 16 trials without a single trial at 1e3). The low-precision modes
draw at scale 1. A trial can be drawn at another scale whatever its number
(`scale_as`): the harness re-draws a trial whose sides overflow at a stressed
scale so (evaluation.py).

Bounds. A real input's `bounds` are met by construction (bounds.py), the
inputs they read drawn first.

Regimes. Some trials, by trial number, draw inputs where a false statement
often fails: close together, on a hypothesis's edge, at 0 and ±1, one input tiny beside
the others, the negation of an earlier trial's draw at the same extreme scale (regimes.py).
The rest are drawn as above.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from checkers.core import FIN, INDEX_MAP, INT, NAT, REAL, InputSpec
from checkers.inputs.bounded import apply_bounds, bounds_order
from checkers.inputs.dims import DimsError as DimsError
from checkers.inputs.dims import _draw_dims as _draw_dims
from checkers.inputs.dims import draw_dims as draw_dims
from checkers.inputs.regimes import (
    NEGATIVE,
    ZERO,
    antithetic_sources,
    complex_partner,
    lopsided_candidates,
    lopsided_scales,
    near_values,
    partners,
    regimes,
    with_boundary_values,
    with_partner_boundary,
)
from checkers.inputs.streams import Stream, input_key, seed_words

Sample = Callable[[Stream, tuple[int, ...]], np.ndarray]


@dataclass(frozen=True)
class Sampler:
    """A named distribution: `draw(stream, shape)` returns (trials, *shape) float64."""

    name: str
    draw: Sample
    stress: bool  # whether the trial's stress scale applies
    symmetric: bool = False  # whether -x is as likely as x (antithetic trials negate it)


SAMPLERS: dict[str, Sampler] = {}


def _sampler(
    name: str, *, stress: bool = True, symmetric: bool = False
) -> Callable[[Sample], Sample]:
    def register(draw: Sample) -> Sample:
        SAMPLERS[name] = Sampler(name, draw, stress, symmetric)
        return draw

    return register


@_sampler("normal", symmetric=True)
def normal(stream: Stream, shape: tuple[int, ...]) -> np.ndarray:
    return stream.standard_normal(shape)


@_sampler("uniform", symmetric=True)
def uniform(stream: Stream, shape: tuple[int, ...]) -> np.ndarray:
    return stream.uniform(-1.0, 1.0, shape)


@_sampler("positive")
def positive(stream: Stream, shape: tuple[int, ...]) -> np.ndarray:
    return stream.lognormal(0.0, 1.0, shape)


@_sampler("nonnegative")
def nonnegative(stream: Stream, shape: tuple[int, ...]) -> np.ndarray:
    return np.abs(stream.standard_normal(shape))


@_sampler("unit", stress=False)
def unit(stream: Stream, shape: tuple[int, ...]) -> np.ndarray:
    return stream.random(shape)


@_sampler("roundoff", stress=False)
def roundoff(stream: Stream, shape: tuple[int, ...]) -> np.ndarray:
    """A unit roundoff: 2^-k for k uniform in [1, 30] (binary32's 2^-24 and bfloat16's
    2^-8 inside), so that every precision from fp8 to beyond binary32 is drawn."""
    return np.exp2(-stream.uniform(1.0, 30.0, shape))


@_sampler("small_int", stress=False, symmetric=True)
def small_int(stream: Stream, shape: tuple[int, ...]) -> np.ndarray:
    return stream.integers(-3, 4, shape).astype(np.float64)


@_sampler("zeros", stress=False)
def zeros(stream: Stream, shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros((stream.trials, *shape))


@_sampler("ones", stress=False)
def ones(stream: Stream, shape: tuple[int, ...]) -> np.ndarray:
    return np.ones((stream.trials, *shape))


STRESS_CYCLE = (1.0, 1.0, 1.0, 1.0, 1.0, 1e-3, 10.0, 1e3)


def stress_scales(trials: np.ndarray, dtype: str) -> np.ndarray:
    """The stress scale of each trial number (1 in the low-precision modes)."""
    if dtype != "float64":
        return np.ones(np.shape(trials))
    return np.asarray(STRESS_CYCLE)[np.asarray(trials) % len(STRESS_CYCLE)]


def stress_scale(trial: int, dtype: str) -> float:
    return float(stress_scales(np.asarray(trial), dtype))


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


def draw_key(name: str, seed: int, dims: Mapping[str, int]) -> tuple[int, ...]:
    """The key of one dims draw of one theorem at one seed."""
    return seed_words("trial", name, int(seed), sorted((k, int(v)) for k, v in dims.items()))


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

    def tuple_for(self, trial: np.ndarray) -> dict[str, np.ndarray]:
        """The enumerated index tuple of each trial (row-major, first input slowest)."""
        rest = trial % self.total
        values: dict[str, np.ndarray] = {}
        for name, high in zip(reversed(self.names), reversed(self.highs), strict=True):
            rest, values[name] = divmod(rest, high)
        return {n: values[n] for n in self.names}


def fin_plan(specs: Mapping[str, InputSpec], trials: int) -> FinPlan:
    names = tuple(n for n, s in specs.items() if s.kind == FIN)
    highs = tuple(int(specs[n].high or 0) for n in names)
    plan = FinPlan(names, highs, enumerated=False)
    return FinPlan(names, highs, enumerated=bool(names) and 0 < plan.total <= trials)


# --- trials ----------------------------------------------------------------


def sample_input(
    spec: InputSpec,
    stream: Stream,
    scales: np.ndarray | float = 1.0,
    drawn: Mapping[str, np.ndarray] | None = None,
    tight: np.ndarray | None = None,
) -> np.ndarray:
    """One input's values in every trial of `stream`: (trials, *shape), float64 for reals,
    int64 otherwise. `scales` (one per trial, or one for all) applies to stressed reals;
    `drawn` holds the inputs the spec's bounds read; in the `tight` trials (a bool per
    trial) a bounded input sits at its bounds."""
    if spec.kind == REAL:
        sampler = SAMPLERS.get(spec.distribution)
        if sampler is None:
            raise ValueError(
                f"unknown distribution {spec.distribution!r} (known: {', '.join(sorted(SAMPLERS))})"
            )
        z = np.asarray(sampler.draw(stream, spec.shape), dtype=np.float64)
        s = np.asarray(scales if sampler.stress else 1.0, dtype=np.float64)
        s = np.broadcast_to(s.reshape(s.shape + (1,) * (z.ndim - s.ndim)), z.shape)
        x = apply_constraint(z * s, spec.constraint)
        edge = None if tight is None else np.asarray(tight, dtype=bool)
        if edge is not None:
            edge = np.broadcast_to(edge.reshape(edge.shape + (1,) * (z.ndim - 1)), z.shape)
        return apply_bounds(x, z, s, spec.bounds, drawn or {}, spec.constraint, edge)
    if spec.kind == NAT:
        assert spec.hi is not None
        return stream.integers(spec.lo, spec.hi + 1)
    if spec.kind == INT:
        assert spec.hi is not None
        return stream.integers(spec.lo, spec.hi + 1, spec.shape)
    if spec.kind == FIN:
        return stream.integers(0, spec.high or 1)
    if spec.kind == INDEX_MAP:
        return stream.integers(0, max(spec.high or 0, 1), spec.shape)
    raise ValueError(f"unknown input kind {spec.kind!r}")


def sample_trial(
    specs: Mapping[str, InputSpec],
    plan: FinPlan,
    base: tuple[int, ...],
    trial: int,
    dtype: str = "float64",
    *,
    scale: float | None = None,
) -> dict[str, np.ndarray]:
    """Every input of one trial, reproducibly from (draw key, trial): row `trial` of
    `sample_batch`, whatever the batch (`scale`: drawn at that scale instead of its own)."""
    at = np.array([np.nan if scale is None else float(scale)])
    batch = sample_batch(specs, plan, base, [trial], dtype, scale_as=at)
    return {n: v[0] for n, v in batch.items()}


def sample_batch(
    specs: Mapping[str, InputSpec],
    plan: FinPlan,
    base: tuple[int, ...],
    trials: Iterable[int],
    dtype: str = "float64",
    *,
    scale_as: np.ndarray | None = None,
    plain: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Every input of several trials, stacked along a new leading axis (one per trial);
    `scale_as` (a scale per trial, NaN for its own) draws those trials at that scale instead
    of their stress scale; `plain` (a bool per trial) draws those without boundary values."""
    t = np.array([int(x) for x in trials], dtype=np.int64)
    if t.size and t.min() < 0:
        raise ValueError("trial numbers must be non-negative")
    values: dict[str, np.ndarray] = {}
    if plan.enumerated:
        values.update(plan.tuple_for(t))  # trial t takes tuple number t mod P
    scales = trial_scales(specs, plan, t, dtype)
    if scale_as is not None:
        at = np.asarray(scale_as, dtype=np.float64)
        scales = np.where(np.isnan(at), scales, at)
    regime = regimes(t, dtype)
    near, tight, edge = regime.near, regime.tight, regime.boundary
    if plain is not None:
        edge = edge & ~np.asarray(plain, dtype=bool)
    partner = partners(specs) if near.any() else {}
    source, sign = antithetic_sources(t, dtype)
    flipped = bool((sign < 0).any())
    lopsided: frozenset[str] = frozenset()
    if regime.lopsided.any():
        stressed = frozenset(
            n for n, s in specs.items() if s.kind == REAL and _stressed(s.distribution)
        )
        lopsided = lopsided_candidates(specs, stressed)
    for name in bounds_order(specs):
        if name in values:
            continue
        spec = specs[name]
        s = scales
        if name in lopsided:
            pick = Stream(input_key(base, f"{name}#lopsided"), t)
            s = lopsided_scales(scales, pick, regime.lopsided, len(lopsided) == 1)
        if flipped and _antithetic(spec):
            # the negation of the source trial's draw, at this trial's own scale
            z = sample_input(spec, Stream(input_key(base, name), source), s, values, tight)
            values[name] = z * sign.reshape(sign.shape + (1,) * (z.ndim - 1))
        else:
            values[name] = sample_input(spec, Stream(input_key(base, name), t), s, values, tight)
        if edge.any() and not spec.bounds and spec.kind in (REAL, NAT, INT):
            # drawn for the boundary trials alone: a trial's draws do not depend on its batch
            stream = Stream(input_key(base, f"{name}#edge"), t[edge])
            x = values[name].copy()
            on = np.ones(int(edge.sum()), dtype=bool)
            sub = with_boundary_values(spec, x[edge], stream, on, np.asarray(scales)[edge])
            real_part = complex_partner(name, specs)
            if real_part is not None:  # z.im takes its boundary values with z.re's
                joint = Stream(input_key(base, f"{real_part}#edge"), t[edge])
                axis = Stream(input_key(base, f"{name}#axis"), t[edge])
                sub, act = with_partner_boundary(sub, joint, axis, np.asarray(scales)[edge])
                if real_part in values:  # drawn before (its bounds, none, do not order it)
                    re = values[real_part].copy()
                    part = np.where(act == NEGATIVE, -np.abs(re[edge]), re[edge])
                    re[edge] = np.where(act == ZERO, 0.0, part)
                    values[real_part] = re
            x[edge] = apply_constraint(sub, spec.constraint) if spec.kind == REAL else sub
            values[name] = x
        other = next((p for p in partner.get(name, ()) if p in values), None)
        if other is not None:
            x = near_values(values[name], values[other], near)
            values[name] = apply_constraint(x, spec.constraint)
    return {name: values[name] for name in specs}


def _antithetic(spec: InputSpec) -> bool:
    """Whether an antithetic trial negates this input's draw: a real drawn from a symmetric
    distribution, with no bounds or sign constraint for the negation to break."""
    sampler = SAMPLERS.get(spec.distribution)
    return (
        spec.kind == REAL
        and sampler is not None
        and sampler.symmetric
        and not spec.bounds
        and spec.constraint in (None, "nonzero")
    )


def _stressed(distribution: str) -> bool:
    sampler = SAMPLERS.get(distribution)
    return sampler is not None and sampler.stress


def trial_scales(
    specs: Mapping[str, InputSpec], plan: FinPlan, trials: Iterable[int] | np.ndarray, dtype: str
) -> np.ndarray:
    """The stress scale each trial is drawn at (as `sample_batch` draws it)."""
    t = np.array([int(x) for x in trials], dtype=np.int64)
    if not plan.enumerated:
        return stress_scales(t, dtype)
    # index tuples repeat every P trials: trial t (tuple k of round r, t = rP + k) takes
    # scale number t, or t + r where P is even, so that across rounds each tuple's number
    # k + r(P or P + 1) steps by an odd amount and meets every scale of the 8 in turn,
    # while the first trials still take every scale (as unenumerated ones do)
    return stress_scales(t + (t // plan.total) * (1 - plan.total % 2), dtype)


# --- dimension draws -------------------------------------------------------
