"""Static coverage (checkers/analysis/coverage.py): which theorems get a checker, and the missing
vocabulary ranked by the theorems each name would unlock."""

from __future__ import annotations

from checkers import Environment, Registry, Unsupported
from checkers.analysis.coverage import Blocker, blocker, coverage
from theorem_index.model import Declaration


def environment(*decls: Declaration) -> Environment:
    return Environment.from_declarations(decls, registry=Registry())


def definition(name: str, binders: str, type_: str, equation: str) -> Declaration:
    return Declaration(
        name=name,
        kind="def",
        module="Defs",
        binders=binders,
        statement=type_,
        equations=(equation,),
        namespace="Proofs",
    )


def _theorem(name: str, module: str, binders: str, statement: str) -> Declaration:
    return Declaration(
        name=name,
        kind="theorem",
        module=module,
        binders=binders,
        statement=statement,
        namespace="Proofs",
    )


DECLS = (
    definition("Proofs.double", "(x : ℝ)", "ℝ", "Proofs.double x = 2 * x"),
    _theorem("Proofs.ok", "A", "(x : ℝ)", "double x = x + x"),
    _theorem("Proofs.sum", "A", "{n : ℕ} (v : Vec n)", "∑ j, v j = ∑ j : Fin n, v j"),
    _theorem("Proofs.foo_only", "A", "(x : ℝ)", "foo x = x"),
    _theorem("Proofs.foo_bar", "B", "(x : ℝ)", "foo x = bar x"),
    _theorem("Proofs.foo_again", "B", "(x : ℝ)", "foo (x + 1) = 0"),
    _theorem("Proofs.exists", "B", "(x : ℝ)", "∃ y : ℝ, y = x"),
    _theorem("Proofs.untyped", "B", "", "∀ a b, a + b = b + a"),
)


def test_count_checked_and_unsupported_per_module() -> None:
    report = coverage(environment(*DECLS))
    rows = [(m.module, m.theorems, m.checked, m.unsupported) for m in report.modules]
    assert rows == [("A", 3, 2, 1), ("B", 4, 0, 4)]
    assert (report.theorems, report.checked, report.unsupported) == (7, 2, 5)


def test_rank_vocabulary_by_sole_blocker_then_blocks() -> None:
    report = coverage(environment(*DECLS))
    ranked = [(v.name, v.sole_blocker, v.blocks, v.example) for v in report.vocabulary]
    # `foo` alone blocks Proofs.foo_only and Proofs.foo_again; with `bar`, Proofs.foo_bar
    assert ranked == [("foo", 2, 3, "Proofs.foo_again"), ("bar", 0, 1, "Proofs.foo_bar")]


def test_group_reasons_without_missing_vocabulary() -> None:
    report = coverage(environment(*DECLS))
    assert dict(report.other_reasons) == {
        "the statement is an existential (∃) whose witness is not given": 1,
        "the binder a has no type, and its uses do not settle it": 1,
    }


def test_restrict_coverage_to_one_module() -> None:
    report = coverage(environment(*DECLS), module="A")
    assert [m.module for m in report.modules] == ["A"]
    assert [(v.name, v.sole_blocker, v.blocks) for v in report.vocabulary] == [("foo", 1, 1)]
    assert coverage(environment(*DECLS), module="Z").theorems == 0


def test_decide_blocker_like_the_derived_checker() -> None:
    env = environment(*DECLS)
    assert blocker("Proofs.ok", env) is None
    assert blocker("Proofs.sum", env) is None
    assert blocker("Proofs.foo_bar", env) == Blocker("no semantics for: bar, foo", ("bar", "foo"))
    assert blocker("Proofs.nothing", env) == Blocker("Proofs.nothing is not declared")


def test_count_definition_of_a_type_without_semantics_as_missing_vocabulary() -> None:
    env = environment(
        definition("Proofs.wz", "", "Multiset ℤ", "Proofs.wz = Proofs.wz"),
        definition("Proofs.wr", "", "Fin 3 → ℝ", "Proofs.wr = fun j => ((wz).sum : ℝ) / 256"),
        _theorem("Proofs.row", "A", "", "∀ a, wr a ≤ 1"),
    )
    assert blocker("Proofs.row", env) == Blocker("no semantics for: Multiset", ("Multiset",))
    assert [(v.name, v.sole_blocker) for v in coverage(env).vocabulary] == [("Multiset", 1)]


def test_count_list_data_as_covered() -> None:
    env = environment(
        definition("Proofs.wz", "", "List ℤ", "Proofs.wz = [1, 2, 3]"),
        definition("Proofs.wr", "", "Fin 3 → ℝ", "Proofs.wr = fun j => ((wz).getD j 0 : ℝ) / 256"),
        _theorem("Proofs.row", "A", "", "∀ a, wr a ≤ 1"),
    )
    assert blocker("Proofs.row", env) is None


PROPOSITIONS = (
    definition("Proofs.Below", "(a b : ℝ)", "Prop", "Proofs.Below a b = (∀ z, z ≤ a → z ≤ b)"),
    _theorem("Proofs.conj", "P", "(x : ℝ)", "x + 0 = x ∧ x * 1 = x"),
    _theorem("Proofs.unfold", "P", "(a b : ℝ) (h : a ≤ b)", "Below a b"),
    _theorem("Proofs.ne", "P", "(x : ℝ)", "Real.exp x ≠ 0"),
    _theorem("Proofs.iff", "P", "(x : ℝ)", "0 < x ↔ 0 < x ^ 3"),
    _theorem("Proofs.conj_foo", "P", "(x : ℝ)", "x = x ∧ foo x = 0"),
    _theorem("Proofs.list", "P", "", "∀ p ∈ someList, p = p"),
)


def test_count_propositions_the_derived_checker_splits() -> None:
    env = environment(*PROPOSITIONS)
    for name in ("Proofs.conj", "Proofs.unfold", "Proofs.ne", "Proofs.iff"):
        assert blocker(name, env) is None, name
    assert blocker("Proofs.conj_foo", env) == Blocker(
        "no semantics for: foo (in clause 2 of 2: foo x = 0)", ("foo",)
    )
    why = blocker("Proofs.list", env)
    assert why is not None and why.reason.startswith("a ∀ bounded by a set the evaluator")


def test_agree_with_the_derived_checker_on_propositions() -> None:
    from checkers.statements.derive import derive

    env = environment(*PROPOSITIONS)
    for decl in PROPOSITIONS[1:]:
        why = blocker(decl.name, env)
        got = derive(decl.name, env)
        assert (why is None) == (not isinstance(got, Unsupported)), decl.name
        if why is not None:
            assert isinstance(got, Unsupported) and got.reason == why.reason
