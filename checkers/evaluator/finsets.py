"""Mathlib's finite sets of indices and naturals, and the big operators over them.

A `FinsetValue` lists its candidate elements in increasing order (a host array, as
every size in a check is a constant) with the filters applied to it; the filters are
evaluated on all candidates at once, along the axis a big operator sums over.

- `Finset.range n` = {0, …, n − 1} ⊆ ℕ; `Finset.Icc a b` = {a, …, b}, `Finset.Ico a b`
  = {a, …, b − 1}, `Finset.Ioc a b` = {a + 1, …, b}, `Finset.Ioo a b` = {a + 1, …, b − 1}
  (empty when the bounds cross), of ℕ, or of `Fin n` when the bounds are indices.
- `Finset.univ` of `Fin n`: its size comes from where it is used (the function summed,
  the type of the summation variable or of the filter's argument).
- `Finset.filter p s` (`s.filter p`, `{x ∈ s | p x}`) keeps the elements where the
  decidable `p` holds; `Finset.card s` (`s.card`, `#s`) counts the elements.
- `Finset.sum s f` = `∑ x ∈ s, f x`, `Finset.prod` likewise; the empty sum is 0 and the
  empty product 1.
- A binder `s : Finset (Fin k)` is a random subset, drawn as k booleans (`drawn_finset`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from checkers.language.axes import drop_axis_by_sum, expand, union_axes
from checkers.language.coercion import coerce, nat_constant, settle
from checkers.language.errors import EvalError, NotSupported
from checkers.language.total import xp_of
from checkers.language.types import TFin, Ty
from checkers.language.values import Arr, Axis, Builtin, Closure, Partial, Sz, host_or_array
from checkers.lazyjax import jnp
from theorem_index.lean import syntax as S

if TYPE_CHECKING:
    from checkers.language.host import Host as Evaluator


@dataclass(frozen=True, eq=False)
class FinsetValue:
    """A finite set: its candidates (None: `Finset.univ` of a `Fin` type not yet known),
    their kind ('nat' or 'fin', with `bound` the n of `Fin n`), and the filters."""

    values: np.ndarray | None
    kind: str = "nat"
    bound: Sz | None = None
    preds: tuple[Any, ...] = ()

    def field(self, ev: Evaluator, name: str) -> Any:
        """Generalised field notation: `s.filter p`, `s.card`, `s.sum f`."""
        if name == "card":
            return card(ev, self)
        if name in ("filter", "sum", "prod"):
            return Partial(_FIELDS[name], (self,))
        raise NotSupported(f"the field .{name} of a finset")


def drawn_finset(mask: Any, k: int) -> FinsetValue:
    """A subset of `Fin k` drawn as whether each index is in it (`mask`, k booleans of the
    trial): the candidates 0..k-1 filtered by the mask."""
    return FinsetValue(
        np.arange(k, dtype=np.int64), "fin", Sz(k), (Arr(mask, "bool", dom=(Sz(k),)),)
    )


def _sized(s: FinsetValue, sz: Sz | None) -> FinsetValue:
    if s.values is not None:
        return s
    if sz is None:
        raise NotSupported("Finset.univ of a type whose size is not known here")
    return FinsetValue(np.arange(sz.n, dtype=np.int64), "fin", sz, s.preds)


def _pred_size(ev: Evaluator, s: FinsetValue) -> Sz | None:
    """The size of `Finset.univ` from the type of a filter's argument, when written."""
    for p in s.preds:
        if isinstance(p, Arr) and p.dom:  # `fun (k : Fin n) => …`, tabulated
            return p.dom[0]
        if isinstance(p, Closure) and p.params:
            name, ty_term = p.params[0]
            if ty_term is None and isinstance(name, str):
                sz = ev.infer_index_size(name, p.body, p.env)
                if sz is not None:
                    return sz
                continue
            ty = ev.type_of(ty_term, p.env)
            if isinstance(ty, TFin) and ty.sz is not None:
                return ty.sz
    return None


