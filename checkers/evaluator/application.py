"""Application: a function value applied to arguments, and functions built from terms.

`apply` feeds arguments to what a term evaluated to: an array is indexed by them, a
closure binds them, a builtin or an ingested definition (`EqnFn`) takes them once it
has as many as it needs (`Partial` until then); `lam` makes `fun params => body` an
array over its leading `Fin` parameters (the body evaluated once, on a named axis for
each), or a closure where a parameter is not an index. The rest of the term language
is evaluate.py (the dispatch on term forms, names, constants), operators.py, forms.py
and patterns.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from checkers.evaluator.arguments import arrange
from checkers.evaluator.elaboration import applied_to, is_product, with_size
from checkers.evaluator.equations import Deferred
from checkers.language.axes import move_axis_to_dom
from checkers.language.coercion import settle
from checkers.language.errors import EvalError, NotSupported
from checkers.language.numerals import Numeral
from checkers.language.types import (
    KIND_TYPES,
    TFin,
    TFun,
    Ty,
    const_name,
    entry_type,
    head_and_args,
)
from checkers.language.values import (
    Arr,
    Axis,
    Builtin,
    Closure,
    Pair,
    Partial,
    Proof,
    Sz,
    Unsolved,
    iota,
    pair_leaves,
    static_nat,
)
from checkers.language.vectorise import index
from theorem_index.lean import print_term
from theorem_index.lean import syntax as S

if TYPE_CHECKING:
    from checkers.language.host import Env, Host


class Application:
    """The evaluator's application machinery (a mixin of `Evaluator`)."""

    def _expect_arg(self: Host, fn: Any, k: int, expected: Ty | None) -> Ty | None:
        if isinstance(fn, Arr):
            return TFin(fn.dom[k]) if k < len(fn.dom) else None
        head, have = (fn.head, len(fn.args)) if isinstance(fn, Partial) else (fn, 0)
        kind: str | None = None
        if isinstance(head, Builtin):
            if head.arg_expect is not None:
                ty = head.arg_expect(have + k, expected)
                if ty is not None:
                    return ty
            pt = head.param_types
            kind = pt[have + k] if have + k < len(pt) else None
        elif hasattr(head, "param_kind"):
            kind = head.param_kind(have + k)
            if kind is None:
                return head.param_type(have + k)
        return {**KIND_TYPES, "fin": TFin(None)}.get(kind or "")

    def _app(self: Host, t: S.App, env: Env, expected: Ty | None) -> Any:
        head = t.fn.arg if isinstance(t.fn, S.Prefix) and t.fn.op == "@" else t.fn
        if isinstance(head, S.Const) and head.name == "Fintype.card" and len(t.args) == 1:
            # the number of elements of a type: of `Fin k`, k (a finite index type is one)
            ty = self.type_of(t.args[0], env)
            if isinstance(ty, TFin) and ty.sz is not None:
                return static_nat(ty.sz.n)
            raise NotSupported(f"Fintype.card of {print_term(t.args[0])}")
        if isinstance(head, S.DotIdent):
            # `.ctor args` resolves against the type expected of the whole application; the
            # constructor itself, not its value, takes `(n := …)` (`.gap (c := c)`)
            f: Any = self.lib.lookup(self.dot_constructor(head.name, expected))
        elif isinstance(head, S.Const) and any(isinstance(a, S.NamedArg) for a in t.args):
            f = self.lib.lookup(head.name)
        else:
            f = self.eval(head, env)
        fn, terms = arrange(self, f, t, env)
        args = [self.eval(a, env, self._expect_arg(fn, k, expected)) for k, a in enumerate(terms)]
        for k, (a, term) in enumerate(zip(args, terms, strict=True)):
            if isinstance(a, Arr) and a.kind == "nat" and a.is_static and is_product(term):
                args[k] = with_size(a, term, env)
        if not args and hasattr(fn, "apply_args") and fn.min_args() == 0:
            # only named arguments (`.gap (c := c) (h := h) (w := w)`): the value itself
            return fn.apply_args(self, (), expected=expected)[0]
        return self.apply(fn, args, expected)

    def apply(self: Host, fn: Any, args: list[Any], expected: Ty | None = None) -> Any:
        """`fn` applied to `args`; `expected` is the type the context expects of the whole
        application (what fixes the implicit dimensions of `Tensor3.unflatten v`)."""
        args = list(args)
        while args:
            if isinstance(fn, Proof):
                return fn  # a proof applied to arguments is a proof
            if isinstance(fn, Arr):
                a = args.pop(0)
                if isinstance(a, Pair):
                    # a function on `Fin m × Fin n` holds one axis per component
                    args[:0] = pair_leaves(a)
                    continue
                fn = index(fn, self._arr(a, "an index"), self.ctx)
                continue
            if isinstance(fn, Closure):
                fn = self.apply_closure(fn, args.pop(0))
                continue
            if isinstance(fn, Builtin) or hasattr(fn, "apply_args"):
                fn = Partial(fn, ())
            if isinstance(fn, Partial):
                head = fn.head
                have = fn.args + tuple(args)
                args = []
                if isinstance(head, Builtin):
                    if len(have) < head.arity:
                        return Partial(head, have)
                    fn = head.fn(self, have[: head.arity])
                    args = list(have[head.arity :])
                else:
                    if len(have) < head.min_args():
                        return Partial(head, have)
                    try:
                        fn, used = head.apply_args(self, have, expected=expected)
                    except Deferred:
                        return Partial(head, have)
                    args = list(have[used:])
                continue
            raise EvalError(f"a {type(fn).__name__} applied to arguments")
        return fn

    def apply_closure(self: Host, c: Closure, arg: Any) -> Any:
        (name, ty_term), rest = c.params[0], c.params[1:]
        cod = c.expected.cod if isinstance(c.expected, TFun) else None
        if not isinstance(name, str):  # a pattern
            env = dict(c.env)
            if ty_term is not None and isinstance(arg, Arr):
                arg = self.coerce_to(arg, self.type_of(ty_term, c.env))
            self.bind_value(name, arg, env)
            return self.lam(rest, c.body, env, cod)
        if ty_term is not None and isinstance(arg, Arr):
            arg = self.coerce_to(arg, self.type_of(ty_term, c.env))
        elif isinstance(c.expected, TFun) and isinstance(arg, Arr | Closure):
            # `fun v => ..` elaborated against `Vec (c * h * w) → ..`: v has that type, so an
            # argument of another size is a type error, not a value to reinterpret
            arg = self.coerce_to(arg, c.expected.dom)
        return self.lam(rest, c.body, {**c.env, name: arg}, cod)

    def lam(
        self: Host,
        params: tuple[tuple[Any, S.Term | None], ...],
        body: S.Term,
        env: Env,
        expected: Ty | None,
    ) -> Any:
        """`fun params => body`: an array over the leading `Fin` parameters, or a closure."""
        if not params:
            return self.eval(body, env, expected)
        name, ty_term = params[0]
        if not isinstance(name, str):
            return self.pattern_lam(name, ty_term, params[1:], body, env, expected)
        unsolved = _unsolved_in(ty_term, env) if ty_term is not None else None
        if unsolved is not None:
            ty_term = None  # `fun i : Fin n` with n unsolved: typed by its uses
        ty = (
            self.type_of(ty_term, env)
            if ty_term is not None
            else (expected.dom if isinstance(expected, TFun) else None)
        )
        sz = ty.sz if isinstance(ty, TFin) else None
        if ty is None:
            sz = self.infer_index_size(name, body, env)
            if sz is None and unsolved is not None and params[0][1] is not None:
                if const_name(head_and_args(params[0][1])[0]) == "Fin":
                    raise EvalError(unsolved.reason)  # an index whose size nothing fixes
        if sz is not None:
            ax = Axis(name, sz.n)
            r = self.lam(params[1:], body, {**env, name: iota(ax, bound=sz)}, entry_type(expected))
            if not isinstance(r, Arr):
                raise NotSupported("a function of an index whose values are not numbers")
            r = self.entries(r, entry_type(expected))
            return move_axis_to_dom(r, ax, sz)
        return Closure(params, body, env, expected)

    def entries(self: Host, v: Arr, ty: Ty | None) -> Arr:
        """The entries of a function value being tabulated; a numeral body (`fun i => 0`)
        takes its type now: the expected one, or ℕ (Lean's default) when none is."""
        if not isinstance(v.data, Numeral):
            return v
        return self.coerce_to(v, ty) if ty is not None else settle(v)

    def tabulate(self: Host, f: Any, doms: tuple[Sz, ...], elem: Ty | None = None) -> Any:
        """A function of indices as an array over the given domains (entries of type `elem`
        where it is given: `fun _ => 1` as a `Vec n` of reals)."""
        axes = [Axis(f"x{k}", d.n) for k, d in enumerate(doms)]
        v = self.apply(f, [iota(ax, bound=d) for ax, d in zip(axes, doms, strict=True)])
        if not isinstance(v, Arr):
            return f
        v = self.entries(v, elem)
        for ax, d in reversed(list(zip(axes, doms, strict=True))):
            v = move_axis_to_dom(v, ax, d)
        return v

    def infer_index_size(self: Host, name: str, body: S.Term, env: Env) -> Sz | None:
        """The size of an untyped bound variable used as an index (`fun j => x j + ..`):
        the domain of the first array it is applied to whose value is known here."""
        for fn, shrink in applied_to(name, body):
            try:
                v = self.eval(fn, env)
            except (EvalError, NotSupported):
                continue
            if isinstance(v, Arr) and v.dom and v.dom[0].n >= shrink:
                return v.dom[0] if not shrink else Sz(v.dom[0].n - shrink)
        return None


def _unsolved_in(t: S.Term, env: Env) -> Unsolved | None:
    """The first dimension left unsolved (see `Unsolved`) that the type term `t` mentions."""
    for u in S.subterms(t):
        if isinstance(u, S.Var | S.Ident) and isinstance(v := env.get(u.name), Unsolved):
            return v
    return None
