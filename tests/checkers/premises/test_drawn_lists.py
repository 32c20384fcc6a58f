"""ℤ binders and `List α` binders, drawn: integers in a signed range, lists of a drawn
length (0 included) whose hypotheses on lengths are met, and wrong statements of each
form fail."""

from __future__ import annotations

import pytest
from derived_support import definition, environment, theorem

from checkers import check
from checkers.analysis.coverage import Blocker, blocker
from checkers.core import InputSpec, Unsupported
from checkers.harness.check import CheckResult
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive
from theorem_index.model import Declaration

DOTZ = definition(
    "Proofs.dotZ",
    "(xs ys : List ℤ)",
    "ℤ",
    "Proofs.dotZ xs ys = (List.zipWith (· * ·) xs ys).sum",
)
ABSSUM = definition(
    "Proofs.absSumZ", "(xs : List ℤ)", "ℤ", "Proofs.absSumZ xs = (xs.map (fun x => |x|)).sum"
)
DECLS = (DOTZ, ABSSUM)


def _derived(binders: str, statement: str, *decls: Declaration) -> DerivedChecker:
    env = environment(*decls, theorem("Proofs.t", binders, statement))
    derived = derive("Proofs.t", env)
    assert isinstance(derived, DerivedChecker), derived
    return derived


def _check(binders: str, statement: str, *decls: Declaration) -> CheckResult:
    env = environment(*DECLS, *decls, theorem("Proofs.t", binders, statement))
    assert blocker("Proofs.t", env) is None  # the static decision agrees
    return check("Proofs.t", env, trials=16, seed=0)


def _status(binders: str, statement: str, *decls: Declaration) -> str:
    return _check(binders, statement, *decls).status


# --- integers ---------------------------------------------------------------------------


def test_draw_an_integer_binder_in_a_signed_range() -> None:
    checker = _derived("(c : ℤ)", "c * c = c ^ 2")
    assert checker.input_specs({}) == {"c": InputSpec.integers(-10, 10)}
    assert checker.assumptions == ("c : ℤ drawn in -10..10",)


@pytest.mark.parametrize(
    "binders, statement, status",
    [
        ("(c : ℤ)", "(c - 1) + 1 = c", "pass"),  # ℤ subtraction does not truncate
        ("(c : ℕ)", "(c - 1) + 1 = c", "fail"),  # ℕ's does, at 0
        ("(c : ℤ)", "((Int.natAbs c : ℕ) : ℤ) = |c|", "pass"),
        ("(c : ℤ)", "((Int.natAbs c : ℕ) : ℤ) = c", "fail"),  # only at negatives
        ("(c : ℤ)", "((Int.toNat c : ℕ) : ℤ) = max c 0", "pass"),
        ("(c : ℤ)", "Int.toNat c = Int.natAbs c", "fail"),  # only at negatives
        ("(a b : ℤ)", "(a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2", "pass"),
        ("(a b : ℤ)", "(a - b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2", "fail"),  # a wrong sign
    ],
)
def test_check_integer_identities_at_negatives(binders: str, statement: str, status: str) -> None:
    assert _status(binders, statement) == status


def test_shrink_an_integer_counterexample_toward_zero() -> None:
    result = _check("(c : ℤ)", "((Int.natAbs c : ℕ) : ℤ) = c")
    assert result.counterexample is not None
    assert result.counterexample.note == "shrunk c → -1"


# --- lists of numbers ---------------------------------------------------------------------


def test_draw_a_list_at_a_length_that_is_a_dimension_from_zero() -> None:
    checker = _derived("(xs : List ℤ)", "xs.sum = xs.reverse.sum")
    assert checker.dim_names == ("«xs.length»",)
    assert checker.dim_lows == {"«xs.length»": 0}
    assert checker.input_specs({"«xs.length»": 3}) == {"xs": InputSpec.integers(-10, 10, (3,))}
    assert checker.input_specs({"«xs.length»": 0}) == {}  # the empty list has no elements
    assert checker.assumptions == (
        "xs : List ℤ drawn as lists of length «xs.length» (a dimension drawn from 0) with "
        "elements in -10..10",
    )


