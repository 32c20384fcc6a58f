"""Exponentials are held as their logarithms, so that they meet beyond float64's range.

`Real.exp 1000` is no float64 (e^709.8 is the largest), but in ℝ the softmax
`e^a / ∑ e^b`, `log (e^a + e^b)` and their derivatives are ordinary numbers;
evaluated as floats they were inf / inf = NaN, and a true theorem ended
`error`. Products, quotients, sums and logarithms of exponentials stay in log
space; whatever else reads the value gets e^x, as before.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from derived_support import definition, environment, real, theorem, value

from checkers import check

Z = {"z": real([1000.0, 999.0, 0.0])}


@pytest.mark.parametrize(
    "text, env, expected",
    [
        ("Real.log (Real.exp 1000)", {}, 1000.0),
        ("Real.exp 1000 / Real.exp 999", {}, math.e),
        ("Real.exp 1000 * Real.exp (-1000)", {}, 1.0),
        ("Real.log (Real.exp 800 + Real.exp 800) - 800", {}, math.log(2)),
        ("(∏ k : Fin 3, Real.exp (z k)) / Real.exp (z 0 + z 1 + z 2)", Z, 1.0),
        ("Real.log (∑ k : Fin 3, Real.exp (z k)) - z 0", Z, math.log1p(math.exp(-1))),
        ("∑ k : Fin 2, Real.exp 1000 / Real.exp 1000", {}, 2.0),
        ("∑ k : Fin 0, Real.exp 1000", {}, 0.0),  # the empty sum, not inf * 0
        ("∏ k : Fin 0, Real.exp 1000", {}, 1.0),
        ("Real.exp 1000 ^ 2 / Real.exp 1999", {}, math.e),
        ("Real.exp 1000 ^ (1 / 2 : ℝ) / Real.exp 499", {}, math.e),
        ("Real.sqrt (Real.exp 1000) / Real.exp 499", {}, math.e),
        ("(Real.exp 1000)⁻¹ * Real.exp 1001", {}, math.e),
        ("|Real.exp 1000| / Real.exp 999", {}, math.e),
        ("Real.exp 2 ^ 0", {}, 1.0),
        ("Real.exp 1", {}, math.e),
        ("Real.sin (Real.exp 0)", {}, math.sin(1.0)),
        ("Real.log 0", {}, 0.0),  # Lean's total logarithm is unchanged
        ("Real.log (-2)", {}, math.log(2)),
    ],
)
def test_combine_exponentials_in_log_space(text: str, env: dict, expected: float) -> None:
    # abs: a difference such as `log (…) - 800` keeps the rounding of 800 (1.1e-13)
    assert value(text, env) == pytest.approx(expected, rel=1e-14, abs=2e-13)


def test_evaluate_softmax_of_large_logits() -> None:
    got = value("fun (j : Fin 3) => Real.exp (z j) / ∑ k : Fin 3, Real.exp (z k)", Z)
    e = 1 / (1 + math.e)
    assert got == pytest.approx([1 - e, e, 0.0], rel=1e-14)


def test_differentiate_through_log_space() -> None:
    assert value("deriv (fun x => Real.log (Real.exp x + Real.exp x)) 1000") == pytest.approx(
        1.0, rel=1e-12
    )
    got = value("deriv (fun x => Real.exp x / (Real.exp x + Real.exp x)) 1000")
    assert abs(got) < 1e-12


def test_read_a_lone_overflowing_exponential_as_infinite() -> None:
    # nothing brings it back into range: its value is what float64 gives
    assert np.isinf(value("Real.exp 1000"))


# the upstream project's softmax and cross-entropy, as written there
SOFTMAX = definition(
    "Proofs.sm",
    "(c : ℕ) (z : Vec c)",
    "Vec c",
    "Proofs.sm c z = let e : Vec c := fun j => Real.exp (z j); "
    "let total := ∑ k : Fin c, e k; fun j => e j / total",
)
CROSS_ENTROPY = definition(
    "Proofs.ce",
    "(c : ℕ) (z : Vec c) (l : Fin c)",
    "ℝ",
    "Proofs.ce c z l = -(Real.log (sm c z l))",
)


@pytest.mark.parametrize(
    "binders, statement, status",
    [
        # logits of 100 · z reach thousands in the stress-scaled trials
        (
            "{n : ℕ} (z : Vec n) (l : Fin n)",
            "ce n (fun i => 100 * z i) l = "
            "Real.log (∑ k : Fin n, Real.exp (100 * z k - 100 * z l))",
            "pass",
        ),
        (
            "{n : ℕ} (z : Vec n) (l : Fin n)",
            "ce n (fun i => 100 * z i) l = Real.log (∑ k : Fin n, Real.exp (100 * z k))",
            "fail",
        ),
        (
            "{n : ℕ} (z : Vec n) (l k : Fin n)",
            "pdiv (fun v : Vec n => fun _ : Fin 1 => ce n (fun i => 100 * v i) l) z k 0 = "
            "100 * (sm n (fun i => 100 * z i) k - if k = l then 1 else 0)",
            "pass",
        ),
        (
            "{n : ℕ} (z : Vec n) (l k : Fin n)",
            "pdiv (fun v : Vec n => fun _ : Fin 1 => ce n (fun i => 100 * v i) l) z k 0 = "
            "100 * sm n (fun i => 100 * z i) k",
            "fail",
        ),
        (
            "{n : ℕ} (z : Vec n) (j : Fin n)",
            "Real.exp (1000 * z j) / ∑ k : Fin n, Real.exp (1000 * z k) ≤ 1",
            "pass",
        ),
    ],
)
def test_check_softmax_statement_with_large_logits(
    binders: str, statement: str, status: str
) -> None:
    env = environment(SOFTMAX, CROSS_ENTROPY, theorem("Proofs.t", binders, statement))
    result = check("Proofs.t", env, trials=16, seed=0)
    assert result.status == status, result.reason
