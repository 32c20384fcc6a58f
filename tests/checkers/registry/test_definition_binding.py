"""A registered checker answers only while the definitions it reimplements are ingested.

A definition a registered checker computes by hand is changed in the ingested
text (the seed page's, or a copy of an upstream file in a tmp folder): the
registered checker is set aside and the theorem fails through the derived
checker, whose reason names the definition and where the two first differ.
Definitions that match (in any layout), that are not ingested or ingested
without an equation keep today's behaviour. Every formal registration
declares the definitions that its statement reaches in the corpus.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from checkers import REGISTRY, Environment, RegistrationError, Registry, check, describe
from checkers.registry.registrations import real
from theorem_index import read_paths
from theorem_index.lean import KnownNames, analyse_declaration
from theorem_index.model import Declaration

FAST = {"trials": 8, "draws": 1, "shrink": False}
DENSE = "Proofs.vit_rowDenseW_grad_bridge"
GRAD = "Proofs.rowDense_weight_grad"
ROW_LN = "Proofs.pdiv_rowLN_beta"
SEED_BODY = "X r i * dY r j"
WRITTEN_FOR = (
    "Proofs.rowDense_weight_grad {N a c : ℕ} (X : Mat N a) (dY : Mat N c) : Mat a c := "
    "fun i j => ∑ r : Fin N, X r i * dY r j"
)
DOUBLED_AT = "equation › body of `∑` › lhs: `X r i` vs `2 * X r i`"


@pytest.fixture(scope="module")
def seed_decls(seed_page) -> list[Declaration]:
    batch = read_paths([str(seed_page)])
    return [d for doc in batch.documents for d in doc.declarations]


def _replaced(decls: list[Declaration], name: str, **changes) -> list[Declaration]:
    out = [dataclasses.replace(d, **changes) if d.name == name else d for d in decls]
    assert out != decls
    return out


def _doubled(decls: list[Declaration]) -> list[Declaration]:
    """The seed page with `rowDense_weight_grad`'s equation made false: twice its sum."""
    (equation,) = next(d for d in decls if d.name == GRAD).equations
    assert SEED_BODY in equation
    return _replaced(decls, GRAD, equations=(equation.replace(SEED_BODY, "2 * " + SEED_BODY),))


def _formal() -> list[str]:
    return [n for n in REGISTRY if n not in REGISTRY.prose_claims()]


# --- a definition changed ------------------------------------------------------------


def test_check_changed_definition_sets_registered_aside_and_fails_via_derived(seed_decls):
    env = Environment.from_declarations(_doubled(seed_decls))
    result = check(DENSE, env, **FAST)
    assert (result.status, result.checker) == ("fail", "derived"), result.reason
    assert result.reason.startswith(
        f"registered checker set aside: it was written for another definition of {GRAD} "
        f"(they differ at {DOUBLED_AT}); the derived checker: 8 of 8 trials outside "
    )
    info = describe(DENSE, env)
    assert (info.kind, info.statement_matches, info.statement_difference) == (
        "derived",
        True,
        "",
    )
    assert info.reason.startswith(
        f"registered checker set aside: it was written for another definition of {GRAD} "
        f"(they differ at {DOUBLED_AT}); this one is the "
    )


def test_check_changed_definition_without_derived_is_error(seed_decls):
    env = Environment.from_declarations(_doubled(seed_decls), derive=None)
    result = check(DENSE, env, **FAST)
    assert (result.status, result.checker) == ("error", "registered")
    assert result.reason == (
        f"registered checker set aside: it was written for `{WRITTEN_FOR}`, but "
        "`noncomputable def Proofs.rowDense_weight_grad {N a c : ℕ} (X : Mat N a) "
        "(dY : Mat N c) : Mat a c; Proofs.rowDense_weight_grad X dY i j = "
        "∑ r : Fin N, 2 * X r i * dY r j` is ingested; they differ at "
        f"{DOUBLED_AT}; no derived checker takes its place (derived checkers are switched off)"
    )


