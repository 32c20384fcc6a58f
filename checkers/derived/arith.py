"""Lean's total arithmetic on `Arr` values.

ℝ: `x / 0 = 0`, `0⁻¹ = 0`, `Real.sqrt x = 0` for `x ≤ 0`, `Real.log 0 = 0`,
`Real.log (-x) = Real.log x`. ℕ: truncated subtraction, `a / 0 = 0`,
`a % 0 = a`. `Fin n`: arithmetic mod n. Every partial operation is guarded
with the "double where" pattern so that its gradient is finite wherever the
value is defined by a guard.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import jax.numpy as jnp
from jax import lax

from checkers.derived.errors import EvalError
from checkers.derived.values import (
    Arr,
    Sz,
    as_array,
    expand,
    host_or_array,
    union_axes,
    xp_of,
)

_RANK = {"num": 0, "fin": 1, "nat": 2, "int": 3, "real": 4}


@dataclass(frozen=True)
class Ctx:
    dtype: Any = jnp.float64
    int_dtype: Any = jnp.int64


# --- total primitives on jax arrays ----------------------------------------


def real_div(a: Any, b: Any) -> Any:
    zero = b == 0
    return jnp.where(zero, 0.0, a / jnp.where(zero, 1.0, b))


def real_inv(a: Any) -> Any:
    zero = a == 0
    return jnp.where(zero, 0.0, 1.0 / jnp.where(zero, 1.0, a))


def real_sqrt(a: Any) -> Any:
    pos = a > 0
    return jnp.where(pos, jnp.sqrt(jnp.where(pos, a, 1.0)), 0.0)


def real_log(a: Any) -> Any:
    zero = a == 0
    return jnp.where(zero, 0.0, jnp.log(jnp.abs(jnp.where(zero, 1.0, a))))


def real_rpow(x: Any, y: Any) -> Any:
    """Mathlib's `Real.rpow`: `0 ^ 0 = 1`, `0 ^ y = 0`, and for x < 0
    `x ^ y = exp (log x * y) * cos (y * π)`."""
    zero = x == 0
    safe = jnp.where(zero, 1, x)
    mag = jnp.exp(jnp.log(jnp.abs(safe)) * y)
    val = jnp.where(safe > 0, mag, mag * jnp.cos(y * math.pi))
    return jnp.where(zero, jnp.where(y == 0, 1.0, 0.0).astype(val.dtype), val)


# Integer operations run in numpy when both operands are host constants (index
# arithmetic on bound variables), so that they stay constants of the program.


def nat_sub(a: Any, b: Any) -> Any:
    return xp_of(a, b).maximum(a - b, 0)


def nat_div(a: Any, b: Any) -> Any:
    xp = xp_of(a, b)
    zero = b == 0
    return xp.where(zero, 0, a // xp.where(zero, 1, b))


def nat_mod(a: Any, b: Any) -> Any:
    xp = xp_of(a, b)
    zero = b == 0
    return xp.where(zero, a, a % xp.where(zero, 1, b))


def int_ediv(a: Any, b: Any) -> Any:
    """Lean's `Int` division (Euclidean; `a / 0 = 0`)."""
    xp = xp_of(a, b)
    zero = b == 0
    sb = xp.where(zero, 1, b)
    q = xp.floor_divide(a, xp.abs(sb)) * xp.sign(sb)
    return xp.where(zero, 0, q)


def int_emod(a: Any, b: Any) -> Any:
    xp = xp_of(a, b)
    zero = b == 0
    return xp.where(zero, a, xp.mod(a, xp.abs(xp.where(zero, 1, b))))


# --- static helpers -------------------------------------------------------


def _py_nat(op: str, a: int, b: int) -> int:
    if op == "+":
        return a + b
    if op == "-":
        return max(a - b, 0)
    if op == "*":
        return a * b
    if op == "/":
        return 0 if b == 0 else a // b
    if op == "%":
        return a if b == 0 else a % b
    if op == "^":
        return a**b
    raise EvalError(f"operator {op} on ℕ")


def _py_num(op: str, a: Fraction, b: Fraction) -> Fraction:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return Fraction(0) if b == 0 else a / b
    if op == "%":
        if a.denominator != 1 or b.denominator != 1:
            raise EvalError("% on non-integral numerals")
        return a if b == 0 else Fraction(int(a) % int(b))
    if op == "^":
        if b.denominator != 1 or b < 0:
            raise EvalError("a numeral power needs a natural exponent")
        return a ** int(b)
    raise EvalError(f"operator {op} on numerals")


