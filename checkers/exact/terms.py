"""A closed statement decided in exact arithmetic: its term tree read on exact numbers.

Float64 cannot decide some closed statements (no binders) whose every quantity is
rational: in `binomTail 10112 7985 (10000 / (7768 : ℝ)) ≤ 1 / 1000` the binomial
coefficients are held as logarithms (counting.py) and the base `1 - q` is negative, so
the float sum is NaN; where it is finite, the terms cancel far beyond float64's
precision. Such a statement is decided here with Python integers and fractions
(exact_numbers.py), once the float verdict has failed or is not finite
(checkers/harness/confirming.py): a `Decision` that the relation holds or fails.

The vocabulary: ℕ, ℤ and ℝ (ℚ) numerals and decimals; `+ - * / %` typed as Lean's
`binop%` elaborator types them (as operators.py does: every leaf of an arithmetic tree
at the largest type among the leaves and the expected type, a numeral or a coercion at
that type; here the base of `^` and the operand of `-` are in the tree too, as Lean's
`rightact%` and `unop%` put them); `^` with a ℕ exponent (a ℤ one on ℝ); `|x|`; type
ascriptions and the casts ℕ → ℤ → ℝ (`↑x`, `Nat.cast`, `Int.cast`, `Int.ofNat`);
`Nat.choose`, `Nat.factorial`, `Nat.descFactorial`, `Nat.succ`; `∑`/`∏` over
`Finset.range n`, `Finset.Icc a b`, `Ico`, `Ioc`, `Ioo` with exact bounds; the
definitions the semantics unfold by their equation (explicit parameters of those types,
not recursive); the relations =, ≠, ≤, <, ≥, >. Anything else (`Real.exp`, `Real.sqrt`,
a filter, a `Fin` index) declines, and the float verdict stands. Nothing is evaluated as
Python: only the tree is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from checkers.evaluator.equations import EqnFn
from checkers.evaluator.operators import ARITH
from checkers.exact.numbers import (
    RANK,
    WORK_LIMIT,
    Arith,
    Decision,
    Declined,
    Q,
    cast,
    compare,
)
from checkers.language.errors import EvalError
from checkers.language.types import INT_NAMES, NAT_NAMES, REAL_NAMES
from checkers.language.values import Builtin
from theorem_index.lean import syntax as S

MAX_DEPTH = 200  # nested terms and unfoldings
MAX_ELEMENTS = 1_000_000  # elements of the finsets a statement sums over, in all
_HOLDS = {
    "=": lambda c: c == 0,
    "≠": lambda c: c != 0,
    "≤": lambda c: c <= 0,
    "<": lambda c: c < 0,
    "≥": lambda c: c >= 0,
    ">": lambda c: c > 0,
}


class Untyped(Declined):
    """Numerals (or a cast) whose type only the surrounding tree fixes: the tree evaluates
    them again at its type; a statement's sides default them to ℕ."""


@dataclass(frozen=True)
class _Finset:
    values: range
    kind: str


def decide(statement: S.Term, library: Any, work_limit: int = WORK_LIMIT) -> Decision | None:
    """The relation `lhs R rhs` decided exactly, or None where the statement leaves the
    exact vocabulary or its limits (see the module; `work_limit`: bits computed in all)."""
    if not (isinstance(statement, S.BinOp) and statement.op in _HOLDS):
        return None
    reader = _Reader(library, work_limit)
    try:
        lhs, rhs = reader.tree([statement.lhs, statement.rhs], {}, None, default_nat=True)
    except (Declined, EvalError, ArithmeticError, ValueError, RecursionError):
        return None
    holds = _HOLDS[statement.op](compare(lhs, rhs))
    return Decision(statement.op, lhs, rhs, holds)


def _kind_of_type(t: S.Term | None) -> str | None:
    if isinstance(t, S.Paren):
        return _kind_of_type(t.term)
    if isinstance(t, S.Const | S.Ident):
        for kind, names in (("nat", NAT_NAMES), ("int", INT_NAMES), ("real", REAL_NAMES)):
            if t.name in names:
                return kind
    return None


def _leaves(t: S.Term) -> list[S.Term]:
    """The leaves of an arithmetic tree: `binop%` operands, the base of `^` (`rightact%`:
    the exponent is elaborated apart) and the operand of `-` (`unop%`)."""
    if isinstance(t, S.BinOp) and t.op in ARITH:
        return _leaves(t.lhs) + _leaves(t.rhs)
    if isinstance(t, S.BinOp) and t.op == "^":
        return _leaves(t.lhs)
    if isinstance(t, S.Prefix) and t.op == "-":
        return _leaves(t.arg)
    if isinstance(t, S.Paren):
        return _leaves(t.term)
    return [t]


