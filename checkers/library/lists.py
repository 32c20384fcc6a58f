"""Semantics of Lean core's `List` functions and of the `Int` constructors.

A list is a `Lst` (values.py): its elements in order; its length is always a
constant. Lean's definitions, as implemented here:

- `xs.getD i d`: the element at i (from 0), d where `i ≥ xs.length`;
  `xs.get! i` and `xs[i]!`: the element, or the element type's `default` (0)
  out of range; `xs[i]` (whose proof says `i < xs.length`): the element.
- `xs.length`; `xs.sum = foldr (· + ·) 0` and `xs.prod = foldr (· * ·) 1` (of
  the element type, so `[].sum = 0`); `xs.map f`; `List.zipWith f xs ys` and
  `List.zip xs ys` stop at the shorter list; `xs.foldl f a`, `xs.foldr f a`;
  `List.range n = [0, …, n - 1]`; `List.replicate n a`; `xs ++ ys`; `a :: xs`;
  `xs.take n` and `xs.drop n` (all of it, or nothing, past the end); `xs.head!`
  (`default` on `[]`), `xs.headD d`, `xs.tail` (`[]` on `[]`); `xs.reverse`.
- `Int.negSucc n = -(n + 1)`; `Int.ofNat n = n`; `Int.toNat z = max z 0`;
  `Int.natAbs z = |z|`.

A list's length is its structure, so it must be a constant: `List.replicate k a`
with a sampled k cannot be built (the derivation then reads k as a dimension).
Constant elements stay exact (Python integers and numerals). An index that varies
with a bound variable (`fun j => w.getD j 0`) picks from the elements stacked as
one array; from a list whose elements are not numbers (a list of lists) it picks
one case per element (`Among`), and a list function given such a choice is
applied to each case. `map` and `zipWith` over long lists of integer constants
evaluate their function once over the whole list (at_once.py).

A constant goes in this file when its meaning is a Lean core definition on lists
or integers: a function `(ev, args) -> value` and its `Builtin` entry in `LISTS`
(with `self_arg`, the argument `xs.f` fills, and `implicit`, the parameters
`@List.f` also passes).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from checkers.evaluator.at_once import at_once, exact_kind
from checkers.evaluator.forms import stack
from checkers.language import arith as A
from checkers.language.coercion import RANK, coerce, join_kind, nat_constant, settle
from checkers.language.errors import EvalError, NotSupported
from checkers.language.measure import note_operands
from checkers.language.types import TList, TNat, kind_of
from checkers.language.values import Among, Arr, Builtin, Lst, Pair, Sz, num
from checkers.language.vectorise import index
from checkers.lazyjax import jnp

if TYPE_CHECKING:
    from checkers.evaluator.evaluate import Evaluator

Fn = Callable[["Evaluator", tuple[Any, ...]], Any]


def _lst(v: Any, what: str) -> Lst:
    if not isinstance(v, Lst):
        raise EvalError(f"{what} of a {type(v).__name__}, not a list")
    return v


def _index(ev: Evaluator, v: Any, what: str) -> Arr:
    i = settle(ev._arr(v, what))
    if i.kind == "int":
        raise EvalError(f"{what}: an integer index (Lean's list indices are natural numbers)")
    return coerce(i, "nat", ev.ctx)


def elem_kind(lst: Lst, *extra: Any) -> str:
    """The kind of the elements (and of `extra` values of the element type): the join
    of their kinds, else the list's element type, else ℕ (Lean's default for numerals)."""
    kind, bound = "num", None
    for x in (*lst.items, *extra):
        if isinstance(x, Arr) and x.kind in RANK and x.kind != "num":
            if kind == "num":
                kind, bound = x.kind, x.bound
            else:
                kind, bound = join_kind(Arr(0, kind, bound=bound), x)
    if kind == "num" and lst.elem is not None:
        kind = kind_of(lst.elem) or "num"
    if kind in ("num", "bool"):
        kind = "nat"
    return kind


def default_of(ev: Evaluator, lst: Lst, value: Any = 0) -> Any:
    """`value` (a numeral) at the element type; `[]` for a list of lists."""
    if isinstance(lst.elem, TList) or (lst.items and isinstance(lst.items[0], Lst)):
        return Lst((), lst.elem.elem if isinstance(lst.elem, TList) else None)
    if lst.elem is None and not lst.items:
        return num(value)
    return coerce(num(value), elem_kind(lst), ev.ctx)


def among(ev: Evaluator, cases: list[tuple[Arr, Any]]) -> Any:
    """The value of the first case whose condition holds (the last where none does)."""
    live = [(c, v) for c, v in cases[:-1] if not (c.is_static and not c.axes and not c.data)]
    live.append(cases[-1])
    if live[0][0].is_static and not live[0][0].axes and live[0][0].data:
        return live[0][1]
    if len(live) == 1:
        return live[0][1]
    values = [v for _, v in live]
    if all(isinstance(v, Arr) for v in values):
        out = values[-1]
        for c, v in reversed(live[:-1]):
            out = A.select(c, v, out, ev.ctx)
        return out
    if all(isinstance(v, Lst | Among) for v in values):
        return Among(tuple(live))
    raise NotSupported("a choice, by a varying index, between values that are not numbers or lists")


def _distributed(fn: Fn) -> Fn:
    """fn applied to each case of an `Among` argument, the results chosen likewise."""

    def run(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        for k, a in enumerate(args):
            if isinstance(a, Among):
                return among(
                    ev, [(c, run(ev, args[:k] + (v,) + args[k + 1 :])) for c, v in a.cases]
                )
        return fn(ev, args)

    return run


def lookup(ev: Evaluator, xs: Lst, i: Arr, default: Any) -> Any:
    """The element of xs at the ℕ index i, `default` where i is past the end."""
    n = len(xs)
    if isinstance(default, Arr) and not isinstance(default.data, bool):
        default = coerce(default, elem_kind(xs, default), ev.ctx)
    if i.is_static:
        k = int(i.data)
        return xs.items[k] if k < n else default
    if n == 0:
        return default
    inside = A.compare("<", i, Arr(n, "nat"), ev.ctx)
    if all(isinstance(x, Arr) for x in xs.items) and isinstance(default, Arr):
        kind = elem_kind(xs, default)
        table = stack([ev._arr(x, "a list element") for x in xs.items], kind, ev.ctx)
        at = Arr(
            i.data, "fin", i.axes, bound=Sz(n), iota=i.iota if i.iota and i.iota.size == n else None
        )
        picked = index(table, at, ev.ctx)  # an index past the end is clipped, then replaced
        return A.select(inside, picked, coerce(default, kind, ev.ctx), ev.ctx)
    cases = [(A.compare("=", i, Arr(k, "nat"), ev.ctx), x) for k, x in enumerate(xs.items)]
    return among(ev, [*cases, (A.compare("≥", i, Arr(n, "nat"), ev.ctx), default)])


def _get_d(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    xs = _lst(args[0], "List.getD")
    return lookup(ev, xs, _index(ev, args[1], "List.getD"), args[2])


def _get_bang(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    xs = _lst(args[0], "xs[i]!")
    return lookup(ev, xs, _index(ev, args[1], "xs[i]!"), default_of(ev, xs))


def _get_elem(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`xs[i]` with a proof that i is in range: never past the end where the proof holds."""
    xs = _lst(args[0], "xs[i]")
    return lookup(ev, xs, _index(ev, args[1], "xs[i]"), default_of(ev, xs))


