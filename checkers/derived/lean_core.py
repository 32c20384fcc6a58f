"""Semantics of Lean core and Mathlib constants used in statements.

Real functions are Lean's total ones (see arith.py); `Fin` plumbing follows
Mathlib (`finProdFinEquiv (i, j) = i * n + j`, `.symm k = (k / n, k % n)`,
`Fin.rev i = n - 1 - i`, `Fin.succ`, `Fin.castSucc`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax.numpy as jnp

from checkers.derived import arith as A
from checkers.derived.errors import EvalError
from checkers.derived.types import TFin, TProd
from checkers.derived.values import (
    Arr,
    Axis,
    Builtin,
    Pair,
    Sz,
    TypeValue,
    as_array,
    drop_axis_by_sum,
    iota,
)

if TYPE_CHECKING:
    from checkers.derived.evaluate import Evaluator


def _real1(name: str, f: Callable[[Any], Any]) -> Builtin:
    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        x = A.coerce(ev._arr(args[0], name), "real", ev.ctx)
        return x.with_(data=f(as_array(x)), iota=None)

    return Builtin(name, 1, fn, ("real",))


def _pi(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return Arr(jnp.asarray(math.pi, ev.ctx.dtype), "real")


def _rpow(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    x = A.coerce(ev._arr(args[0], "rpow"), "real", ev.ctx)
    y = A.coerce(ev._arr(args[1], "rpow"), "real", ev.ctx)
    return A.power(x, y, ev.ctx)


def _minmax(name: str, pick_max: bool) -> Builtin:
    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        a, b = (ev._arr(x, name) for x in args)
        c = A.compare("≤", a, b, ev.ctx)
        # max a b = if a ≤ b then b else a; min a b = if a ≤ b then a else b
        return A.select(c, b, a, ev.ctx) if pick_max else A.select(c, a, b, ev.ctx)

    return Builtin(name, 2, fn)


def _abs(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    x = ev._arr(args[0], "abs")
    if x.kind in ("nat", "fin"):
        return x
    if x.kind == "num" and x.is_static:
        return x.with_(data=abs(x.data))
    return x.with_(data=jnp.abs(as_array(x)), iota=None)


def _cast(target: str) -> Callable[..., Any]:
    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        return A.coerce(ev._arr(args[0], "cast"), target, ev.ctx)

    return fn


def _fin(ev: Evaluator, x: Any, what: str) -> Arr:
    v = ev._arr(x, what)
    if v.kind != "fin":
        v = A.coerce(v, "fin", ev.ctx, v.bound)
    return v


def _fin_val(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return A.coerce(_fin(ev, args[0], "Fin.val"), "nat", ev.ctx)


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


def _fin_last(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    n = ev._arr(args[0], "Fin.last")
    if not n.is_static:
        raise EvalError("Fin.last of a non-constant bound")
    return Arr(int(n.data), "fin", bound=Sz(int(n.data) + 1))


def _nat_succ(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return A.arith("+", A.coerce(ev._arr(args[0], "succ"), "nat", ev.ctx), Arr(1, "nat"), ev.ctx)


def _nat_pred(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return A.arith("-", A.coerce(ev._arr(args[0], "pred"), "nat", ev.ctx), Arr(1, "nat"), ev.ctx)


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
        A.arith("*", A.coerce(a, "nat", ev.ctx), Arr(n, "nat"), ev.ctx),
        A.coerce(b, "nat", ev.ctx),
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
    kn = A.coerce(k, "nat", ev.ctx)
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


class Univ:
    """`Finset.univ`: its size comes from the function summed."""


class Range:
    def __init__(self, n: int) -> None:
        self.n = n


def _univ(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return Univ()


def _range(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    n = ev._arr(args[0], "Finset.range")
    if not n.is_static:
        raise EvalError("Finset.range of a non-constant bound")
    return Range(int(n.data))


def _big(name: str, prod: bool) -> Builtin:
    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        s, f = args
        if isinstance(s, Univ):
            if not isinstance(f, Arr) or not f.dom:
                raise EvalError(f"{name} over univ of a function that is not tabulated")
            ax = Axis("∑", f.dom[0].n)
            body = ev.apply(f, [iota(ax, bound=f.dom[0])])
        elif isinstance(s, Range):
            ax = Axis("∑", s.n)
            body = ev.apply(f, [iota(ax, kind="nat").with_(bound=None)])
        else:
            raise EvalError(f"{name} over a finset other than univ or range")
        return drop_axis_by_sum(ev._arr(body, name), ax, prod=prod)

    return Builtin(name, 2, fn, (None, "fn"))


def _id(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return args[0]


def _comp(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    f, g, x = args
    return ev.apply(f, [ev.apply(g, [x])])


def _binop(name: str, op: str) -> Builtin:
    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        a, b = (ev._arr(x, name) for x in args)
        if op == "^":
            return A.power(a, b, ev.ctx)
        return A.arith(op, a, b, ev.ctx)

    return Builtin(name, 2, fn)


def _neg(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return A.negate(ev._arr(args[0], "Neg.neg"), ev.ctx)


def _inv(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    x = A.coerce(ev._arr(args[0], "Inv.inv"), "real", ev.ctx)
    return x.with_(data=A.real_inv(as_array(x)), iota=None)


def _type(name: str) -> Builtin:
    return Builtin(name, 0, lambda ev, args: TypeValue(name))


CORE: tuple[Builtin, ...] = (
    _real1("Real.exp", jnp.exp),
    _real1("Real.log", A.real_log),
    _real1("Real.sqrt", A.real_sqrt),
    _real1("Real.tanh", jnp.tanh),
    _real1("Real.cos", jnp.cos),
    _real1("Real.sin", jnp.sin),
    _real1("Real.cosh", jnp.cosh),
    _real1("Real.sinh", jnp.sinh),
    _real1("Real.arctan", jnp.arctan),
    Builtin("Real.pi", 0, _pi),
    Builtin("Real.rpow", 2, _rpow, ("real", "real")),
    _minmax("max", True),
    _minmax("Max.max", True),
    _minmax("min", False),
    _minmax("Min.min", False),
    Builtin("abs", 1, _abs),
    Builtin("Nat.cast", 1, _cast("real")),
    Builtin("Int.cast", 1, _cast("real")),
    Builtin("Fin.val", 1, _fin_val),
    Builtin("Fin.succ", 1, _fin_succ),
    Builtin("Fin.castSucc", 1, _fin_cast_succ),
    Builtin("Fin.rev", 1, _fin_rev),
    Builtin("Fin.last", 1, _fin_last, ("nat",)),
    Builtin("Nat.succ", 1, _nat_succ, ("nat",)),
    Builtin("Nat.pred", 1, _nat_pred, ("nat",)),
    Builtin("finProdFinEquiv", 1, _fpfe, arg_expect=_fpfe_expect),
    Builtin("finProdFinEquiv.symm", 1, _fpfe_symm),
    Builtin("Equiv.symm", 1, _equiv_symm),
    Builtin("Prod.fst", 1, _fst),
    Builtin("Prod.snd", 1, _snd),
    Builtin("Finset.univ", 0, _univ),
    Builtin("Finset.range", 1, _range, ("nat",)),
    _big("Finset.sum", False),
    _big("Finset.prod", True),
    Builtin("id", 1, _id),
    _binop("HAdd.hAdd", "+"),
    _binop("HSub.hSub", "-"),
    _binop("HMul.hMul", "*"),
    _binop("HDiv.hDiv", "/"),
    _binop("HMod.hMod", "%"),
    _binop("HPow.hPow", "^"),
    _binop("HSMul.hSMul", "*"),
    Builtin("Neg.neg", 1, _neg),
    Builtin("Inv.inv", 1, _inv),
    Builtin("Function.comp", 3, _comp),
    _type("Real"),
    _type("ℝ"),
    _type("Nat"),
    _type("ℕ"),
)