def _deferred(t: S.Term) -> bool:
    """Leaves typed by their tree: numerals and coercions."""
    return isinstance(t, S.Num | S.Decimal) or (isinstance(t, S.Prefix) and t.op == "↑")


class _Reader:
    def __init__(self, library: Any, work_limit: int = WORK_LIMIT) -> None:
        self.lib = library
        self.arith = Arith(work_limit)
        self.depth = 0
        self.elements = 0

    def value(self, t: Any, env: dict[str, Any], kind: str | None) -> Q:
        """A number (`t` a term, or a value already read) at `kind` (None: its own)."""
        v = t if isinstance(t, Q) else self.eval(t, env, kind)
        if not isinstance(v, Q):
            raise Declined("a finset where a number is expected")
        return cast(v, kind) if kind is not None else v

    def eval(self, t: S.Term, env: dict[str, Any], kind: str | None) -> Q | _Finset:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Declined(f"terms nested more than {MAX_DEPTH} deep")
        try:
            v = self._eval(t, env, kind)
        finally:
            self.depth -= 1
        return cast(v, kind) if isinstance(v, Q) and kind is not None else v

    def _eval(self, t: S.Term, env: dict[str, Any], kind: str | None) -> Q | _Finset:
        if isinstance(t, S.Paren):
            return self.eval(t.term, env, kind)
        if isinstance(t, S.Num):
            return self._numeral(Fraction(int(t.text, 0)), kind)
        if isinstance(t, S.Decimal):
            if kind not in (None, "real"):
                raise Declined(f"a decimal in {kind}")
            return self._numeral(Fraction(t.text), kind)
        if isinstance(t, S.Typed):
            target = _kind_of_type(t.type)
            if target is None:
                raise Declined("an ascription to a type other than ℕ, ℤ, ℝ, ℚ")
            return self.value(t.term, env, target)
        if (
            isinstance(t, S.BinOp)
            and t.op in (*ARITH, "^")
            or (isinstance(t, S.Prefix) and t.op == "-")
        ):
            return self.tree([t], env, kind)[0]
        if isinstance(t, S.Prefix) and t.op == "↑":
            return self._cast(t.arg, env, kind)
        if isinstance(t, S.Abs):
            return self.arith.absolute(self.value(t.term, env, kind))
        if isinstance(t, S.Var | S.Ident | S.Const):
            return self._name(t, (), env, kind)
        if isinstance(t, S.App):
            return self._app(t, env, kind)
        if isinstance(t, S.Proj):
            return self._field(t.term, t.field, (), env, kind)
        if isinstance(t, S.BigOp):
            return self._bigop(t, env, kind)
        raise Declined(f"the construct {type(t).__name__}")

    def _numeral(self, x: Fraction, kind: str | None) -> Q:
        if kind is None:
            raise Untyped("a numeral")
        if kind != "real" and x.denominator != 1:
            raise Declined(f"a decimal in {kind}")
        return Q(kind, x.numerator, x.denominator)

    # --- arithmetic trees ------------------------------------------------------------

    def tree(
        self, trees: list[S.Term], env: dict[str, Any], kind: str | None, default_nat: bool = False
    ) -> list[Q]:
        """Arithmetic trees elaborated together, as `binop%` / `binrel%` do (operators.py):
        one type for every leaf, the largest among them and `kind`."""
        leaves = [leaf for tr in trees for leaf in _leaves(tr)]
        vals: dict[int, Q] = {}
        k = kind
        for leaf in leaves:
            if _deferred(leaf):
                continue
            try:
                v = self.value(leaf, env, None)
            except Untyped:
                continue
            vals[id(leaf)] = v
            if k is None or RANK[v.kind] > RANK[k]:
                k = v.kind
        if k is None:
            if not default_nat:
                raise Untyped("a tree of numerals")
            k = "nat"
        for leaf in leaves:
            if id(leaf) not in vals:
                vals[id(leaf)] = self.value(leaf, env, k)
        return [self._fold(tr, vals, k, env) for tr in trees]

    def _fold(self, t: S.Term, vals: dict[int, Q], kind: str, env: dict[str, Any]) -> Q:
        if id(t) in vals:
            return cast(vals[id(t)], kind)
        if isinstance(t, S.Paren):
            return self._fold(t.term, vals, kind, env)
        if isinstance(t, S.Prefix):  # `-x`
            return self.arith.negate(self._fold(t.arg, vals, kind, env))
        assert isinstance(t, S.BinOp)
        a = self._fold(t.lhs, vals, kind, env)
        if t.op == "^":
            return self._power(a, t.rhs, env)
        return self.arith.binary(t.op, a, self._fold(t.rhs, vals, kind, env), kind)

    def _power(self, base: Q, exponent: S.Term, env: dict[str, Any]) -> Q:
        try:
            e = self.value(exponent, env, None)
        except Untyped:
            e = self.value(exponent, env, "nat")  # Monoid.npow, as Lean defaults it
        if e.kind == "nat" or (e.kind == "int" and base.kind == "real"):
            return self.arith.power(base, e.n)
        raise Declined(f"a power with a {e.kind} exponent")

    def _cast(self, arg: Any, env: dict[str, Any], kind: str | None) -> Q:
        """`↑x`, `Nat.cast x`: x at the type the tree or the context gives it."""
        if kind is None:
            raise Untyped("a coercion")
        try:
            x = self.value(arg, env, None)
        except Untyped:
            x = self.value(arg, env, kind)
        return cast(x, kind)

    # --- names, applications, definitions -----------------------------------------------

    def _name(
        self,
        t: S.Var | S.Ident | S.Const,
        args: tuple[Any, ...],
        env: dict[str, Any],
        kind: str | None,
    ) -> Q | _Finset:
        if not isinstance(t, S.Const) and t.name in env:
            if args:
                raise Declined(f"{t.name} applied to arguments")
            return env[t.name]
        head, _, rest = t.name.partition(".")
        if isinstance(t, S.Ident) and rest and head in env:
            return self._field(S.Var(head), rest, args, env, kind)
        if isinstance(t, S.Var):
            raise Declined(f"the variable {t.name} has no value here")
        return self._constant(t.name, args, env, kind)

    def _app(self, t: S.App, env: dict[str, Any], kind: str | None) -> Q | _Finset:
        fn: S.Term = t.fn
        args: tuple[Any, ...] = tuple(t.args)
        while isinstance(fn, S.App):  # `(f a) b`
            args = tuple(fn.args) + args
            fn = fn.fn
        if any(isinstance(a, S.NamedArg) for a in args):
            raise Declined("a named argument")
        if isinstance(fn, S.Proj):
            return self._field(fn.term, fn.field, args, env, kind)
        if isinstance(fn, S.Var | S.Ident | S.Const):
            return self._name(fn, args, env, kind)
        raise Declined(f"an application of a {type(fn).__name__}")

    def _field(
        self, term: S.Term, field: str, args: tuple[Any, ...], env: dict[str, Any], kind: str | None
    ) -> Q | _Finset:
        """`N.choose j`: `Nat.choose N j`, by the type of N."""
        try:
            head = self.value(term, env, None)
        except Untyped as e:
            raise Declined(f"the field .{field} of a numeral") from e
        space = {"nat": "Nat", "int": "Int", "real": "Real"}[head.kind]
        return self._constant(f"{space}.{field}", (head, *args), env, kind)

    def _constant(
        self, name: str, args: tuple[Any, ...], env: dict[str, Any], kind: str | None
    ) -> Q | _Finset:
        try:
            meaning = self.lib.lookup(name)
        except EvalError as e:
            raise Declined(f"no meaning for {name}") from e
        if isinstance(meaning, EqnFn):
            return self._unfold(meaning, args, env)
        rule = _RULES.get(meaning.name) if isinstance(meaning, Builtin) else None
        if rule is None:
            raise Declined(f"{name} is not exact")
        arity, fn = rule
        if len(args) != arity:
            raise Declined(f"{name} applied to {len(args)} arguments")
        return fn(self, args, env, kind)

    def _unfold(self, fn: EqnFn, args: tuple[Any, ...], env: dict[str, Any]) -> Q:
        """A definition by its equation, its explicit arguments read at their types."""
        if fn.recursive or fn.extra or len(fn.explicit) != len(fn.params):
            raise Declined(f"{fn.name}: a recursive definition, or one with implicit parameters")
        if len(args) != len(fn.explicit):
            raise Declined(f"{fn.name} applied to {len(args)} arguments")
        local: dict[str, Any] = {}
        for p, var, a in zip(fn.explicit, fn.lhs_vars, args, strict=False):
            pk = _kind_of_type(p.type)
            if pk is None:
                raise Declined(f"{fn.name}: a parameter that is not ℕ, ℤ, ℝ or ℚ")
            local[p.name] = local[var] = self.value(a, env, pk)
        rk = _kind_of_type(fn.result)
        if rk is None:
            raise Declined(f"{fn.name}: a value that is not ℕ, ℤ, ℝ or ℚ")
        return self.value(fn.rhs, local, rk)

    # --- big operators --------------------------------------------------------------

    def _bigop(self, t: S.BigOp, env: dict[str, Any], kind: str | None) -> Q:
        names = [n for b in t.binders for n in b.names]
        if t.op not in ("∑", "∏") or t.domain is None or len(names) != 1:
            raise Declined("a big operator other than ∑ x ∈ s or ∏ x ∈ s")
        if any(b.pattern is not None for b in t.binders):
            raise Declined("a big operator over a pattern")
        s = self.eval(t.domain, env, None)
        if not isinstance(s, _Finset):
            raise Declined("a big operator over something other than a finset")
        declared = [_kind_of_type(b.type) for b in t.binders if b.type is not None]
        if any(k != s.kind for k in declared):
            raise Declined("a big operator's variable typed otherwise than its finset")
        terms = [self.value(t.body, {**env, names[0]: Q(s.kind, j)}, kind) for j in s.values]
        if not terms:
            if kind is None:
                raise Untyped("an empty big operator")
            return Q(kind, 0 if t.op == "∑" else 1)
        k = max((x.kind for x in terms), key=RANK.__getitem__)
        terms = [cast(x, k) for x in terms]
        if t.op == "∑":
            return self.arith.total(terms, k)
        return self.arith.product(terms, k)

    def interval(self, args: tuple[Any, ...], env: dict[str, Any], lo: int, hi: int) -> _Finset:
        """`Finset.Icc a b` and the like: {a + lo, …, b - hi} (empty when they cross)."""
        bounds = []
        for a in args:
            try:
                bounds.append(self.value(a, env, None))
            except Untyped:
                bounds.append(self.value(a, env, "nat"))
        k = max((b.kind for b in bounds), key=RANK.__getitem__)
        if k == "real":
            raise Declined("a finset of reals")
        a, b = (cast(x, k).n for x in bounds)
        return self._finset(range(a + lo, b - hi + 1), k)

    def _finset(self, values: range, kind: str) -> _Finset:
        self.elements += len(values)
        if self.elements > MAX_ELEMENTS:
            raise Declined(f"finsets of more than {MAX_ELEMENTS:,} elements")
        return _Finset(values, kind)


