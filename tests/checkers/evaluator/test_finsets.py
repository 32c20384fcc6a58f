"""Finite sets (finsets.py) and Mathlib's counting functions (counting.py), with Lean's
semantics: each case against a loop over the set's definition, and wrong statements
(a range bound off by one, an interval missing its end, a tail bound too tight) fail
through the harness while the true ones pass."""

from __future__ import annotations

import decimal
import math
from fractions import Fraction

import numpy as np
import pytest
from derived_support import definition, environment, evaluate, nat, real, term, theorem, value

from checkers import check
from checkers.exact.terms import decide
from checkers.language.errors import EvalError
from checkers.library.semantics import Semantics


@pytest.mark.parametrize(
    ("text", "elements"),
    [
        ("Finset.range n", range(0, 5)),
        ("Finset.Icc a n", range(2, 6)),
        ("Finset.Ico a n", range(2, 5)),
        ("Finset.Ioc a n", range(3, 6)),
        ("Finset.Ioo a n", range(3, 5)),
        ("Finset.Icc n a", range(0)),  # empty when the bounds cross
        ("Finset.Ico a a", range(0)),
    ],
)
def test_sum_over_interval_matches_its_elements(text: str, elements: range) -> None:
    env = {"a": nat(2), "n": nat(5)}
    assert value(f"∑ i ∈ {text}, i * i", env) == sum(i * i for i in elements)
    assert value(f"({text}).card", env) == len(elements)
    assert value(f"∏ i ∈ {text}, (i + 1)", env) == math.prod(i + 1 for i in elements)


def test_sum_in_notation_is_the_same_sum() -> None:
    env = {"n": nat(6)}
    assert value("∑ i in Finset.range n, (i : ℝ)", env) == value(
        "∑ i ∈ Finset.range n, (i : ℝ)", env
    )
    assert value("∑ i in Finset.range n, (i : ℝ)", env) == 15.0


def test_filter_keeps_elements_where_predicate_holds() -> None:
    assert value("∑ i ∈ (Finset.range 10).filter (fun i => i % 3 = 0), i") == 0 + 3 + 6 + 9
    assert value("(Finset.filter (fun i => i % 3 = 0) (Finset.range 10)).card") == 4
    assert value("∑ i ∈ {i ∈ Finset.Icc 1 10 | i % 2 = 1}, i") == 1 + 3 + 5 + 7 + 9
    # a filter of a filter, and a predicate that never holds (the empty sum is 0)
    even = "(Finset.range 20).filter (fun i => i % 2 = 0)"
    assert value(f"(({even}).filter (fun i => i % 3 = 0)).card") == 4
    assert value("∑ i ∈ (Finset.range 5).filter (fun i => 9 < i), (i : ℝ)") == 0.0


def test_filter_of_univ_takes_size_from_the_function_summed() -> None:
    x = np.array([1.0, 2.0, 4.0, 8.0])
    got = value("∑ k ∈ Finset.univ.filter (fun k => k.val < 2), x k", {"x": real(x)})
    assert got == 3.0
    assert value("(Finset.univ.filter (fun (k : Fin 5) => k.val < 2)).card") == 2


def test_membership_in_finsets() -> None:
    env = {"n": nat(3)}
    assert bool(value("2 ∈ Finset.range n", env)) and not bool(value("3 ∈ Finset.range n", env))
    assert bool(value("3 ∈ Finset.Icc 1 n", env)) and not bool(value("0 ∈ Finset.Icc 1 n", env))
    assert bool(value("4 ∉ Finset.Icc 1 n", env))
    assert bool(value("6 ∈ (Finset.range 10).filter (fun i => i % 3 = 0)"))
    assert not bool(value("5 ∈ (Finset.range 10).filter (fun i => i % 3 = 0)"))


def test_counting_functions_are_exact() -> None:
    assert value("Nat.choose 5 2") == 10 and value("Nat.choose 2 5") == 0
    assert value("Nat.factorial 0") == 1 and value("Nat.factorial 20") == math.factorial(20)
    assert value("Nat.descFactorial 5 2") == 20 and value("Nat.descFactorial 2 5") == 0
    n = {"N": nat(9)}
    assert list(value("fun (j : Fin 10) => N.choose j", n)) == [math.comb(9, j) for j in range(10)]


