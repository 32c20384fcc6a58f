"""Lean's arithmetic, comparisons and connectives on `Arr` values.

Every operation runs at one type with that type's semantics (total.py):
`a op b` at the common type of its operands (coercion.py) or at the type the
context fixes. Two numerals whose type is not known yet combine into a
`Numeral` tree (numerals.py) that is evaluated, node by node, once it is.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from checkers.language import lax_ops as L
from checkers.language.axes import expand, union_axes
from checkers.language.coercion import Ctx, coerce, complex_dtype, join_kind, settle
from checkers.language.errors import EvalError, NotSupported, UntypedNumeral
from checkers.language.measure import note_operands, note_result
from checkers.language.numerals import Numeral
from checkers.language.total import (
    complex_div,
    int_ediv,
    int_emod,
    nat_div,
    nat_mod,
    nat_sub,
    py_fin,
    py_int,
    py_nat,
    real_div,
    xp_of,
)
from checkers.language.values import Arr, Sz, as_array, host_or_array, is_exact
from checkers.language.vectorise import guard_entries
from checkers.lazyjax import jnp

ARITH_OPS = ("+", "-", "*", "/", "%")
# the kinds held as floats (or complex floats): never computed as exact Python numbers
FLOAT_KINDS = ("real", "nnreal", "angle", "complex")
# positive reals held as their logarithms (values.py) combine without leaving log
# space, so exponentials beyond float64's range still meet: e^a / e^b is e^(a - b)
LOG_OPS = {"*": "add", "/": "subtract", "+": "logaddexp"}  # jnp's functions


def log_scaled(x: Arr, factor: Any) -> Arr:
    """A power of a positive real held in log space (values.py): log (x ^ k) = k · log x,
    so `(e^a) ^ k`, `√(e^a)` and `(e^a)⁻¹` stay there too."""
    return x.with_(data=jnp.asarray(x.data) * factor, iota=None, log=True)


CMP_OPS = ("=", "≠", "<", "≤", ">", "≥")


def _numerals(*xs: Arr) -> bool:
    return all(isinstance(x.data, Numeral) for x in xs)


# --- binary operations -----------------------------------------------------


def arith(op: str, a: Arr, b: Arr, ctx: Ctx, kind: str | None = None) -> Arr:
    """`a op b` at the common type (or at `kind` when the context fixes it)."""
    if _numerals(a, b) and kind in (None, "num"):
        return Arr(Numeral.node(op, a.data, b.data), "num")
    if kind is None or kind == "num":
        kind, bound = join_kind(a, b)
    else:
        bound = a.bound if a.kind == "fin" else b.bound
    a = coerce(a, kind, ctx, bound)
    b = coerce(b, kind, ctx, bound)
    scalars = not (a.axes or b.axes or a.dom or b.dom)
    if kind not in FLOAT_KINDS and a.is_static and b.is_static and scalars:
        return _static(op, int(a.data), int(b.data), kind, bound)
    return _arrays(op, a, b, ctx, kind, bound)


def _static(op: str, a: int, b: int, kind: str, bound: Sz | None) -> Arr:
    if kind == "nat":
        return Arr(py_nat(op, a, b), "nat")
    if kind == "int":
        return Arr(py_int(op, a, b), "int")
    if bound is not None and bound.n:
        return Arr(py_fin(op, a, b, bound.n), "fin", bound=bound)
    return Arr(py_nat(op, a, b), "fin", bound=bound)


def _arrays(op: str, a: Arr, b: Arr, ctx: Ctx, kind: str, bound: Sz | None) -> Arr:
    axes = union_axes(a, b)
    ndom = max(len(a.dom), len(b.dom))
    dom = a.dom if len(a.dom) >= len(b.dom) else b.dom
    if a.dom and b.dom and tuple(s.n for s in a.dom) != tuple(s.n for s in b.dom):
        raise EvalError(f"cannot combine a {a.describe()} with a {b.describe()}")
    # index arithmetic over two bound variables (`finProdFinEquiv`) broadcasts to every pair
    guard_entries([ax.size for ax in axes] + [s.n for s in dom], f"`{op}` of these arrays")
    if kind in ("real", "nnreal", "angle"):
        dt = ctx.dtype
    elif kind == "complex":
        dt = complex_dtype(ctx.dtype)
    else:  # exact integers stay exact (values.is_exact); else the context's integers
        dt = object if is_exact(a.data) or is_exact(b.data) else ctx.int_dtype
    if kind == "real" and a.log != b.log and op in ("*", "/"):
        # a product with a positive constant stays in log space (counting.py, power)
        other = host_positive(b if a.log else a)
        if other is not None:
            logs = (b if a.log else a).with_(data=np.log(other), iota=None, log=True)
            a, b = (a, logs) if a.log else (logs, b)
    if kind == "real" and a.log and b.log and op in LOG_OPS:
        x = expand(a, axes, ndom, dt, logs=True)
        y = expand(b, axes, ndom, dt, logs=True)
        return Arr(getattr(jnp, LOG_OPS[op])(x, y), kind, axes, dom, log=True)
    x = expand(a, axes, ndom, dt)
    y = expand(b, axes, ndom, dt)
    if kind == "nnreal" and op == "-":  # Mathlib's truncated subtraction on ℝ≥0
        data = _real_op(op, x, y)
        note_operands(ctx, x, y)
        data = xp_of(data).maximum(data, 0.0)
    elif kind == "angle":  # ℝ modulo 2π: + and -, and n • θ (`•` multiplies)
        if op not in ("+", "-", "*"):
            raise NotSupported(f"the operator {op} on angles (Real.Angle has none)")
        data = _real_op(op, x, y)
        note_operands(ctx, x, y)
    elif kind in ("real", "nnreal"):
        data = _real_op(op, x, y)
        if op in ("+", "-"):
            note_operands(ctx, x, y)
        else:
            note_result(ctx, (x, y), data)
    elif kind == "complex":
        data = complex_op(op, x, y)
        if ctx.meter is not None and ctx.meter.active:  # (the moduli only where measured:
            # computed in a derivative's trace they would be kinks of its function)
            if op in ("+", "-"):
                note_operands(ctx, jnp.abs(x), jnp.abs(y))
            else:  # each part of x * y (or x / y) is a sum of terms as large as its modulus
                note_operands(ctx, jnp.abs(data))
    elif kind == "nat":
        data = _nat_op(op, x, y)
    elif kind == "int":
        data = _int_op(op, x, y)
    else:  # fin
        n = bound.n if bound is not None else 0
        data = _nat_op(op, x, y) if op in ("/", "%") else _fin_op(op, x, y, n)
    l2 = (a.l2 or b.l2) and bool(dom)  # EuclideanSpace's, entrywise as Pi's (values.py)
    return Arr(data, kind, axes, dom, bound=bound if kind == "fin" else None, l2=l2)


def _float_dtype(kind: str, ctx: Ctx) -> Any:
    """The dtype values of a float kind are laid out at (None for the others)."""
    if kind in ("real", "nnreal", "angle"):
        return ctx.dtype
    return complex_dtype(ctx.dtype) if kind == "complex" else None


def _real_op(op: str, x: Any, y: Any) -> Any:
    if op in ("+", "-", "*"):
        return _plain_op(op, x, y)
    if op == "/":
        return real_div(x, y)
    raise EvalError(f"operator {op} on ℝ")


def complex_op(op: str, x: Any, y: Any) -> Any:
    """x op y in ℂ: a field like ℝ, with Lean's `z / 0 = 0`."""
    if op in ("+", "-", "*"):
        return x + y if op == "+" else x - y if op == "-" else x * y
    if op == "/":
        return complex_div(x, y)
    raise EvalError(f"operator {op} on ℂ")


