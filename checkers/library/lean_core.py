"""Semantics of Lean core and Mathlib constants used in statements.

Real functions are Lean's total ones (see arith.py); `Fin` plumbing follows
Mathlib (`finProdFinEquiv (i, j) = i * n + j`, `.symm k = (k / n, k % n)`,
`Fin.rev i = n - 1 - i`, `Fin.succ`, `Fin.castSucc`). Finite sets and the big
operators over them are in finsets.py, `Nat.choose` and its kin in counting.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from checkers.language import arith as A
from checkers.language import total as T
from checkers.language.coercion import coerce, nat_constant
from checkers.language.errors import EvalError, NotSupported
from checkers.language.measure import note_operands, note_result
from checkers.language.powers import power
from checkers.language.types import TFin, TProd
from checkers.language.values import (
    Arr,
    Builtin,
    Pair,
    Sz,
    TypeValue,
    as_array,
)
from checkers.lazyjax import jnp

if TYPE_CHECKING:
    from checkers.evaluator.evaluate import Evaluator


def _real1(name: str, function: str, measure: str = "") -> Builtin:
    """A real function of one real, jnp's `function`. `measure`: 'periodic' (its argument is reduced
    modulo a period, an addition whose error scales with |x|) or 'positive' (never
    zero in ℝ: a zero or subnormal result is an underflow)."""

    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        x = coerce(ev._arr(args[0], name), "real", ev.ctx)
        data = getattr(jnp, function)(as_array(x))
        if measure == "periodic":
            note_operands(ev.ctx, as_array(x))
        elif measure == "positive":
            note_result(ev.ctx, (), data)
        return x.with_(data=data, iota=None)

    return Builtin(name, 1, fn, ("real",), implicit=0)


def _arcsin(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """Mathlib's `Real.arcsin` (Mathlib/Analysis/SpecialFunctions/Trigonometric/Inverse.lean):
    extended constantly outside [-1, 1], -π/2 below and π/2 above."""
    x = coerce(ev._arr(args[0], "Real.arcsin"), "real", ev.ctx)
    return x.with_(data=jnp.arcsin(jnp.clip(as_array(x), -1.0, 1.0)), iota=None)


def _arccos(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """Mathlib's `Real.arccos x = π / 2 - arcsin x` (so π above -1's left, 0 past 1)."""
    x = coerce(ev._arr(args[0], "Real.arccos"), "real", ev.ctx)
    data = jnp.pi / 2 - jnp.arcsin(jnp.clip(as_array(x), -1.0, 1.0))
    return x.with_(data=data, iota=None)


def _tan(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """Mathlib's `Real.tan x = sin x / cos x` (the real part of `Complex.tan`, a quotient
    with Lean's `x / 0 = 0`)."""
    x = coerce(ev._arr(args[0], "Real.tan"), "real", ev.ctx)
    d = as_array(x)
    note_operands(ev.ctx, d)  # its argument is reduced modulo π, as sin's and cos's are
    return x.with_(data=T.real_div(jnp.sin(d), jnp.cos(d)), iota=None)