def test_choose_beyond_int64_is_its_real_value() -> None:
    """Held as the logarithm of the exact integer: the relative error is that of
    exponentiating it, |log x| units of roundoff."""
    got = value("(Nat.choose 100 50 : ℝ)")
    exact = math.comb(100, 50)
    assert abs(got - exact) <= math.log(exact) * 2.3e-16 * exact


def test_refuse_nat_arithmetic_beyond_int64() -> None:
    with pytest.raises(EvalError, match="beyond int64"):
        evaluate("Nat.choose 100 50 + 1")


def _tail(n: int, k: int, q: Fraction) -> float:
    """The binomial tail in 60-digit decimal arithmetic from the exact rational q."""
    with decimal.localcontext(decimal.Context(prec=60)):
        p = decimal.Decimal(q.numerator) / q.denominator
        c = math.comb(n, k)
        total = decimal.Decimal(0)
        for j in range(k, n + 1):
            total += decimal.Decimal(c) * p**j * (1 - p) ** (n - j)
            c = c * (n - j) // (j + 1)
        return float(total)


BINOM_TAIL = definition(
    "Proofs.binomTail",
    "(N k : ℕ) (q : ℝ)",
    "ℝ",
    "Proofs.binomTail N k q = ∑ j ∈ Finset.Icc k N, (N.choose j : ℝ) * q ^ j * (1 - q) ^ (N - j)",
)


def test_binomial_tail_of_ten_thousand_trials_in_log_space() -> None:
    """`Nat.choose 10112 j` has thousands of digits and 0.723 ^ 10112 underflows: the
    terms are computed from the exact integers in log space, to float64's precision."""
    got = value(
        "∑ j ∈ Finset.Icc k N, (N.choose j : ℝ) * ((7230:ℝ)/10000) ^ j"
        " * (1 - ((7230:ℝ)/10000)) ^ (N - j)",
        {"N": nat(10112), "k": nat(7450)},
    )
    exact = _tail(10112, 7450, Fraction(7230, 10000))
    assert abs(got - exact) <= 1e-11 * exact


@pytest.mark.parametrize(
    ("statement", "status"),
    [
        ("binomTail 10112 7450 ((7230:ℝ)/10000) ≤ 1/(1000:ℝ)", "pass"),
        # the tail is 0.000991989…: a bound below it is false
        ("binomTail 10112 7450 ((7230:ℝ)/10000) ≤ 99/(100000:ℝ)", "fail"),
        ("binomTail 100 99 (9/10) ≤ 1/1000", "pass"),
        ("binomTail 100 98 (9/10) ≤ 1/1000", "fail"),
    ],
)
def test_closed_binomial_tail_bounds(statement: str, status: str) -> None:
    env = environment(BINOM_TAIL, theorem("Proofs.t", "", statement))
    assert check("Proofs.t", env, trials=4).status == status


def _tail_at_most(n: int, k: int, a: int, b: int, bound: Fraction) -> bool:
    """Whether the binomial tail at q = a / b is at most `bound`, in integers: the tail
    is T / b^n with T = ∑ C(n, j) a^j (b - a)^(n - j), the sign of 1 - q kept."""
    c, total = math.comb(n, k), 0
    for j in range(k, n + 1):
        total += c * a**j * (b - a) ** (n - j)
        c = c * (n - j) // (j + 1)
    return total * bound.denominator <= bound.numerator * b**n


@pytest.mark.parametrize(
    ("n", "k", "a", "b", "before"),
    [
        (100, 98, 10, 9, "fail"),  # q > 1: 1 - q < 0, a tail of 1.5e6
        (100, 81, 10, 9, "pass"),  # the alternating terms end negative
        # at the corpus's size the ℕ coefficients are logarithms, of a negative 1 - q
        (10112, 9900, 10000, 9952, "error"),  # NaN: the tail is ≈ 1.0
        (10112, 9943, 10000, 9952, "error"),  # NaN: the tail is ≈ -0.498
        # every float64 trial fails, and no interval evaluation decides it
        (10112, 10095, 10000, 7768, "unsupported"),
        # float64 passed it, false: its alternating terms cancel; a closed statement that
        # passes is decided exactly too where that is cheap (confirming.py)
        (300, 150, 10, 9, "false pass"),
    ],
)
def test_closed_binomial_tail_above_one_is_decided_exactly(
    n: int, k: int, a: int, b: int, before: str
) -> None:
    """`q / 10000` swapped into `10000 / q` (the corpus's mutants): every quantity is
    rational, so where float64 cannot decide the closed statement the relation is
    decided in exact arithmetic: `pass`, or a `fail` confirmed exactly, never `error`."""
    statement = f"binomTail {n} {k} ({a} / ({b} : ℝ)) ≤ 1 / (1000 : ℝ)"
    env = environment(BINOM_TAIL, theorem("Proofs.t", "", statement))
    result = check("Proofs.t", env, trials=4)
    expected = "pass" if _tail_at_most(n, k, a, b, Fraction(1, 1000)) else "fail"
    assert result.status == expected, result.reason
    if before not in ("pass", "fail"):  # float64 could not decide it
        assert "decided in exact arithmetic" in result.reason