def test_check_definition_ingested_as_another_kind_sets_registered_aside(seed_decls):
    env = Environment.from_declarations(_replaced(seed_decls, GRAD, kind="theorem"))
    binding = env.binding(DENSE)
    assert binding is not None and not binding.usable
    assert binding.explain() == (
        f"it was written for another definition of {GRAD} (they differ at the declaration "
        "kind: a definition vs a theorem)"
    )
    result = check(DENSE, env, **FAST)
    assert result.checker == "derived"
    assert result.reason.startswith(f"registered checker set aside: {binding.explain()}; ")


# --- definitions that match, or are not there ----------------------------------------


def test_check_unchanged_definitions_keep_registered_checker(seed_decls):
    env = Environment.from_declarations(seed_decls)
    binding = env.binding(DENSE)
    assert binding is not None and (binding.state, binding.drift) == ("matches", None)
    result = check(DENSE, env, **FAST)
    assert (result.status, result.checker) == ("pass", "registered"), result.reason
    assert result.reason.endswith("; the derived checker agreed (pass)")


def test_bind_definition_in_another_layout_matches(seed_decls):
    """The source's `f X dY = fun i j => e`, bound variables renamed and regrouped."""
    relaid = _replaced(
        seed_decls,
        GRAD,
        binders="{N : ℕ} {a c : ℕ} (X : Mat N a)\n  (dY : Mat N c)",
        equations=(f"{GRAD} X dY = (fun k l =>\n  ∑ s : Fin N, (X s k) * dY s l)",),
    )
    binding = Environment.from_declarations(relaid).binding(DENSE)
    assert binding is not None and (binding.state, binding.drift) == ("matches", None)


def test_check_absent_definition_keeps_registered_checker(seed_decls):
    """Like a statement not ingested: the checker keeps the definition it was written for
    (the derived checker cannot unfold it, so nothing disagrees)."""
    env = Environment.from_declarations([d for d in seed_decls if d.name != GRAD])
    binding = env.binding(DENSE)
    assert binding is not None and (binding.state, binding.drift) == ("matches", None)
    result = check(DENSE, env, **FAST)
    assert (result.status, result.checker) == ("pass", "registered"), result.reason
    assert result.reason.endswith(
        "; no derived checker to compare with: no semantics for: rowDense_weight_grad"
    )


def test_check_definition_without_equation_keeps_registered_checker(seed_decls):
    env = Environment.from_declarations(_replaced(seed_decls, GRAD, equations=()))
    binding = env.binding(DENSE)
    assert binding is not None and (binding.state, binding.drift) == ("matches", None)
    assert check(DENSE, env, **FAST).checker == "registered"


def test_check_statement_not_ingested_ignores_changed_definition(seed_decls):
    """Nothing ingested under the theorem's name: the registered checker checks the statement
    it was written for, with the definitions it was written for."""
    decls = [d for d in _doubled(seed_decls) if d.name != DENSE]
    env = Environment.from_declarations(decls)
    binding = env.binding(DENSE)
    assert binding is not None and (binding.state, binding.drift) == ("not ingested", None)
    assert check(DENSE, env, **FAST).checker == "registered"


# --- registration --------------------------------------------------------------------


def _register(registry: Registry, definitions):
    return registry.register(
        "Test.twice",
        statement="(x : ℝ) : twice x = 2 * x",
        inputs={"x": real()},
        definitions=definitions,
    )(lambda dims, dtype: lambda v: (2 * v["x"], 2 * v["x"]))


def test_repr_registration_names_definitions():
    entry = _register(Registry(), {"Test.twice": "(x : ℝ) : ℝ :=\n  x + x"})
    assert repr(entry).endswith(
        "definitions={'Test.twice': '(x : ℝ) : ℝ := x + x'}, "
        f"statement='(x : ℝ) : twice x = 2 * x')({__name__}._register.<locals>.<lambda>)"
    )


@pytest.mark.parametrize(
    ("definitions", "message"),
    [
        (
            {"Test.twice": "(x : ℝ) : ℝ = x + x"},
            "definition Test.twice does not parse: expected ':=', found end of input (at line 1, "
            "column 20)",
        ),
        ({"Test twice": "(x : ℝ) : ℝ := x"}, "definition name 'Test twice' is not a Lean name"),
        ({"Test.twice": ""}, "definition Test.twice: its Lean text must be a string, got ''"),
        (
            ["Test.twice"],
            "definitions must map each definition's name to its Lean text, got ['Test.twice']",
        ),
    ],
)
def test_refuse_registration_with_bad_definition(definitions, message):
    registry = Registry()
    with pytest.raises(RegistrationError) as info:
        _register(registry, definitions)
    assert str(info.value) == f"checker 'Test.twice': {message}"
    assert "Test.twice" not in registry


