"""Derivatives are measured like the rest of a statement (checkers/language/metered.py).

The additions a derivative makes are JAX's (the differentiated function's own and the
differentiation rules'), so the meter sees them only through the derivative's jaxpr.
Where they cancel, the comparison must allow for the error of their operands, or a
statement that holds fails; where they do not, a false statement still fails.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from derived_support import definition, environment, theorem

from checkers.harness.check import run_checker
from checkers.language.measure import Meter
from checkers.language.metered import evaluate

# the upstream project's GELU (LeanMlir/Proofs/Architectures/LayerNorm.lean)
GELU = (
    definition(
        "Proofs.geluScalar",
        "(x : ℝ)",
        "ℝ",
        "Proofs.geluScalar x = 0.5 * x * (1 + Real.tanh (Real.sqrt (2 / Real.pi) * "
        "(x + 0.044715 * x ^ 3)))",
    ),
    definition(
        "Proofs.gelu",
        "(n : ℕ) (x : Fin n → ℝ)",
        "Fin n → ℝ",
        "Proofs.gelu n x = fun i => Proofs.geluScalar (x i)",
    ),
)
BINDERS = "(n : ℕ) (x dy : Fin n → ℝ) (i : Fin n)"
# at x = -5.116 `1 + tanh u` is 4.0e-8, rounded to 1e-16: the derivative, -7.2e-7, is
# the sum of two terms (2.0e-8 and -7.4e-7) that carry that rounding, 2e-15, and the two
# sides compute it along different paths (a JVP of the scalar, a VJP of the vector)
X = np.array(
    [
        -1.09273878196097,
        16.54808533754356,
        -12.627006828876484,
        -5.11614334180364,
        2.1034339054482083,
    ]
)
DY = np.ones(5)


def _checker(statement: str):
    env = environment(*GELU, theorem("Proofs.gelu_vjp", BINDERS, statement))
    checker = env.resolve("Proofs.gelu_vjp")
    assert not hasattr(checker, "reason"), checker
    return checker


HOLDS = "deriv Proofs.geluScalar (x i) * dy i = ∑ j, pdiv (Proofs.gelu n) x i j * dy j"


def _measured(checker, i: int):
    fn = checker.build_measured({"n": 5}, jnp.float64)
    lhs, rhs, measures = jax.jit(fn)({"x": X, "dy": DY, "i": np.int64(i)})
    return float(lhs), float(rhs), float(measures["scale"])


def test_a_derivative_that_cancels_is_compared_at_its_operands_scale():
    lhs, rhs, scale = _measured(_checker(HOLDS), 3)
    assert abs(lhs) < 1e-6 and abs(lhs - rhs) > 1e-10 * abs(lhs)  # beyond rtol x |side|
    assert scale >= 1.0  # the operands of `1 + tanh u`, inside both derivatives
    assert abs(lhs - rhs) <= 1e-10 * max(abs(lhs), abs(rhs), scale)


def test_the_statement_passes_and_its_mutants_fail():
    kw = {
        "trials": 64,
        "seed": 0,
        "dtype": "float64",
        "dims": None,
        "draws": None,
        "shrink_failures": False,
    }
    assert run_checker(_checker(HOLDS), **kw).status == "pass"
    for mutant in (
        HOLDS.replace("dy i =", "dy i * 1.0001 ="),  # a relative change of 1e-4
        HOLDS.replace("* dy j", "* x j"),  # another cotangent on one side
        HOLDS.replace("(x i) * dy i", "(x i + 1e-6) * dy i"),  # a point moved by 1e-6
    ):
        assert mutant != HOLDS
        assert run_checker(_checker(mutant), **kw).status == "fail", mutant


def _jvp_of(f):
    return lambda x, t: jax.jvp(f, (x,), (t,))[1]


def _scale_and_value(fn, *args):
    def traced(*xs):
        meter = Meter(underflow=False)
        closed = jax.make_jaxpr(fn)(*xs)
        (out,) = evaluate(closed, list(xs), meter)
        return out, meter.scale()

    return jax.jit(traced)(*args)


def test_the_rules_additions_are_measured():
    # d/dx (x·x - x) at 0.5 is 2x - 1 = 0: the product rule adds x·1 + 1·x, then 1 is
    # taken away; the operands are 0.5 and 1, the result 0
    out, scale = _scale_and_value(_jvp_of(lambda x: x * x - x), 0.5, 1.0)
    assert float(out) == 0.0 and float(scale) == 1.0


def test_values_are_those_of_the_transformation():
    f = lambda x: jnp.sin(x) @ jnp.ones((3, 2)) + jnp.cumsum(x)[:2]  # noqa: E731
    x, t = np.array([0.3, -1.2, 2.0]), np.array([1.0, 0.5, -2.0])
    out, scale = _scale_and_value(_jvp_of(f), x, t)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(_jvp_of(f)(x, t)))
    assert float(scale) >= np.max(np.abs(np.sin(x)))  # the matrix product's terms


def test_nested_jits_are_measured_inside():
    inner = jax.jit(lambda a, b: a - b)
    out, scale = _scale_and_value(_jvp_of(lambda x: inner(x * x, x)), 0.5, 1.0)
    assert float(out) == 0.0 and float(scale) == 1.0


def test_values_closed_over_from_the_trial_stay_the_trials():
    def trial(w, x):
        f = lambda y: y * y * w - w  # noqa: E731  (w belongs to the trial's trace)
        meter = Meter(underflow=False)
        closed = jax.make_jaxpr(_jvp_of(f))(x, 1.0)
        (out,) = evaluate(closed, [x, 1.0], meter)
        return out, meter.scale()

    # the tangent (1·y + y·1)·w at y = 2, w = 3; its one addition has operands 2 and 2
    # (the primal's `12 - 3`, which nothing compared uses, is not measured)
    out, scale = jax.jit(trial)(3.0, 2.0)
    assert float(out) == 12.0 and float(scale) == 2.0


BIG = definition("Proofs.big", "(x : ℝ)", "ℝ", "Proofs.big x = x * x + 100000000")


def test_what_a_derivative_does_not_use_is_not_measured():
    # the JVP of `big` computes `x * x + 1e8` too, for its primal value, which nothing
    # compares: measured, it would allow an error of 1e-2 at rtol 1e-10
    kw = {"trials": 64, "seed": 0, "dtype": "float64", "dims": None, "draws": None}
    for statement, status in (
        ("deriv Proofs.big x = 2 * x", "pass"),
        ("deriv Proofs.big x = 2 * x + 0.001", "fail"),
    ):
        env = environment(BIG, theorem("Proofs.big_deriv", "(x : ℝ)", statement))
        checker = env.resolve("Proofs.big_deriv")
        assert not hasattr(checker, "reason"), checker
        assert run_checker(checker, shrink_failures=False, **kw).status == status, statement


@pytest.mark.parametrize("n", [1, 3])
def test_a_vjp_contraction_passes_at_every_index(n):
    checker = _checker(
        "∑ j, pdiv (Proofs.gelu n) x j i * dy j = deriv Proofs.geluScalar (x i) * dy i"
    )
    kw = {
        "trials": 16,
        "seed": 1,
        "dtype": "float64",
        "dims": {"n": n},
        "draws": 1,
        "shrink_failures": False,
    }
    assert run_checker(checker, **kw).status == "pass"