def test_statement_outside_the_exact_vocabulary_keeps_its_float_verdict() -> None:
    """`Real.exp` is not exact: the NaN stays an error naming the subterm."""
    statement = "binomTail 10112 9900 (10000 / (9952 : ℝ)) ≤ Real.exp 1"
    env = environment(BINOM_TAIL, theorem("Proofs.t", "", statement))
    result = check("Proofs.t", env, trials=4)
    assert result.status == "error" and "non-finite" in result.reason, result.reason


@pytest.mark.parametrize(
    ("statement", "holds"),
    [
        ("(7 - 9 : ℕ) = 0", True),  # truncated subtraction
        ("((7 : ℕ) - 9 : ℤ) = -2", True),  # the leaves at the expected type
        ("(((7 : ℕ) - 9 : ℕ) : ℤ) = 0", True),  # … and the cast of a ℕ difference
        ("(7 / 2 : ℕ) = 3", True),
        ("(-7) / 2 = (-4 : ℤ)", True),  # Euclidean division
        ("(-7) % 2 = (1 : ℤ)", True),
        ("(1 : ℝ) / 0 = 0", True),
        ("(2 : ℝ) ^ (-2 : ℤ) = 1 / 4", True),
        ("((2 : ℕ) - 3) ^ 2 = (1 : ℝ)", True),  # the base of `^` is a leaf of the tree
        ("Nat.choose 100 50 = 100891344545564193334812497256", True),
        ("Nat.choose 100 50 < 100891344545564193334812497256", False),
        ("Nat.factorial 25 = 15511210043330985984000000", True),
        ("Nat.descFactorial 10 3 ≠ 720", False),
        ("∏ i ∈ Finset.Ico 1 6, i = 120", True),
        ("∑ i ∈ Finset.Ioo 0 4, (i : ℝ) / 2 = 3", True),
        ("(0.5 : ℝ) + 1 / 3 > 5 / 6", False),
        ("Real.exp 1 ≤ 3", None),  # not exact: declined
        ("Real.sqrt 4 = 2", None),
    ],
)
def test_exact_route_follows_lean_semantics(statement: str, holds: bool | None) -> None:
    decision = decide(term(statement), Semantics())
    assert (None if decision is None else decision.holds) is holds


@pytest.mark.parametrize(
    ("statement", "status"),
    [
        ("binomTail N 0 q = 1", "pass"),  # the binomial theorem, for every real q
        ("binomTail N k 1 = 1", "pass"),
        ("binomTail N 1 q = 1", "fail"),  # the tail from 1 leaves out (1 - q) ^ N
    ],
)
def test_binomial_tail_identities(statement: str, status: str) -> None:
    binders = "{N k : ℕ} (hk : k ≤ N) (q : ℝ)"
    env = environment(BINOM_TAIL, theorem("Proofs.t", binders, statement))
    assert check("Proofs.t", env, trials=32).status == status


@pytest.mark.parametrize(
    ("domain", "status"),
    [
        ("Finset.range (n + 1)", "pass"),
        ("Finset.range n", "fail"),  # the wrong bound drops the last term
        ("Finset.Icc 0 n", "pass"),
        ("Finset.Icc 1 n", "pass"),  # the term i = 0 is 0
        ("Finset.Ico 1 n", "fail"),  # off by one: Ico leaves n out
        ("Finset.Icc 1 (n - 1)", "fail"),
    ],
)
def test_gauss_sum_over_each_domain(domain: str, status: str) -> None:
    env = environment(theorem("Proofs.t", "(n : ℕ)", f"2 * ∑ i ∈ {domain}, i = n * (n + 1)"))
    result = check("Proofs.t", env, trials=32)
    assert result.status == status, result.reason


