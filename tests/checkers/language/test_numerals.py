"""Numerals are evaluated at the type Lean gives them, every node with that type's semantics.

`(7 / 2) * 2` is 6 in ℕ (the division floors at its own node), 7 in ℝ, 2 in
`Fin 5`; numerals that nothing types are ℕ (Lean's default instance).
"""

from __future__ import annotations

from fractions import Fraction

import jax.numpy as jnp
import pytest
from derived_support import environment, evaluate, fin, nat, real, theorem, value

from checkers import check
from checkers.core import Unsupported
from checkers.language.errors import EvalError
from checkers.language.numerals import Numeral
from checkers.language.values import Arr
from checkers.statements.derive import derive


@pytest.mark.parametrize(
    "text, expected",
    [
        ("((7 / 2) * 2 : ℕ)", 6),
        ("((7 / 2) * 2 : ℝ)", 7.0),
        ("((7 / 2) * 2 : ℤ)", 6),
        ("((7 / 2) * 2 : Fin 5)", 2),  # 7 : Fin 5 is 2; 2 / 2 = 1; 1 * 2 = 2
        ("((-7) / 2 * 2 : ℤ)", -8),  # Euclidean: -7 / 2 = -4
        ("(2 - 3 + 1 : ℕ)", 1),  # 2 - 3 truncates to 0 before the + 1
        ("(2 - 3 + 1 : ℤ)", 0),
        ("(3 * 4 - 5 : Fin 5)", 2),  # 3 * 4 wraps to 2 before the - 5 (= - 0)
        ("(3 * 4 - 5 : ℕ)", 7),
        ("(7 / 0 : ℕ)", 0),
        ("(7 % 0 : ℕ)", 7),
        ("(7 / 0 : ℝ)", 0.0),
        ("(2 ^ 3 / 3 : ℕ)", 2),
        ("(2 ^ 3 / 3 * 3 : ℝ)", 8.0),
    ],
)
def test_evaluate_numeral_tree_at_its_type_node_by_node(text: str, expected: float) -> None:
    got = value(text)
    assert got == expected
    assert got.dtype.kind == ("f" if isinstance(expected, float) else "i")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("(7 / 2) * 2", 6),
        ("2 - 3 + 1", 1),
        ("max (7 / 2) 1", 3),
        ("∑ i : Fin 3, 7 / 2", 9),
        ("(7 / 2) * 2 = 6", True),
        ("(7 / 2) * 2 = 7", False),
        ("if 7 / 2 = 3 then 1 else 0", 1),
    ],
)
def test_default_untyped_numerals_to_nat(text: str, expected: object) -> None:
    assert value(text) == expected


@pytest.mark.parametrize(
    "text, env, expected",
    [
        ("x * ((7 / 2) * 2)", {"x": real(1.0)}, 7.0),
        ("x + ∑ i : Fin 3, 7 / 2", {"x": real(0.0)}, 10.5),
        ("(max (7 / 2) 1 : ℝ)", {}, 3.5),
        ("x * (if x > 0 then 7 / 2 else 1)", {"x": real(2.0)}, 7.0),
        ("let y := 7 / 2; (y * 2 : ℕ)", {}, 6),
        ("(n / 2 * 2 : ℕ)", {"n": nat(7)}, 6),
        ("((n : ℝ) / 2 * 2)", {"n": nat(7)}, 7.0),
        ("(↑(7 / 2) : ℝ)", {}, 3.5),  # `↑` unifies the numerals' type with ℝ
        ("(↑(7 / 2 : ℕ) : ℝ)", {}, 3.0),
    ],
)
def test_type_numerals_from_their_context(text: str, env: dict[str, Arr], expected: float) -> None:
    assert value(text, env) == expected


def test_evaluate_traced_nat_division_and_subtraction_at_each_node() -> None:
    n = Arr(jnp.asarray(7), "nat")
    assert value("(n / 2) * 2", {"n": n}) == 6
    assert value("n - 9 + 1", {"n": n}) == 1
    assert value("n / 0 + n % 0", {"n": n}) == 7
    i = Arr(jnp.asarray(3), "fin", bound=fin(0, 5).bound)
    assert value("i * 4 - 5", {"i": i}) == 2  # (3 * 4) mod 5 = 2, 2 - 0


def test_read_nat_exponent_of_numerals_as_monoid_power() -> None:
    # Mathlib's default `x ^ (n : ℕ)`: 1 / 2 is the natural number 0
    assert value("x ^ (1 / 2)", {"x": real(4.0)}) == 1.0
    assert value("x ^ (7 / 2 * 2)", {"x": real(2.0)}) == 64.0
    assert value("x ^ (1 / 2 : ℝ)", {"x": real(4.0)}) == pytest.approx(2.0)


def test_read_smul_numeral_scalar_as_nat() -> None:
    v = real([1.0, 2.0])
    assert value("(1 / 2) • v", {"v": v}).tolist() == [0.0, 0.0]
    assert value("(1 / 2 : ℝ) • v", {"v": v}).tolist() == [0.5, 1.0]