# --- coercions --------------------------------------------------------------


def join_kind(a: Arr, b: Arr) -> tuple[str, Sz | None]:
    """The common type Lean's `binop%` gives two operands."""
    for x in (a, b):
        if x.kind not in _RANK:
            raise EvalError(f"arithmetic on a value of kind {x.kind}")
    if a.kind == "fin" and b.kind == "fin":
        if a.bound is not None and b.bound is not None and a.bound.n != b.bound.n:
            return "nat", None
        return "fin", a.bound if a.bound is not None else b.bound
    k = a.kind if _RANK[a.kind] >= _RANK[b.kind] else b.kind
    if k == "fin":
        return "fin", a.bound if a.kind == "fin" else b.bound
    return k, None


def coerce(x: Arr, kind: str, ctx: Ctx, bound: Sz | None = None) -> Arr:
    if x.kind == kind and (
        kind != "fin"
        or bound is None
        or x.bound == bound
        or (x.bound is not None and x.bound.n == bound.n)
    ):
        return x
    if kind == "real":
        if x.kind not in _RANK:
            raise EvalError(f"cannot use a {x.describe()} as a real number")
        return Arr(as_array(x, ctx.dtype), "real", x.axes, x.dom)
    if kind in ("nat", "int"):
        if x.kind == "num":
            if x.is_static:
                f = Fraction(x.data)
                if f.denominator != 1:
                    raise EvalError(f"the numeral {f} is not a natural number")
                v = int(f)
                if kind == "nat" and v < 0:
                    raise EvalError(f"the numeral {v} is not a natural number")
                return Arr(v, kind, x.axes, x.dom)
            return Arr(jnp.round(as_array(x)).astype(ctx.int_dtype), kind, x.axes, x.dom)
        if x.kind in ("nat", "fin", "int"):
            return Arr(x.data, kind, x.axes, x.dom, iota=x.iota)
        raise EvalError(f"cannot use a {x.describe()} as {'ℕ' if kind == 'nat' else 'ℤ'}")
    if kind == "fin":
        if bound is None:
            return coerce(x, "nat", ctx).with_(kind="fin")
        size = bound.n
        if x.kind in ("num", "nat", "int", "fin"):
            w = coerce(x, "int", ctx) if x.kind != "fin" else x
            if w.is_static:
                val = int(w.data)
                return Arr(val % size if size else val, "fin", x.axes, x.dom, bound=bound)
            d = host_or_array(w)
            return Arr(
                xp_of(d).mod(d, size) if size else d,
                "fin",
                x.axes,
                x.dom,
                bound=bound,
                iota=x.iota if x.iota is not None and x.iota.size <= size else None,
            )
        raise EvalError(f"cannot use a {x.describe()} as an index in Fin {size}")
    if kind == "num":
        return x
    raise EvalError(f"cannot convert a {x.describe()} to {kind}")


# --- binary operations -----------------------------------------------------

ARITH_OPS = ("+", "-", "*", "/", "%")


def arith(op: str, a: Arr, b: Arr, ctx: Ctx, kind: str | None = None) -> Arr:
    """`a op b` at the common type (or at `kind` when the context fixes it)."""
    if kind is None:
        kind, bound = join_kind(a, b)
    else:
        bound = a.bound if a.kind == "fin" else b.bound
    a = coerce(a, kind, ctx, bound)
    b = coerce(b, kind, ctx, bound)
    if a.is_static and b.is_static and not a.axes and not b.axes and not a.dom and not b.dom:
        if kind in ("nat", "fin"):
            v = _py_nat(op, int(a.data), int(b.data))
            if kind == "fin" and bound is not None and bound.n:
                v = _fin_static(op, int(a.data), int(b.data), bound.n)
            return Arr(v, kind, bound=bound if kind == "fin" else None)
        if kind == "num":
            return Arr(_py_num(op, Fraction(a.data), Fraction(b.data)), "num")
        if kind == "int":
            return Arr(_py_int(op, int(a.data), int(b.data)), "int")
    axes = union_axes(a, b)
    ndom = max(len(a.dom), len(b.dom))
    dom = a.dom if len(a.dom) >= len(b.dom) else b.dom
    if a.dom and b.dom and tuple(s.n for s in a.dom) != tuple(s.n for s in b.dom):
        raise EvalError(f"cannot combine a {a.describe()} with a {b.describe()}")
    dt = ctx.dtype if kind == "real" else (None if kind == "num" else ctx.int_dtype)
    x = expand(a, axes, ndom, dt)
    y = expand(b, axes, ndom, dt)
    if kind == "num":
        x = x.astype(ctx.dtype) if not jnp.issubdtype(x.dtype, jnp.floating) else x
        y = y.astype(ctx.dtype) if not jnp.issubdtype(y.dtype, jnp.floating) else y
        data = _real_op(op, x, y)
    elif kind == "real":
        data = _real_op(op, x, y)
    elif kind == "nat":
        data = _nat_op(op, x, y)
    elif kind == "int":
        data = _int_op(op, x, y)
    else:  # fin
        n = bound.n if bound is not None else 0
        data = _nat_op(op, x, y) if op in ("/", "%") else _fin_op(op, x, y, n)
    return Arr(data, kind, axes, dom, bound=bound if kind == "fin" else None)


