"""Lists, `Int.negSucc` and definitions by structural recursion: Lean's values, and
wrong statements about them fail.

The certificate files of the upstream project store weights as `List ℤ` literals
(negatives as `Int.negSucc n`), read them through `getD` into real vectors, and
fold them with `zipWith`, `map`, `sum` and a definition by recursion over lists.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from derived_support import FACT, definition, environment, evaluate, theorem, value

from checkers import check
from checkers.analysis.coverage import Blocker, blocker
from checkers.core import Unsupported
from checkers.language.values import Lst
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive
from theorem_index.model import Declaration

# --- Lean's values --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[5, 6, 7].length", 3),
        ("([] : List ℕ).length", 0),
        ("[5, 6, 7].getD 1 0", 6),
        ("[5, 6, 7].getD 3 9", 9),  # past the end: the default
        ("([] : List ℤ).getD 0 4", 4),
        ("Int.negSucc 0", -1),
        ("Int.negSucc 4", -5),
        ("([1, Int.negSucc 1, 3] : List ℤ).sum", 2),
        ("([] : List ℤ).sum", 0),
        ("([2, 3, 4] : List ℕ).prod", 24),
        ("(List.zipWith (· * ·) [1, 2, 3] [4, 5]).sum", 14),  # stops at the shorter
        ("(([Int.negSucc 2, 3] : List ℤ).map (fun x => |x|)).sum", 6),
        ("List.foldl (· - ·) 10 [3, 4]", 3),  # (10 - 3) - 4
        ("List.foldr (· - ·) 0 [10, 3]", 7),  # 10 - (3 - 0)
        ("List.foldr (· - ·) 0 [3, 10]", 0),  # ℕ subtraction truncates: 3 - 10 = 0
        ("(List.range 4).sum", 6),
        ("(List.replicate 3 (2 : ℤ)).sum", 6),
        ("([1] ++ 2 :: [3]).getD 1 0", 2),
        ("([1, 2, 3].take 5).length", 3),
        ("([1, 2, 3].drop 1).sum", 5),
        ("([1, 2, 3].drop 5).length", 0),
        ("[4, 5].head!", 4),
        ("([] : List ℕ).head!", 0),
        ("([] : List ℕ).headD 7", 7),
        ("([] : List ℕ).tail.length", 0),
        ("[1, 2, 3].reverse.getD 0 0", 3),
        ("[1, 2, 3][1]!", 2),
        ("[1, 2, 3][5]!", 0),
        ("Int.toNat (Int.negSucc 2)", 0),
        ("Int.natAbs (Int.negSucc 2)", 3),
        ("Int.ofNat 4 + Int.negSucc 5", -2),
        ("([2 - 5, 1] : List ℕ).sum", 1),
        ("(((Int.negSucc 0 : ℤ) : ℝ) / 0)", 0),  # Lean's x / 0 = 0
    ],
)
def test_evaluate_list_and_int_functions_as_lean(text: str, expected: int) -> None:
    assert value(text).item() == expected


def test_keep_integer_list_arithmetic_exact_beyond_float64() -> None:
    big = 2**60 + 1
    assert value(f"([{big}, {big}] : List ℤ).sum").item() == 2 * big


def test_index_a_list_by_a_bound_index_with_the_default_past_its_end() -> None:
    out = value("fun (j : Fin 4) => (([7, Int.negSucc 1, 3] : List ℤ).getD j 5 : ℝ)")
    assert out.tolist() == [7.0, -2.0, 3.0, 5.0]


def test_index_a_list_of_lists_by_a_bound_index() -> None:
    text = "fun (t : Fin 3) => ((([[1, 2], [3]] : List (List ℤ)).getD t []).getD 1 9 : ℝ)"
    assert value(text).tolist() == [2.0, 9.0, 9.0]


# --- whole checks, and mutants -------------------------------------------------------------

W = definition("Proofs.w", "", "List ℤ", "Proofs.w = [0, 1, Int.negSucc 0, 2]")
WR = definition(
    "Proofs.wr", "", "Fin 4 → ℝ", "Proofs.wr = fun j => ((Proofs.w).getD j 0 : ℝ) / 256"
)
W3 = definition("Proofs.w3", "", "List ℤ", "Proofs.w3 = [1, 2, 3]")
DOTZ = definition(
    "Proofs.dotZ",
    "(xs ys : List ℤ)",
    "ℤ",
    "Proofs.dotZ xs ys = (List.zipWith (· * ·) xs ys).sum",
)
ABSSUM = definition(
    "Proofs.absSumZ", "(xs : List ℤ)", "ℤ", "Proofs.absSumZ xs = (xs.map (fun x => |x|)).sum"
)
SCALEADD = definition(
    "Proofs.scaleAddZ",
    "(c : ℤ) (row acc : List ℤ)",
    "List ℤ",
    "Proofs.scaleAddZ c row acc = List.zipWith (fun r a => c * r + a) row acc",
)


COMBZ = definition(
    "Proofs.combZ",
    "(n : ℕ)",
    "List ℤ → List (List ℤ) → List ℤ",
    "Proofs.combZ n [] _ = List.replicate n 0",
    "Proofs.combZ n (_ :: _) [] = List.replicate n 0",
    "Proofs.combZ n (c :: cs) (r :: rs) = Proofs.scaleAddZ c r (Proofs.combZ n cs rs)",
)
FIB = definition(
    "Proofs.fib",
    "",
    "ℕ → ℕ",
    "Proofs.fib 0 = 0",
    "Proofs.fib 1 = 1",
    "Proofs.fib (k + 2) = Proofs.fib k + Proofs.fib (k + 1)",
)
# a recursion that branches on a sampled real: no unfolding repeats an earlier one
GROW = definition(
    "Proofs.grow",
    "",
    "ℝ → ℕ → ℝ",
    "Proofs.grow x 0 = x",
    "Proofs.grow x (k + 1) = Proofs.grow x k + Proofs.grow (x + 1) k",
)


def _status(binders: str, statement: str, *decls: Declaration) -> str:
    env = environment(*decls, theorem("Proofs.t", binders, statement))
    derived = derive("Proofs.t", env)
    assert isinstance(derived, DerivedChecker), derived
    assert blocker("Proofs.t", env) is None  # the static decision agrees
    return check("Proofs.t", env, trials=16, seed=0).status


def _refusal(binders: str, statement: str, *decls: Declaration) -> str:
    env = environment(*decls, theorem("Proofs.t", binders, statement))
    result = derive("Proofs.t", env)
    assert isinstance(result, Unsupported), result
    return result.reason


@pytest.mark.parametrize(
    "statement, status",
    [
        ("∑ j, wr j * wr j = 6 / 65536", "pass"),
        ("∑ j, wr j * wr j = 7 / 65536", "fail"),
        ("(w).length = 4", "pass"),
        ("(w).length = 5", "fail"),
        ("dotZ w w = 6", "pass"),
        ("dotZ w w = 7", "fail"),
        ("dotZ w [1, 1, 1, 1] = 2", "pass"),
        ("dotZ w [1, 1, 1] = 0", "pass"),  # zipWith stops at the shorter list
        ("absSumZ w = 4", "pass"),
        ("absSumZ w = 2", "fail"),  # as if Int.negSucc 0 were 0
    ],
)
def test_check_statements_about_list_data(statement: str, status: str) -> None:
    assert _status("", statement, W, WR, DOTZ, ABSSUM) == status


@pytest.mark.parametrize(
    "old, new",
    [
        ("Int.negSucc 0, 2]", "Int.negSucc 1, 2]"),  # a wrong numeral
        ("[0, 1, Int.negSucc 0, 2]", "[0, 1, 0, 2]"),  # negSucc read as the number itself
        ("[0, 1, Int.negSucc 0, 2]", "[1, Int.negSucc 0, 2, 0]"),  # off by one place
    ],
)
def test_fail_when_the_list_data_is_mutated(old: str, new: str) -> None:
    bad = definition("Proofs.w", "", "List ℤ", W.equations[0].replace(old, new))
    statement = "∑ j : Fin 4, wr j * ((j : ℕ) : ℝ) = 5 / 256"
    assert _status("", statement, bad, WR) == "fail"
    assert _status("", statement, W, WR) == "pass"


@pytest.mark.parametrize(
    "reading, status",
    [
        ("((w3).getD j 5 : ℝ)", "pass"),
        ("((w3).getD j 0 : ℝ)", "fail"),  # a wrong default
        ("((w3).getD (j.val + 1) 5 : ℝ)", "fail"),  # an off-by-one index
    ],
)
def test_read_a_short_list_through_its_default(reading: str, status: str) -> None:
    assert _status("", f"∑ j : Fin 4, {reading} = 11", W3) == status


def test_check_sampled_reals_in_a_list() -> None:
    assert _status("(x y : ℝ)", "([x, 2 * y, x] : List ℝ).sum = 2 * (x + y)") == "pass"
    assert _status("(x y : ℝ)", "([x, 2 * y, x] : List ℝ).sum = 2 * x + y") == "fail"
    assert _status("(x : ℝ)", "(([x, 1] : List ℝ).getD 2 x) = x") == "pass"


@pytest.mark.parametrize(
    "statement, status",
    [
        ("absSumZ (combZ 2 [1, Int.negSucc 0] [[1, 2], [3, 4]]) = 4", "pass"),
        ("absSumZ (combZ 2 [1, Int.negSucc 0] [[1, 2], [3, 4]]) = 5", "fail"),
        ("(combZ 2 [1, 2] [[1, 2], [3, 4]]).getD 1 0 = 10", "pass"),
        ("(combZ 2 [1, 2] [[1, 2], [3, 4]]).getD 1 0 = 8", "fail"),
        ("(combZ 3 [] [[1, 2]]).length = 3", "pass"),
        ("(combZ 3 [5] []).getD 2 7 = 0", "pass"),
    ],
)
def test_unfold_recursion_over_lists(statement: str, status: str) -> None:
    assert _status("", statement, COMBZ, SCALEADD, ABSSUM) == status


def test_unfold_recursion_on_a_natural_number_drawn_as_a_dimension() -> None:
    assert _status("(k : ℕ)", "fact (k + 1) = (k + 1) * fact k", FACT) == "pass"
    assert _status("(k : ℕ)", "fact (k + 1) = k * fact k + 1", FACT) == "fail"
    assert _status("", "fact 5 = 120", FACT) == "pass"
    assert _status("", "fact 5 = 24", FACT) == "fail"


def test_refuse_recursion_on_a_varying_value_at_the_depth_limit() -> None:
    reason = _refusal("", "∑ i : Fin 3, fact i.val = 4", FACT)
    assert reason.startswith("the definitions unfold more than 150 levels deep")


def test_unfold_a_branching_recursion_on_constants_once_per_value() -> None:
    # applications to exact constants are kept: fib 60 unfolds 61 times, not 2^60
    assert _status("", "fib 60 = 1548008755920", FIB) == "pass"
    assert _status("", "fib 60 = 1548008755921", FIB) == "fail"


def test_refuse_recursion_past_the_unfolding_limit() -> None:
    reason = _refusal("(x : ℝ)", "grow x 20 = 1048576 * x + 10485760", GROW)
    assert reason == "the recursive definition Proofs.grow unfolds more than 10000 times"


def test_name_a_missing_list_function_statically() -> None:
    env = environment(W, theorem("Proofs.t", "", "(List.rotate (w) 1).length = 4"))
    assert blocker("Proofs.t", env) == Blocker("no semantics for: List.rotate", ("List.rotate",))


def test_name_an_unknown_field_statically() -> None:
    env = environment(W, theorem("Proofs.t", "", "(w).maximum? = 2"))
    # statically the type of `(w)` is not known: the field is what has no meaning
    assert blocker("Proofs.t", env) == Blocker("no semantics for: .maximum?", (".maximum?",))
    assert _refusal("", "(w).maximum? = 2", W) == "no semantics for: .maximum?"


def test_refuse_a_function_binder_statically_as_the_trace_does() -> None:
    # a function into indices is not drawn (drawn_functions.py draws real values), and
    # coverage says so as the trace does; a curried function of two vectors is drawn
    binders = "{m : ℕ} (g : Vec m → Vec m → Fin m) (v : Vec m)"
    env = environment(theorem("Proofs.t", binders, "g v v = g v v"))
    reason = blocker("Proofs.t", env)
    assert reason is not None
    assert _refusal(binders, "g v v = g v v") is not None
    binders = "{m : ℕ} (g : Vec m → Vec m → Vec m) (v : Vec m)"
    env = environment(theorem("Proofs.t", binders, "g v v = g v v"))
    assert blocker("Proofs.t", env) is None
    assert check("Proofs.t", env, trials=8).status == "pass"


def test_evaluate_list_literal_of_real_decimals_exactly() -> None:
    out = value("fun (j : Fin 2) => (([0.1, 0.2] : List ℝ).getD j 0)")
    np.testing.assert_array_equal(out, [0.1, 0.2])


# --- ℚ: the subfield of ℝ ---------------------------------------------------------------


@pytest.mark.parametrize(
    "binders, statement, status",
    [
        ("(x : ℚ)", "x / 0 = 0", "pass"),
        ("(x : ℚ)", "((2 * x : ℚ) : ℝ) = 2 * (x : ℝ)", "pass"),
        ("(x : ℚ)", "((2 * x : ℚ) : ℝ) = 3 * (x : ℝ)", "fail"),
        ("", "(([1 / 2, 1 / 3] : List ℚ).sum : ℝ) = 5 / 6", "pass"),
        ("", "(([1 / 2, 1 / 3] : List ℚ).sum : ℝ) = 2 / 5", "fail"),
        ("(z : ℚ) (hz : 0 < z)", "(Int.negSucc 0 : ℚ) * z < 0", "pass"),
    ],
)
def test_check_rationals_as_reals(binders: str, statement: str, status: str) -> None:
    assert _status(binders, statement) == status


# --- exact decisions ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "statement, dtype, status",
    [
        ("(2 ^ 60 + 1 : ℤ) = 2 ^ 60", "float64", "fail"),  # one float64 for both
        ("(2 ^ 60 : ℤ) < 2 ^ 60 + 1", "float64", "pass"),
        ("(2 ^ 60 + 1 : ℤ) ≤ 2 ^ 60", "float64", "fail"),
        ("dotZ [100003, 7] [100003, 1] = 10000600016", "float64", "pass"),
        ("dotZ [100003, 7] [100003, 1] = 10000600017", "float64", "fail"),  # within rtol
        ("dotZ [4097, 1] [4097, 0] = 16785409", "float32", "pass"),
        ("(Int.negSucc 3 : ℤ) < Int.negSucc 2", "bfloat16", "pass"),
        ("(Int.negSucc 3 : ℤ) = Int.negSucc 2", "bfloat16", "fail"),
    ],
)
def test_decide_relations_between_exact_integers_exactly(
    statement: str, dtype: str, status: str
) -> None:
    env = environment(DOTZ, theorem("Proofs.t", "", statement))
    assert check("Proofs.t", env, trials=4, seed=0, dtype=dtype).status == status


@pytest.mark.parametrize(
    "binders, statement, status",
    [
        ("", "List.replicate 2 (0 : ℤ) = [0, 0]", "pass"),
        ("", "List.replicate 3 (0 : ℤ) = [0, 0]", "fail"),  # lengths differ
        ("", "combZ 2 [1, 2] [[1, 2], [3, 4]] = [7, 10]", "pass"),
        ("", "combZ 2 [1, 2] [[1, 2], [3, 4]] = [7, 11]", "fail"),
        ("", "([[1], [2, 3]] : List (List ℕ)) = [[1], [2, 3]]", "pass"),
        ("", "([[1], [2, 3]] : List (List ℕ)) = [[1, 2], [3]]", "fail"),  # same leaves
        ("(x y : ℝ)", "([x, y] : List ℝ).map (fun t => 2 * t) = [x + x, 2 * y]", "pass"),
        ("(x y : ℝ)", "([x, y] : List ℝ).map (fun t => 2 * t) = [x + x, y]", "fail"),
    ],
)
def test_check_equations_between_lists(binders: str, statement: str, status: str) -> None:
    assert _status(binders, statement, COMBZ, SCALEADD) == status


# --- element-wise functions over long lists of integer constants, in one evaluation ----

LONG_Z = "([3, Int.negSucc 6, 0, 4611686018427387904, Int.negSucc 4611686018427387904, 7, 1, 9, Int.negSucc 0, 12] : List ℤ)"  # noqa: E501
LONG_Z2 = "([2, 5, Int.negSucc 2, 4, 3, 0, Int.negSucc 0, 8, 6, Int.negSucc 10] : List ℤ)"
LONG_N = "([3, 6, 0, 9223372036854775807, 1, 7, 2, 9, 4, 12] : List ℕ)"
LONG_N2 = "([5, 2, 4, 1, 3, 9, 2, 0, 7, 11] : List ℕ)"


def _elements(text: str) -> list[int]:
    got = evaluate(text)
    assert isinstance(got, Lst) and len(got.items) == 10
    assert all(type(x.data) is int for x in got.items)  # exact constants, not arrays
    return [x.data for x in got.items]


def _spy_at_once(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Record, for each list function, whether `at_once` decided it (not None)."""
    from checkers.library import lists

    decided: list[bool] = []
    at_once = lists.at_once

    def spy(*args: object) -> object:
        got = at_once(*args)  # type: ignore[arg-type]
        decided.append(got is not None)
        return got

    monkeypatch.setattr(lists, "at_once", spy)
    return decided