# --- every registration declares what it reimplements -------------------------------


def _reached(name: str, decls: list[Declaration]) -> list[str]:
    """The corpus's definitions with an equation that the statement ingested under `name`
    reaches, through their equations."""
    table: dict[str, Declaration] = {}
    for d in decls:
        table.setdefault(d.name, d)
    known = KnownNames(list(table))
    todo, seen, reached = [name], set(), []
    while todo:
        current = todo.pop(0)
        decl = table.get(current)
        if current in seen or decl is None:
            continue
        seen.add(current)
        if current != name:
            if decl.kind in ("theorem", "lemma") or not decl.equations:
                continue
            reached.append(current)
        todo.extend(analyse_declaration(decl, known).constants)
    return sorted(reached)


def _assert_declared(decls: list[Declaration]) -> None:
    env = Environment.from_declarations(decls)
    for name in _formal():
        declared = {d.name for d in REGISTRY[name].definitions}
        reached = _reached(name, decls)
        assert set(reached) <= declared, (name, sorted(set(reached) - declared))
        binding = env.binding(name)
        assert binding is not None and (binding.state, binding.drift) == ("matches", None)


def test_every_registration_declares_seed_page_definitions(seed_decls):
    assert _reached(DENSE, seed_decls) == [GRAD]
    _assert_declared(seed_decls)


def test_every_registration_declares_upstream_definitions(upstream_tree):
    batch = read_paths([str(upstream_tree)])
    decls = [d for doc in batch.documents for d in doc.declarations]
    _assert_declared(decls)
    names = {d.name for d in decls}
    for name in _formal():  # each declared definition is the upstream one, not invented
        assert {d.name for d in REGISTRY[name].definitions} <= names, name


# --- the upstream Lean source, one definition made false -----------------------------


def _changed_copy(source: Path, tmp_path: Path, old: str, new: str) -> Path:
    text = source.read_text(encoding="utf-8")
    assert text.count(old) == 1
    copy = tmp_path / source.name
    copy.write_text(text.replace(old, new), encoding="utf-8")
    return copy


def _check_files(paths: list[Path], name: str):
    batch = read_paths([str(p) for p in paths])
    env = Environment.from_declarations([d for doc in batch.documents for d in doc.declarations])
    return check(name, env, **FAST)


def test_check_upstream_changed_row_dense_weight_grad_fails_via_derived(upstream_tree, tmp_path):
    vit = upstream_tree / "Architectures" / "ViTClose.lean"
    changed = _changed_copy(
        vit,
        tmp_path,
        f"  fun i j => ∑ r : Fin N, {SEED_BODY}\n",
        "  fun i j => ∑ r : Fin N, 2 * X r i * dY r j\n",
    )
    assert _check_files([vit], DENSE).checker == "registered"
    result = _check_files([changed], DENSE)
    assert (result.status, result.checker) == ("fail", "derived"), result.reason
    assert result.reason.startswith(
        f"registered checker set aside: it was written for another definition of {GRAD} "
        f"(they differ at {DOUBLED_AT}); the derived checker: "
    )


def test_check_upstream_changed_bn_forward_fails_via_derived(upstream_tree, tmp_path):
    arch = upstream_tree / "Architectures"
    files = [arch / "ViTClose.lean", arch / "LayerNorm.lean", arch / "BatchNorm.lean"]
    unchanged = _check_files(files, ROW_LN)
    assert (unchanged.status, unchanged.checker) == ("pass", "registered"), unchanged.reason
    changed = _changed_copy(
        files[2],
        tmp_path,
        "  fun i => γ * bnXhat n ε x i + β\n",
        "  fun i => γ * bnXhat n ε x i + 2 * β\n",
    )
    result = _check_files([*files[:2], changed], ROW_LN)
    assert (result.status, result.checker) == ("fail", "derived"), result.reason
    assert result.reason.startswith(
        "registered checker set aside: it was written for another definition of "
        "Proofs.bnForward (they differ at equation › rhs: `β` vs `2 * β`); the derived checker: "
    )