def _fin_static(op: str, a: int, b: int, n: int) -> int:
    if op == "+":
        return (a + b) % n
    if op == "-":
        return (a - b) % n
    if op == "*":
        return (a * b) % n
    return _py_nat(op, a, b)


def _py_int(op: str, a: int, b: int) -> int:
    if op == "/":
        if b == 0:
            return 0
        q = a // abs(b)
        return q if b > 0 else -q
    if op == "%":
        return a if b == 0 else a % abs(b)
    if op == "-":
        return a - b
    return _py_nat(op, a, b)


def _real_op(op: str, x: Any, y: Any) -> Any:
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    if op == "/":
        return real_div(x, y)
    raise EvalError(f"operator {op} on ℝ")


def _nat_op(op: str, x: Any, y: Any) -> Any:
    if op == "+":
        return x + y
    if op == "-":
        return nat_sub(x, y)
    if op == "*":
        return x * y
    if op == "/":
        return nat_div(x, y)
    if op == "%":
        return nat_mod(x, y)
    raise EvalError(f"operator {op} on ℕ")


def _int_op(op: str, x: Any, y: Any) -> Any:
    if op == "-":
        return x - y
    if op == "/":
        return int_ediv(x, y)
    if op == "%":
        return int_emod(x, y)
    return _nat_op(op, x, y)


def _fin_op(op: str, x: Any, y: Any, n: int) -> Any:
    if n == 0:
        return _nat_op(op, x, y)
    if op == "+":
        return (x + y) % n
    if op == "-":
        return (x - y) % n
    if op == "*":
        return (x * y) % n
    raise EvalError(f"operator {op} on Fin")


def power(base: Arr, exp: Arr, ctx: Ctx) -> Arr:
    """`base ^ exp`: a natural exponent is `Monoid.npow`, a real one `Real.rpow`."""
    if exp.kind == "real":
        b = coerce(base, "real", ctx)
        axes = union_axes(b, exp)
        ndom = max(len(b.dom), len(exp.dom))
        data = real_rpow(expand(b, axes, ndom, ctx.dtype), expand(exp, axes, ndom, ctx.dtype))
        return Arr(data, "real", axes, b.dom or exp.dom)
    e = exp
    if e.kind == "num" and e.is_static:
        f = Fraction(e.data)
        if f.denominator != 1 or f < 0:
            raise EvalError(f"exponent {f} is not a natural number")
        k = int(f)
        if base.kind == "num" and base.is_static:
            return Arr(Fraction(base.data) ** k, "num")
        if base.kind in ("nat", "int") and base.is_static:
            return Arr(int(base.data) ** k, base.kind)
        if base.kind == "fin":
            b = base
            n = b.bound.n if b.bound else 0
            d = as_array(b) ** k
            return b.with_(data=d % n if n else d, iota=None)
        kind = "real" if base.kind == "num" else base.kind
        b = coerce(base, kind, ctx)
        return b.with_(data=lax.integer_pow(as_array(b), k), iota=None)
    if e.kind not in ("nat", "fin", "num"):
        raise EvalError(f"exponent of kind {e.kind}")
    kind = "real" if base.kind == "num" else base.kind
    b = coerce(base, kind, ctx)
    axes = union_axes(b, e)
    ndom = max(len(b.dom), len(e.dom))
    x = expand(b, axes, ndom)
    y = expand(coerce(e, "nat", ctx), axes, ndom)
    if kind == "real":
        # x ^ 0 = 1; guarded so that the derivative 0 * x ^ -1 never arises at x = 0
        z = y == 0
        data = jnp.where(z, 1.0, jnp.power(x, jnp.where(z, 1, y).astype(x.dtype)))
    else:
        data = jnp.power(x, y)
        if kind == "fin" and b.bound is not None and b.bound.n:
            data = data % b.bound.n
    return Arr(data, kind, axes, b.dom or e.dom, bound=b.bound if kind == "fin" else None)


