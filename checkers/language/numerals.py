"""Numerals whose type Lean has not fixed yet.

Lean elaborates a numeral (`2`, `0.5`) at the type its context asks for, and
a tree of numerals (`7 / 2 * 2`) at one type for the whole tree, every
operation with that type's own semantics: `(7 / 2 * 2 : ℕ)` is 6,
`(7 / 2 * 2 : ℝ)` is 7, `(7 / 2 * 2 : Fin 5)` is 2. Where nothing fixes the
type, a numeral is a ℕ (Lean's default instance) and a decimal literal a
`Float` (not evaluated here).

So a value built only from numerals is kept as a `Numeral` tree until its
type is known, and then evaluated at that type, node by node (`at_type`):
never as a rational that is floored or rounded afterwards. In ℝ (a field) the
tree is evaluated exactly, as a rational (`exact`), so `0.1 + 0.2 - 0.3` is 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from checkers.language.errors import EvalError, NotSupported
from checkers.language.total import py_fin, py_int, py_nat

BINARY = ("+", "-", "*", "/", "%")
_NAMES = {"nat": "ℕ", "int": "ℤ", "fin": "Fin"}


@dataclass(frozen=True)
class Numeral:
    """`op` is 'lit', a binary operator (+ - * / %), 'neg', 'abs', 'max', 'min',
    '^' (exponent `value`), 'sum' or 'prod' (of `value` equal terms)."""

    op: str
    args: tuple[Numeral, ...] = ()
    value: Fraction = Fraction(0)
    decimal: bool = False  # a decimal literal occurs in it

    @staticmethod
    def literal(value: Fraction | int, decimal: bool = False) -> Numeral:
        return Numeral("lit", (), Fraction(value), decimal)

    @staticmethod
    def node(op: str, *args: Numeral, value: int = 0) -> Numeral:
        return Numeral(op, tuple(args), Fraction(value), any(a.decimal for a in args))

    def ops(self) -> frozenset[str]:
        """Every operation in the tree."""
        return frozenset({self.op}).union(*(a.ops() for a in self.args))

    def __repr__(self) -> str:
        return f"Numeral({self})"

    def __str__(self) -> str:
        if self.op == "lit":
            v = self.value
            if self.decimal:
                return str(Decimal(v.numerator) / Decimal(v.denominator))
            return str(v.numerator) if v.denominator == 1 else f"({v.numerator} / {v.denominator})"
        a = [str(x) for x in self.args]
        if self.op in BINARY:
            return f"({a[0]} {self.op} {a[1]})"
        if self.op == "neg":
            return f"-{a[0]}"
        if self.op == "abs":
            return f"|{a[0]}|"
        if self.op == "^":
            return f"{a[0]} ^ {self.value}"
        if self.op in ("sum", "prod"):
            return f"{'∑' if self.op == 'sum' else '∏'} (×{self.value}) {a[0]}"
        return f"{self.op} {' '.join(a)}"

    # --- ℝ --------------------------------------------------------------------

    def exact(self) -> Fraction:
        """The value in ℝ, exactly (`x / 0 = 0`)."""
        if self.op == "lit":
            return self.value
        xs = [a.exact() for a in self.args]
        k = int(self.value)
        if self.op == "+":
            return xs[0] + xs[1]
        if self.op == "-":
            return xs[0] - xs[1]
        if self.op == "*":
            return xs[0] * xs[1]
        if self.op == "/":
            return Fraction(0) if xs[1] == 0 else xs[0] / xs[1]
        if self.op == "%":
            raise NotSupported(f"`%` on ℝ in {self} (Lean has no such operation)")
        if self.op == "neg":
            return -xs[0]
        if self.op == "abs":
            return abs(xs[0])
        if self.op == "max":
            return max(xs)
        if self.op == "min":
            return min(xs)
        if self.op == "^":
            return xs[0] ** k
        if self.op == "sum":
            return xs[0] * k
        if self.op == "prod":
            return xs[0] ** k
        raise EvalError(f"internal: numeral node {self.op}")

    # --- ℕ, ℤ, Fin n ------------------------------------------------------------

    def at_type(self, kind: str, n: int | None = None) -> int:
        """The value at ℕ ('nat'), ℤ ('int') or `Fin n` ('fin'), each node with that
        type's semantics (truncated ℕ subtraction, floor and Euclidean division,
        `x / 0 = 0`, `x % 0 = x`, `Fin` wrapping mod n)."""
        if kind == "fin":
            if n is None:
                kind = "nat"  # a Fin whose bound is unknown: its value
            elif n == 0:
                raise EvalError(f"the numeral {self} in Fin 0, which has no elements")
        if kind not in _NAMES:
            raise EvalError(f"internal: a numeral at kind {kind}")
        if self.op == "lit":
            v = self.value
            if self.decimal or v.denominator != 1:
                raise EvalError(f"the decimal literal {float(v)} is not a {_NAMES[kind]}")
            k = int(v)
            if kind == "fin":
                assert n is not None
                return k % n
            return k
        xs = [a.at_type(kind, n) for a in self.args]
        count = int(self.value)
        if self.op in BINARY:
            return _binary(self.op, xs[0], xs[1], kind, n)
        if self.op == "neg":
            if kind == "nat":
                raise EvalError(f"negation of the natural number {self.args[0]} (ℕ has no `-x`)")
            return -xs[0] if kind == "int" else (-xs[0]) % _pos(n)
        if self.op == "abs":
            if kind == "fin":
                raise NotSupported(f"|·| on Fin in {self}")
            return abs(xs[0])
        if self.op == "max":
            return max(xs)
        if self.op == "min":
            return min(xs)
        if self.op in ("^", "prod"):
            return xs[0] ** count if kind != "fin" else pow(xs[0], count, _pos(n))
        if self.op == "sum":
            return xs[0] * count if kind != "fin" else (xs[0] * count) % _pos(n)
        raise EvalError(f"internal: numeral node {self.op}")


def _pos(n: int | None) -> int:
    assert n is not None and n > 0
    return n


def _binary(op: str, a: int, b: int, kind: str, n: int | None) -> int:
    if kind == "nat":
        return py_nat(op, a, b)
    if kind == "int":
        return py_int(op, a, b)
    return py_fin(op, a, b, _pos(n))