def _exp(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`Real.exp x`, held as x in log space (values.py): it never overflows there."""
    x = coerce(ev._arr(args[0], "Real.exp"), "real", ev.ctx)
    data = as_array(x, ev.ctx.dtype)
    note_result(ev.ctx, (), jnp.exp(data))  # e^x is never 0 in ℝ: 0 here is an underflow
    return x.with_(data=data, iota=None, log=True)


def _log(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`Real.log x` (`log 0 = 0`, `log (-x) = log x`); of a value in log space, its data."""
    x = coerce(ev._arr(args[0], "Real.log"), "real", ev.ctx)
    if x.log:
        return x.with_(data=x.data, iota=None, log=False)
    return x.with_(data=T.real_log(as_array(x)), iota=None)


def _sqrt(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`Real.sqrt x` (0 for x ≤ 0); of a value in log space, half its logarithm."""
    x = coerce(ev._arr(args[0], "Real.sqrt"), "real", ev.ctx)
    if x.log:
        return A.log_scaled(x, 0.5)
    return x.with_(data=T.real_sqrt(as_array(x)), iota=None)


def _pi(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return Arr(jnp.asarray(math.pi, ev.ctx.dtype), "real")


def _rpow(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    x = coerce(ev._arr(args[0], "rpow"), "real", ev.ctx)
    y = coerce(ev._arr(args[1], "rpow"), "real", ev.ctx)
    return power(x, y, ev.ctx)


def _same_type(k: int, expected: Any) -> Any:
    """The arguments of `α → α → α` (max, min, abs) have the result's type."""
    return expected


def _minmax(name: str, pick_max: bool) -> Builtin:
    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        a, b = (ev._arr(x, name) for x in args)
        return A.extremum(a, b, ev.ctx, pick_max)

    return Builtin(name, 2, fn, arg_expect=_same_type)


def _abs(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return A.absolute(ev._arr(args[0], "abs"))


def _cast(target: str) -> Callable[..., Any]:
    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        return coerce(ev._arr(args[0], "cast"), target, ev.ctx)

    return fn


def _rounding(name: str, up: bool, natural: bool) -> Builtin:
    """`Int.floor x` (`⌊x⌋`), `Int.ceil x` (`⌈x⌉`), and `Nat.floor`/`Nat.ceil` (`⌊x⌋₊`,
    `⌈x⌉₊`: 0 below 0, Mathlib's); exact on an exact constant (a rational)."""

    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        x = coerce(ev._arr(args[0], name), "real", ev.ctx)
        kind = "nat" if natural else "int"
        if x.is_static and not x.log:
            q = Fraction(x.data)
            n = math.ceil(q) if up else math.floor(q)
            return Arr(max(n, 0) if natural else n, kind)
        data = as_array(x, ev.ctx.dtype)
        r = (jnp.ceil(data) if up else jnp.floor(data)).astype(jnp.int64)
        if natural:
            r = jnp.maximum(r, 0)
        return x.with_(data=r, kind=kind, iota=None)

    return Builtin(name, 1, fn, ("real",), implicit=3)


def _fin(ev: Evaluator, x: Any, what: str) -> Arr:
    v = ev._arr(x, what)
    if v.kind != "fin":
        v = coerce(v, "fin", ev.ctx, v.bound)
    return v


def _fin_val(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return coerce(_fin(ev, args[0], "Fin.val"), "nat", ev.ctx)


def _fin_succ(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    i = _fin(ev, args[0], "Fin.succ")
    n = i.bound.n if i.bound is not None else None
    data = i.data + 1 if i.is_static else as_array(i) + 1
    return Arr(data, "fin", i.axes, i.dom, Sz(n + 1) if n is not None else None)


def _fin_cast_succ(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    i = _fin(ev, args[0], "Fin.castSucc")
    n = i.bound.n if i.bound is not None else None
    return Arr(i.data, "fin", i.axes, i.dom, Sz(n + 1) if n is not None else None)


def _fin_rev(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    i = _fin(ev, args[0], "Fin.rev")
    if i.bound is None:
        raise EvalError("Fin.rev of an index whose bound is unknown")
    n = i.bound.n
    data = n - 1 - i.data if i.is_static else (n - 1) - as_array(i)
    return Arr(data, "fin", i.axes, i.dom, i.bound)


def _fin_cast(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    # `Fin.cast (h : n = m) i`: the same index, at a size the proof says is equal
    return _fin(ev, args[1], "Fin.cast")


def _fintype_card(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    # applied to a type where it is written, `Fintype.card (Fin k)` is read there
    # (application.py); here it met a value, not a type
    raise NotSupported("Fintype.card of a value that is not a written type")


def _fin_last(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    n = nat_constant(ev._arr(args[0], "Fin.last"), "Fin.last")
    return Arr(n, "fin", bound=Sz(n + 1))


def _nat_succ(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return A.arith("+", coerce(ev._arr(args[0], "succ"), "nat", ev.ctx), Arr(1, "nat"), ev.ctx)


def _nat_pred(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return A.arith("-", coerce(ev._arr(args[0], "pred"), "nat", ev.ctx), Arr(1, "nat"), ev.ctx)


def _fpfe(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    p = args[0]
    if not isinstance(p, Pair):
        raise EvalError("finProdFinEquiv of a non-pair")
    a = _fin(ev, p.fst, "finProdFinEquiv")
    b = _fin(ev, p.snd, "finProdFinEquiv")
    if b.bound is None:
        raise EvalError("finProdFinEquiv (i, j) with j of unknown bound")
    n = b.bound.n
    bound = Sz.prod(a.bound, b.bound) if a.bound is not None else None
    v = A.arith(
        "+",
        A.arith("*", coerce(a, "nat", ev.ctx), Arr(n, "nat"), ev.ctx),
        coerce(b, "nat", ev.ctx),
        ev.ctx,
    )
    return Arr(v.data, "fin", v.axes, v.dom, bound)


def _fpfe_expect(k: int, expected: Any) -> Any:
    if k == 0 and isinstance(expected, TFin) and expected.sz is not None:
        f = expected.sz.factors
        if f is not None:
            return TProd(TFin(f[0]), TFin(f[1]))
    return None


def _fpfe_symm(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    k = _fin(ev, args[0], "finProdFinEquiv.symm")
    if k.bound is None or k.bound.factors is None:
        size = k.bound.n if k.bound is not None else "?"
        raise EvalError(
            f"finProdFinEquiv.symm of an index in Fin {size}, whose type "
            "does not show it as a product m * n"
        )
    m, n = k.bound.factors
    kn = coerce(k, "nat", ev.ctx)
    q = A.arith("/", kn, Arr(n.n, "nat"), ev.ctx)
    r = A.arith("%", kn, Arr(n.n, "nat"), ev.ctx)
    return Pair(q.with_(kind="fin", bound=m), r.with_(kind="fin", bound=n))


def _equiv_symm(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    e = args[0]
    if isinstance(e, Builtin) and e.name == "finProdFinEquiv":
        return ev.constant("finProdFinEquiv.symm")
    raise EvalError("Equiv.symm of an equivalence other than finProdFinEquiv")


def _fst(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    if not isinstance(args[0], Pair):
        raise EvalError("Prod.fst of a non-pair")
    return args[0].fst


def _snd(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    if not isinstance(args[0], Pair):
        raise EvalError("Prod.snd of a non-pair")
    return args[0].snd


def _id(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return args[0]


def _comp(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    f, g, x = args
    return ev.apply(f, [ev.apply(g, [x])])


def _binop(name: str, op: str) -> Builtin:
    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        a, b = (ev._arr(x, name) for x in args)
        if op == "^":
            return power(a, b, ev.ctx)
        return A.arith(op, a, b, ev.ctx)

    return Builtin(name, 2, fn)


def _neg(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return A.negate(ev._arr(args[0], "Neg.neg"), ev.ctx)


def _inv(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    v = ev._arr(args[0], "Inv.inv")
    if v.kind == "complex":  # Lean's 0⁻¹ = 0 in ℂ too
        return v.with_(data=T.complex_div(1, as_array(v)), iota=None)
    x = coerce(v, "real", ev.ctx)
    kind = "nnreal" if v.kind == "nnreal" else "real"
    return x.with_(data=T.real_inv(as_array(x)), iota=None, kind=kind)


def _truth(value: bool) -> Builtin:
    """`True` and `False`, the propositions, as truth values."""
    name = "True" if value else "False"
    return Builtin(name, 0, lambda ev, args: Arr(np.bool_(value), "bool"), implicit=0)


def _type(name: str) -> Builtin:
    return Builtin(name, 0, lambda ev, args: TypeValue(name))


CORE: tuple[Builtin, ...] = (
    Builtin("Real.exp", 1, _exp, ("real",), implicit=0),
    Builtin("Real.log", 1, _log, ("real",), implicit=0),
    Builtin("Real.sqrt", 1, _sqrt, ("real",), implicit=0),
    _real1("Real.tanh", "tanh"),
    _real1("Real.cos", "cos", "periodic"),
    _real1("Real.sin", "sin", "periodic"),
    _real1("Real.cosh", "cosh"),
    _real1("Real.sinh", "sinh"),
    _real1("Real.arctan", "arctan"),
    Builtin("Real.arcsin", 1, _arcsin, ("real",), implicit=0),
    Builtin("Real.arccos", 1, _arccos, ("real",), implicit=0),
    Builtin("Real.tan", 1, _tan, ("real",), implicit=0),
    Builtin("Real.pi", 0, _pi, implicit=0),
    _truth(True),
    _truth(False),
    Builtin("Real.rpow", 2, _rpow, ("real", "real")),
    _minmax("max", True),
    _minmax("Max.max", True),
    _minmax("min", False),
    _minmax("Min.min", False),
    Builtin("abs", 1, _abs, arg_expect=_same_type),
    _rounding("Int.floor", up=False, natural=False),
    _rounding("Int.ceil", up=True, natural=False),
    _rounding("Nat.floor", up=False, natural=True),
    _rounding("Nat.ceil", up=True, natural=True),
    Builtin("Nat.cast", 1, _cast("real"), ("nat",), implicit=2),
    Builtin("Int.cast", 1, _cast("real"), ("int",), implicit=2),
    Builtin("Rat.cast", 1, _cast("real"), ("real",), implicit=2),
    Builtin("Fin.val", 1, _fin_val, implicit=1),
    Builtin("Fin.succ", 1, _fin_succ, implicit=1),
    Builtin("Fin.castSucc", 1, _fin_cast_succ, implicit=1),
    Builtin("Fin.rev", 1, _fin_rev, implicit=1),
    Builtin("Fin.last", 1, _fin_last, ("nat",), implicit=0),
    Builtin("Fintype.card", 1, _fintype_card, implicit=2),
    Builtin("Fin.cast", 2, _fin_cast, implicit=2),
    Builtin("Nat.succ", 1, _nat_succ, ("nat",), implicit=0),
    Builtin("Nat.pred", 1, _nat_pred, ("nat",), implicit=0),
    Builtin("finProdFinEquiv", 1, _fpfe, arg_expect=_fpfe_expect, implicit=2),
    Builtin("finProdFinEquiv.symm", 1, _fpfe_symm),
    Builtin("Equiv.symm", 1, _equiv_symm, implicit=2),
    Builtin("Prod.fst", 1, _fst, implicit=2),
    Builtin("Prod.snd", 1, _snd, implicit=2),
    Builtin("id", 1, _id, implicit=1),
    _binop("HAdd.hAdd", "+"),
    _binop("HSub.hSub", "-"),
    _binop("HMul.hMul", "*"),
    _binop("HDiv.hDiv", "/"),
    _binop("HMod.hMod", "%"),
    _binop("HPow.hPow", "^"),
    _binop("HSMul.hSMul", "*"),
    Builtin("Neg.neg", 1, _neg),
    Builtin("Inv.inv", 1, _inv),
    Builtin("Function.comp", 3, _comp, implicit=3),
    _type("Real"),
    _type("ℝ"),
    _type("Nat"),
    _type("ℕ"),
)
