"""Operators, typed the way Lean's `binop%` / `binrel%` elaborators type them.

In an arithmetic tree (`+ - * / %`) every leaf is brought to the largest type
among the leaves and the expected type (ℝ > ℤ > ℕ > `Fin n`); a coercion `↑x`
and a numeral take that type. So `↑i - ↑j` is truncated ℕ subtraction on its
own, but real subtraction in `(↑↑i - ↑↑j) * x` with `x : ℝ`.

Arithmetic on functions that are not arrays (a drawn `f : ℝ → ℝ`, `Real.exp`, a lambda)
is pointwise, as Mathlib's `Pi` instances make it: `f + g` is `fun x => f x + g x`,
`c * f` is `fun x => c * f x`, `f ^ n`, `-f` and `f⁻¹` likewise (`_pointwise`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from checkers.language import arith as A
from checkers.language.axes import move_axis_to_dom
from checkers.language.coercion import TYPED_RANK, coerce, settle
from checkers.language.errors import EvalError, NotSupported, UntypedNumeral
from checkers.language.notation import NOTATION
from checkers.language.powers import power
from checkers.language.types import (
    KIND_TYPES,
    TFin,
    TList,
    TNat,
    Ty,
    kind_of,
)
from checkers.language.values import Arr, Axis, Builtin, Closure, Partial, Sz, as_array, iota
from checkers.lazyjax import jnp
from theorem_index.lean import syntax as S

if TYPE_CHECKING:
    from checkers.language.host import Env, Host

ARITH = ("+", "-", "*", "/", "%")
# every infix operator `_binop` evaluates (another is refused: "the operator …")
EVALUATED_OPERATORS = frozenset(
    {*ARITH, "^", *A.CMP_OPS, "∧", "∨", "→", "↔", "•", "∘", "∈", "∉", "∣", *NOTATION}
)


def _leaves(t: S.Term) -> list[S.Term]:
    if isinstance(t, S.BinOp) and t.op in ARITH:
        return _leaves(t.lhs) + _leaves(t.rhs)
    if isinstance(t, S.Paren):
        return _leaves(t.term)
    return [t]


def _deferred(t: S.Term) -> bool:
    """Leaves whose type is fixed by the tree: coercions and numerals."""
    if isinstance(t, S.Prefix) and t.op == "↑":
        return True
    if isinstance(t, S.Num | S.Decimal):
        return True
    if isinstance(t, S.Prefix) and t.op == "-":
        return _deferred(t.arg)
    if isinstance(t, S.BinOp) and t.op == "^":
        return _deferred(t.lhs)
    return False


def _name_of(t: S.Term) -> str:
    return t.name if isinstance(t, S.Const | S.Ident | S.Var) else type(t).__name__


def _ty_of_kind(kind: str, bound: Sz | None) -> Ty | None:
    return KIND_TYPES.get(kind) or (TFin(bound) if kind == "fin" else None)


# operators that Mathlib's `Pi` instances make pointwise on functions
POINTWISE = frozenset({*ARITH, "^"})
_POINT = "x✝"  # the point a pointwise operation is applied at (no source name has ✝)


def _callable(v: Any) -> bool:
    """A function value that is not an array: a builtin, a closure, a definition with
    explicit parameters, or one of those partly applied."""
    if isinstance(v, Builtin):
        return v.arity >= 1
    if isinstance(v, Closure | Partial):
        return True
    return hasattr(v, "apply_args") and v.min_args() >= 1


def _pointwise(t: S.Term, is_fn: Callable[[S.Term], bool]) -> S.Lam:
    """`fun x => f x + g x` for `f + g` (`-f`, `f⁻¹`, `f ^ n`, `c * f` likewise): the
    operands that are functions (`is_fn`) applied at a fresh point, the others (a scalar,
    a numeral, an exponent) kept: `c * f` is `c * f x`, `f + 1` is `f x + 1`."""

    def at(u: S.Term) -> S.Term:
        return S.App(S.Paren(u), (S.Var(_POINT),)) if is_fn(u) else u

    x = S.Binder("plain", (_POINT,), None)  # typed where it is applied
    if isinstance(t, S.BinOp):
        body: S.Term = S.BinOp(t.op, at(t.lhs), t.rhs if t.op == "^" else at(t.rhs))
    elif isinstance(t, S.Prefix):
        body = S.Prefix(t.op, at(t.arg))
    else:
        assert isinstance(t, S.Postfix)
        body = S.Postfix(t.op, at(t.arg))
    return S.Lam((x,), body)


class Operators:
    """The operator part of `Evaluator` (a mixin)."""

    def _binop(self: Host, t: S.BinOp, env: Env, expected: Ty | None) -> Any:
        op = t.op
        if op in POINTWISE and self._function_valued(t, env):
            return self.eval(self._lifted(t, env), env, expected)
        if op in ARITH:
            return self.typed_trees([t], env, expected)[0]
        if op == "^":
            return self._power(t, env, expected)
        if op in A.CMP_OPS or op in ("≥", ">"):
            a, b = self.typed_trees([t.lhs, t.rhs], env, None, default_nat=True)
            return A.compare(op, self._arr(a, op), self._arr(b, op), self.ctx)
        if op in ("∧", "∨", "→", "↔"):
            a = self._arr(self.eval(t.lhs, env), op)
            b = self._arr(self.eval(t.rhs, env), op)
            return A.logic(op, a, b)
        if op == "•":
            # the scalar of `n • v` is a ℕ unless its own type says otherwise
            a = settle(self._arr(self.eval(t.lhs, env), "•"))
            b = self._arr(self.eval(t.rhs, env, expected), "•")
            return A.arith("*", a, b, self.ctx)
        if op == "∘":
            return self._compose(t, env)
        if op in ("∈", "∉"):
            return self._member(t, env)
        if op == "∣":
            return self._divides(t, env)
        if op in NOTATION:
            # `a :: xs`: the head at the list's element type; `xs ++ ys`: both lists
            head = expected.elem if op == "::" and isinstance(expected, TList) else expected
            a = self.eval(t.lhs, env, head)
            return self.apply(self.constant(NOTATION[op]), [a, self.eval(t.rhs, env, expected)])
        raise NotSupported(f"the operator {op}")

    def _lifted(self: Host, t: S.Term, env: Env) -> S.Lam:
        """A pointwise operation on functions as the function it denotes (`_pointwise`)."""
        return _pointwise(t, lambda u: self._function_valued(u, env))

    def _function_valued(self: Host, t: S.Term, env: Env) -> bool:
        """Whether `t` denotes a function of a real (a drawn function, a lambda, a named
        function not applied, or arithmetic of those): its arithmetic is pointwise, as
        Mathlib's `Pi` instances make it (`(f + g) x = f x + g x`)."""
        while isinstance(t, S.Paren):
            t = t.term
        if isinstance(t, S.Lam):
            return True
        if isinstance(t, S.BinOp) and t.op in POINTWISE:
            return self._function_valued(t.lhs, env) or (
                t.op in ARITH and self._function_valued(t.rhs, env)
            )
        if isinstance(t, S.Prefix) and t.op == "-" or isinstance(t, S.Postfix) and t.op == "⁻¹":
            return self._function_valued(t.arg, env)
        if isinstance(t, S.Var | S.Ident) and t.name in env:
            return _callable(env[t.name])
        if isinstance(t, S.Const):
            try:
                return _callable(self.lib.lookup(t.name))
            except NotSupported:
                return False
        return False

    def _divides(self: Host, t: S.BinOp, env: Env) -> Any:
        """`a ∣ b` (`Dvd.dvd`, ∃ c, b = a * c): in ℕ and ℤ `b % a = 0`, which Lean's
        `b % 0 = b` makes `b = 0` at a = 0; in a field (ℝ), `a ≠ 0 ∨ b = 0`."""
        a, b = self.typed_trees([t.lhs, t.rhs], env, None, default_nat=True)
        kind = self._arr(a, "∣").kind
        zero = S.Num("0")
        if kind in ("nat", "int"):
            rel: S.Term = S.BinOp("=", S.BinOp("%", t.rhs, t.lhs), zero)
        elif kind == "real":
            rel = S.BinOp("∨", S.BinOp("≠", t.lhs, zero), S.BinOp("=", t.rhs, zero))
        else:
            raise NotSupported(f"the operator ∣ on a {self._arr(b, '∣').describe()}")
        return self.eval(rel, env)

    def _member(self: Host, t: S.BinOp, env: Env) -> Any:
        """`x ∈ s` for a finset s (finsets.py); `x ∉ s` is its negation."""
        from checkers.evaluator.finsets import FinsetValue, member

        s = self.eval(t.rhs, env)
        if not isinstance(s, FinsetValue):
            raise NotSupported(f"the operator {t.op} on a {type(s).__name__}")
        v = member(self, self._arr(self.eval(t.lhs, env), t.op), s)
        if t.op == "∉":
            return v.with_(data=jnp.logical_not(jnp.asarray(v.data)))
        return v

    def _power(self: Host, t: S.BinOp, env: Env, expected: Ty | None) -> Any:
        base = self._arr(self.eval(t.lhs, env, expected), "power")
        try:
            e = self._arr(self.eval(t.rhs, env), "exponent")
        except UntypedNumeral:
            e = self._arr(self.eval(t.rhs, env, TNat()), "exponent")
        ek = kind_of(expected) if expected is not None else None
        if base.kind == "num" and not e.is_static and ek in TYPED_RANK:
            base = coerce(base, ek or "real", self.ctx, getattr(expected, "sz", None))
        return power(base, e, self.ctx)

    def typed_trees(
        self: Host,
        trees: list[S.Term],
        env: Env,
        expected: Ty | None,
        default_nat: bool = False,
    ) -> list[Any]:
        """The values of arithmetic trees elaborated together, as Lean's `binop%` and
        `binrel%` do: one type for every leaf of every tree (the largest among the
        leaves and `expected`), and each tree's value at that type. So a tree of
        numerals takes its type from the trees beside it: in `f x = 3 / 2` with
        `f x : ℝ` the `3 / 2` is real division, both ways across the relation."""
        kind, bound, vals = self.typed_leaves(trees, env, expected, default_nat)
        out = []
        for t in trees:
            v = self._fold(t, vals, kind)
            if isinstance(v, Arr) and kind in TYPED_RANK:
                v = coerce(v, kind, self.ctx, bound)
            out.append(v)
        return out

    def typed_leaves(
        self: Host,
        trees: list[S.Term],
        env: Env,
        expected: Ty | None,
        default_nat: bool = False,
    ) -> tuple[str, Sz | None, dict[int, Any]]:
        """Evaluate the leaves of arithmetic trees at their common type.

        Numerals, coercions and leaves whose numerals only the tree can type are
        evaluated last, at that type. With `default_nat` (the tree is a whole
        proposition's side: nothing outside will type it) numerals default to ℕ;
        else a tree of numerals stays a 'num' for its context to type."""
        leaves = [leaf for tr in trees for leaf in _leaves(tr)]
        vals: dict[int, Any] = {}
        kind, bound = "num", None
        ek = kind_of(expected) if expected is not None else None
        if ek in TYPED_RANK:
            kind = ek or "num"
            bound = expected.sz if isinstance(expected, TFin) else None
        for leaf in leaves:
            if _deferred(leaf):
                continue
            try:
                v = self.eval(leaf, env, None)
            except UntypedNumeral:
                continue
            vals[id(leaf)] = v
            if isinstance(v, Arr) and v.kind in TYPED_RANK:
                kind, bound = self._join(kind, bound, v.kind, v.bound)
        if kind == "num":
            for leaf in leaves:
                if isinstance(leaf, S.Prefix) and leaf.op == "↑":
                    v = self._coe(leaf, env, None)
                    vals[id(leaf)] = v
                    if isinstance(v, Arr) and v.kind in TYPED_RANK:
                        kind, bound = self._join(kind, bound, v.kind, v.bound)
        if kind == "num" and default_nat:
            kind = "nat"
            for leaf in leaves:
                if id(leaf) not in vals and _deferred(leaf):
                    vals[id(leaf)] = self.eval(leaf, env, None)
                v = vals.get(id(leaf))
                if isinstance(v, Arr):
                    vals[id(leaf)] = settle(v)  # ℕ, node by node; a decimal is refused
        target = _ty_of_kind(kind, bound)
        for leaf in leaves:
            if id(leaf) not in vals:
                vals[id(leaf)] = self.eval(leaf, env, target)
        return kind, bound, vals

    @staticmethod
    def _join(k1: str, b1: Sz | None, k2: str, b2: Sz | None) -> tuple[str, Sz | None]:
        if k1 == "num":
            return k2, b2
        if k1 == "fin" and k2 == "fin":
            if b1 is not None and b2 is not None and b1.n != b2.n:
                return "nat", None
            return "fin", b1 or b2
        if TYPED_RANK[k2] > TYPED_RANK[k1]:
            return k2, None
        return k1, (b1 if k1 == "fin" else None)

    def _fold(self: Host, t: S.Term, vals: dict[int, Any], kind: str) -> Any:
        if id(t) in vals:
            return vals[id(t)]
        if isinstance(t, S.Paren):
            return self._fold(t.term, vals, kind)
        assert isinstance(t, S.BinOp)
        a = self._arr(self._fold(t.lhs, vals, kind), t.op)
        b = self._arr(self._fold(t.rhs, vals, kind), t.op)
        # two numerals combine exactly, as a tree, whatever the kind: the tree is
        # evaluated at the kind, node by node, where it meets a typed operand
        k = None if kind == "num" or a.kind == b.kind == "num" else kind
        v = A.arith(t.op, a, b, self.ctx, kind=k)
        if self.probe is not None:
            self.probe(t, v)
        return v

    def _coe(self: Host, t: S.Prefix, env: Env, expected: Ty | None) -> Any:
        inner = self.eval(t.arg, env, None)
        if not isinstance(inner, Arr):
            return inner
        # numerals under `↑` take the target type (Lean unifies it with theirs)
        target = kind_of(expected) if expected is not None else None
        if target in ("real", "nnreal", "angle", "complex", "nat", "int"):
            return coerce(inner, target, self.ctx)
        if target == "fin" and isinstance(expected, TFin):
            return coerce(inner, "fin", self.ctx, expected.sz)
        if inner.kind == "fin":
            return coerce(inner, "nat", self.ctx)
        if inner.kind in ("nat", "int", "nnreal"):
            return coerce(inner, "real", self.ctx)
        return inner

    def _prefix(self: Host, t: S.Prefix, env: Env, expected: Ty | None) -> Any:
        if t.op == "↑":
            return self._coe(t, env, expected)
        if t.op == "⇑":
            return self.eval(t.arg, env, expected)
        if t.op == "@":
            v = self.eval(t.arg, env, expected)
            if isinstance(v, Arr | Closure):
                return v  # a local function: no implicit parameters
            raise NotSupported(f"`@{_name_of(t.arg)}` without its arguments")
        if t.op == "-":
            if self._function_valued(t, env):
                return self.eval(self._lifted(t, env), env, expected)
            return A.negate(self._arr(self.eval(t.arg, env, expected), "-"), self.ctx)
        if t.op in ("¬", "!"):
            x = self._arr(self.eval(t.arg, env), t.op)
            if x.kind != "bool":
                raise EvalError("¬ of a non-proposition")
            if x.is_static:
                return Arr(not bool(x.data), "bool")
            return x.with_(data=jnp.logical_not(as_array(x)))
        raise NotSupported(f"the prefix operator {t.op}")

    def _compose(self: Host, t: S.BinOp, env: Env) -> Any:
        g = self.eval(t.rhs, env)
        if isinstance(g, Arr) and g.dom:
            ax = Axis("∘", g.dom[0].n)
            k = iota(ax, bound=g.dom[0])
            f = self.eval(t.lhs, env)
            r = self._arr(self.apply(f, [self.apply(g, [k])]), "∘")
            return move_axis_to_dom(r, ax, g.dom[0])
        x = "∘x"
        body = S.App(S.Var("∘f"), (S.App(S.Var("∘g"), (S.Var(x),)),))
        env2 = {**env, "∘f": self.eval(t.lhs, env), "∘g": g}
        return Closure(((x, None),), body, env2)