def test_draw_the_empty_list() -> None:
    result = _check("(xs : List ℤ)", "xs.sum = xs.reverse.sum")
    assert result.status == "pass"
    assert {"«xs.length»": 0} in result.draws


@pytest.mark.parametrize(
    "binders, statement, status",
    [
        ("(xs ys : List ℤ)", "dotZ xs ys = dotZ ys xs", "pass"),
        ("(xs ys : List ℤ)", "dotZ xs ys = dotZ xs xs", "fail"),
        ("(xs : List ℤ)", "(xs.map (fun x => -x)).sum = -xs.sum", "pass"),
        ("(xs : List ℤ)", "(xs.map (fun x => -x)).sum = xs.sum", "fail"),  # a wrong sign
        ("(xs : List ℕ)", "(xs.map (fun x => x + 1)).length = xs.length", "pass"),
        ("(xs : List ℕ)", "(xs.map (fun x => x + 1)).length = xs.length + 1", "fail"),
        ("(xs : List ℕ)", "(xs.map (fun x => x + 1)).sum = xs.sum + xs.length", "pass"),
        ("(xs : List ℕ)", "(xs.map (fun x => x - 1)).sum = xs.sum - xs.length", "fail"),  # at 0
        ("(xs : List ℤ)", "(xs.take 1).length = 1", "fail"),  # only the empty list
        ("(xs ys : List ℤ)", "(xs ++ ys).sum = xs.sum + ys.sum", "pass"),
        ("(xs ys : List ℤ)", "(xs ++ ys).length = xs.length + ys.length + 1", "fail"),
        ("(xs : List ℝ)", "(xs.map (fun x => 2 * x)).sum = 2 * xs.sum", "pass"),
        ("(xs : List ℝ)", "(xs.map (fun x => 2 * x)).sum = xs.sum + 2", "fail"),
    ],
)
def test_check_identities_over_drawn_lists(binders: str, statement: str, status: str) -> None:
    assert _status(binders, statement) == status


def test_shrink_a_failing_list_to_its_shortest_length() -> None:
    result = _check("(xs : List ℕ)", "(xs.map (fun x => x + 1)).length = xs.length + 1")
    assert result.status == "fail"
    assert result.dims == {"«xs.length»": 0}


# --- hypotheses on lists -----------------------------------------------------------------

SUM_GETD = "(∑ j : Fin n, (xs.getD j 0 : ℝ) * (ys.getD j 0 : ℝ)) = ((dotZ xs ys : ℤ) : ℝ)"


def test_meet_a_hypothesis_that_fixes_a_length() -> None:
    binders = "(n : ℕ) (xs ys : List ℤ) (hx : xs.length = n) (hy : ys.length = n)"
    checker = _derived(binders, SUM_GETD, DOTZ)
    assert checker.dim_names == ("n",)  # no length of its own: the hypothesis fixes it
    assert checker.input_specs({"n": 3})["xs"] == InputSpec.integers(-10, 10, (3,))
    assert checker.assumptions[0] == (
        "xs : List ℤ drawn as lists of length n (hypothesis hx) with elements in -10..10"
    )
    assert _status(binders, SUM_GETD) == "pass"
    off = SUM_GETD.replace("(ys.getD j 0 : ℝ)", "(ys.getD (j + 1) 0 : ℝ)")
    assert _status(binders, off) == "fail"


def test_meet_a_hypothesis_between_two_lengths() -> None:
    binders = "(xs ys : List ℤ) (h : xs.length = ys.length)"
    checker = _derived(binders, "dotZ xs ys = dotZ ys xs", DOTZ)
    assert checker.dim_names == ("«ys.length»",)
    assert _status(binders, "(List.zipWith (· + ·) xs ys).length = xs.length") == "pass"
    assert _status(binders, "(List.zipWith (· + ·) xs ys).length = xs.length + 1") == "fail"