# --- comparisons and logic ---------------------------------------------------

CMP_OPS = ("=", "≠", "<", "≤", ">", "≥")


def compare(op: str, a: Arr, b: Arr, ctx: Ctx) -> Arr:
    if a.kind == "bool" and b.kind == "bool" and op in ("=", "≠"):
        kind = "bool"
    else:
        kind, bound = join_kind(a, b)
        a = coerce(a, kind, ctx, bound)
        b = coerce(b, kind, ctx, bound)
    if a.is_static and b.is_static and not a.axes and not b.axes:
        x, y = a.data, b.data
        return Arr(bool(_py_cmp(op, x, y)), "bool")
    axes = union_axes(a, b)
    ndom = max(len(a.dom), len(b.dom))
    dt = ctx.dtype if kind in ("real", "num") else None
    x = expand(a, axes, ndom, dt)
    y = expand(b, axes, ndom, dt)
    r = _jnp_cmp(op, x, y)
    if ndom:
        red = tuple(range(len(axes), len(axes) + ndom))
        xp = xp_of(r)
        r = xp.all(r, axis=red) if op != "≠" else xp.any(r, axis=red)
    return Arr(r, "bool", axes)


def _py_cmp(op: str, x: Any, y: Any) -> bool:
    return {"=": x == y, "≠": x != y, "<": x < y, "≤": x <= y, ">": x > y, "≥": x >= y}[op]


def _jnp_cmp(op: str, x: Any, y: Any) -> Any:
    if op == "=":
        return x == y
    if op == "≠":
        return x != y
    if op == "<":
        return x < y
    if op == "≤":
        return x <= y
    if op == ">":
        return x > y
    return x >= y


def logic(op: str, a: Arr, b: Arr) -> Arr:
    for x in (a, b):
        if x.kind != "bool":
            raise EvalError(f"{op} of a non-proposition ({x.describe()})")
    if a.is_static and b.is_static:
        p, q = bool(a.data), bool(b.data)
        v = {"∧": p and q, "∨": p or q, "→": (not p) or q, "↔": p == q}[op]
        return Arr(v, "bool")
    axes = union_axes(a, b)
    x = expand(a, axes, 0)
    y = expand(b, axes, 0)
    xp = xp_of(x, y)
    if op == "∧":
        r = xp.logical_and(x, y)
    elif op == "∨":
        r = xp.logical_or(x, y)
    elif op == "→":
        r = xp.logical_or(xp.logical_not(x), y)
    elif op == "↔":
        r = x == y
    else:
        raise EvalError(f"connective {op}")
    return Arr(r, "bool", axes)


def negate(a: Arr, ctx: Ctx) -> Arr:
    if a.kind == "num" and a.is_static:
        return Arr(-Fraction(a.data), "num")
    if a.kind in ("nat", "fin") and a.kind == "nat":
        a = coerce(a, "int", ctx)
    if a.kind == "fin":
        n = a.bound.n if a.bound else 0
        d = -as_array(a)
        return a.with_(data=d % n if n else d, iota=None)
    if a.kind == "int" and a.is_static:
        return Arr(-int(a.data), "int")
    if a.kind not in ("real", "int", "num"):
        raise EvalError(f"negation of a {a.describe()}")
    return a.with_(data=-as_array(a), iota=None)


def select(cond: Arr, a: Arr, b: Arr, ctx: Ctx) -> Arr:
    """`if cond then a else b` (both branches are total values)."""
    if cond.kind != "bool":
        raise EvalError("if-condition is not a proposition")
    if cond.is_static and not cond.axes:
        return a if bool(cond.data) else b
    if a.kind != b.kind or (a.kind == "fin" and a.bound != b.bound):
        if "bool" in (a.kind, b.kind):
            raise EvalError("if-branches of different types")
        kind, bound = join_kind(a, b)
        a = coerce(a, kind, ctx, bound)
        b = coerce(b, kind, ctx, bound)
    axes = union_axes(cond, a, b)
    ndom = max(len(a.dom), len(b.dom))
    dt = ctx.dtype if a.kind in ("real", "num") else None
    c = expand(cond, axes, ndom)
    x = expand(a, axes, ndom, dt)
    y = expand(b, axes, ndom, dt)
    return Arr(xp_of(c, x, y).where(c, x, y), a.kind, axes, a.dom or b.dom, bound=a.bound)