def test_filter_card_mutant_fails() -> None:
    true = "((Finset.range (2 * n)).filter (fun i => i % 2 = 0)).card = n"
    false = "((Finset.range (2 * n + 1)).filter (fun i => i % 2 = 0)).card = n"
    for text, status in ((true, "pass"), (false, "fail")):
        env = environment(theorem("Proofs.t", "(n : ℕ)", text))
        assert check("Proofs.t", env, trials=32).status == status


@pytest.mark.parametrize(
    ("statement", "status"),
    [
        ("(Finset.univ.filter (fun k => k = i)).card = 1", "pass"),
        ("(Finset.univ.filter (fun k => k = i)).card = 2", "fail"),
        ("∑ k ∈ Finset.univ.filter (fun k => k = i), x k = x i", "pass"),
        ("∑ k ∈ Finset.univ.filter (fun k => k ≠ i), x k = x i", "fail"),
    ],
)
def test_filter_of_univ_typed_by_predicate(statement: str, status: str) -> None:
    """The filter's untyped argument takes its `Fin n` from its uses (inference.py)."""
    env = environment(theorem("Proofs.t", "{n : ℕ} (i : Fin n) (x : Vec n)", statement))
    result = check("Proofs.t", env, trials=32)
    assert result.status == status, result.reason


# --- a binder `s : Finset ι`: a random subset of ι := Fin k ---------------------------

DRAWN = {
    "sum_add": (
        "{ι : Type*} (s : Finset ι) (f g : ι → ℝ)",
        "∑ i ∈ s, (f i + g i) = ∑ i ∈ s, f i + ∑ i ∈ s, g i",
    ),
    "sum_nonneg": (
        "{ι : Type*} (s : Finset ι) (f : ι → ℝ) (h : ∀ i ∈ s, 0 ≤ f i)",
        "0 ≤ ∑ i ∈ s, f i",
    ),
    "sum_le_univ": (
        "{ι : Type*} [Fintype ι] (s : Finset ι) (f : ι → ℝ) (h : ∀ i, 0 ≤ f i)",
        "∑ i ∈ s, f i ≤ ∑ i, f i",
    ),
    "card_le_univ": ("{ι : Type*} [Fintype ι] (s : Finset ι)", "s.card ≤ Fintype.card ι"),
    "card_notation": ("{ι : Type*} [Fintype ι] (s : Finset ι)", "#s ≤ Fintype.card ι"),
    "sum_with_filter": (
        "{ι : Type*} (s : Finset ι) (f : ι → ℝ)",
        "∑ x ∈ s with 0 < f x, f x ≥ 0",
    ),
    "sum_with_filter_wrong": (
        "{ι : Type*} (s : Finset ι) (f : ι → ℝ)",
        "∑ x ∈ s with 0 < f x, f x ≤ 0",
    ),
    # mutants: a subset's sum above the whole without the sign hypothesis; a card off by one
    "sum_le_univ_wrong": (
        "{ι : Type*} [Fintype ι] (s : Finset ι) (f : ι → ℝ)",
        "∑ i ∈ s, f i ≤ ∑ i, f i",
    ),
    "card_wrong": ("{ι : Type*} (s : Finset ι)", "s.card + 1 ≤ 2 * s.card"),
}


@pytest.mark.parametrize("name", sorted(DRAWN))
def test_a_finset_binder_is_a_drawn_subset(name: str) -> None:
    env = environment(theorem(f"Proofs.{name}", *DRAWN[name]))
    result = check(f"Proofs.{name}", env, trials=16)
    want = "fail" if name.endswith("_wrong") else "pass"
    assert result.status == want, result.reason


def test_fintype_card_of_a_finite_index_type_is_its_size() -> None:
    env = environment(
        theorem(
            "Proofs.card",
            "{ι : Type*} [Fintype ι] (f : ι → ℝ)",
            "∑ i, (f i + 1) = ∑ i, f i + Fintype.card ι",
        ),
        theorem("Proofs.card_wrong", "(n : ℕ)", "Fintype.card (Fin n) = n + 1"),
    )
    assert check("Proofs.card", env, trials=16).status == "pass"
    assert check("Proofs.card_wrong", env, trials=16).status == "fail"


def test_an_infinite_sum_is_unsupported_saying_why() -> None:
    env = environment(theorem("Proofs.t", "(f : ℕ → ℝ)", "∑' i, f i = ∑' i, f i"))
    result = check("Proofs.t", env, trials=4)
    assert result.status == "unsupported"
    assert result.reason.startswith("∑' (tsum) is a sum or product over a possibly infinite set")
