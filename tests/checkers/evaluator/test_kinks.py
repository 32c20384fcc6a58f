"""Derivatives where the function is not differentiable: Mathlib's `deriv f x` is 0 there,
automatic differentiation differentiates the branch taken. A trial whose derivative meets
a kink (kinks.py) is vacuous, never a counterexample."""

from __future__ import annotations

import pytest
from derived_support import environment

from checkers import Environment, check
from theorem_index.readers.lean_source import read_lean_source

SOURCE = """
theorem deriv_abs_zero : deriv (fun x : ℝ => |x|) 0 = 0 := sorry
theorem deriv_max_zero : deriv (fun x : ℝ => max x 0) 0 = 0 := sorry
theorem deriv_abs_one : deriv (fun x : ℝ => |x|) 1 = 1 := sorry
theorem deriv_abs_wrong (x : ℝ) : deriv (fun y : ℝ => |y|) x = 1 := sorry

open Real
namespace Real
noncomputable def binEntropy (p : ℝ) : ℝ := p * log p⁻¹ + (1 - p) * log (1 - p)⁻¹
-- the junk values of `deriv` and `log` coincide at 0 and 1
lemma deriv_binEntropy (p : ℝ) : deriv binEntropy p = log (1 - p) - log p := sorry
end Real
"""

UNDIFFERENTIABLE = (
    "every trial is vacuous: the hypothesis `each derivative's function differentiable at "
    "its point` held in none of the 16 trials at dims no dims"
)


@pytest.fixture(scope="module")
def env() -> Environment:
    doc = read_lean_source("Kinks.lean", SOURCE, "Kinks.lean")
    assert not doc.errors, doc.errors
    return environment(*doc.declarations)


def test_refuse_derivative_at_kink_of_abs_and_max(env: Environment) -> None:
    for name in ("deriv_abs_zero", "deriv_max_zero"):
        result = check(name, env, trials=16)
        assert result.status == "unsupported", result.reason
        assert result.reason == UNDIFFERENTIABLE


def test_leave_out_trial_at_kink_of_total_log(env: Environment) -> None:
    result = check("Real.deriv_binEntropy", env, trials=16)
    assert result.status == "pass", result.reason
    # a boundary value put p at 0 or 1, a kink: that trial decided nothing (not a fail) and
    # was drawn again without boundary values (regimes.py)
    assert result.vacuous_trials == 0


def test_check_derivative_off_the_kink(env: Environment) -> None:
    assert check("deriv_abs_one", env, trials=16).status == "pass"
    wrong = check("deriv_abs_wrong", env, trials=16)
    assert wrong.status == "fail", wrong.reason


def test_a_float_made_complex_is_no_kink_but_one_made_an_integer_is() -> None:
    import jax  # noqa: PLC0415
    import jax.numpy as jnp  # noqa: PLC0415

    from checkers.evaluator.kinks import at_kink  # noqa: PLC0415

    to_complex = jax.make_jaxpr(lambda x: jnp.real(jnp.asarray(x * 1.0, jnp.complex128)))(1.0)
    assert not bool(at_kink(to_complex, jnp.asarray(1.0)))
    to_int = jax.make_jaxpr(lambda x: jnp.asarray(x, jnp.int64) * 1.0)(1.0)
    assert bool(at_kink(to_int, jnp.asarray(1.0)))
