"""Tolerances and the comparison of a relation: one table by dtype, never scaled by size.

The allowed error. Two values `a`, `b` computed in dtype `d` agree when

    |a - b| <= allowed = atol[d] + rtol[d] * max(|a|, |b|, scale)     (elementwise)

where `scale` is the largest magnitude of an operand of an addition the
trial evaluated (the terms of the values, checkers/language/measure.py; a
checker that gives none is judged by the sides alone). Rounding in floating
point is relative: a product is accurate relative to itself, a sum relative
to its terms. So a statement about 1e-38 or 1e30 is decided relative to those
numbers (`0 < minNormalF32` holds, its negation fails), while terms ~1 that
cancel to ~1e-16 still pass `= 0`. atol is only a floor: rtol times the
dtype's smallest normal number, below which the dtype has no relative
precision left (2.2e-318 in float64); it never decides a statement about a
representable number.

The relation. `=` holds within `allowed`; `a ≠ b` holds where they differ by
more than `allowed` (a tie fails it, as it fails `<`; for arrays a trial holds
`≠` when some entry differs, verdict.py); `a ≤ b` holds when a - b <= allowed,
so a tie within the tolerance holds it; `a < b` holds only when b - a >
allowed: a tie, exact (the same value on both sides, exact ℕ arithmetic) or
within the rounding, is evidence against it, since the computation cannot
tell it from equality. `≥` and `>` are the mirror images. One exception
(evaluation.py): a tie of a strict inequality in a trial where a product,
quotient, power or exponential of non-zero values underflowed (came out below
the smallest normal number) is undecided, not false: `0 < Real.exp (-x)` at
x = 800 is 0 < 0 in float64. Such trials are left out of the evidence, like
vacuous ones, and a pass says how many there were.

What the rule cannot decide. A difference below rtol × the scale: `(1e30 : ℝ)
+ 1 = 1e30` passes although it is false in ℝ (the 1 is lost to rounding, 1e-30
relative), and `(1e30 : ℝ) < 1e30 + 1` ties and fails although it is true.

The rows. float64's rtol 1e-10 is ample headroom over the rounding of the
sums and products the statements contain (unit roundoff 1.1e-16 per
operation) and nothing more. A low-precision mode (float32, bfloat16)
compares each side in the dtype against the other side's float64 reference;
its rtol allows for the rounding of that dtype (unit roundoff 6e-8 for
float32, 3.9e-3 for bfloat16) accumulated over sums of many terms, relative to
the largest term. Over 40 seeds x 4 dims draws x 64 trials of
`Proofs.sum_fin_prod` and `Proofs.vit_rowDenseW_grad_bridge`, registered and
derived, the largest |a - r| / max(|a|, |r|, scale) seen was 4.7e-7 in float32
and 1.4e-2 in bfloat16; rtol 1e-4 and 1e-1 leave room for sums a few hundred
times longer than those (the error of a sum of n terms grows like sqrt(n) to
n unit roundoffs).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from checkers.core import ToleranceOverride

DTYPES = ("float64", "float32", "bfloat16")
RELATIONS = ("=", "≤", "<", "≥", ">", "≠")


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float


# the smallest normal number of each dtype: below it a dtype has no relative precision
TINY: Mapping[str, float] = {"float64": 2.2250738585072014e-308, "float32": 1.1754943508222875e-38}
TINY = {**TINY, "bfloat16": TINY["float32"]}  # bfloat16 has float32's exponent range

_RTOL = {"float64": 1e-10, "float32": 1e-4, "bfloat16": 1e-1}

TOLERANCES: Mapping[str, Tolerance] = {
    d: Tolerance(atol=_RTOL[d] * TINY[d], rtol=_RTOL[d]) for d in DTYPES
}


def numpy_dtype(dtype: str) -> np.dtype[Any]:
    """The numpy dtype for a dtype name (bfloat16 through ml_dtypes, as JAX does)."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if dtype == "bfloat16":
        import jax.numpy as jnp

        return np.dtype(jnp.bfloat16)
    return np.dtype(dtype)


def _valid_number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be finite and >= 0, got {value!r}")
    return value


def validate_override(override: Any) -> ToleranceOverride | None:
    """Accept None, a ToleranceOverride, a number (atol = rtol = it) or {'atol':..., 'rtol':...}.

    Each of atol / rtol is a scalar (every dtype) or a dict keyed by dtype name.
    Raises ValueError naming what is wrong.
    """
    if override is None:
        return None
    if isinstance(override, int | float) and not isinstance(override, bool):
        v = _valid_number(override, "tolerance")
        return ToleranceOverride(atol=v, rtol=v)
    if isinstance(override, Mapping):
        unknown = set(override) - {"atol", "rtol"}
        if unknown:
            raise ValueError(f"tolerance keys must be 'atol' and 'rtol', got {sorted(unknown)}")
        override = ToleranceOverride(atol=override.get("atol"), rtol=override.get("rtol"))
    if not isinstance(override, ToleranceOverride):
        raise ValueError(
            "tolerance must be None, a number, a ToleranceOverride or a dict with atol/rtol, "
            f"got {override!r}"
        )
    for field_name in ("atol", "rtol"):
        value = getattr(override, field_name)
        if value is None:
            continue
        if isinstance(value, Mapping):
            for key, v in value.items():
                if key not in DTYPES:
                    raise ValueError(
                        f"tolerance {field_name} has unknown dtype {key!r} "
                        f"(expected one of {', '.join(DTYPES)})"
                    )
                _valid_number(v, f"tolerance {field_name}[{key!r}]")
        else:
            _valid_number(value, f"tolerance {field_name}")
    return override


