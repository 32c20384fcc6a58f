"""The dependencies of a statement, computed from per-definition closures that one
Semantics keeps for the corpus, are those of a walk through every equation, theorem by
theorem and in any order, cycles of definitions included."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from derived_support import definition, environment, theorem

from checkers import Environment, Registry
from checkers.evaluator.equations import EqnFn
from checkers.library.semantics import VOCABULARY_NAMES, Semantics, constants_in
from theorem_index.lean import analyse_declaration
from theorem_index.lean import syntax as S
from theorem_index.readers import read_paths

REPO = Path(__file__).resolve().parents[3]


def _constants(t: Any) -> set[str]:
    return {u.name for u in S.subterms(t) if isinstance(u, S.Const)}


def _walked(sem: Semantics, terms: Iterable[Any]) -> tuple[str, ...]:
    """The dependencies by walking the equations from the statement, nothing kept."""
    seen: set[str] = set()
    todo: list[str] = []
    for t in terms:
        todo.extend(sorted(_constants(t)))
    while todo:
        c = todo.pop()
        full = next((x for x in sem.candidates(c) if sem.source(x) is not None), None)
        if full is None or full in seen:
            continue
        src = sem.source(full)
        if src == "equation":
            seen.add(full)
            eq = sem.equation(full)
            assert isinstance(eq, EqnFn)
            todo.extend(sorted(_constants(eq.rhs)))
        elif full in VOCABULARY_NAMES or sem.declaration(full) is not None:
            seen.add(full)
    return tuple(sorted(seen))


def _statements(env: Environment, sem: Semantics) -> list[tuple[str, list[Any]]]:
    out = []
    for decl in env.theorems():
        analysis = analyse_declaration(decl, sem.known)
        if analysis.statement is None or analysis.binders is None:
            continue
        out.append((decl.name, [analysis.statement, *analysis.binders]))
    return out


def _compare(env: Environment, orders: Sequence[str] = ("forward", "reversed")) -> dict[str, Any]:
    """Each theorem's dependencies from a Semantics shared by all of them, in each order,
    against the walk on a Semantics of its own; the walked results by name."""
    walked: dict[str, tuple[str, ...]] = {}
    for name, terms in _statements(env, Semantics(env)):
        fresh = Semantics(env)
        fresh.missing_in(terms)  # as a derivation does, before its dependencies
        walked[name] = _walked(fresh, terms)
    for order in orders:
        shared = Semantics(env)
        statements = _statements(env, shared)
        if order == "reversed":
            statements.reverse()
        for name, terms in statements:
            shared.missing_in(terms)
            assert shared.dependencies(terms) == walked[name], (order, name)
    return walked


CYCLE = (
    definition("Proofs.f", "(x : ℝ)", "ℝ", "Proofs.f x = Proofs.g x + Proofs.k x"),
    definition("Proofs.g", "(x : ℝ)", "ℝ", "Proofs.g x = Proofs.h x * Proofs.f x"),
    definition("Proofs.h", "(x : ℝ)", "ℝ", "Proofs.h x = Proofs.g x - Proofs.relu x"),
    definition("Proofs.k", "(x : ℝ)", "ℝ", "Proofs.k x = x + 1"),
    definition("Proofs.loop", "(x : ℝ)", "ℝ", "Proofs.loop x = Proofs.loop x + Proofs.k x"),
    definition("Proofs.top", "(x : ℝ)", "ℝ", "Proofs.top x = Proofs.h x + Proofs.loop x"),
    theorem("Proofs.t_k", "(x : ℝ)", "k x = x + 1"),
    theorem("Proofs.t_h", "(x : ℝ)", "h x = h x"),
    theorem("Proofs.t_top", "(x : ℝ)", "top x = k x"),
    theorem("Proofs.t_loop", "(x : ℝ)", "loop x ≤ relu x"),
    theorem("Proofs.t_f", "(x : ℝ)", "f x = f x"),
)


def test_close_dependencies_over_a_cycle_of_definitions_whatever_comes_first() -> None:
    walked = _compare(environment(*CYCLE))

    assert walked == {
        "Proofs.t_k": ("Proofs.k",),
        "Proofs.t_h": ("Proofs.f", "Proofs.g", "Proofs.h", "Proofs.k", "Proofs.relu"),
        "Proofs.t_top": (
            "Proofs.f",
            "Proofs.g",
            "Proofs.h",
            "Proofs.k",
            "Proofs.loop",
            "Proofs.relu",
            "Proofs.top",
        ),
        "Proofs.t_loop": ("Proofs.k", "Proofs.loop", "Proofs.relu"),
        "Proofs.t_f": ("Proofs.f", "Proofs.g", "Proofs.h", "Proofs.k", "Proofs.relu"),
    }


def test_find_constants_of_a_term_as_its_subterms_name_them() -> None:
    env = environment(*CYCLE)
    sem = Semantics(env)
    for _, terms in _statements(env, sem):
        for t in terms:
            assert constants_in(t) == _constants(t)


def test_close_dependencies_of_the_examples_and_seed_page_as_a_walk_does(seeds_dir: Path) -> None:
    batch = read_paths([REPO / "examples", seeds_dir])
    env = Environment.from_declarations(
        [d for doc in batch.documents for d in doc.declarations], registry=Registry()
    )
    walked = _compare(env)

    assert len(walked) >= 40
    assert sum(bool(deps) for deps in walked.values()) >= 20
