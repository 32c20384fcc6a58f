"""Mutants of statements (checkers/analysis/mutation.py): which edits are made, and how the outcome
of each is classified by the real harness."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from checkers import Environment, Registry
from checkers.analysis.mutation import classify, mutants, relation_of
from theorem_index.model import Declaration

sys.path.insert(0, str(Path(__file__).parents[1]))
from derived_support import definition, theorem  # noqa: E402


def _env(*decls: Declaration) -> Environment:
    return Environment.from_declarations(decls, registry=Registry())


def _by_op(decl: Declaration) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in mutants(decl):
        out.setdefault(m.operator, []).append(m.statement)
    return out


def test_each_operator_edits_one_site_of_the_relation() -> None:
    d = theorem("Proofs.t", "{n : ℕ} (x : Vec n) (i : Fin n)", "x i - 2 * x i = -(x i) + 0")
    ops = _by_op(d)
    assert "x i - 3 * x i = -x i + 0" in ops["numeral"]
    assert "x i - 2 * x i = -x i + 1" in ops["numeral"]
    assert "x i + 2 * x i = -x i + 0" in ops["plus-minus"]
    assert "x i - 2 * x i = -x i - 0" in ops["plus-minus"]
    assert "2 * x i - x i = -x i + 0" in ops["swap"]
    assert "x (i + 1) - 2 * x i = -x i + 0" in ops["index-shift"]
    # an equation's sides are not swapped (that states the same thing)
    assert all(not s.startswith("-x i + 0 =") for s in ops["swap"])


def test_binders_types_and_hypotheses_are_not_edited() -> None:
    d = theorem("Proofs.t", "(x : Vec 3) (h : 0 < x 1)", "∀ k : Fin 3, x k ≤ x k + 1")
    statements = [m.statement for m in mutants(d)]
    assert all(s.startswith("∀ k : Fin 3,") for s in statements)
    assert "∀ k : Fin 3, x k + 1 ≤ x k" in statements  # the sides of an inequality swap
    assert "∀ k : Fin 3, x k ≤ x k + 0" in statements  # a bound moves either way
    assert "∀ k : Fin 3, x (k + 1) ≤ x k + 1" in statements


def test_a_vector_bound_by_a_lambda_is_not_shifted_as_an_index() -> None:
    d = theorem("Proofs.t", "(x : Vec 3)", "(fun v : Vec 3 => v) x = (fun j => x j) ")
    assert all("v + 1" not in m.statement for m in mutants(d))
    assert any("x (j + 1)" in m.statement for m in mutants(d))


def test_no_mutants_for_what_is_not_a_relation() -> None:
    assert mutants(theorem("Proofs.t", "(x : ℝ)", "Differentiable ℝ fun y : ℝ => y")) == []
    assert relation_of("∀ x : ℝ, x ≤ x") == "≤"
    assert relation_of("(") is None


def test_limit_keeps_a_mix_of_operators() -> None:
    d = theorem("Proofs.t", "{n : ℕ} (x : Vec n) (i : Fin n)", "x i - 2 * x i = -(x i) + 0")
    assert {m.operator for m in mutants(d, limit=4)} == {
        "numeral",
        "plus-minus",
        "swap",
        "index-shift",
    }


SCALE = definition("Proofs.scale", "{n : ℕ} (x : Vec n)", "Vec n", "Proofs.scale x i = 2 * x i")


@pytest.mark.parametrize(
    ("statement", "outcome"),
    [
        ("scale x i = x i + x i", "killed"),  # 2 -> 3: false at every trial
        ("scale x i = x i + x i + 0 * 1", "equivalent"),  # 0 * 2 is still 0
        ("x i * x i ≤ x i * x i + 2", "not-shown-false"),  # 2 -> 3: still true
    ],
)
def test_outcomes_come_from_the_harness(statement: str, outcome: str) -> None:
    d = theorem("Proofs.t", "{n : ℕ} (x : Vec n) (i : Fin n)", statement)
    env = _env(SCALE, d)
    got = {}
    for m in mutants(d):
        got[m.statement] = classify(d, m, env, trials=8)[0]
    assert outcome in got.values(), got
    if outcome == "killed":
        assert got["scale x i = x i - x i"] == "killed"
    if outcome == "equivalent":
        assert got["scale x i = x i + x i + 0 * 2"] == "equivalent"
        assert got["scale x i = x i + x i + 1 * 1"] == "killed"
        assert got["scale x i = x i + x i - 0 * 1"] == "equivalent"


def test_a_mutant_outside_the_vocabulary_is_stillborn() -> None:
    d = theorem("Proofs.t", "(x : Vec 3)", "x (⟨2, by norm_num⟩ : Fin 3) = x 2")
    env = _env(d)
    outcomes = {m.statement: classify(d, m, env, trials=4) for m in mutants(d)}
    outcome, why = outcomes["x (⟨3, by norm_num⟩ : Fin 3) = x 2"]
    assert outcome == "stillborn" and "not an element of Fin 3" in why