def _nat_args(r: _Reader, args: tuple[Any, ...], env: dict[str, Any]) -> list[int]:
    return [r.value(a, env, "nat").n for a in args]


def _range(r: _Reader, args: tuple[Any, ...], env: dict[str, Any], kind: str | None) -> _Finset:
    return r._finset(range(_nat_args(r, args, env)[0]), "nat")


def _interval(lo: int, hi: int) -> Any:
    return lambda r, args, env, kind: r.interval(args, env, lo, hi)


def _counting(name: str) -> Any:
    def fn(r: _Reader, args: tuple[Any, ...], env: dict[str, Any], kind: str | None) -> Q:
        xs = _nat_args(r, args, env)
        if name == "choose":
            return r.arith.choose(*xs)
        if name == "factorial":
            return r.arith.factorial(*xs)
        return r.arith.desc_factorial(*xs)

    return fn


def _cast_rule(r: _Reader, args: tuple[Any, ...], env: dict[str, Any], kind: str | None) -> Q:
    return r._cast(args[0], env, kind)


# the library's builtins (by their names) that are read exactly: (arity, rule)
_RULES: dict[str, tuple[int, Any]] = {
    "Nat.choose": (2, _counting("choose")),
    "Nat.factorial": (1, _counting("factorial")),
    "Nat.descFactorial": (2, _counting("descFactorial")),
    "Nat.succ": (1, lambda r, args, env, kind: Q("nat", r.value(args[0], env, "nat").n + 1)),
    "Nat.cast": (1, _cast_rule),
    "Int.cast": (1, _cast_rule),
    "Rat.cast": (1, _cast_rule),
    "Int.ofNat": (1, lambda r, args, env, kind: cast(r.value(args[0], env, "nat"), "int")),
    "Finset.range": (1, _range),
    "Finset.Icc": (2, _interval(0, 0)),
    "Finset.Ico": (2, _interval(0, 1)),
    "Finset.Ioc": (2, _interval(1, 0)),
    "Finset.Ioo": (2, _interval(1, 1)),
}
