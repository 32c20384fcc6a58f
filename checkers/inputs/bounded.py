"""Sampling real inputs inside their bounds (`InputSpec.bounds`, planned in
checkers/premises/bounds.py from hypotheses such as `0 < ε`, `a ≤ x`,
`∀ i j, |W i j| ≤ w`).

The inputs a bound reads are drawn first (`bounds_order`: dependency order,
whatever the order of the specs). Then, elementwise, an input with both a
lower bound `lo` and an upper bound `hi` is `lo + (hi - lo)·u`, with `u` a
logistic function of its normal draw `z` (so the trial's scale does not
matter: the bounds set it, and values near either end are drawn about as often
as in the middle); one with a lower bound only is `lo + |x|`, with an upper
bound only `hi - |x|`, by its own scaled draw `x = z·s`, so it keeps the
trial's scale; and it moves off the values it must differ from (`x ≠ e`). A
non-strict bound whose value is exact (`Bound.exact`) is met with equality
where `|z| > 2.3` (about one element in a hundred at each end): Lean's `≤`
includes the edge. A bound whose value is
not finite is not applied; where the bounds cannot all be met (`lo > hi`),
either the lower or the upper ones are, by the sign of `z`.

In the sampler's *tight* trials (sampling.py) every bounded input sits at one of
its bounds instead (`at_edge`), so that a statement is checked where its
hypotheses are only just met.

The hypotheses stay evaluated per trial (premises.py): a trial whose bounds
could not be met is vacuous, and counted. `bounds_hold` evaluates them here
in numpy, as the sampler does, where nothing needs compiling.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from checkers.core import Bound, InputSpec

_STEEP = 1.702  # logistic(1.702 z) is within 0.01 of the normal CDF: u about uniform
_EDGE = 2.3
_ULPS = 64.0  # the least distance from a strict or computed one-sided bound, in its ulps
_TIGHT = 2.0**-20  # how far inside a strict bound a value at its edge sits, beside the draw


def apply_bounds(
    x: np.ndarray,
    z: np.ndarray,
    s: np.ndarray,
    bounds: Sequence[Bound],
    drawn: Mapping[str, np.ndarray],
    constraint: str | None = None,
    edge: np.ndarray | None = None,
) -> np.ndarray:
    """`x` (the scaled draw `z·s`) moved inside its bounds, elementwise (see the module).
    A sign `constraint` of the input ('nonnegative', 'positive') is a lower bound 0 beside
    them, so that an upper bound alone (`u ≤ 2^-24` of a `0 ≤ u`) keeps the sign. Where
    `edge` (a bool per element) holds, the value sits at a bound instead (`at_edge`)."""
    if not bounds:
        return x
    lo, lo_strict = np.full(x.shape, -np.inf), np.zeros(x.shape, dtype=bool)
    if constraint in ("nonnegative", "positive"):
        lo = np.zeros(x.shape)
        lo_strict = np.full(x.shape, constraint == "positive")
    hi, hi_strict = np.full(x.shape, np.inf), np.zeros(x.shape, dtype=bool)
    avoid: list[np.ndarray] = []
    with np.errstate(all="ignore"):
        for b in bounds:
            v = np.asarray(b.value({n: drawn[n] for n in b.names}), dtype=np.float64)
            v = np.broadcast_to(v, x.shape)
            ok = np.isfinite(v)  # a bound that is not finite is not applied
            strict = b.strict or not b.exact  # no equality where rounding could break it
            if b.side == "lower":
                lo_strict = np.where(ok & (v == lo), lo_strict | strict, lo_strict)
                lo_strict = np.where(ok & (v > lo), strict, lo_strict)
                lo = np.where(ok & (v > lo), v, lo)
            elif b.side == "upper":
                hi_strict = np.where(ok & (v == hi), hi_strict | strict, hi_strict)
                hi_strict = np.where(ok & (v < hi), strict, hi_strict)
                hi = np.where(ok & (v < hi), v, hi)
            else:
                avoid.append(np.where(ok, v, np.nan))
        has_lo, has_hi = np.isfinite(lo), np.isfinite(hi)
        step = np.where(x == 0, s, np.abs(x))  # strictly inside a one-sided bound
        # ... by more than the rounding of a computed bound (numpy's and XLA's `^` differ
        # in the last bits), so that the hypothesis evaluated per trial holds too
        up = np.where(lo_strict, np.maximum(step, _ULPS * np.abs(np.spacing(lo))), step)
        down = np.where(hi_strict, np.maximum(step, _ULPS * np.abs(np.spacing(hi))), step)
        u = 1.0 / (1.0 + np.exp(-_STEEP * z))  # about uniform in (0, 1)
        # bounds that cannot all be met (lo > hi): the lower ones or the upper ones, by sign
        above = has_lo & (~has_hi | (z >= 0))
        out = np.where(
            has_lo & has_hi & (lo <= hi),
            lo + (hi - lo) * u,
            np.where(above, lo + up, np.where(has_hi, hi - down, x)),
        )
        # a non-strict bound is met with equality now and then (Lean's `≤` includes it)
        out = np.where(has_lo & ~lo_strict & (z < -_EDGE) & (lo <= hi), lo, out)
        out = np.where(has_hi & ~hi_strict & (z > _EDGE) & (lo <= hi), hi, out)
        if edge is not None:
            at = at_edge(z, step, lo, hi, lo_strict, hi_strict, has_lo, has_hi)
            out = np.where(edge & np.isfinite(at), at, out)
        for v in avoid:
            out = np.where(out == v, out + np.where(v == 0, s, np.abs(v) * 0.5 + s), out)
    return out


def at_edge(
    z: np.ndarray,
    step: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    lo_strict: np.ndarray,
    hi_strict: np.ndarray,
    has_lo: np.ndarray,
    has_hi: np.ndarray,
) -> np.ndarray:
    """A value at a bound: on it where the bound allows equality (non-strict, exact), else
    inside it by 2^-20 of the draw's size (at least `_ULPS` of the bound's ulps). Between
    two bounds, the lower or the upper one by the sign of `z`; NaN where there is none."""
    tiny = np.maximum(step * _TIGHT, _ULPS * np.abs(np.spacing(np.where(has_lo, lo, 0.0))))
    up = np.where(lo_strict, tiny, 0.0)
    tiny = np.maximum(step * _TIGHT, _ULPS * np.abs(np.spacing(np.where(has_hi, hi, 0.0))))
    down = np.where(hi_strict, tiny, 0.0)
    both = has_lo & has_hi & (lo <= hi)
    low = np.where(both, z < 0, has_lo & ~has_hi)
    high = np.where(both, z >= 0, has_hi & ~has_lo)
    out = np.where(low, lo + up, np.where(high, hi - down, np.nan))
    # a bound within its own rounding of the other (`lo + up > hi`) is left as drawn
    return np.where(both & ((out < lo) | (out > hi)), np.nan, out)


def bounds_hold(
    specs: Mapping[str, InputSpec], batch: Mapping[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Per hypothesis named by a bound (`Bound.hyp`): whether its bounds hold in each trial
    of `batch` (a bool per trial), evaluated in numpy as the sampler evaluates them."""
    out: dict[str, np.ndarray] = {}
    for name, spec in specs.items():
        x = np.asarray(batch[name], dtype=np.float64)
        for b in spec.bounds:
            with np.errstate(all="ignore"):
                v = np.broadcast_to(
                    np.asarray(b.value({n: batch[n] for n in b.names}), dtype=np.float64), x.shape
                )
                if b.side == "lower":
                    ok = v < x if b.strict else v <= x
                elif b.side == "upper":
                    ok = x < v if b.strict else x <= v
                else:
                    ok = x != v
            each = np.asarray(ok).reshape(x.shape[0], -1).all(axis=1)
            out[b.hyp] = np.asarray(out[b.hyp] & each if b.hyp in out else each)
    return out


def bounds_order(specs: Mapping[str, InputSpec]) -> list[str]:
    """The inputs in an order in which every bound reads inputs drawn before it."""
    order: list[str] = []
    placed: set[str] = set()
    waiting = list(specs)
    while waiting:
        ready = [
            n
            for n in waiting
            if all(m in placed or m not in specs for b in specs[n].bounds for m in b.names)
        ]
        if not ready:
            raise ValueError(f"the bounds of {', '.join(waiting)} read each other")
        for n in ready:
            unknown = [m for b in specs[n].bounds for m in b.names if m not in specs]
            if unknown:
                raise ValueError(f"a bound of {n} reads {', '.join(unknown)}, not an input")
            order.append(n)
            placed.add(n)
        waiting = [n for n in waiting if n not in placed]
    return order
