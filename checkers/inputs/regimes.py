"""Regimes: trials whose inputs are drawn where a false statement often fails.

A statement about a difference fails where the two inputs are close (`xt` near `x`
in `|M.mul xt yt - x * y| ≤ …`); a bound fails where its hypothesis is only just met
(`ea` as small as `|xt - x| ≤ ea` allows); an identity written for the generic case
fails at 0, ±1 or a tiny value. Draws that are only generic reach none of these. So,
in float64 mode, by trial number (`REGIME_CYCLE`, 16 long, apart from the scales of
sampling.py), some trials are:

- *near* (`NEAR`): of two inputs a bound subtracts (`|xt - x| ≤ ea`, `Bound.pairs`),
  the one drawn later (without bounds of its own) is the earlier one moved by
  `NEAR_STEP` (2^-20) of its own draw: the difference is tiny beside both;
- *tight* (`TIGHT`): every bounded input sits at one of its bounds (on it where Lean's
  `≤` allows, else just inside; bounded.py). Two trials of the sixteen are near and
  tight, so that `ea` is then as small as `|xt - x|` allows;
- *boundary* (`BOUNDARY`): each entry of an input without bounds is, one time in
  three, 0, 1, -1 or ±2^-20 of the trial's scale (a real), its least value or one
  more (a natural number), 0 or ±1 within its range (an integer); the input's sign
  constraint is met after (`positive` makes 0 into 1). A boundary trial whose
  hypotheses then fail (`ez < |z i|` where z i is 0) is drawn again without
  boundary values (evaluation.py), so the regime costs no trial its evidence. A
  complex number drawn as its parts `z.re` and `z.im` (two reals of one shape, without
  bounds) takes them together: where `z.re` takes 0 or ±1, `z.im` is 0 (z is 0 or ±1),
  where ±2^-20 of the scale, `z.im` is that too; elsewhere, one time in four each, z is
  put on the real axis, on its negative half (the branch cut of `log` and `arg`), at 0,
  or kept as drawn;
- *lopsided* (`LOPSIDED`): some real inputs are tiny beside the others. Each stressed
  real input without bounds is drawn at `LOPSIDED_FACTOR` (2^-12) of the trial's
  scale one time in two (the only such input of a statement always): a statement
  whose error is linear in one input and its bound quadratic (`(∑ k, v k * z k) ^ 1
  ≤ 2 * ∑ k, t k * z k ^ 2`), or whose perturbation `e` must be small beside `u`,
  fails only there. Inputs with bounds keep their draw, so the bounds still hold.
- *antithetic* (`ANTITHETIC`): at an extreme scale (1e-3, 1e3) and in the second
  lopsided trial at scale 1, every real input drawn from a distribution symmetric about
  0, without bounds or sign constraint, is the negation of its draw in an earlier trial
  of the cycle at the same scale (13 of 5, 15 of 7, 10 of 1). Far from unit scale the
  term of highest or lowest degree decides a difference, and an odd-degree term's sign is
  the sign of a linear form of the inputs (`(∑ k, v k * z k) ^ 3 ≤ 2 * ∑ k, t k * z k ^ 2`
  fails at scale 1e3 only where `∑ k, v k * z k > 0`): with both signs drawn, one of the
  pair has it, where two independent draws miss it one time in four.

The rest are drawn as before. Every choice is a function of the draw key, the input's
name and the trial number, so a trial drawn alone is the same as in its batch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from checkers.core import INT, NAT, REAL, InputSpec
from checkers.inputs.streams import Stream

REGIME_CYCLE = 16
NEAR = frozenset({2, 3, 9, 12, 14})  # at scales 1, 1, 1, 1, 10 (sampling.STRESS_CYCLE)
TIGHT = frozenset({2, 4, 11, 12, 13})  # at scales 1, 1, 1, 1, 1e-3
BOUNDARY = frozenset({8, 15})  # at scales 1, 1e3
LOPSIDED = frozenset({1, 6, 10})  # at scales 1, 10, 1
ANTITHETIC = {10: 1, 13: 5, 15: 7}  # trial → the earlier trial it negates (same scale)
LOPSIDED_FACTOR = 2.0**-12
NEAR_STEP = 2.0**-20
_SHARE = 3  # one entry in _SHARE takes a boundary value
KEEP, NEGATIVE, ZERO = 0, 1, 2  # what becomes of a complex input's real part
_REALS = np.array([0.0, 1.0, -1.0, NEAR_STEP, -NEAR_STEP])
_SCALED = np.array([False, False, False, True, True])  # tiny values follow the trial's scale


@dataclass(frozen=True)
class Regimes:
    """Which trials of a batch are drawn in each regime: a bool per trial."""

    near: np.ndarray
    tight: np.ndarray
    boundary: np.ndarray
    lopsided: np.ndarray


# which regimes each trial number of the cycle is in: a row per regime
_TABLE = np.array(
    [[t in s for t in range(REGIME_CYCLE)] for s in (NEAR, TIGHT, BOUNDARY, LOPSIDED)]
)


def regimes(trials: np.ndarray, dtype: str) -> Regimes:
    """The regimes of each trial number (none outside float64)."""
    t = np.asarray(trials, dtype=np.int64) % REGIME_CYCLE
    if dtype != "float64":
        no = np.zeros(t.shape, dtype=bool)
        return Regimes(no, no, no, no)
    return Regimes(*_TABLE[:, t])


def antithetic_sources(trials: np.ndarray, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """(source, sign) per trial: the trial number whose draw a symmetric input takes, and
    -1 where it takes that draw's negation (an antithetic trial), else (trial, 1)."""
    t = np.asarray(trials, dtype=np.int64)
    if dtype != "float64":
        return t, np.ones(t.shape)
    src = t.copy()
    for trial, earlier in ANTITHETIC.items():
        src = np.where(t % REGIME_CYCLE == trial, t - trial + earlier, src)
    return src, np.where(src == t, 1.0, -1.0)


