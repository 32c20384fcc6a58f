"""Tolerances: one table by dtype, optionally overridden per theorem, never scaled by size.

A value `a` computed in dtype `d` agrees with its float64 reference `r` when

    |a - r| <= atol[d] + rtol[d] * |r|        (elementwise)

The float64 row is for exact identities evaluated in double precision: ample
headroom over the rounding of the small sums and products the statements
contain (unit roundoff 1.1e-16), and nothing more. The low-precision rows
allow for the rounding of that dtype (unit roundoff 6e-8 for float32, 3.9e-3
for bfloat16) accumulated over sums of a few dozen terms, where cancellation
makes the absolute part dominate: over 40 seeds x 4 dims draws x 64 trials of
`Proofs.sum_fin_prod` and `Proofs.vit_rowDenseW_grad_bridge` (dims 1..5) the
largest `|a - r| - rtol |r|` seen was 3e-8 in float32 and 0.019 in bfloat16,
which is why bfloat16's atol is 5e-2 and not 1e-2.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from checkers.core import ToleranceOverride

DTYPES = ("float64", "float32", "bfloat16")


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float


TOLERANCES: Mapping[str, Tolerance] = {
    "float64": Tolerance(atol=1e-12, rtol=1e-10),
    "float32": Tolerance(atol=1e-5, rtol=1e-4),
    "bfloat16": Tolerance(atol=5e-2, rtol=1e-1),
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
    """Elementwise comparison of computed values against references (same shapes)."""

    abs_err: np.ndarray
    rel_err: np.ndarray  # |a - r| / |r| where r != 0, else 0
    ratio: np.ndarray  # abs_err / (atol + rtol |r|); > 1 means outside tolerance
    ok: np.ndarray


def compare(actual: np.ndarray, reference: np.ndarray, tol: Tolerance) -> Comparison:
    actual = np.asarray(actual, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    abs_err = np.abs(actual - reference)
    mag = np.abs(reference)
    allowed = tol.atol + tol.rtol * mag
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(mag > 0, abs_err / np.where(mag > 0, mag, 1.0), 0.0)
        ratio = np.where(allowed > 0, abs_err / np.where(allowed > 0, allowed, 1.0), np.inf)
    ratio = np.where(abs_err == 0, 0.0, ratio)
    return Comparison(abs_err=abs_err, rel_err=rel, ratio=ratio, ok=abs_err <= allowed)
