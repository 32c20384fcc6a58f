"""Arithmetic on functions is pointwise, as Mathlib's `Pi` instances make it:
`(f + g) x = f x + g x`, `(c * f) x = c * f x`, `(f ^ n) x = f x ^ n`, `(-f) x`, `f⁻¹ x`
(evaluator/operators.py). The calculus rules Mathlib states with them are checked, and a
rule stated wrong fails."""

from __future__ import annotations

import pytest
from derived_support import environment, real, theorem, value

from checkers import check


def test_sum_of_named_functions_at_a_point() -> None:
    got = value("(Real.exp + Real.sin) x", {"x": real(0.5)})
    assert got == pytest.approx(1.6487212707001282 + 0.479425538604203)


def test_scalar_times_function_keeps_the_scalar() -> None:
    # `c * Real.exp` is `fun x => c * Real.exp x`: c is a number, not applied
    assert value("(c * Real.exp) x", {"c": real(3.0), "x": real(0.0)}) == pytest.approx(3.0)


def test_power_and_inverse_of_a_function() -> None:
    assert value("(Real.exp ^ 2) x", {"x": real(1.0)}) == pytest.approx(7.38905609893065)
    assert value("(Real.exp⁻¹) x", {"x": real(1.0)}) == pytest.approx(0.36787944117144233)
    assert value("(-Real.exp) x", {"x": real(0.0)}) == pytest.approx(-1.0)


RULES = {
    "deriv_add": ("{f g : ℝ → ℝ} (x : ℝ)", "deriv (f + g) x = deriv f x + deriv g x"),
    "deriv_mul": (
        "{c d : ℝ → ℝ} (x : ℝ)",
        "deriv (c * d) x = deriv c x * d x + c x * deriv d x",
    ),
    "deriv_pow": (
        "{f : ℝ → ℝ} (n : ℕ) (x : ℝ)",
        "deriv (f ^ n) x = n * f x ^ (n - 1) * deriv f x",
    ),
    "deriv_inv": (
        "{c : ℝ → ℝ} (x : ℝ) (h : c x ≠ 0)",
        "deriv (c⁻¹) x = -deriv c x / c x ^ 2",
    ),
    "hasDerivAt_div": (
        "{c d : ℝ → ℝ} {c' d' x : ℝ} (hc : HasDerivAt c c' x) (hd : HasDerivAt d d' x) "
        "(hx : d x ≠ 0)",
        "HasDerivAt (c / d) ((c' * d x - c x * d') / d x ^ 2) x",
    ),
    # mutants: the product rule as a product of derivatives, the quotient rule's sign
    "deriv_mul_wrong": ("{c d : ℝ → ℝ} (x : ℝ)", "deriv (c * d) x = deriv c x * deriv d x"),
    "hasDerivAt_div_wrong": (
        "{c d : ℝ → ℝ} {c' d' x : ℝ} (hc : HasDerivAt c c' x) (hd : HasDerivAt d d' x) "
        "(hx : d x ≠ 0)",
        "HasDerivAt (c / d) ((c' * d x + c x * d') / d x ^ 2) x",
    ),
}


@pytest.fixture(scope="module")
def env():
    return environment(*(theorem(f"Proofs.{n}", b, s) for n, (b, s) in RULES.items()))


@pytest.mark.parametrize("name", [n for n in RULES if not n.endswith("_wrong")])
def test_calculus_rule_on_function_arithmetic_passes(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=16)
    assert result.status == "pass", result.reason
    assert result.vacuous_trials == 0


@pytest.mark.parametrize("name", [n for n in RULES if n.endswith("_wrong")])
def test_calculus_rule_stated_wrong_fails(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=16)
    assert result.status == "fail", result.reason
    assert "confirmed" in result.reason


# --- equations between functions of a real (statements/statement.py) ----------------

FUNCTIONS = {
    "deriv_exp": ("", "deriv Real.exp = Real.exp"),
    "deriv_sin": ("", "deriv Real.sin = Real.cos"),
    "log_comp_exp": ("", "Real.log ∘ Real.exp = id"),
    "deriv_add_const": ("{f : ℝ → ℝ} (c : ℝ)", "(deriv fun y => f y + c) = deriv f"),
    # mutants: a derivative named wrong, a composition in the wrong order
    "deriv_sin_wrong": ("", "deriv Real.sin = Real.sin"),
    "exp_comp_log_wrong": ("", "Real.exp ∘ Real.log = id"),
}


@pytest.fixture(scope="module")
def functions_env():
    return environment(*(theorem(f"Proofs.{n}", b, s) for n, (b, s) in FUNCTIONS.items()))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_equation_of_functions_is_checked_at_sampled_points(functions_env, name: str) -> None:
    result = check(f"Proofs.{name}", functions_env, trials=16)
    assert result.status == ("fail" if name.endswith("_wrong") else "pass"), result.reason
    assert result.dims == {} and result.checker == "derived"


@pytest.mark.parametrize(
    ("binders", "statement", "status"),
    [
        ("", "deriv (1 : ℝ → ℝ) = 0", "pass"),
        ("(n : ℕ)", "deriv (n : ℝ → ℝ) = 0", "pass"),  # the cast of n: a constant function
        ("(x : ℝ)", "(2 : ℝ → ℝ) x = x", "fail"),
        ("(f : ℝ → ℝ) (x : ℝ)", "(f : ℝ → ℝ) x = f x", "pass"),  # a function is itself
    ],
)
def test_a_numeral_of_function_type_is_the_constant_function(
    binders: str, statement: str, status: str
) -> None:
    env = environment(theorem("Proofs.t", binders, statement))
    assert check("Proofs.t", env, trials=16).status == status
