"""Types of values, as Lean's `binop%` elaborator joins them, and coercions.

ℂ > ℝ > ℝ≥0, ℤ > ℕ > `Fin n`: two operands are brought to the larger type; two `Fin`
of different sizes meet in ℕ (their values). A 'num' (numerals whose type is
not fixed, numerals.py) takes the other operand's type; converted to ℕ, ℤ or
`Fin n` it is evaluated at that type, node by node. `settle` gives a 'num'
that nothing will ever type Lean's default: ℕ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from checkers.language.errors import EvalError, NotSupported
from checkers.language.numerals import Numeral
from checkers.language.total import xp_of
from checkers.language.values import Arr, Sz, as_array, host_float, host_or_array
from checkers.lazyjax import jax, jnp

# (ℤ and ℝ≥0 have no common type below ℝ: Lean's `binop%` never joins them, and
# `coerce` refuses either as the other)
# (an angle, ℝ modulo 2π, takes reals: `θ + π` is `θ + ↑π`; it joins nothing above ℝ)
RANK = {"num": 0, "fin": 1, "nat": 2, "int": 3, "nnreal": 4, "real": 5, "complex": 6, "angle": 7}
# the kinds of typed numbers (a 'num' is not one yet)
TYPED_RANK = {k: r for k, r in RANK.items() if k != "num"}


def complex_dtype(dtype: Any) -> Any:
    """The complex dtype whose parts have this float dtype (complex128 for float64); a
    format without one (bfloat16) is refused."""
    d = np.dtype(dtype)
    if d == np.float64:
        return np.dtype(np.complex128)
    if d == np.float32:
        return np.dtype(np.complex64)
    raise NotSupported(f"complex numbers at {d} (only float64 and float32 have complex types)")


@dataclass(frozen=True)
class Ctx:
    # NumPy's scalar types (the same dtypes as jnp's): a context made to read types alone
    # (`Evaluator.type_of`) imports no JAX
    dtype: Any = np.float64
    int_dtype: Any = np.int64
    # collects the trial's scale and underflows for the comparison (measure.py)
    meter: Any = field(default=None, compare=False)


def join_kind(a: Arr, b: Arr) -> tuple[str, Sz | None]:
    """The common type Lean's `binop%` gives two operands."""
    for x in (a, b):
        if x.kind not in RANK:
            raise EvalError(f"arithmetic on a value of kind {x.kind}")
    if a.kind == "fin" and b.kind == "fin":
        if a.bound is not None and b.bound is not None and a.bound.n != b.bound.n:
            return "nat", None
        return "fin", a.bound if a.bound is not None else b.bound
    k = a.kind if RANK[a.kind] >= RANK[b.kind] else b.kind
    if k == "fin":
        return "fin", a.bound if a.kind == "fin" else b.bound
    return k, None


def settle(x: Arr) -> Arr:
    """A value whose type nothing fixes: numerals are ℕ (Lean's default instance)."""
    if not isinstance(x.data, Numeral):
        return x
    if x.data.decimal:
        raise NotSupported(
            f"the decimal literal in {x.data} has no type from its context "
            "(Lean reads it as a Float, which is not evaluated here)"
        )
    return Arr(x.data.at_type("nat"), "nat")


def nat_constant(x: Arr, what: str) -> int:
    """The value of a constant natural number (a dimension, a range bound)."""
    v = coerce(settle(x), "nat", Ctx())
    if not v.is_static:
        raise EvalError(f"{what}: a dimension argument must be a constant natural number")
    return int(v.data)