@pytest.mark.parametrize(
    "text",
    [
        f"List.zipWith (fun r a => 3 * r + a) {LONG_Z} {LONG_Z2}",  # beyond int64: exact
        f"List.zipWith (fun r a => r * a * a) {LONG_Z} {LONG_Z2}",
        f"{LONG_Z}.map (fun x => |x|)",
        f"List.zipWith (· - ·) {LONG_N} {LONG_N2}",  # ℕ subtraction truncates
        f"List.zipWith (· / ·) {LONG_Z} {LONG_Z2}",  # ℤ division: Euclidean, x / 0 = 0
        f"List.zipWith (· % ·) {LONG_Z} {LONG_Z2}",
        f"List.zipWith (· / ·) {LONG_N} {LONG_N2}",
        f"{LONG_N}.map (fun x => if x < 5 then x * x else x - 5)",
        f"{LONG_Z}.map (fun x => Int.toNat x)",
        f"{LONG_Z}.map (fun _ => (4 : ℤ))",
    ],
)
def test_apply_an_elementwise_function_to_a_long_list_at_once_as_element_by_element(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from checkers.evaluator import at_once as at_once_module

    decided = _spy_at_once(monkeypatch)
    fast = _elements(text)
    assert decided and all(decided)  # evaluated over the whole list at once
    monkeypatch.setattr(at_once_module, "AT_ONCE_MIN", 10**9)
    decided.clear()
    assert fast == _elements(text)  # the same as one element at a time
    assert not any(decided)


def test_keep_elementwise_results_exact_beyond_int64() -> None:
    big = 2**62
    got = _elements(f"List.zipWith (fun r a => 3 * r + a) {LONG_Z} {LONG_Z2}")
    assert got[3] == 3 * big + 4 and got[4] == 3 * -(big + 1) + 3


@pytest.mark.parametrize(
    "text, expected",
    [
        # a recursion on the element's value unfolds one element at a time
        (
            f"({LONG_N2}.map Proofs.fact).sum",
            sum(map(math.factorial, [5, 2, 4, 1, 3, 9, 2, 0, 7, 11])),
        ),
        # a real result is computed element by element, as Lean's definition reads
        (f"(({LONG_N2}.map (fun x => (x : ℝ) / 4)).sum : ℝ)", 44 / 4),
    ],
)
def test_fall_back_to_element_by_element_where_at_once_cannot_decide(
    text: str, expected: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    from checkers.library.semantics import Semantics

    decided = _spy_at_once(monkeypatch)
    sem = Semantics(environment(FACT))
    assert value(text, sem=sem).item() == pytest.approx(expected)
    assert decided and not any(decided)  # tried, and left to one element at a time


ROW = LONG_Z2.split(" : ")[0][1:]  # |row| sums to 43


@pytest.mark.parametrize(
    "total, status",
    [("43", "pass"), ("42", "fail"), ("44", "fail")],
)
def test_check_a_long_combination_of_rows(total: str, status: str) -> None:
    statement = f"absSumZ (combZ 10 [2, Int.negSucc 2] [{ROW}, {ROW}]) = {total}"  # -row
    assert _status("", statement, COMBZ, SCALEADD, ABSSUM) == status


def test_a_definition_read_through_a_field_is_a_dependency() -> None:
    # `(Proofs.w).getD j 0` reads Proofs.w's value: editing w must change the checker's
    # version (what results, staleness and stored programs are filed under)
    statement = "∑ j : Fin 4, wr j * ((j : ℕ) : ℝ) = 5 / 256"
    env = environment(W, WR, theorem("Proofs.t", "", statement))
    derived = derive("Proofs.t", env)
    assert isinstance(derived, DerivedChecker)
    assert derived.dependencies == ("Proofs.w", "Proofs.wr")
    bad = definition("Proofs.w", "", "List ℤ", "Proofs.w = [0, 1, 0, 2]")
    other = derive("Proofs.t", environment(bad, WR, theorem("Proofs.t", "", statement)))
    assert isinstance(other, DerivedChecker) and other.version != derived.version