def elements(
    ev: Evaluator, s: FinsetValue, name: str, sz: Sz | None = None
) -> tuple[Axis, Arr, Arr | None]:
    """The candidates of `s` along a new axis, and where the filters hold (None: all)."""
    s = _sized(s, sz if sz is not None else _pred_size(ev, s))
    assert s.values is not None
    ax = Axis(name, len(s.values))
    exact = np.array_equal(s.values, np.arange(len(s.values)))
    x = Arr(s.values, s.kind, (ax,), bound=s.bound, iota=ax if exact else None)
    held: Arr | None = None
    for p in s.preds:
        v = ev._arr(ev.apply(p, [x]), "Finset.filter")
        if v.kind != "bool" or v.dom:
            raise EvalError("Finset.filter by a function that is not a proposition")
        held = v if held is None else _and(held, v)
    return ax, x, held


def _and(a: Arr, b: Arr) -> Arr:
    axes = union_axes(a, b)
    x, y = expand(a, axes, 0), expand(b, axes, 0)
    return Arr(x & y, "bool", axes)


def big_operator(
    ev: Evaluator,
    s: FinsetValue,
    name: str,
    body: Callable[[Arr], Any],
    prod: bool,
    sz: Sz | None = None,
    expected: Ty | None = None,
) -> Arr:
    """`∑ name ∈ s, body name` (`∏` with `prod`), over the elements that pass the filters."""
    ax, x, held = elements(ev, s, name, sz)
    v = ev._arr(body(x), "∏" if prod else "∑")
    if v.kind == "bool":
        raise EvalError("a big operator of propositions")
    if held is not None:
        if v.kind == "num":  # numerals summed where a filter holds: at the expected type
            v = ev.coerce_to(v, expected) if expected is not None else settle(v)
            if v.kind == "num":
                v = settle(v)
        v = _masked(v, held, prod)
    return drop_axis_by_sum(v, ax, prod=prod)


def _masked(v: Arr, held: Arr, prod: bool) -> Arr:
    """v where the filters hold, the big operator's unit elsewhere."""
    axes = union_axes(v, held)
    c = expand(held, axes, len(v.dom))
    if v.log:  # log space: log 1 = 0 for ∏, log 0 = -inf for ∑
        d = expand(v, axes, len(v.dom), logs=True)
        unit = 0.0 if prod else -jnp.inf
        return Arr(jnp.where(c, d, unit), v.kind, axes, v.dom, log=True)
    d = expand(v, axes, len(v.dom))
    xp = xp_of(c, d)
    out = xp.where(c, d, xp.ones_like(d) if prod else xp.zeros_like(d))
    return Arr(out, v.kind, axes, v.dom, bound=v.bound)


def member(ev: Evaluator, x: Arr, s: FinsetValue) -> Arr:
    """`x ∈ s`: x is one of the candidates, at a place where the filters hold."""
    _, cand, held = elements(ev, s, "∈", _fin_size(x))
    kind = "nat" if "nat" in (x.kind, cand.kind) or x.kind == "num" else x.kind
    xs = coerce(settle(x), kind, ev.ctx)
    ys = coerce(cand, kind, ev.ctx)
    axes = union_axes(xs, ys)
    a, b = expand(xs, axes, 0), expand(ys, axes, 0)
    hit = a == b
    if held is not None:
        hit = hit & expand(held, axes, 0)
    k = axes.index(cand.axes[0])
    found = xp_of(hit).any(hit, axis=k)
    return Arr(found, "bool", tuple(a for a in axes if a is not cand.axes[0]))


def _fin_size(x: Arr) -> Sz | None:
    return x.bound if x.kind == "fin" else None


def set_builder(ev: Evaluator, t: S.SetBuilder, env: Any) -> FinsetValue:
    """`{x ∈ s | p x}`, Mathlib's notation for `Finset.filter (fun x => p x) s`."""
    pat = t.binder.pattern
    if not (isinstance(pat, S.BinOp) and pat.op == "∈" and isinstance(pat.lhs, S.Var | S.Ident)):
        raise NotSupported("a set-builder other than {x ∈ s | p x}")
    s = ev.eval(pat.rhs, env)
    if not isinstance(s, FinsetValue):
        raise NotSupported("a set-builder {x ∈ s | p x} over something other than a finset")
    p = Closure(((pat.lhs.name, None),), t.body, env)
    return FinsetValue(s.values, s.kind, s.bound, s.preds + (p,))