def coerce(x: Arr, kind: str, ctx: Ctx, bound: Sz | None = None) -> Arr:
    if x.kind == kind and (
        kind != "fin"
        or bound is None
        or x.bound == bound
        or (x.bound is not None and x.bound.n == bound.n)
    ):
        return x
    if kind == "num":
        return x
    if isinstance(x.data, Numeral):
        return _numeral_at(x.data, kind, ctx, bound)
    if x.kind == "complex":
        raise EvalError(f"a complex number used as {kind} (Lean has no such coercion)")
    if x.kind == "angle":
        raise EvalError(f"an angle used as {kind} (`Real.Angle.toReal` is explicit)")
    if kind == "angle":  # `Real.Angle.coe`: a real number is its own representative
        if x.kind not in RANK:
            raise EvalError(f"cannot use a {x.describe()} as an angle")
        real = coerce(x, "real", ctx)
        return Arr(host_or_array(real, ctx.dtype), "angle", real.axes, real.dom)
    if kind == "complex":  # `Complex.ofReal`, and the casts from ℕ and ℤ through it
        if x.kind not in RANK:
            raise EvalError(f"cannot use a {x.describe()} as a complex number")
        real = coerce(x, "real", ctx)
        data = jnp.asarray(as_array(real), complex_dtype(ctx.dtype))
        return Arr(data, "complex", real.axes, real.dom)
    if x.kind == "nnreal" and kind == "real":  # the coercion ℝ≥0 → ℝ: the same number
        return Arr(x.data, "real", x.axes, x.dom, log=x.log)
    if x.log:  # a natural beyond int64's range (counting.py): only its real value is known
        if kind != "real":
            raise EvalError(f"a natural number beyond int64's range used as {kind}")
        return Arr(jnp.asarray(x.data, ctx.dtype), "real", x.axes, x.dom, log=True)
    if kind == "real":
        if x.kind not in RANK:
            raise EvalError(f"cannot use a {x.describe()} as a real number")
        return Arr(host_or_array(x, ctx.dtype), "real", x.axes, x.dom)
    if kind == "nnreal":  # `Nat.cast` into ℝ≥0; ℤ and ℝ have no coercion into it
        if x.kind not in ("nat", "fin"):
            raise EvalError(f"cannot use a {x.describe()} as ℝ≥0 (Lean has no such coercion)")
        return Arr(host_or_array(x, ctx.dtype), "nnreal", x.axes, x.dom)
    if kind == "nat" and x.kind == "int":
        raise EvalError("an integer used as a natural number (Lean has no such coercion)")
    if kind in ("nat", "int"):
        if x.kind in ("nat", "fin", "int"):
            return Arr(x.data, kind, x.axes, x.dom, iota=x.iota)
        raise EvalError(f"cannot use a {x.describe()} as {'ℕ' if kind == 'nat' else 'ℤ'}")
    if kind == "fin":
        if bound is None:
            return coerce(x, "nat", ctx).with_(kind="fin")
        size = bound.n
        if x.kind in ("nat", "int", "fin"):
            if x.is_static:
                val = int(x.data)
                return Arr(val % size if size else val, "fin", x.axes, x.dom, bound=bound)
            d = host_or_array(x)
            return Arr(
                xp_of(d).mod(d, size) if size else d,
                "fin",
                x.axes,
                x.dom,
                bound=bound,
                iota=x.iota if x.iota is not None and x.iota.size <= size else None,
            )
        raise EvalError(f"cannot use a {x.describe()} as an index in Fin {size}")
    raise EvalError(f"cannot convert a {x.describe()} to {kind}")


def real_numeral(n: Numeral) -> float:
    """The float64 nearest a numeral's exact value. A constant float64 cannot hold, one
    that would round to 0 (`1 / 10 ^ 400`) or overflow, is refused: the program would
    compute with another number, and the exact re-evaluation of a failing trial reads the
    program's constants (checkers/confirm), so `Real.log (1 / 10 ^ 400) < -900` would fail
    "confirmed" at `Real.log 0 = 0`. A constant that rounds to another non-zero float is
    read there as the interval around it, which holds the exact value."""
    exact = n.exact()
    try:
        value = float(exact)
    except OverflowError:
        value = math.inf
    if math.isinf(value) or (value == 0 and exact != 0):
        raise NotSupported(
            f"the constant {n} is {'too large' if math.isinf(value) else 'too small'} for "
            "float64 (its value would be another number)"
        )
    return value


def host_constant(x: Arr, kind: str, ctx: Ctx) -> np.ndarray | None:
    """x at `kind` as a NumPy array, when it is a constant that needs no JAX operation to
    get there (a numeral, or a value computed outside any trace), else None. A real
    constant is rounded to the context's dtype as `coerce` rounds it (float64, float32)."""
    if x.axes or x.log:
        return None
    if isinstance(x.data, Numeral):
        if kind == "real":
            if np.dtype(ctx.dtype) not in (np.float64, np.float32):
                return None
            return np.asarray(real_numeral(x.data), dtype=ctx.dtype)
        if kind in ("nat", "int"):
            return np.asarray(x.data.at_type(kind))
        return None
    y = coerce(x, kind, ctx)
    d = host_or_array(y, ctx.dtype if kind == "real" else None)
    if isinstance(d, jax.core.Tracer):
        return None
    return np.asarray(d)


def _numeral_at(n: Numeral, kind: str, ctx: Ctx, bound: Sz | None) -> Arr:
    if kind == "real":
        if host_float(ctx.dtype):  # a host constant: arithmetic on it needs no JAX operation
            return Arr(np.asarray(real_numeral(n), ctx.dtype), "real")
        return Arr(jnp.asarray(real_numeral(n), ctx.dtype), "real")
    if kind in ("nat", "int"):
        return Arr(n.at_type(kind), kind)
    if kind == "complex":  # a numeral in ℂ is the real one, cast
        return coerce(_numeral_at(n, "real", ctx, None), "complex", ctx)
    if kind == "angle":
        return _numeral_at(n, "real", ctx, None).with_(kind="angle")
    if kind == "nnreal":  # the real value, where no truncated subtraction changes it
        if "-" in n.ops():
            raise NotSupported(f"the numerals {n} in ℝ≥0 (its subtraction truncates at 0)")
        return _numeral_at(n, "real", ctx, None).with_(kind="nnreal")
    if kind == "fin":
        if bound is None:
            return Arr(n.at_type("nat"), "fin")
        return Arr(n.at_type("fin", bound.n), "fin", bound=bound)
    raise EvalError(f"cannot convert the numeral {n} to {kind}")
