"""Confirming failures in a check of registered checkers (programs written in JAX, not
derived): an artefact of float64 is no counterexample; a program the exact rules cannot
evaluate keeps its float64 verdict and says the counterexample is unconfirmed."""

from __future__ import annotations

import subprocess
import sys

import jax
import jax.numpy as jnp
import pytest

from checkers import Environment, Registry, check
from checkers.registry.registrations import real


@pytest.fixture(scope="module")
def env() -> Environment:
    registry = Registry()

    # log(e^(-800 x²)) = -800 x² is true; e^(-800 x²) underflows to 0 in float64 once
    # |x| > 0.97, and the program's total log (Lean's `Real.log 0 = 0`) answers 0
    @registry.register("Test.underflow", dims=("n",), inputs={"x": real("n")})
    def underflow(dims, dtype):
        def sides(v):
            e = jnp.exp(-800 * v["x"] ** 2)
            total_log = jnp.where(e == 0, 0.0, jnp.log(jnp.where(e == 0, 1.0, e)))
            return jnp.sum(total_log), jnp.sum(-800 * v["x"] ** 2)

        return sides

    # erf(x) = erf(x) + 1 is false; the exact rules have no erf
    @registry.register("Test.erf_off", dims=("n",), inputs={"x": real("n")})
    def erf_off(dims, dtype):
        return lambda v: (jnp.sum(jax.lax.erf(v["x"])), jnp.sum(jax.lax.erf(v["x"]) + 1))

    # the derivative of a maximum of e^x is e^x at the argmax and 0 elsewhere: its two
    # entries differ (false), and sum to the maximum (true); its program compares e^x, a
    # computed quantity (no exact point), with its maximum, as a softmax's derivative does
    # with its scores
    def max_grad(v):
        return jax.grad(lambda y: jnp.max(jnp.exp(y)))(v["x"])

    @registry.register("Test.max_grad_off", dims=(), inputs={"x": real(2)})
    def max_grad_off(dims, dtype):
        return lambda v: (max_grad(v)[0], max_grad(v)[1])

    @registry.register("Test.max_grad_sum", dims=(), inputs={"x": real(2)})
    def max_grad_sum(dims, dtype):
        return lambda v: (jnp.sum(max_grad(v)), jnp.max(jnp.exp(v["x"])))

    # e^x·e^-x = 1 is true, and its float64 product is 1.0 or one rounding off; the program
    # turns the comparison into an integer, a branch no precision decides (the product's
    # interval holds 1 and other values)
    @registry.register("Test.branch", dims=("n",), inputs={"x": real("n")})
    def branch(dims, dtype):
        def sides(v):
            one = (jnp.exp(v["x"]) * jnp.exp(-v["x"]) == 1.0).astype(jnp.int64)
            return jnp.sum(one).astype(jnp.float64), jnp.sum(jnp.ones_like(v["x"]))

        return sides

    return Environment.from_declarations([], registry=registry, derive=None)


def test_registered_underflow_artefacts_are_unstable(env) -> None:
    result = check("Test.underflow", env)
    assert result.status == "pass", result.reason
    assert result.unstable_trials > 0


def test_unconfirmable_failure_stays_a_fail_and_says_so(env) -> None:
    result = check("Test.erf_off", env)
    assert result.status == "fail"
    why = "no exact rule for the primitive erf"
    assert f"the counterexample is unconfirmed (not evaluated exactly: {why})" in result.reason


def test_mpmath_is_imported_only_on_a_failure() -> None:
    # confirmation runs only on failing trials: a passing corpus pays nothing for it
    code = (
        "import sys\n"
        "from checkers import Environment, check\n"
        "from theorem_index.model import Declaration\n"
        "def t(binders, statement):\n"
        "    d = Declaration(name='Proofs.t', kind='theorem', module='T', binders=binders,\n"
        "                    statement=statement, namespace='Proofs')\n"
        "    return check('Proofs.t', Environment.from_declarations([d]))\n"
        "r = t('(x : ℝ)', 'x + x = 2 * x')\n"
        "print(r.status, 'mpmath' in sys.modules)\n"
        "r = t('(x y : ℝ) (hx : 0 < x)', 'Real.log (x ^ y) = y * Real.log x')\n"
        "print(r.status, r.unstable_trials > 0, 'mpmath' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.stdout.split() == ["pass", "False", "pass", "True", "True"], out.stderr


def test_a_comparison_with_the_maximum_is_decided_exactly(env) -> None:
    # the interval of `max x` is the larger entry itself where it certainly is the larger, so
    # `x == max x` is decided: the false statement's every failing trial is confirmed (it
    # was undecided, left out as unstable, and the check ended without a fail)
    false = check("Test.max_grad_off", env, trials=16)
    assert false.status == "fail", false.reason
    assert "the counterexample is confirmed exactly" in false.reason
    assert false.unstable_trials == 0
    true = check("Test.max_grad_sum", env, trials=16)
    assert true.status == "pass", true.reason


def test_failures_that_stop_at_an_undecided_branch_make_no_pass(env) -> None:
    # every failing trial's exact evaluation stops at the comparison: nothing says they were
    # artefacts, and as many as the trials asked for make the check decide nothing
    result = check("Test.branch", env, trials=16, draws=1)
    assert result.status == "unsupported", result.reason
    assert "a comparison no precision decided" in result.reason
    (draw,) = result.stats["per_draw"]
    assert draw["branching_trials"] >= 16
