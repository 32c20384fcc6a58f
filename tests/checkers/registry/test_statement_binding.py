"""A registered checker answers only for the statement it was written for.

Each registered theorem's ingested statement is mutated (a side negated, a
numeral changed, indices swapped): the check must not pass, and the reason
says the registered checker was set aside and where the statements differ.
A statement that differs only in layout still gets the registered checker,
cross-checked against the derived twin; a twin that disagrees is an error.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import pytest

from checkers import (
    REGISTRY,
    CheckResult,
    Environment,
    RegistrationError,
    Registry,
    check,
    describe,
    repro,
)
from checkers.harness.crosscheck import combine
from checkers.registry.registrations import real
from theorem_index import read_paths
from theorem_index.model import Declaration

FAST = {"trials": 8, "draws": 1, "shrink": False}

# (theorem, mutation of its ingested statement, where the statements then differ)
MUTANTS = [
    (
        "Proofs.vit_rowDenseW_grad_bridge",
        lambda s: "-" + s,
        "lhs: `rowDense_weight_grad X (Mat.unflatten dy) i j` vs "
        "`-rowDense_weight_grad X (Mat.unflatten dy) i j`",
    ),
    (
        "Proofs.vit_rowDenseW_grad_bridge",
        lambda s: s.replace("(i, j)", "(j, i)"),
        "rhs › body of `∑` › lhs › argument 3 of `pdiv` › argument 1 of `finProdFinEquiv` "
        "› component 1: `i` vs `j`",
    ),
    ("Proofs.pdiv_rowLN_beta", lambda s: s.replace("= 1", "= 2"), "rhs: `1` vs `2`"),
    (
        "Proofs.pdiv_rowLN_beta",
        lambda s: s.replace("(β' 0)", "(2 * β' 0)"),
        "lhs › argument 1 of `pdiv` › body of `fun` › argument 1 of `Mat.flatten` › body of "
        "`fun` › argument 4 of `layerNormForward`: `β' 0` vs `2 * β' 0`",
    ),
    (
        "Proofs.sum_fin_prod",
        lambda s: s.replace("= ∑", "= -∑"),
        "rhs: `∑ (r : Fin m), ∑ (k : Fin n), f (finProdFinEquiv (r, k))` vs "
        "`-∑ (r : Fin m), ∑ (k : Fin n), f (finProdFinEquiv (r, k))`",
    ),
]


@pytest.fixture(scope="module")
def seed_decls(seed_page) -> list[Declaration]:
    batch = read_paths([str(seed_page)])
    return [d for doc in batch.documents for d in doc.declarations]


def _mutated(decls: list[Declaration], name: str, mutate) -> list[Declaration]:
    out = [
        dataclasses.replace(d, statement=mutate(d.statement)) if d.name == name else d
        for d in decls
    ]
    assert out != decls
    return out


def _formal() -> list[str]:
    """The registered checkers of formal statements (those of prose theorems are bound to
    a paragraph instead: tests/packs/lean4_mlir/test_vit_tiny.py)."""
    return [n for n in REGISTRY if n not in REGISTRY.prose_claims()]


def test_every_registered_checker_names_its_statement():
    assert _formal() == sorted({name for name, _, _ in MUTANTS})
    for name in _formal():
        assert REGISTRY[name].signature is not None and REGISTRY[name].statement


@pytest.mark.parametrize(("name", "mutate", "where"), MUTANTS)
def test_check_mutated_statement_runs_derived_and_does_not_pass(seed_decls, name, mutate, where):
    env = Environment.from_declarations(_mutated(seed_decls, name, mutate))
    result = check(name, env, **FAST)
    assert result.status in ("fail", "error"), result.reason
    assert result.checker == "derived"
    assert result.reason.startswith(
        f"registered checker set aside: it was written for another statement "
        f"(they differ at {where}); the derived checker: "
    )
    info = describe(name, env)
    assert (info.kind, info.statement_matches, info.statement_difference) == (
        "derived",
        False,
        where,
    )
    assert info.statement == REGISTRY[name].statement


@pytest.mark.parametrize(("name", "mutate", "where"), MUTANTS[::2])
def test_check_mutated_statement_without_derived_is_error(seed_decls, name, mutate, where):
    decls = _mutated(seed_decls, name, mutate)
    env = Environment.from_declarations(decls, derive=None)
    result = check(name, env, **FAST)
    ingested = next(d for d in decls if d.name == name)
    assert (result.status, result.checker) == ("error", "registered")
    assert result.reason == (
        f"registered checker set aside: it was written for `{REGISTRY[name].statement}`, "
        f"but `{ingested.binders} : {ingested.statement}` is ingested; they differ at {where}; "
        "no derived checker takes its place (derived checkers are switched off)"
    )
    assert describe(name, env).kind == "registered"
    assert repro(name, env, seed=0, dims={}).result.status == "error"


def test_check_layout_only_difference_keeps_registered_checker(seed_decls):
    name = "Proofs.pdiv_rowLN_beta"
    relaid = [
        dataclasses.replace(
            d,
            binders="(N : ℕ) (D : ℕ) (ε : ℝ) (γ : ℝ) (X : Mat N D)\n  (β : Vec 1) (i : Fin 1) "
            "(idx : Fin (N * D))",
            statement="pdiv (fun β'' : Vec 1 =>\n    Mat.flatten (fun r => layerNormForward D ε γ "
            "((β'' 0)) (X r)))\n  β i idx\n = (1)",
        )
        if d.name == name
        else d
        for d in seed_decls
    ]
    env = Environment.from_declarations(relaid)
    result = check(name, env, **FAST)
    assert (result.status, result.checker) == ("pass", "registered"), result.reason
    assert result.reason.endswith("; the derived checker agreed (pass)")
    assert result.stats["derived_twin"]["status"] == "pass"
    info = describe(name, env)
    assert (info.kind, info.statement_matches, info.statement_difference) == (
        "registered",
        True,
        "",
    )


def test_check_without_declaration_uses_registered_statement():
    env = Environment.from_declarations([], derive=None)
    result = check("Proofs.pdiv_rowLN_beta", env, **FAST)
    assert (result.status, result.checker) == ("pass", "registered")
    info = describe("Proofs.pdiv_rowLN_beta", env)
    assert info.statement_matches is None
    assert info.statement == REGISTRY["Proofs.pdiv_rowLN_beta"].statement


def test_repro_mutated_statement_replays_derived(seed_decls):
    name, mutate, _ = MUTANTS[2]
    env = Environment.from_declarations(_mutated(seed_decls, name, mutate))
    replay = repro(name, env, seed=0, dims={"N": 2, "D": 3}, trials=8)
    assert (replay.result.checker, replay.result.status) == ("derived", "fail")
    assert replay.lhs != replay.rhs


# --- registered and derived side by side ---------------------------------------------

DOUBLE = "(n : ℕ) (x : Fin n → ℝ) : ∑ i : Fin n, 2 * x i = 2 * ∑ i : Fin n, x i"


def _double_sum_env(lhs_factor: float) -> Environment:
    registry = Registry()

    @registry.register("Test.double_sum", statement=DOUBLE, dims=("n",), inputs={"x": real("n")})
    def double_sum(dims, dtype):
        return lambda v: (lhs_factor * jnp.sum(v["x"]), 2 * jnp.sum(v["x"]))

    binders, statement = DOUBLE.split(" : ∑", 1)
    decl = Declaration(
        name="Test.double_sum",
        kind="theorem",
        module="Test",
        binders=binders,
        statement="∑" + statement,
    )
    return Environment.from_declarations([decl], registry=registry)


def test_check_registered_disagreeing_with_derived_is_error():
    env = _double_sum_env(lhs_factor=3.0)  # computes 3 Σ x for the left side: wrong
    result = check("Test.double_sum", env, **FAST)
    assert (result.status, result.checker) == ("error", "registered")
    assert result.reason.startswith(
        "the registered and derived checkers disagree: registered says fail (8 of 8 trials "
    )
    assert "; derived says pass (8 trials at 1 dims draw agree" in result.reason
    assert result.counterexample is not None


def test_check_registered_agreeing_with_derived_passes_with_note():
    result = check("Test.double_sum", _double_sum_env(lhs_factor=2.0), **FAST)
    assert (result.status, result.checker) == ("pass", "registered")
    assert result.reason == (
        "8 trials at 1 dims draw agree within atol=2.22507e-318, rtol=1e-10; "
        "the derived checker agreed (pass)"
    )


# --- registration ----------------------------------------------------------------


def test_refuse_registration_with_unparsable_statement():
    registry = Registry()
    with pytest.raises(RegistrationError) as info:
        registry.register(
            "Test.bad", statement="(x : ℝ) x = x", dims=("n",), inputs={"x": real("n")}
        )
    assert str(info.value) == (
        "checker 'Test.bad': its statement does not parse: "
        "expected ':', found 'x' (at line 1, column 9)"
    )
    assert "Test.bad" not in registry
    with pytest.raises(RegistrationError, match="statement must be the theorem's Lean text"):
        registry.register("Test.blank", statement="  ", inputs={})


def test_repr_registration_names_statement():
    text = repr(REGISTRY["Proofs.pdiv_rowLN_beta"])
    assert f"statement={REGISTRY['Proofs.pdiv_rowLN_beta'].statement!r})(" in text


def test_check_unnamed_registration_never_answers_for_ingested_statement():
    registry = Registry()
    registry.register("Test.same", dims=("n",), inputs={"x": real("n")})(
        lambda dims, dtype: lambda v: (v["x"], v["x"])
    )
    decl = Declaration(
        name="Test.same", kind="theorem", module="Test", binders="(x : ℝ)", statement="x = x + 1"
    )
    env = Environment.from_declarations([decl], registry=registry, derive=None)
    result = check("Test.same", env, **FAST)
    assert (result.status, result.checker) == ("error", "registered")
    assert result.reason.startswith(
        "registered checker set aside: the registered checker names no statement it was "
        "written for; no derived checker takes its place"
    )


# --- the upstream Lean source ------------------------------------------------------


def test_upstream_source_statements_match_registered(upstream_tree):
    batch = read_paths([str(upstream_tree / "Architectures" / "ViTClose.lean")])
    decls = [d for doc in batch.documents for d in doc.declarations]
    env = Environment.from_declarations(decls)
    for name in _formal():
        assert name in env
        binding = env.binding(name)
        assert binding is not None and binding.matches, (name, binding)


def _result(status: str, reason: str) -> CheckResult:
    return CheckResult(name="Test.t", status=status, checker="registered", reason=reason)


@pytest.mark.parametrize(
    ("mine", "twin", "status", "reason"),
    [
        ("pass", "pass", "pass", "r; the derived checker agreed (pass)"),
        ("fail", "fail", "fail", "r; the derived checker agreed (fail)"),
        (
            "pass",
            "fail",
            "error",
            "the registered and derived checkers disagree: registered says pass (r); "
            "derived says fail (d)",
        ),
        (
            "fail",
            "error",
            "error",
            "the registered and derived checkers disagree: registered says fail (r); "
            "derived says error (d)",
        ),
        ("pass", "unsupported", "pass", "r; the derived checker could not check it: d"),
        ("unsupported", "fail", "fail", "the registered checker could not check it (r); d"),
    ],
)
def test_combine_registered_and_derived_verdicts(mine, twin, status, reason):
    derived = dataclasses.replace(_result(twin, "d"), checker="derived")
    combined = combine(_result(mine, "r"), derived)
    assert (combined.status, combined.reason) == (status, reason)


def test_comparison_that_raises_sets_registered_checker_aside(monkeypatch, seed_decls):
    def broken(*args, **kwargs):
        raise RuntimeError("analyser bug")

    monkeypatch.setattr("checkers.registry.binding.analyse_declaration", broken)
    env = Environment.from_declarations(seed_decls, derive=None)
    result = check("Proofs.pdiv_rowLN_beta", env, **FAST)
    assert (result.status, result.checker) == ("error", "registered")
    assert "they differ at the comparison, which raised RuntimeError: analyser bug" in result.reason
