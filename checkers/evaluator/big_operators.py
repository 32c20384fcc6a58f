"""Big operators and quantifiers: a variable bound over a finite index, reduced away.

`∑ x : Fin n, body` evaluates the body once, on a named axis for x, and sums
that axis away (a `∑ o, pdiv f x i o * g o` is first offered to the VJP
rewrite); `∏` multiplies it away; `∀ k : Fin n, P k` is an `all` over the axis,
`∃` an `any`. A big operator over another finset (`Finset.Icc a b`, `s.filter p`)
goes to finsets.py; a quantifier bounded by a list (`∀ x ∈ xs, p x`) runs over its
elements.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from checkers.evaluator.finsets import FinsetValue, elements
from checkers.language import arith as A
from checkers.language.axes import drop_axis_by_sum
from checkers.language.errors import EvalError, NotSupported
from checkers.language.measure import note_operands
from checkers.language.types import TFin, TProd, Ty
from checkers.language.values import Arr, Axis, Lst, Pair, Sz, as_array, iota
from checkers.lazyjax import jnp
from theorem_index.lean import syntax as S

if TYPE_CHECKING:
    from checkers.language.host import Env, Host


def binder_params(binders: tuple[S.Binder, ...]) -> tuple[tuple[str, S.Term | None], ...]:
    """(name, type) for each bound name of a big operator or quantifier; instance
    binders carry no value."""
    out: list[tuple[str, S.Term | None]] = []
    for b in binders:
        if b.pattern is not None:
            raise NotSupported("a pattern binder in a big operator or quantifier")
        if b.kind == "inst":
            continue
        for n in b.names:
            out.append((n, b.type))
    return tuple(out)


# Big operators over possibly infinite index sets: why they are not evaluated.
INFINITE = {
    op: f"{op} ({name}) is a sum or product over a possibly infinite set: no finite "
    "evaluation gives it, and no finite sample of its terms bounds it"
    for op, name in (("∑'", "tsum"), ("∏'", "tprod"))
}


class BigOperators:
    """The big operators and quantifiers of `Evaluator` (a mixin)."""

    def _quant(self: Host, t: S.Quant, env: Env) -> Arr:
        if t.q in ("∀", "∃") and t.bound is not None and t.bound[0] == "∈":
            return self._over_list(t, env)
        if t.q not in ("∀", "∃") or t.bound is not None:
            raise NotSupported(f"the quantifier {t.q} with a bound")
        params = binder_params(t.binders)
        if len(params) > 1:
            inner = S.Quant(t.q, tuple(S.Binder("plain", (n,), ty) for n, ty in params[1:]), t.body)
            return self._quant(
                S.Quant(t.q, (S.Binder("plain", (params[0][0],), params[0][1]),), inner), env
            )
        name, ty_term = params[0]
        ty = self.type_of(ty_term, env) if ty_term is not None else None
        sz = ty.sz if isinstance(ty, TFin) else None
        if ty_term is None:
            sz = self.infer_index_size(name, t.body, env)
        if sz is None:
            raise NotSupported(f"a quantifier over a type other than Fin n ({name})")
        ax = Axis(name, sz.n)
        body = self._arr(self.eval(t.body, {**env, name: iota(ax, bound=sz)}), t.q)
        if body.kind != "bool":
            raise EvalError(f"{t.q} of a non-proposition")
        if ax not in body.axes:
            return body
        k = body.axes.index(ax)
        d = as_array(body)
        d = jnp.all(d, axis=k) if t.q == "∀" else jnp.any(d, axis=k)
        return Arr(d, "bool", tuple(a for a in body.axes if a is not ax))

    def _over_list(self: Host, t: S.Quant, env: Env) -> Arr:
        """`∀ x ∈ xs, p x` (`∃`) over a list: p at each element, all (any) of them; true
        (false) for the empty list."""
        assert t.bound is not None
        params = binder_params(t.binders)
        xs = self.eval(t.bound[1], env)
        if len(params) == 1 and isinstance(xs, FinsetValue):
            return self._over_finset(t, params[0][0], xs, env)
        if len(params) != 1 or not isinstance(xs, Lst):
            raise NotSupported(f"the quantifier {t.q} with a bound")
        name = params[0][0]
        op = "∧" if t.q == "∀" else "∨"
        out = Arr(t.q == "∀", "bool")
        for x in xs.items:
            held = self._arr(self.eval(t.body, {**env, name: x}), t.q)
            if held.kind != "bool":
                raise EvalError(f"{t.q} of a non-proposition")
            out = A.logic(op, out, held)
        return out

    def _over_finset(self: Host, t: S.Quant, name: str, s: FinsetValue, env: Env) -> Arr:
        """`∀ x ∈ s, p x` (`∃`) over a finset: p at every candidate, those outside s
        counting as true (false); true (false) for the empty set."""
        ax, x, held = elements(self, s, name)
        body = self._arr(self.eval(t.body, {**env, name: x}), t.q)
        if body.kind != "bool":
            raise EvalError(f"{t.q} of a non-proposition")
        if held is not None:
            body = A.logic("→" if t.q == "∀" else "∧", held, body)
        if ax not in body.axes:
            return body if ax.size else Arr(t.q == "∀", "bool")
        k = body.axes.index(ax)
        d = as_array(body)
        d = jnp.all(d, axis=k) if t.q == "∀" else jnp.any(d, axis=k)
        return Arr(d, "bool", tuple(a for a in body.axes if a is not ax))

    def bigop_range(
        self: Host, t: S.BigOp, name: str, ty_term: S.Term | None, env: Env
    ) -> tuple[Sz, str]:
        """The size of a big operator's index set and the index kind."""
        dom = t.domain
        if dom is not None:
            h = dom.fn if isinstance(dom, S.App) else dom
            hname = h.name if isinstance(h, S.Const | S.Ident) else None
            if hname in ("Finset.range", "range") and isinstance(dom, S.App):
                return self.dim_of(dom.args[0], env), "nat"
            if hname not in ("Finset.univ", "univ"):
                raise NotSupported("a big operator over a finset other than univ or range")
        if ty_term is None:
            # as Lean's elaborator settles it: the domain of an array it indexes
            sz = self.infer_index_size(name, t.body, env)
            if sz is None:
                raise NotSupported(f"the type of the summation variable {name} is not written")
            return sz, "fin"
        ty = self.type_of(ty_term, env)
        if not isinstance(ty, TFin) or ty.sz is None:
            raise NotSupported(f"a big operator over a type other than Fin n ({name})")
        return ty.sz, "fin"

    def _bigop(self: Host, t: S.BigOp, env: Env, expected: Ty | None) -> Any:
        if t.op in INFINITE:
            raise NotSupported(INFINITE[t.op])
        params = binder_params(t.binders)
        if not params:
            raise NotSupported("a big operator without a bound variable")
        if len(params) > 1:
            inner = S.BigOp(
                t.op,
                (S.Binder("plain", (params[1][0],), params[1][1]),)
                + tuple(S.Binder("plain", (n,), ty) for n, ty in params[2:]),
                None,
                t.body,
            )
            first = S.BigOp(
                t.op, (S.Binder("plain", (params[0][0],), params[0][1]),), t.domain, inner
            )
            return self.eval(first, env, expected)
        name, ty_term = params[0]
        if t.domain is None and ty_term is not None:
            ty = self.type_of(ty_term, env)
            if isinstance(ty, TProd):
                return self._bigop_pair(t, name, ty, env, expected)
        if t.domain is not None and not _range_or_univ(t.domain):
            return self._bigop_finset(t, name, ty_term, env, expected)
        sz, kind = self.bigop_range(t, name, ty_term, env)
        if t.op == "∑":
            from checkers.evaluator.derivatives import try_contraction
            from checkers.language.contraction import try_product_sum

            r = try_contraction(self, name, sz, t.body, env)
            if r is None:
                r = try_product_sum(self, name, sz, t.body, env)
            if r is not None:
                return r
        elif t.op != "∏":
            raise NotSupported(f"the big operator {t.op}")
        ax = Axis(name, sz.n)
        v = iota(ax, kind=kind, bound=sz if kind == "fin" else None)
        if kind == "nat":
            v = v.with_(bound=None)
        body = self._arr(self.eval(t.body, {**env, name: v}, expected), t.op)
        if body.kind == "bool":
            raise EvalError(f"{t.op} of propositions")
        if t.op == "∑" and body.kind == "real":
            note_operands(self.ctx, as_array(body))
        r = drop_axis_by_sum(body, ax, prod=t.op == "∏")
        if r.kind == "fin" and r.bound is not None and r.bound.n:
            r = r.with_(data=jnp.mod(as_array(r), r.bound.n))
        return r

    def _bigop_finset(
        self: Host, t: S.BigOp, name: str, ty_term: S.Term | None, env: Env, expected: Ty | None
    ) -> Any:
        """`∑ x ∈ s, body` over a finset value (`Finset.Icc a b`, `s.filter p`; finsets.py)."""
        from checkers.evaluator.finsets import FinsetValue, big_operator

        if t.op not in ("∑", "∏"):
            raise NotSupported(f"the big operator {t.op}")
        s = self.eval(t.domain, env) if t.domain is not None else None
        if not isinstance(s, FinsetValue):
            raise NotSupported("a big operator over a finset that is not evaluated")
        ty = self.type_of(ty_term, env) if ty_term is not None else None
        sz = ty.sz if isinstance(ty, TFin) else None
        if sz is None and s.values is None:  # univ: the index's size from its uses
            sz = self.infer_index_size(name, t.body, env)

        def body(x: Arr) -> Any:
            v = self._arr(self.eval(t.body, {**env, name: x}, expected), t.op)
            if t.op == "∑" and v.kind == "real":
                note_operands(self.ctx, as_array(v))
            return v

        return big_operator(self, s, name, body, t.op == "∏", sz, expected)

    def _bigop_pair(
        self: Host, t: S.BigOp, name: str, ty: TProd, env: Env, expected: Ty | None
    ) -> Any:
        """A big operator over `Fin m × Fin n`: one named axis per component."""
        if not (isinstance(ty.fst, TFin) and isinstance(ty.snd, TFin)):
            raise NotSupported(f"a big operator over a product of types other than Fin ({name})")
        if ty.fst.sz is None or ty.snd.sz is None:
            raise NotSupported(f"a big operator over a product of unknown sizes ({name})")
        a1, a2 = Axis(name + ".1", ty.fst.sz.n), Axis(name + ".2", ty.snd.sz.n)
        pair = Pair(iota(a1, bound=ty.fst.sz), iota(a2, bound=ty.snd.sz))
        body = self._arr(self.eval(t.body, {**env, name: pair}, expected), t.op)
        if t.op not in ("∑", "∏") or body.kind == "bool":
            raise NotSupported(f"the big operator {t.op} of a {body.describe()}")
        prod = t.op == "∏"
        if not prod and body.kind == "real":
            note_operands(self.ctx, as_array(body))
        r = drop_axis_by_sum(drop_axis_by_sum(body, a1, prod=prod), a2, prod=prod)
        if r.kind == "fin" and r.bound is not None and r.bound.n:
            r = r.with_(data=jnp.mod(as_array(r), r.bound.n))
        return r


def _range_or_univ(dom: S.Term) -> bool:
    """Whether a big operator's domain is `Finset.range n` or `Finset.univ`, whose index
    the rewrites of contractions and products know (bigop_range)."""
    h = dom.fn if isinstance(dom, S.App) else dom
    name = h.name if isinstance(h, S.Const | S.Ident) else None
    return name in ("Finset.univ", "univ") or (
        name in ("Finset.range", "range") and isinstance(dom, S.App)
    )