def _plain_op(op: str, x: Any, y: Any) -> Any:
    """x op y on host constants (NumPy) or arrays of the program (lax_ops)."""
    if xp_of(x, y) is np:
        return x + y if op == "+" else x - y if op == "-" else x * y
    return L.binary(op, x, y)


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


def host_positive(v: Arr) -> np.ndarray | None:
    """The values of v when they are host (NumPy) floats, all positive; else None."""
    d = v.data
    if v.log or not isinstance(d, np.ndarray | np.generic):
        return None
    d = np.asarray(d)
    if not np.issubdtype(d.dtype, np.floating) or not np.all(d > 0):
        return None
    return d


# --- comparisons and logic ---------------------------------------------------


def compare(op: str, a: Arr, b: Arr, ctx: Ctx) -> Arr:
    """`a op b`: a proposition. Numerals that nothing else types are ℕ."""
    if a.kind == "bool" and b.kind == "bool" and op in ("=", "≠"):
        kind = "bool"
    else:
        kind, bound = join_kind(a, b)
        if kind == "num":
            a, b = settle(a), settle(b)
            kind, bound = "nat", None
        a = coerce(a, kind, ctx, bound)
        b = coerce(b, kind, ctx, bound)
    if kind == "complex" and op not in ("=", "≠"):
        raise NotSupported(
            f"the order {op} on ℂ (Mathlib's `ComplexOrder`, a scoped partial order) is not "
            "modelled"
        )
    if kind == "angle":
        return _angles_compared(op, a, b, ctx)
    if a.is_static and b.is_static and not a.axes and not b.axes:
        return Arr(bool(_py_cmp(op, a.data, b.data)), "bool")
    axes = union_axes(a, b)
    ndom = max(len(a.dom), len(b.dom))
    dt = _float_dtype(kind, ctx)
    x = expand(a, axes, ndom, dt)
    y = expand(b, axes, ndom, dt)
    r = _jnp_cmp(op, x, y)
    if ndom:
        red = tuple(range(len(axes), len(axes) + ndom))
        xp = xp_of(r)
        r = xp.all(r, axis=red) if op != "≠" else xp.any(r, axis=red)
    return Arr(r, "bool", axes)