def lopsided_candidates(specs: Mapping[str, InputSpec], stressed: frozenset[str]) -> frozenset[str]:
    """The inputs a lopsided trial may draw tiny: stressed reals without bounds of their own
    (`stressed`: the names whose sampler takes the trial's scale)."""
    return frozenset(
        n for n, s in specs.items() if s.kind == REAL and not s.bounds and n in stressed
    )


def lopsided_scales(
    scales: np.ndarray, stream: Stream, lopsided: np.ndarray, alone: bool
) -> np.ndarray:
    """An input's scale per trial: in the lopsided trials `LOPSIDED_FACTOR` of the trial's
    scale one time in two (from the input's own `stream`), or always where it is the
    statement's only candidate (`alone`)."""
    tiny = lopsided if alone else lopsided & (stream.integers(0, 2) == 1)
    return np.where(tiny, scales * LOPSIDED_FACTOR, scales)


def partners(specs: Mapping[str, InputSpec]) -> dict[str, tuple[str, ...]]:
    """For each real input without bounds of its own, the inputs of its shape some bound
    subtracts it from (`Bound.pairs`): in the near trials it is drawn close to the first of
    them drawn before it."""
    out: dict[str, list[str]] = {}
    for spec in specs.values():
        for b in spec.bounds:
            for a, c in b.pairs:
                for x, y in ((a, c), (c, a)):
                    sx, sy = specs.get(x), specs.get(y)
                    if sx is None or sy is None or sx.kind != REAL or sy.kind != REAL:
                        continue
                    if sx.bounds or sx.shape != sy.shape or y in out.get(x, ()):
                        continue
                    out.setdefault(x, []).append(y)
    return {k: tuple(v) for k, v in out.items()}


def near_values(x: np.ndarray, other: np.ndarray, near: np.ndarray) -> np.ndarray:
    """`x` as drawn, or in the near trials `other` moved by `NEAR_STEP` of `x`."""
    mask = _per_trial(near, x)
    return np.where(mask, other + NEAR_STEP * x, x)


def with_boundary_values(
    spec: InputSpec,
    x: np.ndarray,
    stream: Stream,
    boundary: np.ndarray,
    scales: np.ndarray | float,
) -> np.ndarray:
    """`x` with one entry in `_SHARE` of the boundary trials set to a boundary value (see the
    module); reals, natural numbers and integers only (a `Fin` index keeps its draw)."""
    if spec.kind not in (REAL, NAT, INT):
        return x
    shape = np.shape(x)[1:]
    pick = stream.integers(0, _SHARE * len(_REALS), shape)
    hit = (pick < len(_REALS)) & _per_trial(boundary, x)
    which = np.minimum(pick, len(_REALS) - 1)
    if spec.kind == REAL:
        s = np.broadcast_to(np.reshape(np.asarray(scales, dtype=np.float64), (-1,)), (len(x),))
        value = _REALS[which] * np.where(_SCALED[which], _per_trial(s, x), 1.0)
        return np.where(hit, value, x)
    hi = spec.hi if spec.hi is not None else spec.lo + 1
    if spec.kind == NAT:
        value = spec.lo + which % 2
    else:
        value = np.array([0, 1, -1])[which % 3]
    return np.where(hit, np.clip(value, spec.lo, hi), x).astype(x.dtype)


def complex_partner(name: str, specs: Mapping[str, InputSpec]) -> str | None:
    """For the imaginary part `z.im` of a complex input, its real part `z.re`, where both
    are reals of one shape without bounds (boundary values are then drawn together)."""
    if not name.endswith(".im"):
        return None
    re, im = specs.get(name[: -len("im")] + "re"), specs.get(name)
    if re is None or im is None or re.kind != REAL or im.kind != REAL:
        return None
    if re.bounds or im.bounds or re.shape != im.shape:
        return None
    return name[: -len("im")] + "re"


def with_partner_boundary(
    im: np.ndarray, partner: Stream, axis: Stream, scales: np.ndarray | float
) -> tuple[np.ndarray, np.ndarray]:
    """The imaginary part of a boundary trial's complex input, and what becomes of its real
    part (`KEEP`, `NEGATIVE`: made negative, `ZERO`). Where the real part took a boundary
    value (`partner`: the stream `with_boundary_values` drew that part's choice from), 0
    beside 0 or ±1 and the same tiny value beside ±2^-20 of the scale; elsewhere, from
    `axis`, one time in four each: z on the real axis, on its negative half (the branch
    cut of `log` and `arg`), z = 0, or z as drawn."""
    shape = np.shape(im)[1:]
    pick = partner.integers(0, _SHARE * len(_REALS), shape)
    hit = pick < len(_REALS)
    which = np.minimum(pick, len(_REALS) - 1)
    s = np.broadcast_to(np.reshape(np.asarray(scales, dtype=np.float64), (-1,)), (len(im),))
    value = _REALS[which] * np.where(_SCALED[which], _per_trial(s, im), 0.0)
    where = axis.integers(0, 4, shape)  # KEEP (on the axis), NEGATIVE, ZERO, as drawn
    on_axis = ~hit & (where < 3)
    real_part = np.where(on_axis, where, KEEP)
    return np.where(hit, value, np.where(on_axis, 0.0, im)), real_part


def _per_trial(v: np.ndarray, like: np.ndarray) -> np.ndarray:
    """A per-trial array shaped to broadcast against `like` (trials, *shape)."""
    v = np.asarray(v)
    return v.reshape(v.shape + (1,) * (np.ndim(like) - v.ndim))