def test_keep_real_literal_trees_exact() -> None:
    v = evaluate("0.1 + 0.2 - 0.3")
    assert isinstance(v, Arr) and isinstance(v.data, Numeral)
    assert v.data.exact() == 0
    assert value("(0.1 + 0.2 - 0.3 : ℝ)") == 0.0
    assert Numeral.literal(Fraction("0.044715"), decimal=True).exact() == Fraction(44715, 10**6)


def test_refuse_numeral_without_a_value_at_the_type() -> None:
    with pytest.raises(EvalError, match="not a ℕ"):
        value("(0.5 : ℕ)")
    with pytest.raises(EvalError, match="no such coercion|ℕ has no"):
        value("(-1 + 2 : ℕ)")
    with pytest.raises(EvalError, match="Fin 0"):
        Numeral.literal(3).at_type("fin", 0)


def test_check_nat_statement_with_floor_division() -> None:
    holds = environment(theorem("Proofs.t", "(k : ℕ)", "k / 2 * 2 + k % 2 = k"))
    assert check("Proofs.t", holds, trials=32, seed=0).status == "pass"
    wrong = environment(theorem("Proofs.t", "(k : ℕ)", "k / 2 * 2 = k"))
    result = check("Proofs.t", wrong, trials=32, seed=0)
    assert result.status == "fail"
    assert result.counterexample is not None
    assert result.counterexample.inputs["k"][0] % 2 == 1
    real_division = environment(theorem("Proofs.t", "(k : ℕ)", "(↑k / 2 : ℝ) * 2 = ↑k"))
    assert check("Proofs.t", real_division, trials=32, seed=0).status == "pass"
    cast_of_floor = environment(theorem("Proofs.t", "(k : ℕ)", "(↑(k / 2) : ℝ) * 2 = ↑k"))
    assert check("Proofs.t", cast_of_floor, trials=32, seed=0).status == "fail"


def test_check_closed_numeral_statement_in_nat() -> None:
    env = environment(theorem("Proofs.t", "", "(7 / 2) * 2 = 6"))
    assert check("Proofs.t", env, trials=4, seed=0).status == "pass"
    env = environment(theorem("Proofs.t", "", "(7 / 2) * 2 = 7"))
    assert check("Proofs.t", env, trials=4, seed=0).status == "fail"
    env = environment(theorem("Proofs.t", "", "((7 / 2) * 2 : ℝ) = 7"))
    assert check("Proofs.t", env, trials=4, seed=0).status == "pass"


def test_refuse_untyped_decimal_as_float() -> None:
    env = environment(theorem("Proofs.t", "", "0.5 + 0.5 = 1"))
    result = derive("Proofs.t", env)
    assert isinstance(result, Unsupported)
    assert "Float" in result.reason


def test_index_with_numeral_tree_in_fin() -> None:
    v = real([10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0])
    assert value("v (3 / 2 * 2)", {"v": v}) == 12.0  # in Fin 7: 3 / 2 = 1, then 1 * 2
    assert value("v ((7 / 2) * 2)", {"v": v}) == 10.0  # the numeral 7 : Fin 7 is 0
    assert value("v (5 + 4)", {"v": v}) == 12.0  # 9 mod 7


def test_type_numeral_entries_of_a_function_from_its_context() -> None:
    # `dense`'s weight is real-valued: `fun i j => 0` is the zero matrix of ℝ
    b, x = real([1.0, -2.0, 0.5]), real([3.0, 4.0])
    got = value("dense (fun (i : Fin 2) (j : Fin 3) => 0) b x", {"b": b, "x": x})
    assert got.tolist() == [1.0, -2.0, 0.5]
    half = evaluate("fun (i : Fin 3) => 1 / 2", {})
    assert isinstance(half, Arr) and half.kind == "nat"  # nothing types it: ℕ, and 1 / 2 = 0
    assert value("fun (i : Fin 3) => 1 / 2").tolist() == [0, 0, 0]
    assert value("(fun (i : Fin 3) => 1 / 2 : Fin 3 → ℝ)").tolist() == [0.5, 0.5, 0.5]


def test_refuse_real_constant_that_float64_cannot_hold() -> None:
    # `1 / 10 ^ 400` would be 0.0 and `10 ^ 400` infinite: a program computing with them
    # computes with other numbers, and its exact re-evaluation reads its constants
    env = environment(
        theorem("Proofs.tiny", "(x : ℝ)", "x < x + 1 / 10 ^ 400"),
        theorem("Proofs.huge", "(x : ℝ)", "x < x + 10 ^ 400"),
        theorem("Proofs.small", "(x : ℝ)", "x < x + 1 / 10 ^ 3"),
    )
    tiny = check("Proofs.tiny", env, trials=16)
    assert tiny.status == "unsupported"
    assert tiny.reason == (
        "the constant (1 / 10 ^ 400) is too small for float64 (its value would be another number)"
    )
    huge = check("Proofs.huge", env, trials=16)
    assert huge.status == "unsupported"
    assert huge.reason == (
        "the constant 10 ^ 400 is too large for float64 (its value would be another number)"
    )
    assert check("Proofs.small", env, trials=16).status == "pass"