def card(ev: Evaluator, s: FinsetValue) -> Arr:
    """`Finset.card s`: a ℕ."""
    if not s.preds:
        s = _sized(s, None)
        assert s.values is not None
        return Arr(len(s.values), "nat")
    _, x, held = elements(ev, s, "card")
    assert held is not None
    counted = Arr(host_or_array(held).astype(np.int64), "nat", held.axes)
    return drop_axis_by_sum(counted, x.axes[0])


# --- the constants --------------------------------------------------------------------


def _bound(ev: Evaluator, x: Any, what: str) -> tuple[int, str, Sz | None]:
    v = ev._arr(x, what)
    kind, bound = ("fin", v.bound) if v.kind == "fin" else ("nat", None)
    return nat_constant(coerce(v, "nat", ev.ctx), what), kind, bound


def _interval(name: str, lo_open: bool, hi_open: bool) -> Builtin:
    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        a, kind, bound = _bound(ev, args[0], name)
        b, kind_b, bound_b = _bound(ev, args[1], name)
        if kind_b == "fin":
            kind, bound = kind_b, bound_b
        lo, hi = a + lo_open, b - hi_open
        return FinsetValue(np.arange(lo, max(hi + 1, lo), dtype=np.int64), kind, bound)

    # `Finset.Icc {α} [Preorder α] [LocallyFiniteOrder α] a b`
    return Builtin(name, 2, fn, ("nat", "nat"), implicit=3)


def _range(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    n = nat_constant(ev._arr(args[0], "Finset.range"), "Finset.range")
    return FinsetValue(np.arange(n, dtype=np.int64))


def _univ(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return FinsetValue(None, "fin")


def _filter(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    p, s = args
    if not isinstance(s, FinsetValue):
        raise EvalError("Finset.filter of something other than a finset")
    return FinsetValue(s.values, s.kind, s.bound, s.preds + (p,))


def _card(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    if not isinstance(args[0], FinsetValue):
        raise EvalError("Finset.card of something other than a finset")
    return card(ev, args[0])


def _big(name: str, prod: bool) -> Builtin:
    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        s, f = args
        if not isinstance(s, FinsetValue):
            raise EvalError(f"{name} over something other than a finset")
        sz = f.dom[0] if s.values is None and isinstance(f, Arr) and f.dom else None
        if s.values is None and sz is None and not s.preds:
            raise EvalError(f"{name} over univ of a function that is not tabulated")
        return big_operator(ev, s, "∑", lambda x: ev.apply(f, [x]), prod, sz)

    # `Finset.sum {β α} [AddCommMonoid β] s f` (`Finset.prod`: [CommMonoid β])
    return Builtin(name, 2, fn, (None, "fn"), implicit=3)


_FIELDS = {
    "filter": Builtin("Finset.filter.field", 2, lambda ev, a: _filter(ev, (a[1], a[0]))),
    "sum": _big("Finset.sum", False),
    "prod": _big("Finset.prod", True),
}

FINSETS: tuple[Builtin, ...] = (
    Builtin("Finset.univ", 0, _univ, implicit=2),
    Builtin("Finset.range", 1, _range, ("nat",), implicit=0),
    _interval("Finset.Icc", False, False),
    _interval("Finset.Ico", False, True),
    _interval("Finset.Ioc", True, False),
    _interval("Finset.Ioo", True, True),
    # `Finset.filter {α} (p : α → Prop) [DecidablePred p] (s : Finset α)`
    Builtin("Finset.filter", 2, _filter, ("fn", None), implicit=1),
    Builtin("Finset.card", 1, _card, implicit=1),
    _big("Finset.sum", False),
    _big("Finset.prod", True),
)