def _length(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return Arr(len(_lst(args[0], "List.length")), "nat")


def _fold_numbers(ev: Evaluator, xs: Lst, op: str, unit: int) -> Any:
    vals = [ev._arr(x, "a list element") for x in xs.items]
    if not vals:
        return default_of(ev, xs, unit)
    kind = exact_kind(tuple(vals))
    if kind is not None:  # integers of one type: exact, whichever way they are added
        return Arr(
            sum(v.data for v in vals) if op == "+" else math.prod(v.data for v in vals), kind
        )
    if all(v.is_static or v.kind == "num" for v in vals) or len(vals) <= 8:
        acc = vals[-1]  # foldr, exactly: constants are Python integers or numerals
        for v in reversed(vals[:-1]):
            acc = A.arith(op, v, acc, ev.ctx)
        return acc
    kind = elem_kind(xs)
    table = stack(vals, kind, ev.ctx)
    k = len(table.axes)
    data = jnp.asarray(table.data)
    if kind == "real" and op == "+":
        note_operands(ev.ctx, data)
    data = jnp.sum(data, axis=k) if op == "+" else jnp.prod(data, axis=k)
    return Arr(data, kind, table.axes, table.dom[1:])


def _sum(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return _fold_numbers(ev, _lst(args[0], "List.sum"), "+", 0)


def _prod(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return _fold_numbers(ev, _lst(args[0], "List.prod"), "*", 1)


def _map(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    f, xs = args[0], _lst(args[1], "List.map")
    got = at_once(ev, f, [xs.items])
    if got is not None:
        return Lst(got)
    return Lst(tuple(ev.apply(f, [x]) for x in xs.items))


def _zip_with(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    f, xs, ys = args[0], _lst(args[1], "List.zipWith"), _lst(args[2], "List.zipWith")
    n = min(len(xs.items), len(ys.items))
    got = at_once(ev, f, [xs.items[:n], ys.items[:n]])
    if got is not None:
        return Lst(got)
    return Lst(tuple(ev.apply(f, [x, y]) for x, y in zip(xs.items, ys.items, strict=False)))


def _zip(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    xs, ys = _lst(args[0], "List.zip"), _lst(args[1], "List.zip")
    return Lst(tuple(Pair(x, y) for x, y in zip(xs.items, ys.items, strict=False)))


def _foldl(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    f, acc, xs = args[0], args[1], _lst(args[2], "List.foldl")
    for x in xs.items:
        acc = ev.apply(f, [acc, x])
    return acc


def _foldr(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    f, acc, xs = args[0], args[1], _lst(args[2], "List.foldr")
    for x in reversed(xs.items):
        acc = ev.apply(f, [x, acc])
    return acc


def _range(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    n = nat_constant(ev._arr(args[0], "List.range"), "List.range")
    return Lst(tuple(Arr(k, "nat") for k in range(n)), TNat())


def _replicate(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    n = nat_constant(ev._arr(args[0], "List.replicate"), "List.replicate")
    return Lst((args[1],) * n)


def _append(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    xs, ys = _lst(args[0], "++"), _lst(args[1], "++")
    return Lst(xs.items + ys.items, xs.elem or ys.elem)


def _cons(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    xs = _lst(args[1], "::")
    return Lst((args[0],) + xs.items, xs.elem)


def _nil(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return Lst(())


def _take(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    n = nat_constant(ev._arr(args[0], "List.take"), "List.take")
    xs = _lst(args[1], "List.take")
    return Lst(xs.items[:n], xs.elem)


def _drop(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    n = nat_constant(ev._arr(args[0], "List.drop"), "List.drop")
    xs = _lst(args[1], "List.drop")
    return Lst(xs.items[n:], xs.elem)


def _head_bang(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    xs = _lst(args[0], "List.head!")
    return xs.items[0] if xs.items else default_of(ev, xs)


def _head_d(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    xs = _lst(args[0], "List.headD")
    return xs.items[0] if xs.items else args[1]


def _tail(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    xs = _lst(args[0], "List.tail")
    return Lst(xs.items[1:], xs.elem)


def _reverse(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    xs = _lst(args[0], "List.reverse")
    return Lst(xs.items[::-1], xs.elem)


# --- integers ---------------------------------------------------------------------


def _int_arg(ev: Evaluator, v: Any, what: str) -> Arr:
    return coerce(settle(ev._arr(v, what)), "int", ev.ctx)


def _neg_succ(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    n = coerce(settle(ev._arr(args[0], "Int.negSucc")), "nat", ev.ctx)
    return A.negate(A.arith("+", coerce(n, "int", ev.ctx), Arr(1, "int"), ev.ctx), ev.ctx)


def _of_nat(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return coerce(coerce(settle(ev._arr(args[0], "Int.ofNat")), "nat", ev.ctx), "int", ev.ctx)


def _to_nat(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    z = _int_arg(ev, args[0], "Int.toNat")
    return A.extremum(z, Arr(0, "int"), ev.ctx, True).with_(kind="nat")


def _nat_abs(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return A.absolute(_int_arg(ev, args[0], "Int.natAbs")).with_(kind="nat")


def _element(k: int, expected: Any) -> Any:
    """The element argument of a function whose result is a list has its element type."""
    return expected.elem if isinstance(expected, TList) else None


def _list_fn(
    name: str,
    arity: int,
    fn: Fn,
    params: tuple[str | None, ...] = (),
    *,
    self_arg: int = 0,
    implicit: int = 1,
    arg_expect: Callable[[int, Any], Any] | None = None,
) -> Builtin:
    return Builtin(
        name,
        arity,
        _distributed(fn),
        params,
        arg_expect=arg_expect,
        implicit=implicit,
        self_arg=self_arg,
    )


def _elem_at(pos: int) -> Callable[[int, Any], Any]:
    return lambda k, expected: _element(k, expected) if k == pos else None


LISTS: tuple[Builtin, ...] = (
    _list_fn("List.getD", 3, _get_d, (None, "nat", None)),
    _list_fn("List.get!", 2, _get_bang, (None, "nat"), implicit=2),
    _list_fn("GetElem?.getElem!", 2, _get_bang, (None, "nat"), implicit=6),
    _list_fn("GetElem.getElem", 3, _get_elem, (None, "nat", None), implicit=5),
    _list_fn("List.length", 1, _length),
    _list_fn("List.sum", 1, _sum, implicit=3),
    _list_fn("List.prod", 1, _prod, implicit=3),
    _list_fn("List.map", 2, _map, ("fn", None), self_arg=1, implicit=2),
    _list_fn("List.zipWith", 3, _zip_with, ("fn", None, None), self_arg=1, implicit=3),
    _list_fn("List.zip", 2, _zip, implicit=2),
    _list_fn("List.foldl", 3, _foldl, ("fn", None, None), self_arg=2, implicit=2),
    _list_fn("List.foldr", 3, _foldr, ("fn", None, None), self_arg=2, implicit=2),
    _list_fn("List.range", 1, _range, ("nat",), implicit=0),
    _list_fn("List.replicate", 2, _replicate, ("nat", None), arg_expect=_elem_at(1)),
    _list_fn("List.append", 2, _append),
    _list_fn("HAppend.hAppend", 2, _append, implicit=4),
    _list_fn("List.cons", 2, _cons, self_arg=1, arg_expect=_elem_at(0)),
    _list_fn("List.nil", 0, _nil),
    _list_fn("List.take", 2, _take, ("nat", None), self_arg=1),
    _list_fn("List.drop", 2, _drop, ("nat", None), self_arg=1),
    _list_fn("List.head!", 1, _head_bang, implicit=2),
    _list_fn("List.headD", 2, _head_d),
    _list_fn("List.tail", 1, _tail),
    _list_fn("List.reverse", 1, _reverse),
    Builtin("Int.negSucc", 1, _neg_succ, ("nat",), implicit=0),
    Builtin("Int.ofNat", 1, _of_nat, ("nat",), implicit=0),
    Builtin("Int.toNat", 1, _to_nat, ("int",), implicit=0),
    Builtin("Int.natAbs", 1, _nat_abs, ("int",), implicit=0),
)
