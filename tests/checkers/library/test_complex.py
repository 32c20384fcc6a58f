"""ℂ with Mathlib's semantics (library/complex, language/complex.py): identities of
Mathlib hold, each one stated wrong fails with a counterexample confirmed exactly (the
complex primitives evaluated on pairs of intervals, confirm/complex.py), Lean's totality
holds at the points where floats would differ, and an order on ℂ is refused."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
import pytest
from derived_support import environment, theorem

from checkers import check
from checkers.evaluator.evaluate import Evaluator
from checkers.language.coercion import Ctx
from checkers.language.values import Arr, as_array
from checkers.library.semantics import Semantics
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive
from theorem_index.lean import parse_term, resolve

Z = "(x y : ℂ)"
STATEMENTS = {
    "exp_add": (Z, "Complex.exp (x + y) = Complex.exp x * Complex.exp y"),
    "cos_pi_sub": ("(x : ℂ)", "Complex.cos (Real.pi - x) = -Complex.cos x"),
    "sin_sq_add_cos_sq": ("(x : ℂ)", "Complex.sin x ^ 2 + Complex.cos x ^ 2 = 1"),
    "mul_re": (Z, "(x * y).re = x.re * y.re - x.im * y.im"),
    "mul_im": (Z, "(x * y).im = x.re * y.im + x.im * y.re"),
    "log_re": ("(x : ℂ)", "(Complex.log x).re = Real.log ‖x‖"),
    "log_im_le_pi": ("(x : ℂ)", "(Complex.log x).im ≤ Real.pi"),
    "neg_pi_lt_log_im": ("(x : ℂ)", "-Real.pi < (Complex.log x).im"),
    "exp_log": ("(x : ℂ) (hx : x ≠ 0)", "Complex.exp (Complex.log x) = x"),
    "arg_ofReal_of_neg": ("(x : ℝ) (hx : x < 0)", "Complex.arg x = Real.pi"),
    "I_mul_I": ("", "Complex.I * Complex.I = -1"),
    "conj_mul": (Z, "starRingEnd ℂ (x * y) = starRingEnd ℂ x * starRingEnd ℂ y"),
    "mul_conj": ("(x : ℂ)", "x * starRingEnd ℂ x = (Complex.normSq x : ℂ)"),
    "norm_mul": (Z, "‖x * y‖ = ‖x‖ * ‖y‖"),
    "norm_add_le": (Z, "‖x + y‖ ≤ ‖x‖ + ‖y‖"),
    "div_zero": ("(x : ℂ)", "x / 0 = 0"),
    "inv_zero": ("", "(0 : ℂ)⁻¹ = 0"),
    "pow_succ": ("(x : ℂ) (n : ℕ)", "x ^ (n + 1) = x ^ n * x"),
    "zpow_neg": ("(x : ℂ)", "x ^ (-2 : ℤ) = (x ^ 2)⁻¹"),
    "cpow_add_one": ("(x y : ℂ) (hx : x ≠ 0)", "x ^ (y + 1) = x ^ y * x"),
    "cpow_zero": ("(x : ℂ)", "x ^ (0 : ℂ) = 1"),
    "ofReal_mul": ("(a b : ℝ)", "((a * b : ℝ) : ℂ) = (a : ℂ) * (b : ℂ)"),
    "exp_re": ("(x : ℂ)", "(Complex.exp x).re = Real.exp x.re * Real.cos x.im"),
    # mutants: a sign flipped, a conjugate dropped, the wrong identity, a branch moved
    "cos_pi_sub_wrong": ("(x : ℂ)", "Complex.cos (Real.pi - x) = Complex.cos x"),
    "mul_re_wrong": (Z, "(x * y).re = x.re * y.re + x.im * y.im"),
    "conj_mul_wrong": (Z, "starRingEnd ℂ (x * y) = starRingEnd ℂ x * y"),
    "exp_add_wrong": (Z, "Complex.exp (x + y) = Complex.exp x + Complex.exp y"),
    "sqrt_sq_wrong": ("(x : ℂ)", "(x ^ (1 / 2 : ℂ)) ^ 2 = x + 1"),
    "arg_ofReal_of_neg_wrong": ("(x : ℝ) (hx : x < 0)", "Complex.arg x = -Real.pi"),
    "exp_re_wrong": ("(x : ℂ)", "(Complex.exp x).re = Real.exp x.re * Real.sin x.im"),
    # derivatives of functions of ℂ (and of ℝ into ℂ), and their mutants
    "deriv_cos": ("(x : ℂ)", "deriv Complex.cos x = -Complex.sin x"),
    "deriv_exp": ("", "deriv Complex.exp = Complex.exp"),
    "hasDerivAt_tan": ("(x : ℂ)", "HasDerivAt Complex.tan (1 / Complex.cos x ^ 2) x"),
    "deriv_exp_mul_I": (
        "(x : ℝ)",
        "deriv (fun t : ℝ => Complex.exp (t * Complex.I)) x = "
        "Complex.I * Complex.exp (x * Complex.I)",
    ),
    # a product that is 0 wherever it is differentiated is no kink (measure.py's moduli)
    "deriv_through_zero_product": ("(x : ℂ)", "deriv (fun z => z * 0 + z) x = 1"),
    "deriv_cos_wrong": ("(x : ℂ)", "deriv Complex.cos x = Complex.sin x"),
    "hasDerivAt_sinh_wrong": ("(x : ℂ)", "HasDerivAt Complex.sinh (Complex.sinh x) x"),
    "deriv_exp_mul_I_wrong": (
        "(x : ℝ)",
        "deriv (fun t : ℝ => Complex.exp (t * Complex.I)) x = Complex.exp (x * Complex.I)",
    ),
    # a hypothesis dropped: false only at 0, and only on log's branch cut (x < 0 real),
    # which the boundary trials reach (regimes.py)
    "exp_log_wrong": ("(x : ℂ)", "Complex.exp (Complex.log x) = x"),
    "log_inv_wrong": ("(x : ℂ)", "Complex.log x⁻¹ = -Complex.log x"),
}


@pytest.fixture(scope="module")
def env():
    return environment(*(theorem(f"Proofs.{n}", b, s) for n, (b, s) in STATEMENTS.items()))


@pytest.mark.parametrize("name", [n for n in STATEMENTS if not n.endswith("_wrong")])
def test_complex_identity_passes(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=32)
    assert result.status == "pass", result.reason


@pytest.mark.parametrize("name", [n for n in STATEMENTS if n.endswith("_wrong")])
def test_complex_identity_stated_wrong_fails_confirmed(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=64)
    assert result.status == "fail", result.reason
    assert "confirmed exactly" in result.reason, result.reason


def test_a_complex_binder_is_drawn_as_its_parts() -> None:
    # a number and a vector of complex numbers; a hypothesis on a part bounds that part
    env = environment(
        theorem(
            "Proofs.parts",
            "{n : ℕ} (z : ℂ) (v : Fin n → ℂ) (h : 0 < z.re)",
            "z * v 0 = v 0 * z",
        )
    )
    checker = derive("Proofs.parts", env)
    assert isinstance(checker, DerivedChecker)
    specs = checker.input_specs({"n": 3})
    assert set(specs) == {"z.re", "z.im", "v.re", "v.im"}
    assert specs["v.re"].shape == specs["v.im"].shape == (3,)
    assert specs["z.re"].bounds and not specs["z.im"].bounds


def test_a_function_that_is_not_complex_differentiable_decides_nothing() -> None:
    # conj fails the Cauchy-Riemann equations everywhere: Mathlib's `deriv` is 0 there, and
    # a check that differentiated it along one axis would pass `deriv conj x = 1`
    env = environment(theorem("Proofs.d", "(x : ℂ)", "deriv (fun z : ℂ => starRingEnd ℂ z) x = 1"))
    result = check("Proofs.d", env, trials=16)
    assert result.status == "unsupported"
    assert "differentiable" in result.reason


def test_an_order_on_complex_numbers_is_refused() -> None:
    env = environment(theorem("Proofs.le", "(x y : ℂ)", "x ≤ x + y * 0"))
    result = check("Proofs.le", env, trials=8)
    assert result.status == "unsupported"
    assert "ComplexOrder" in result.reason


def _value(text: str, **values: complex) -> complex:
    sem = Semantics()
    env = {k: Arr(jnp.asarray(v, jnp.complex128), "complex") for k, v in values.items()}
    term = resolve(parse_term(text), bound=tuple(env), namespace="Complex", known=sem.known).term
    v = Evaluator(sem, Ctx()).eval(term, env)
    return complex(np.asarray(as_array(v)))


def test_lean_totality_at_the_points_floats_get_wrong() -> None:
    # arg on the negative real axis is π, whatever the sign of a zero imaginary part
    assert _value("arg x", x=complex(-2.0, -0.0)).real == pytest.approx(math.pi)
    assert _value("arg x", x=complex(-2.0, 0.0)).real == pytest.approx(math.pi)
    assert _value("arg x", x=0j) == 0
    assert _value("log x", x=0j) == 0  # Real.log 0 + arg 0 * I
    assert _value("x / y", x=1 + 2j, y=0j) == 0
    assert _value("x ^ y", x=0j, y=0j) == 1  # cpow: 0 ^ 0 = 1
    assert _value("x ^ y", x=0j, y=0.5 + 0j) == 0  # 0 ^ w = 0 for w ≠ 0
    assert _value("log x", x=-1 + 0j) == pytest.approx(math.pi * 1j)
    assert _value("exp x", x=1j * math.pi) == pytest.approx(-1)
    assert _value("tan x", x=complex(math.pi / 2, 0)).imag == pytest.approx(0)


def test_each_part_of_a_complex_product_is_compared_at_the_products_scale() -> None:
    # the imaginary part of x * x⁻¹ is about 1e-17, the exact one 0: compared at its own
    # scale every trial would fail in float64 and be replaced; at the modulus's, none is
    env = environment(
        theorem("Proofs.inv", "(x : ℂ) (hx : x ≠ 0)", "x * x⁻¹ = 1"),
        theorem("Proofs.off", "(x y : ℂ)", "x * y = y * x + 1 / 1000000000"),
    )
    result = check("Proofs.inv", env, trials=16)
    assert result.status == "pass" and result.unstable_trials == 0, result.reason
    off = check("Proofs.off", env, trials=16)  # a difference of 1e-9 still fails
    assert off.status == "fail" and "confirmed exactly" in off.reason, off.reason