def test_make_other_relations_of_lengths_dimension_constraints() -> None:
    checker = _derived("(xs : List ℤ) (h : 0 < xs.length)", "(xs.take 1).length = 1")
    assert [str(c) for c in checker.dim_constraints()] == ["0 < «xs.length»"]
    assert _status("(xs : List ℤ) (h : 0 < xs.length)", "(xs.take 1).length = 1") == "pass"


def test_count_trials_where_a_hypothesis_on_the_elements_fails_as_vacuous() -> None:
    binders = "(xs : List ℤ) (h : ∀ c ∈ xs, 0 ≤ c)"
    result = _check(binders, "absSumZ xs = xs.sum")
    assert result.status == "pass"
    assert result.vacuous_trials > 0
    assert any(a.startswith("∀ c ∈ xs, 0 ≤ c (hypothesis h) held in") for a in result.assumptions)
    assert _status("(xs : List ℤ)", "absSumZ xs = xs.sum") == "fail"
    assert _status(binders, "absSumZ xs = xs.sum + 1") == "fail"


# --- lists of lists -----------------------------------------------------------------------

GETD_MAP = "(rows.map (fun r => r.getD i 0)).getD t 0 = (rows.getD t []).getD i 0"


def test_draw_a_list_of_lists_ragged() -> None:
    checker = _derived("(rows : List (List ℤ)) (i t : ℕ)", GETD_MAP)
    lengths = ("«rows.length»", "«rows[0].length»", "«rows[1].length»", "«rows[2].length»")
    assert checker.dim_names == lengths
    assert [str(c) for c in checker.dim_constraints()] == ["«rows.length» ≤ 3"]
    dims = dict(zip(lengths, (2, 3, 0, 4), strict=True))
    assert checker.input_specs(dims) == {"rows[0]": InputSpec.integers(-10, 10, (3,))} | {
        "i": InputSpec.nat(0, 10),
        "t": InputSpec.nat(0, 10),
    }
    assert _status("(rows : List (List ℤ)) (i t : ℕ)", GETD_MAP) == "pass"
    wrong = GETD_MAP.replace("r.getD i 0", "r.getD i 1")  # a wrong default
    assert _status("(rows : List (List ℤ)) (i t : ℕ)", wrong) == "fail"


def test_meet_a_hypothesis_on_every_element_length() -> None:
    binders = "(n : ℕ) (rows : List (List ℤ)) (h : ∀ r ∈ rows, r.length = n)"
    statement = "((rows.map (fun r => r.length)).sum : ℕ) = rows.length * n"
    checker = _derived(binders, statement)
    assert checker.dim_names == ("n", "«rows.length»")
    assert checker.input_specs({"n": 2, "«rows.length»": 3}) == {
        "rows": InputSpec.integers(-10, 10, (3, 2))
    }
    assert _status(binders, statement) == "pass"
    assert _status(binders, statement.replace("rows.length * n", "rows.length * n + 1")) == "fail"
    assert _status("(n : ℕ) (rows : List (List ℤ))", statement) == "fail"  # ragged


# --- what is not drawn --------------------------------------------------------------------


@pytest.mark.parametrize(
    "binders, reason",
    [
        (
            "(xs : List String)",
            "the list binder xs : List String (only lists of ℕ, ℤ or ℝ, and lists of those, "
            "are drawn)",
        ),
        (
            "(xs : List (List (List ℤ)))",
            "the list binder xs : List (List (List ℤ)) (only lists of ℕ, ℤ or ℝ, and lists "
            "of those, are drawn)",
        ),
    ],
)
def test_refuse_lists_of_other_elements_statically_and_when_derived(
    binders: str, reason: str
) -> None:
    env = environment(theorem("Proofs.t", binders, "xs.length = xs.reverse.length"))
    assert blocker("Proofs.t", env) == Blocker(reason)
    result = derive("Proofs.t", env)
    assert isinstance(result, Unsupported) and result.reason == reason