def _angles_compared(op: str, a: Arr, b: Arr, ctx: Ctx) -> Arr:
    """`θ = ψ` of angles: their difference is a multiple of 2π, so its representative in
    (-π, π] (`Real.Angle.toReal`) is 0. Angles have no order."""
    if op not in ("=", "≠"):
        raise NotSupported(f"the order {op} on angles (Real.Angle has none)")
    d = arith("-", coerce(a, "angle", ctx), coerce(b, "angle", ctx), ctx)
    zero = Arr(np.asarray(0.0, ctx.dtype), "real")
    return compare(op, d.with_(data=angle_to_real(as_array(d)), kind="real"), zero, ctx)


def angle_to_real(x: Any) -> Any:
    """The representative of an angle in (-π, π]: `Real.Angle.toReal`, Mathlib's `toIocMod
    two_pi_pos (-π)` (x - 2πk for the integer k = ⌈(x - π) / 2π⌉)."""
    two_pi = 2 * np.pi
    return x - two_pi * jnp.ceil((x - np.pi) / two_pi)


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
    if isinstance(a.data, Numeral):
        return Arr(Numeral.node("neg", a.data), "num")
    if a.kind == "nat":
        # `-n` for n : ℕ elaborates only where the expected type is ℤ or a ring
        a = coerce(a, "int", ctx)
    if a.kind == "fin":
        n = a.bound.n if a.bound else 0
        d = -as_array(a)
        return a.with_(data=d % n if n else d, iota=None)
    if a.kind == "int" and a.is_static:
        return Arr(-int(a.data), "int")
    if a.kind == "nnreal":
        raise EvalError("negation in ℝ≥0 (it has none)")
    if a.kind not in ("real", "int", "complex", "angle"):
        raise EvalError(f"negation of a {a.describe()}")
    return a.with_(data=-as_array(a), iota=None)


def absolute(a: Arr) -> Arr:
    """`|a|` (ℕ and `Fin` values are their own absolute value)."""
    if isinstance(a.data, Numeral):
        return Arr(Numeral.node("abs", a.data), "num")
    if a.kind in ("nat", "fin", "nnreal"):
        return a
    if a.kind == "int" and a.is_static:
        return Arr(abs(int(a.data)), "int")
    if a.log:  # positive
        return a
    if a.kind in ("complex", "angle"):
        raise NotSupported(f"|x| of a {a.kind} value (it has no lattice)")
    d = host_or_array(a)  # a host constant stays one
    return a.with_(data=xp_of(d).abs(d), iota=None)


def extremum(a: Arr, b: Arr, ctx: Ctx, pick_max: bool) -> Arr:
    """`max a b = if a ≤ b then b else a`; `min a b = if a ≤ b then a else b`."""
    if _numerals(a, b):
        return Arr(Numeral.node("max" if pick_max else "min", a.data, b.data), "num")
    c = compare("≤", a, b, ctx)
    return select(c, b, a, ctx) if pick_max else select(c, a, b, ctx)


def select(cond: Arr, a: Arr, b: Arr, ctx: Ctx) -> Arr:
    """`if cond then a else b` (both branches are total values)."""
    if cond.kind != "bool":
        raise EvalError("if-condition is not a proposition")
    if cond.is_static and not cond.axes:
        return a if bool(cond.data) else b
    if _numerals(a, b):
        raise UntypedNumeral(f"an if-then-else of the numerals {a.data} and {b.data}")
    if a.kind != b.kind or (a.kind == "fin" and a.bound != b.bound):
        if "bool" in (a.kind, b.kind):
            raise EvalError("if-branches of different types")
        kind, bound = join_kind(a, b)
        a = coerce(a, kind, ctx, bound)
        b = coerce(b, kind, ctx, bound)
    axes = union_axes(cond, a, b)
    ndom = max(len(a.dom), len(b.dom))
    dt = _float_dtype(a.kind, ctx)
    c = expand(cond, axes, ndom)
    x = expand(a, axes, ndom, dt)
    y = expand(b, axes, ndom, dt)
    data = np.where(c, x, y) if xp_of(c, x, y) is np else L.where(c, x, y)
    return Arr(data, a.kind, axes, a.dom or b.dom, bound=a.bound, l2=a.l2 and b.l2)
