"""The term-tree interpreter: Lean terms to JAX values, never through Python eval.

`Evaluator.eval(term, env, expected)` returns a value (see values.py). A
`fun (r : Fin N) => body` is the body evaluated for every r at once on a
named axis; `∑ r : Fin N, body` sums that axis away; applying an array to an
index is indexing; `if` is a select of two total branches. Arithmetic trees
are typed the way Lean's `binop%` elaborator types them: every leaf is
brought to the largest type among the leaves (and the expected type), and a
coercion `↑x` takes that type.

This module dispatches on the term's form and resolves names and constants; applying
a value to arguments and building functions from `fun` terms is application.py, the
arithmetic operators operators.py, structures, `let` and `if` forms.py, quantifiers and
big operators big_operators.py, the patterns patterns.py (mixins of `Evaluator`, which
host.py describes to each other).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

from checkers.evaluator.application import Application
from checkers.evaluator.big_operators import BigOperators
from checkers.evaluator.equations import Deferred
from checkers.evaluator.forms import Forms, lambda_params
from checkers.evaluator.operators import Operators
from checkers.evaluator.patterns import Patterns
from checkers.language import arith as A
from checkers.language import total as T
from checkers.language.coercion import Ctx, coerce
from checkers.language.errors import EvalError, NotSupported
from checkers.language.host import Env, Library
from checkers.language.memo import Applications
from checkers.language.notation import cdot_function
from checkers.language.types import (
    TComplex,
    TFin,
    TInt,
    TList,
    TNat,
    TNNReal,
    TOther,
    TReal,
    Ty,
    eval_dim,
    eval_type,
    fin_domains,
    kind_of,
)
from checkers.language.values import (
    Arr,
    Builtin,
    Closure,
    Lst,
    Proof,
    Struct,
    Sz,
    Text,
    TypeValue,
    Unevaluated,
    Unsolved,
    as_array,
    holds_tracer,
    num,
)
from checkers.lazyjax import jax, jnp
from theorem_index.lean import syntax as S

# Nested evaluations (and unfolded definitions) allowed before giving up; each
# level takes a few Python frames, so this stays well inside the recursion limit.
MAX_DEPTH = 150
# Unfoldings of recursive definitions allowed in one evaluation (a recursion that
# branches, or one on a sampled value, would otherwise run for ever).
MAX_UNFOLDINGS = 10_000


class Evaluator(Operators, Forms, BigOperators, Patterns, Application):
    def __init__(
        self,
        library: Library,
        ctx: Ctx | None = None,
        probe: Callable[[S.Term, Any], None] | None = None,
    ) -> None:
        self.lib = library
        self.ctx = ctx or Ctx()
        self.probe = probe
        self.depth = 0
        self.unfoldings = 0
        # each application's value, computed once in this trace (memo.py); not while a
        # probe watches every evaluation
        self.applications = Applications() if probe is None else None
        # why a definition's implicit dimension was left to its body (see `Unsolved`), to
        # explain a value that stayed a function for want of it
        self.unsolved: str | None = None

    def count_unfolding(self, name: str) -> None:
        self.unfoldings += 1
        if self.unfoldings > MAX_UNFOLDINGS:
            raise NotSupported(
                f"the recursive definition {name} unfolds more than {MAX_UNFOLDINGS} times"
            )

    def eval(self, t: S.Term, env: Env, expected: Ty | None = None) -> Any:
        if isinstance(t, S.App) and self.applications is not None:
            meter = self.ctx.meter
            key = self.applications.key(t, env, expected, meter is None or meter.active)
            if key is not None:
                got = self.applications.get(key)
                if got is None:
                    got = self._evaluate(t, env, expected)
                    self.applications.put(t, key, got)
                return got
        return self._evaluate(t, env, expected)

    def _evaluate(self, t: S.Term, env: Env, expected: Ty | None) -> Any:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise NotSupported(
                f"the definitions unfold more than {MAX_DEPTH} levels deep (a recursion "
                "on a sampled value, or on data too long to unfold here)"
            )
        try:
            v = self._eval(t, env, expected)
        finally:
            self.depth -= 1
        if self.probe is not None:
            self.probe(t, v)
        return v

    def _eval(self, t: S.Term, env: Env, expected: Ty | None) -> Any:
        if isinstance(t, S.Paren):
            fn = cdot_function(t)
            return self.eval(t.term if fn is None else fn, env, expected)
        if isinstance(t, S.Var | S.Ident):
            return self._name(t, env, expected)
        if isinstance(t, S.Const):
            return self.constant(t.name)
        if isinstance(t, S.Num):
            return self._numeral(num(int(t.text, 0)), expected)
        if isinstance(t, S.Decimal):
            return self._numeral(num(Fraction(t.text), decimal=True), expected)
        if isinstance(t, S.App):
            return self._app(t, env, expected)
        if isinstance(t, S.BinOp):
            return self._binop(t, env, expected)
        if isinstance(t, S.Prefix):
            return self._prefix(t, env, expected)
        if isinstance(t, S.Postfix):
            if t.op == "⁻¹" and self._function_valued(t, env):
                return self.eval(self._lifted(t, env), env, expected)
            if t.op == "⁻¹":
                at = expected if isinstance(expected, TComplex | TNNReal) else TReal()
                v = self._arr(self.eval(t.arg, env, at), "⁻¹")
                if v.kind == "complex":
                    return v.with_(data=T.complex_div(1, as_array(v)), iota=None)
                x = coerce(v, "real", self.ctx)
                kind = "nnreal" if v.kind == "nnreal" else "real"  # ℝ≥0 has its own ⁻¹
                if x.log:
                    return A.log_scaled(x, -1.0).with_(kind=kind)
                return x.with_(data=T.real_inv(as_array(x)), iota=None, kind=kind)
            raise NotSupported(f"postfix {t.op}")
        if isinstance(t, S.Typed) and _numeral_function(t, env):
            # `(1 : 𝕜 → F)`: Pi's numeral, the constant function
            assert isinstance(t.type, S.BinOp)
            point = S.Binder("plain", ("_",), t.type.lhs)
            return self.eval(S.Lam((point,), S.Typed(t.term, t.type.rhs)), env, expected)
        if isinstance(t, S.Typed):
            ty = self.type_of(t.type, env)
            return self.coerce_to(self.eval(t.term, env, ty), ty)
        if isinstance(t, S.Tuple):
            return self._tuple(list(t.items), env, expected)
        if isinstance(t, S.Anon):
            return self._anon(t, env, expected)
        if isinstance(t, S.VecLit):
            return self._veclit(t, env, expected)
        if isinstance(t, S.ListLit):
            return self._listlit(t, env, expected)
        if isinstance(t, S.Index):
            return self._get_elem(t, env)
        if isinstance(t, S.Abs):
            return A.absolute(self._arr(self.eval(t.term, env, expected), "|·|"))
        if isinstance(t, S.Norm):
            return self._norm(t, env)
        if isinstance(t, S.Proj):
            return self._proj(t, env, expected)
        if isinstance(t, S.Lam):
            return self.lam(lambda_params(t.binders), t.body, env, expected)
        if isinstance(t, S.BigOp):
            return self._bigop(t, env, expected)
        if isinstance(t, S.Let):
            return self._let(t, env, expected)
        if isinstance(t, S.If):
            return self._if(t, env, expected)
        if isinstance(t, S.Quant):
            return self._quant(t, env)
        if isinstance(t, S.Match):
            return self._match(t, env, expected)
        if isinstance(t, S.LamMatch):
            return self._lam_match(t, env, expected)
        if isinstance(t, S.SetBuilder):
            from checkers.evaluator.finsets import set_builder

            return set_builder(self, t, env)
        if isinstance(t, S.Sort):
            return TypeValue(t.kind)
        if isinstance(t, S.Str):
            return Text(t.value)
        if isinstance(t, S.StructInst):
            return self._struct_inst(t, env, expected)
        if isinstance(t, S.DotIdent):
            return self.constant(self.dot_constructor(t.name, expected))
        if isinstance(t, S.By):
            return Proof("by")
        if isinstance(t, S.Hole):
            # `_` where Lean elaborates a proof (`relu_has_vjp_at n x _`); used as data it
            # is refused where it is used
            return Proof("_")
        raise NotSupported(f"the construct {type(t).__name__} is not evaluated")

    def _name(self, t: S.Var | S.Ident, env: Env, expected: Ty | None) -> Any:
        if t.name in env:
            v = env[t.name]
            if isinstance(v, Unsolved):
                raise EvalError(v.reason)
            return v
        if isinstance(t, S.Ident) and "." in t.name:
            head, _, rest = t.name.partition(".")
            if head in env:
                term: S.Term = S.Var(head)
                for f in rest.split("."):
                    term = S.Proj(term, f)
                return self.eval(term, env, expected)
        if isinstance(t, S.Ident):
            return self.constant(t.name)
        raise EvalError(f"unbound variable {t.name}")

    def constant(self, name: str) -> Any:
        v = self.lib.lookup(name)
        if isinstance(v, Builtin) and v.arity == 0:
            return v.fn(self, ())
        if hasattr(v, "apply_args") and v.min_args() == 0:
            # a definition without explicit parameters denotes its value
            if not v.params:
                return self._closed_value(name, v)
            try:
                return v.apply_args(self, ())[0]
            except (EvalError, Deferred):  # its implicit dimensions wait for its arguments
                return v
        return v

    def _struct_inst(self, t: S.StructInst, env: Env, expected: Ty | None) -> Struct:
        """`{ backward := fun x dy => …, … }`: a value of the structure the context expects.
        A field that cannot be evaluated is refused where it is read, not here."""
        if t.base is not None:
            raise NotSupported("a structure update `{ s with … }`")
        head = expected.head if isinstance(expected, TOther) else None
        fields: dict[str, Any] = {}
        for name, term in t.fields:
            try:
                fields[name] = self.eval(term, env)
            except (EvalError, NotSupported) as e:
                fields[name] = Unevaluated(str(e))
        return Struct(head or "", fields)

    def dot_constructor(self, short: str, expected: Ty | None) -> str:
        """The constructor `.short` names: of the type the context expects, or the only
        constructor of that name among the ingested types."""
        lib: Any = self.lib  # a library of ingested declarations knows their constructors
        if not hasattr(lib, "constructors"):
            raise NotSupported(f"`.{short}`: no inductive types are known here")
        head = expected.head if isinstance(expected, TOther) else None
        if head is not None:
            for cand in lib.candidates(head):
                if f"{cand}.{short}" in lib.constructors(cand):
                    return f"{cand}.{short}"
        found = lib.constructors_named(short)
        if len(found) == 1:
            return found[0]
        raise NotSupported(
            f"`.{short}`: the type it constructs is not known here"
            + (f" (constructors of that name: {', '.join(found)})" if found else "")
        )

    def _closed_value(self, name: str, v: Any) -> Any:
        """The value of a definition without parameters (a weight matrix, a constant),
        computed once per library and precision, outside any trace: a literal of
        thousands of numerals then costs one array constant in each program, not
        thousands of traced operations in every theorem that mentions it."""
        memo = getattr(self.lib, "values", None)
        key = (name, jnp.dtype(self.ctx.dtype).name, jnp.dtype(self.ctx.int_dtype).name)
        if memo is not None and key in memo:
            return memo[key]
        with jax.ensure_compile_time_eval():
            try:
                value = v.apply_args(self, ())[0]
            except EvalError:
                value = v
        if memo is not None and not holds_tracer(value):
            memo[key] = value
        return value

    def type_of(self, t: S.Term, env: Env) -> Ty:
        return eval_type(t, env, lambda u, e: self.eval(u, e))

    def dim_of(self, t: S.Term, env: Env) -> Sz:
        return eval_dim(t, env, lambda u, e: self.eval(u, e))

    def _numeral(self, v: Arr, expected: Ty | None) -> Arr:
        """A numeral at the type the context asks for; in ℝ (or unknown) it stays
        exact until the tree it belongs to is evaluated."""
        if isinstance(expected, TFin):
            return coerce(v, "fin", self.ctx, expected.sz)
        if isinstance(expected, TNat):
            return coerce(v, "nat", self.ctx)
        if isinstance(expected, TInt):
            return coerce(v, "int", self.ctx)
        return v

    def coerce_to(self, v: Any, ty: Ty) -> Any:
        if isinstance(v, Lst) and isinstance(ty, TList):
            kind = kind_of(ty.elem)
            if kind in ("nat", "int", "real") and all(
                type(x) is Arr and x.kind == kind and not x.dom for x in v.items
            ):  # numbers of that type already: coercing each would leave it as it is
                return v if v.elem == ty.elem else Lst(v.items, ty.elem)
            return Lst(tuple(self.coerce_to(x, ty.elem) for x in v.items), ty.elem)
        dims, elem = fin_domains(ty)
        if isinstance(v, Closure) and dims and all(d is not None for d in dims):
            # `fun _ => 0` where a `Vec (c * h * w)` is expected: elaborated at that type
            v = self.tabulate(replace(v, expected=ty), dims, elem)
        if not isinstance(v, Arr):
            return v
        kind = kind_of(ty)
        if kind is None or kind == "bool":
            return v
        if len(dims) == len(v.dom) and dims:
            if tuple(d.n for d in dims) != tuple(d.n for d in v.dom):
                raise EvalError(
                    f"a {v.describe()} where {len(dims)} indices of sizes "
                    f"{[d.n for d in dims]} are expected"
                )
            v = v.with_(dom=dims)
        return coerce(v, kind, self.ctx, elem.sz if isinstance(elem, TFin) else None)

    @staticmethod
    def _arr(v: Any, what: str) -> Arr:
        if not isinstance(v, Arr):
            raise EvalError(f"{what} of a {type(v).__name__}, not a number or array")
        return v


def _numeral_function(t: S.Typed, env: Env) -> bool:
    """`(c : A → B)` with c a numeral, or a variable holding a number (`(n : 𝕜 → F)`,
    Lean's cast of n to the constant function); a variable holding a function is itself."""
    ty = t.type
    while isinstance(ty, S.Paren):
        ty = ty.term
    inner = t.term
    while isinstance(inner, S.Paren):
        inner = inner.term
    if not (isinstance(ty, S.BinOp) and ty.op == "→"):
        return False
    if isinstance(inner, S.Var):
        v = env.get(inner.name)
        return isinstance(v, Arr) and not v.dom and v.kind in ("nat", "int", "real")
    return isinstance(inner, S.Num)
