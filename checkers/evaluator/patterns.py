"""Patterns: `fun (r, k) => ..`, `fun ⟨a, b⟩ ↦ ..`, `match .. with`, `fun | .. => ..`.

A function on `Fin m × Fin n` is held like a `Mat m n`: one array axis per
`Fin` component (in order, nested pairs flattened), so `(fun (r, k) => A r k)`
is A itself and applying it to a pair `(i, j)` indexes both axes. A pattern
lambda whose components are not `Fin` indices (or whose sizes nothing tells)
stays a closure that destructures the pair it is applied to.

`match` on ℕ, `Fin n`, pairs or lists, with literal (`0`), variable, wildcard,
successor (`k + 1`, ℕ only), anonymous-constructor (`⟨k, _⟩` on `Fin`) and list
(`[]`, `[a, b]`, `a :: rest`) patterns, is a chain of selects: the first
alternative whose patterns match; the last alternative is taken where no
earlier one matches (Lean's matches are exhaustive). Any other pattern is
unsupported, and the reason names it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from checkers.language import arith as A
from checkers.language.axes import move_axis_to_dom
from checkers.language.coercion import coerce
from checkers.language.errors import EvalError, NotSupported
from checkers.language.types import TFin, TFun, TProd, Ty, entry_type
from checkers.language.values import Arr, Axis, Closure, Ctor, Lst, Pair, Proof, Sz, iota, num
from theorem_index.lean import syntax as S

if TYPE_CHECKING:
    from checkers.language.host import Env, Host


def _text(t: S.Term) -> str:
    from theorem_index.lean import print_term

    return str(print_term(t))


def _unwrap(p: S.Term) -> tuple[S.Term, S.Term | None]:
    """A pattern without parentheses, and its type ascription if it has one."""
    ty: S.Term | None = None
    while isinstance(p, S.Paren | S.Typed):
        if isinstance(p, S.Typed):
            ty = ty or p.type
        p = p.term
    return p, ty


def _items(p: S.Term) -> tuple[S.Term, ...] | None:
    """The components of a pair pattern `(a, b, c)` / `⟨a, b⟩` as (first, rest)."""
    if isinstance(p, S.Tuple | S.Anon) and len(p.items) >= 2:
        if len(p.items) == 2:
            return p.items
        return (p.items[0], type(p)(p.items[1:]))
    return None


def _name(p: S.Term) -> str | None:
    if isinstance(p, S.Var | S.Ident) and "." not in p.name:
        return p.name
    return None


class Patterns:
    """Pattern lambdas and `match` for `Evaluator` (a mixin)."""

    # --- pattern lambdas ---------------------------------------------------------

    def pattern_lam(
        self: Host,
        pattern: S.Term,
        ty_term: S.Term | None,
        rest: tuple[tuple[Any, S.Term | None], ...],
        body: S.Term,
        env: Env,
        expected: Ty | None,
    ) -> Any:
        pat, ascribed = _unwrap(pattern)
        ty_term = ty_term or ascribed
        ty = (
            self.type_of(ty_term, env)
            if ty_term is not None
            else (expected.dom if isinstance(expected, TFun) else None)
        )
        axes: list[tuple[Axis, Sz]] = []
        env2 = dict(env)
        if not self.bind_indices(pat, ty, body, env2, axes):
            return Closure(((pattern, ty_term),) + rest, body, env, expected)
        r = self.lam(rest, body, env2, entry_type(expected))
        if not isinstance(r, Arr):
            raise NotSupported("a function of a pair of indices whose values are not numbers")
        r = self.entries(r, entry_type(expected))
        for ax, sz in reversed(axes):
            r = move_axis_to_dom(r, ax, sz)
        return r

    def bind_indices(
        self: Host,
        pat: S.Term,
        ty: Ty | None,
        body: S.Term,
        env: dict[str, Any],
        axes: list[tuple[Axis, Sz]],
    ) -> bool:
        """Bind a pattern over `Fin` components to named axes (in `env`, `axes`);
        False when a component is not a `Fin` index of known size."""
        pat, ascribed = _unwrap(pat)
        if ascribed is not None:
            ty = self.type_of(ascribed, env)
        parts = _items(pat)
        if parts is not None:
            if ty is not None and not isinstance(ty, TProd):
                raise EvalError(f"the pair pattern {_text(pat)} at a type that is not a product")
            t1 = ty.fst if isinstance(ty, TProd) else None
            t2 = ty.snd if isinstance(ty, TProd) else None
            return self.bind_indices(parts[0], t1, body, env, axes) and self.bind_indices(
                parts[1], t2, body, env, axes
            )
        if isinstance(ty, TProd):
            # one name for a pair of indices: a pair of axes
            inner: list[tuple[Axis, Sz]] = []
            names = ("_fst", "_snd")
            sub: dict[str, Any] = dict(env)
            ok = all(
                self.bind_indices(S.Var(n), t, body, sub, inner)
                for n, t in zip(names, (ty.fst, ty.snd), strict=True)
            )
            if not ok:
                return False
            axes.extend(inner)
            name = _name(pat)
            if name is not None:
                env[name] = Pair(sub["_fst"], sub["_snd"])
            return True
        name = _name(pat)
        if name is None and not isinstance(pat, S.Hole):
            raise NotSupported(f"the pattern {_text(pat)} in a function's parameter")
        sz = ty.sz if isinstance(ty, TFin) else None
        if ty is None and name is not None:
            sz = self.infer_index_size(name, body, env)
        if sz is None:
            return False
        ax = Axis(name or "_", sz.n)
        if name is not None:
            env[name] = iota(ax, bound=sz)
        axes.append((ax, sz))
        return True

    def bind_value(self: Host, pattern: S.Term, value: Any, env: dict[str, Any]) -> None:
        """Destructure a value (a pair, a `Fin` as `⟨val, proof⟩`) by a pattern."""
        pat, ascribed = _unwrap(pattern)
        if ascribed is not None and isinstance(value, Arr):
            value = self.coerce_to(value, self.type_of(ascribed, env))
        name = _name(pat)
        if name is not None:
            env[name] = value
            return
        if isinstance(pat, S.Hole):
            return
        parts = _items(pat)
        if parts is not None and isinstance(value, Pair):
            self.bind_value(parts[0], value.fst, env)
            self.bind_value(parts[1], value.snd, env)
            return
        if isinstance(pat, S.Anon) and isinstance(value, Arr) and value.kind == "fin":
            self.bind_value(pat.items[0], coerce(value, "nat", self.ctx), env)
            for proof in pat.items[1:]:
                self.bind_value(proof, Proof(_text(proof)), env)
            return
        raise NotSupported(f"the pattern {_text(pat)} applied to a {type(value).__name__}")

    # --- match --------------------------------------------------------------------

    def _match(self: Host, t: S.Match, env: Env, expected: Ty | None) -> Any:
        scrutinees = [self.eval(s, env) for s in t.scrutinees]
        pending: list[tuple[Arr, dict[str, Any], S.Term]] = []
        chosen: tuple[dict[str, Any], S.Term] | None = None
        for k, alt in enumerate(t.alts):
            if len(alt.patterns) != len(scrutinees):
                raise EvalError("a match alternative with a different number of patterns")
            cond: Arr | None = None
            binds: dict[str, Any] = {}
            for pat, v in zip(alt.patterns, scrutinees, strict=True):
                c = self.match_pattern(pat, v, binds)
                if c is not None:
                    cond = c if cond is None else A.logic("∧", cond, c)
            last = k == len(t.alts) - 1
            if cond is None or (cond.is_static and not cond.axes and bool(cond.data)) or last:
                chosen = (binds, alt.rhs)  # always matches (or the exhaustive last case)
                break
            if cond.is_static and not cond.axes:
                continue  # never matches
            pending.append((cond, binds, alt.rhs))
        if chosen is None:
            raise EvalError("a match without alternatives")
        value = self.eval(chosen[1], {**env, **chosen[0]}, expected)
        for cond, binds, rhs in reversed(pending):
            branch = self._arr(self.eval(rhs, {**env, **binds}, expected), "match")
            value = A.select(cond, branch, self._arr(value, "match"), self.ctx)
        return value

    def match_pattern(self: Host, pattern: S.Term, v: Any, binds: dict[str, Any]) -> Arr | None:
        """The condition under which `v` matches (None: always), binding its variables."""
        pat, _ = _unwrap(pattern)
        name = _name(pat)
        if isinstance(pat, S.Hole):
            return None
        if name is not None:
            binds[name] = v
            return None
        parts = _items(pat)
        if parts is not None and isinstance(v, Pair):
            c1 = self.match_pattern(parts[0], v.fst, binds)
            c2 = self.match_pattern(parts[1], v.snd, binds)
            if c1 is None or c2 is None:
                return c1 if c2 is None else c2
            return A.logic("∧", c1, c2)
        if isinstance(v, Lst):
            return self.match_list(pat, v, binds)
        if isinstance(v, Ctor):
            return self.match_constructor(pat, v, binds)
        if isinstance(v, Arr) and v.kind in ("nat", "fin", "int"):
            if isinstance(pat, S.Num):
                return A.compare("=", v, num(int(pat.text, 0)), self.ctx)
            if isinstance(pat, S.Anon) and v.kind == "fin":
                value = coerce(v, "nat", self.ctx)
                for proof in pat.items[1:]:
                    self.match_pattern(proof, Proof(_text(proof)), binds)
                return self.match_pattern(pat.items[0], value, binds)
            if (
                isinstance(pat, S.BinOp)
                and pat.op == "+"
                and isinstance(pat.rhs, S.Num)
                and v.kind == "nat"
            ):
                c = num(int(pat.rhs.text, 0))
                below = self.match_pattern(pat.lhs, A.arith("-", v, c, self.ctx), binds)
                at_least = A.compare("≥", v, c, self.ctx)
                return at_least if below is None else A.logic("∧", at_least, below)
        what = v.describe() if isinstance(v, Arr) else type(v).__name__
        raise NotSupported(f"the match pattern {_text(pat)} on a value of type {what}")

    def match_constructor(self: Host, pat: S.Term, v: Ctor, binds: dict[str, Any]) -> Arr | None:
        """`.dotIn _ W e` (or `SHlo.dotIn …`, with `(m := m)` naming an implicit argument)
        on a constructed value: which constructor it is is known here."""
        head, args = (pat.fn, pat.args) if isinstance(pat, S.App) else (pat, ())
        if isinstance(head, S.DotIdent):
            same = head.name == v.short
        elif isinstance(head, S.Const | S.Ident):
            same = head.name == v.ctor or v.ctor.endswith("." + head.name)
        else:
            raise NotSupported(f"the match pattern {_text(pat)} on a {v.type_name}")
        if not same:
            return Arr(False, "bool")
        positional = [a for a in args if not isinstance(a, S.NamedArg)]
        if len(positional) != len(v.args):
            raise NotSupported(
                f"the pattern {_text(pat)} gives {len(positional)} of the "
                f"{len(v.args)} explicit arguments of {v.ctor}"
            )
        conds: list[Arr] = []
        for a in args:
            if isinstance(a, S.NamedArg):
                if a.name not in v.implicit:
                    raise NotSupported(f"the implicit argument ({a.name} := …) of {v.ctor}")
                c = self.match_pattern(a.value, v.implicit[a.name], binds)
                if c is not None:
                    conds.append(c)
        for p, x in zip(positional, v.args, strict=True):
            c = self.match_pattern(p, x, binds)
            if c is not None:
                conds.append(c)
        out: Arr | None = None
        for c in conds:
            out = c if out is None else A.logic("∧", out, c)
        return out

    def match_list(self: Host, pat: S.Term, v: Lst, binds: dict[str, Any]) -> Arr | None:
        """`[]`, `[a, b]` and `a :: rest` on a list: its length is a constant, so whether
        the shape matches is known here; the elements' patterns may add conditions."""
        if isinstance(pat, S.ListLit):
            if len(pat.items) != len(v):
                return Arr(False, "bool")
            conds = [
                self.match_pattern(p, x, binds) for p, x in zip(pat.items, v.items, strict=True)
            ]
        elif isinstance(pat, S.BinOp) and pat.op == "::":
            if not v.items:
                return Arr(False, "bool")
            conds = [
                self.match_pattern(pat.lhs, v.items[0], binds),
                self.match_pattern(pat.rhs, Lst(v.items[1:], v.elem), binds),
            ]
        else:
            raise NotSupported(f"the match pattern {_text(pat)} on a list")
        out: Arr | None = None
        for c in conds:
            if c is not None:
                out = c if out is None else A.logic("∧", out, c)
        return out

    def _lam_match(self: Host, t: S.LamMatch, env: Env, expected: Ty | None) -> Any:
        """`fun | p => a | q => b` is `fun x => match x with | p => a | q => b`."""
        if not t.alts:
            raise EvalError("`fun` with no alternatives")
        names = tuple(f"_match{k}" for k in range(len(t.alts[0].patterns)))
        body = S.Match(tuple(S.Var(n) for n in names), t.alts)
        return self.lam(tuple((n, None) for n in names), body, env, expected)
