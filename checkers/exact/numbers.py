"""Exact numbers of ℕ, ℤ and ℝ with Lean's total operations, for exact_terms.py.

A `Q` is a kind ('nat', 'int' or 'real') and a fraction n / d with d > 0. Real fractions
are not reduced: reducing costs a gcd of numbers of thousands of digits at every step,
and the terms of a sum often share their denominator anyway (with q = a / b every term
of `∑ j ∈ Finset.Icc k N, (N.choose j : ℝ) * q ^ j * (1 - q) ^ (N - j)` has b ^ N).
Lean's semantics: truncated ℕ subtraction, ℕ division floors, ℤ division and modulus
Euclidean (total.py, `py_nat`, `py_int`), `x / 0 = 0` in ℝ, `0 ^ (-n) = 0⁻¹ = 0`.

Powers and binomial coefficients along a finset come one after another (`q ^ j` for
j = k, k + 1, …), so each is computed from the previous one by one small product or
exact quotient, not from scratch. A number of more than `MAX_BITS` bits, or more than
`WORK_LIMIT` bits computed in all, declines (`Declined`): the float verdict then stands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from checkers.language.total import py_int, py_nat

MAX_BITS = 1 << 21  # about 630,000 decimal digits
WORK_LIMIT = 1 << 32  # bits of all the numbers computed for one statement
RANK = {"nat": 0, "int": 1, "real": 2}


class Declined(Exception):
    """Outside the exact vocabulary, or beyond its limits: the statement is not decided."""


@dataclass(frozen=True, slots=True)
class Q:
    kind: str
    n: int
    d: int = 1  # > 0; 1 for 'nat' and 'int'


def cast(x: Q, kind: str) -> Q:
    """x at `kind`: ℕ → ℤ → ℝ; a cast down declines (Lean has no such coercion)."""
    if x.kind == kind:
        return x
    if RANK[kind] < RANK[x.kind]:
        raise Declined(f"a value of {x.kind} where {kind} is expected")
    return Q(kind, x.n, x.d)


def compare(a: Q, b: Q) -> int:
    """-1, 0 or 1 as a < b, a = b, a > b."""
    x, y = a.n * b.d, b.n * a.d
    return (x > y) - (x < y)


def _bits(n: int) -> int:
    return abs(n).bit_length()


class Arith:
    """The operations on `Q`, metering the bits they compute."""

    def __init__(self, work_limit: int = WORK_LIMIT) -> None:
        self.work = 0
        self.work_limit = work_limit
        self._powers: dict[tuple[int, int], tuple[int, int, int]] = {}  # (n, d) -> (e, n^e, d^e)
        self._choose: tuple[int, int, int] | None = None  # (n, k, C(n, k))

    def made(self, kind: str, n: int, d: int = 1) -> Q:
        bits = max(_bits(n), d.bit_length())
        if bits > MAX_BITS:
            raise Declined(f"a number of more than {MAX_BITS:,} bits")
        self.work += bits
        if self.work > self.work_limit:
            raise Declined(f"more than {self.work_limit:,} bits computed")
        return Q(kind, n, d)

    def _room(self, bits: float) -> None:
        """Decline before computing a number of about `bits` bits."""
        if bits > MAX_BITS:
            raise Declined(f"a number of more than {MAX_BITS:,} bits")

    # --- arithmetic ----------------------------------------------------------------

    def binary(self, op: str, a: Q, b: Q, kind: str) -> Q:
        a, b = cast(a, kind), cast(b, kind)
        if kind in ("nat", "int"):
            return self.made(kind, (py_nat if kind == "nat" else py_int)(op, a.n, b.n))
        if op in ("+", "-"):
            s = 1 if op == "+" else -1
            if a.d == b.d:
                return self.made(kind, a.n + s * b.n, a.d)
            return self.made(kind, a.n * b.d + s * b.n * a.d, a.d * b.d)
        if op == "*":
            return self.made(kind, a.n * b.n, a.d * b.d)
        if op == "/":
            if b.n == 0:
                return Q(kind, 0)
            n, d = a.n * b.d, a.d * b.n
            return self.made(kind, -n if d < 0 else n, abs(d))
        raise Declined(f"the operator {op} on ℝ")

    def negate(self, x: Q) -> Q:
        if x.kind == "nat":
            raise Declined("negation in ℕ")
        return Q(x.kind, -x.n, x.d)

    def absolute(self, x: Q) -> Q:
        if x.kind == "nat":
            raise Declined("|·| in ℕ")
        return Q(x.kind, abs(x.n), x.d)

    def power(self, x: Q, e: int) -> Q:
        """x ^ e: e ≥ 0 (Monoid.npow), or e < 0 in ℝ (zpow: (x ^ -e)⁻¹, 0⁻¹ = 0)."""
        if e < 0:
            if x.kind != "real":
                raise Declined(f"a negative power in {x.kind}")
            if x.n == 0:
                return Q(x.kind, 0)
            inv = Q(x.kind, x.d if x.n > 0 else -x.d, abs(x.n))
            return self.power(inv, -e)
        if e == 0:
            return Q(x.kind, 1)
        if abs(x.n) <= 1 and x.d == 1:
            return Q(x.kind, x.n**e if x.n else 0)
        self._room(e * max(_bits(x.n), x.d.bit_length()))
        key = (x.n, x.d)
        last = self._powers.get(key)
        if x.n != 0 and last is not None and abs(last[0] - e) == 1:
            f, pn, pd = last
            if e > f:
                pn, pd = pn * x.n, pd * x.d
            else:  # exact quotients: x.n ^ f is a multiple of x.n
                pn, pd = pn // x.n, pd // x.d
        else:
            pn, pd = x.n**e, x.d**e
        self._powers[key] = (e, pn, pd)
        return self.made(x.kind, pn, pd)

    def total(self, terms: list[Q], kind: str) -> Q:
        """The sum of terms of one kind, over their least common denominator."""
        if kind != "real":
            return self.made(kind, sum(t.n for t in terms))
        den = 1
        for t in terms:
            if den % t.d:
                den = den // math.gcd(den, t.d) * t.d
        return self.made(kind, sum(t.n * (den // t.d) for t in terms), den)

    def product(self, terms: list[Q], kind: str) -> Q:
        out = Q(kind, 1)
        for t in terms:
            out = self.binary("*", out, t, kind)
        return out

    # --- counting ------------------------------------------------------------------

    def choose(self, n: int, k: int) -> Q:
        """`Nat.choose n k`, from the previous one where k moved by one (finsets)."""
        if k > n:
            return Q("nat", 0)
        self._room(_log2_choose(n, k))
        last = self._choose
        if last is not None and last[0] == n and last[1] + 1 == k:
            c = last[2] * (n - last[1]) // k
        elif last is not None and last[0] == n and last[1] - 1 == k:
            c = last[2] * last[1] // (n - k)
        else:
            c = math.comb(n, k)
        self._choose = (n, k, c)
        return self.made("nat", c)

    def factorial(self, n: int) -> Q:
        self._room(math.lgamma(n + 1) / math.log(2))
        return self.made("nat", math.factorial(n))

    def desc_factorial(self, n: int, k: int) -> Q:
        """`Nat.descFactorial n k = n (n - 1) ⋯ (n - k + 1)`, 0 once a factor is 0."""
        if k > n:
            return Q("nat", 0)
        self._room((math.lgamma(n + 1) - math.lgamma(n - k + 1)) / math.log(2))
        return self.made("nat", math.perm(n, k))


def _log2_choose(n: int, k: int) -> float:
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(2)


# --- showing them ----------------------------------------------------------------------

_SHOWN_BITS = 256  # a fraction this small is shown exactly, a larger one to 12 digits


def text(x: Q) -> str:
    """`= 1/1000`, or `≈ -3.14159265358e+2553` (12 digits, truncated) for a large fraction."""
    if max(_bits(x.n), x.d.bit_length()) <= _SHOWN_BITS:
        return f"= {Fraction(x.n, x.d)}"
    if x.n == 0:
        return "= 0"
    a, d = abs(x.n), x.d
    digits = 12
    e = int((a.bit_length() - d.bit_length()) * math.log10(2)) - digits
    m = a * 10**-e // d if e < 0 else a // (d * 10**e)
    s = str(m)
    mantissa = s[0] + "." + s[1:digits]
    return f"≈ {'-' if x.n < 0 else ''}{mantissa}e{e + len(s) - 1:+d}"


@dataclass(frozen=True)
class Decision:
    """A closed statement's relation decided in exact arithmetic (exact_terms.py).

    It stands where the exact evaluation of a failing float64 trial would
    (checkers.confirm.Exact: `status`, `confirmed`, `summary`, `describe`, `side_texts`),
    and, being `closed`, it decides every trial: the statement has no inputs."""

    relation: str
    lhs: Q
    rhs: Q
    holds: bool
    closed: bool = True

    @property
    def status(self) -> str:
        return "holds" if self.holds else "confirmed"

    @property
    def confirmed(self) -> bool:
        return not self.holds

    def summary(self) -> str:
        return f"decided in exact arithmetic: lhs {text(self.lhs)}, rhs {text(self.rhs)}"

    def describe(self) -> str:
        verdict = "holds" if self.holds else "fails"
        return f"{self.relation} {verdict}, decided in exact arithmetic (the statement is closed)"

    def side_texts(self) -> tuple[list[str], list[str]]:
        """Each side as one text: `1/1000`, or `≈ 3.14e+2553` where it is shown rounded."""
        return [text(self.lhs).removeprefix("= ")], [text(self.rhs).removeprefix("= ")]