def _pick(value: Any, dtype: str, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, Mapping):
        return float(value.get(dtype, default))
    return float(value)


def tolerance_for(dtype: str, override: ToleranceOverride | None = None) -> Tolerance:
    """The table's row for `dtype`, with the theorem's override applied."""
    if dtype not in TOLERANCES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    base = TOLERANCES[dtype]
    if override is None:
        return base
    return Tolerance(
        atol=_pick(override.atol, dtype, base.atol), rtol=_pick(override.rtol, dtype, base.rtol)
    )


@dataclass(frozen=True)
class Comparison:
    """Elementwise comparison of `lhs R rhs` (same shapes).

    `abs_err` is |lhs - rhs| for `=` and the amount by which an inequality is
    violated (0 where it holds or ties); `rel_err` is that over |rhs| where rhs is
    non-zero, else 0; `ratio` ranks the entries (> 1 outside the relation; for a
    strict relation a tie ranks 2); `tied` marks the entries of an inequality
    whose sides agree within the tolerance (never set for `=`).
    """

    abs_err: np.ndarray
    rel_err: np.ndarray
    ratio: np.ndarray
    ok: np.ndarray
    tied: np.ndarray
    allowed: np.ndarray


def allowed_error(
    lhs: np.ndarray, rhs: np.ndarray, tol: Tolerance, scale: np.ndarray | float | None = None
) -> np.ndarray:
    """atol + rtol * max(|lhs|, |rhs|, scale), elementwise (non-finite magnitudes left out)."""
    mag = np.maximum(np.abs(lhs), np.abs(rhs))
    if scale is not None:
        mag = np.maximum(mag, np.abs(np.asarray(scale, dtype=np.float64)))
    mag = np.where(np.isfinite(mag), mag, 0.0)
    return tol.atol + tol.rtol * mag


def overflow_decides(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Where `low < high` (or ≤) is decided because one side overflowed: a finite `low`
    under `high = +inf`, or `low = -inf` under a finite `high`. Lean's arithmetic is
    total (x / 0 = 0), so an infinity here is a real value beyond the float range, never
    a pole, and it lies on the far side of every finite value."""
    with np.errstate(invalid="ignore"):
        return (np.isfinite(low) & (high == np.inf)) | ((low == -np.inf) & np.isfinite(high))


def compare(
    actual: np.ndarray,
    reference: np.ndarray,
    tol: Tolerance,
    *,
    relation: str = "=",
    scale: np.ndarray | float | None = None,
) -> Comparison:
    """Whether `actual relation reference` holds within `tol`, elementwise.

    `scale` (broadcast against the values: a scalar, or one per trial with
    trailing axes of size 1) is the magnitude of the terms the values were
    computed from; the tolerance is `allowed_error`.
    """
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {', '.join(RELATIONS)}, got {relation!r}")
    lhs = np.asarray(actual, dtype=np.float64)
    rhs = np.asarray(reference, dtype=np.float64)
    if relation in ("≥", ">"):
        low, high = rhs, lhs
    else:
        low, high = lhs, rhs
    beyond = np.zeros(np.broadcast_shapes(lhs.shape, rhs.shape), dtype=bool)
    if relation == "≠":  # a side beyond float range differs from a finite one
        beyond = overflow_decides(low, high) | overflow_decides(high, low)
        lhs, rhs = np.where(beyond, 0.0, lhs), np.where(beyond, 1.0, rhs)
        low, high = lhs, rhs
    elif relation != "=":
        # a side beyond float range on the far side of the inequality from a finite one
        # decides it: +inf is a value above the largest float, which exceeds the other
        beyond = overflow_decides(low, high)
        low, high = np.where(beyond, 0.0, low), np.where(beyond, 1.0, high)
        lhs, rhs = np.where(beyond, 0.0, lhs), np.where(beyond, 1.0, rhs)
    allowed = allowed_error(lhs, rhs, tol, scale)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        diff = low - high  # an inequality low ≤ high (or <) is violated by diff > 0
        gap = np.abs(diff)
        if relation == "=":
            abs_err = gap
            ok = gap <= allowed
            tied = np.zeros(gap.shape, dtype=bool)
            excess = gap
        elif relation == "≠":  # a tie is evidence against it, as against `<`
            tied = gap <= allowed
            ok = ~tied
            abs_err = np.where(tied, gap, 0.0)
            excess = np.where(tied, 2.0 * allowed - gap, 0.0)  # an exact tie ranks 2
        else:
            abs_err = np.maximum(diff, 0.0)
            tied = gap <= allowed
            if relation in ("<", ">"):
                ok = diff < -allowed
                excess = diff + 2.0 * allowed  # a tie ranks 2 (twice the tolerance)
            else:
                ok = diff <= allowed
                excess = diff
        safe = np.where(allowed > 0, allowed, 1.0)
        ratio = np.where(allowed > 0, np.maximum(excess, 0.0) / safe, np.where(ok, 0.0, np.inf))
        mag = np.abs(rhs)
        rel = np.where(mag > 0, abs_err / np.where(mag > 0, mag, 1.0), 0.0)
    return Comparison(abs_err=abs_err, rel_err=rel, ratio=ratio, ok=ok, tied=tied, allowed=allowed)
