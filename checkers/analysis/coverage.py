"""Which theorems can get a checker, and what vocabulary the others lack; computes nothing.

    from checkers.analysis.coverage import coverage
    report = coverage(env)                  # or coverage(env, module="Proofs.MLP")

The decision is the static part of deriving a checker (checkers/derived): the
statement parses, splits into clauses that are each a relation (or `≠`, `↔`) after
their binders (propositions.py: conjunctions split, predicates unfolded), every binder has a type
(written or settled by its uses), and every constant it evaluates has semantics
(an ingested equation that can be unfolded, or the library). Nothing is traced
or compiled, so a theorem counted `checked` here may still be refused by the
trace a check makes (its reason then comes with the check's result).

A theorem with a registered checker is `checked`. For the others the missing
constants rank the vocabulary to register next: `blocks` counts the theorems
whose missing constants include a name, `sole_blocker` those for which it is the
only missing constant (registering it alone would let their derivation proceed).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from checkers.core import Unsupported
from checkers.evaluator.big_operators import INFINITE
from checkers.evaluator.inductives import draw_leaves
from checkers.evaluator.operators import EVALUATED_OPERATORS
from checkers.language.errors import NotSupported
from checkers.language.instances import instantiate
from checkers.language.types import (
    COMPLEX_NAMES,
    NUMBER_NAMES,
    REAL_NAMES,
    array_rank,
    const_name,
    head_and_args,
)
from checkers.library.structures import structure_sampler
from checkers.premises.binders import plan_binders
from checkers.premises.reparam import reparametrise
from checkers.registry.environment import Environment
from checkers.statements.derive import shared_semantics
from checkers.statements.matrices import elaborate_matrices
from checkers.statements.matrix_hypotheses import draw_shaped_matrices
from checkers.statements.propositions import clauses
from checkers.statements.statement import split_statement
from theorem_index.lean import analyse_declaration, print_term
from theorem_index.lean import syntax as S

__all__ = ["Blocker", "Coverage", "ModuleCoverage", "VocabularyNeed", "blocker", "coverage"]

_EVALUATED = ("mask", "dims", "constraint")


@dataclass(frozen=True)
class Blocker:
    """Why a theorem gets no checker: the reason, and the constants without semantics."""

    reason: str
    missing: tuple[str, ...] = ()


@dataclass
class ModuleCoverage:
    module: str
    theorems: int = 0
    checked: int = 0
    unsupported: int = 0


@dataclass(frozen=True)
class VocabularyNeed:
    name: str
    sole_blocker: int  # theorems for which it is the only missing constant
    blocks: int  # theorems whose missing constants include it
    example: str  # one theorem it blocks (the first by name)


@dataclass
class Coverage:
    modules: list[ModuleCoverage] = field(default_factory=list)
    vocabulary: list[VocabularyNeed] = field(default_factory=list)
    # the reasons of unsupported theorems that lack no vocabulary, most frequent first
    other_reasons: list[tuple[str, int]] = field(default_factory=list)

    @property
    def theorems(self) -> int:
        return sum(m.theorems for m in self.modules)

    @property
    def checked(self) -> int:
        return sum(m.checked for m in self.modules)

    @property
    def unsupported(self) -> int:
        return sum(m.unsupported for m in self.modules)


def blocker(name: str, env: Environment) -> Blocker | None:
    """Why `name` gets no checker, or None when its derivation would go ahead."""
    if env.registry.get(name) is not None:
        return None
    decl = env.get(name)
    if decl is None:
        return Blocker(f"{name} is not declared")
    sem = shared_semantics(env)
    analysis = analyse_declaration(decl, sem.known)
    if analysis.errors or analysis.statement is None or analysis.binders is None:
        return Blocker("the statement does not parse")
    binders, statement = analysis.binders, analysis.statement
    try:  # a generic statement: at the first modelled type its classes allow (ℝ, ℤ, ...)
        variants = instantiate(binders, statement)
    except NotSupported as e:
        return Blocker(e.reason, tuple(e.missing))
    if variants is not None:
        binders, statement = variants[0][0].binders, variants[0][0].statement
    parts = clauses(binders, statement, sem)
    if isinstance(parts, Unsupported):
        return Blocker(parts.reason, tuple(parts.missing))
    for k, part in enumerate(parts):
        why = _clause_blocker(part.binders, part.statement, sem)
        if why is not None:
            where = f" (in clause {k + 1} of {len(parts)}: {part.text})" if len(parts) > 1 else ""
            return Blocker(why.reason + where, why.missing)
    return None


def _clause_blocker(binders: tuple[Any, ...], statement: Any, sem: Any) -> Blocker | None:
    """Why one clause (propositions.py) gets no checker, or None."""
    binders, statement, _ = draw_shaped_matrices(binders, statement)
    try:
        binders, statement = elaborate_matrices(binders, statement)
    except NotSupported as e:
        return Blocker(e.reason, tuple(e.missing))
    split = split_statement(binders, statement, sem)
    if not isinstance(split, tuple):
        return Blocker(split.reason, tuple(split.missing))
    every, extra, core, _ = reparametrise(*split)
    every, _, core, _ = draw_leaves(every, extra, core, sem)
    try:
        plan = plan_binders(every, core, sizes_from_arguments=False)
    except NotSupported as e:
        return Blocker(e.reason, tuple(e.missing))
    evaluated = [core, *(h.prop for h in plan.hyps if h.how in _EVALUATED)]
    missing = sem.missing_in(evaluated)
    if missing:
        return Blocker(f"no semantics for: {', '.join(missing)}", tuple(missing))
    for inp in plan.inputs:
        if (
            inp.role == "finset"
            and const_name(head_and_args(head_and_args(inp.type)[1][0])[0]) != "Fin"
        ):
            return Blocker(f"the binder {inp.name}: only a Finset of a Fin type is drawn")
        if inp.role == "function" and not _real_values(inp.type):
            return Blocker(
                f"the binder {inp.name}: only functions between real numbers or arrays are drawn"
            )
        if inp.role not in _DRAWN_OTHERWISE and not _sampleable(inp.type, sem, 0):
            return Blocker(
                f"the binder {inp.name} : {print_term(inp.type)} is not a number, index or "
                "array over Fin, so it cannot be sampled"
            )
    for t in evaluated:
        for u in S.subterms(t):
            if isinstance(u, _NOT_EVALUATED):
                return Blocker(f"the construct {type(u).__name__} is not evaluated")
            if isinstance(u, S.BigOp) and u.op in INFINITE:
                return Blocker(INFINITE[u.op])
            if isinstance(u, S.BinOp) and u.op not in EVALUATED_OPERATORS and u.op != "×":
                return Blocker(f"the operator {u.op}")
            if isinstance(u, S.Postfix) and u.op != "⁻¹":
                return Blocker(f"postfix {u.op}")
            if isinstance(u, S.Quant) and u.q in ("∀", "∃") and u.bound is None:
                for b in u.binders:
                    pair = isinstance(b.type, S.BinOp) and b.type.op == "×"
                    if b.type is not None and (pair or const_name(b.type) in _NUMBERS):
                        return Blocker(
                            f"a quantifier over a type other than Fin n ({', '.join(b.names)})"
                        )
    return None


# inputs drawn by their own samplers (structures, ℤ and ℕ values, lists, functions)
_DRAWN_OTHERWISE = ("struct", "int", "list", "function", "nat", "finset")
# constructs the evaluator refuses wherever they occur (evaluate.py)
_NOT_EVALUATED = (S.Integral,)
# how many definitions of types are unfolded to find what a binder's type is
_TYPE_DEPTH = 4


def _real_values(ty: Any) -> bool:
    """Whether a function type's values (after its arguments) are real or complex numbers
    or real arrays, and its arguments not complex unless it is `ℂ → ℂ`, as drawn functions
    are (drawn_functions.py)."""
    t = ty
    arguments = []
    while isinstance(t, S.Paren | S.BinOp) and (isinstance(t, S.Paren) or t.op == "→"):
        if isinstance(t, S.BinOp):
            arguments.append(const_name(head_and_args(t.lhs)[0]))
        t = t.term if isinstance(t, S.Paren) else t.rhs
    name = const_name(head_and_args(t)[0])
    if any(a in COMPLEX_NAMES for a in arguments):
        return name in COMPLEX_NAMES and all(a in COMPLEX_NAMES for a in arguments)
    return name is not None and (
        name in REAL_NAMES or name in COMPLEX_NAMES or array_rank(name) is not None
    )


def _sampleable(ty: Any, sem: Any, depth: int) -> bool:
    """Whether the sampler can draw a binder of type `ty` (what `input_specs` decides once
    the type is evaluated): arrays over `Fin` of numbers or indices, through definitions of
    types (`Vec n := Fin n → ℝ`) whose equations parse; a type named nowhere (a variable
    not instantiated) is given the benefit of the doubt."""
    t = ty
    while isinstance(t, S.Paren):
        t = t.term
    while isinstance(t, S.BinOp) and t.op == "→":
        t = t.rhs
        while isinstance(t, S.Paren):
            t = t.term
    if isinstance(t, S.BinOp | S.Sort):  # `Fin 2 × Fin 2`, `Prop`: not drawn
        return False
    head, _ = head_and_args(t)
    name = const_name(head)
    if name is None:
        return not isinstance(head, S.Const)
    if name in _SCALARS or array_rank(name) is not None or structure_sampler(name) is not None:
        return True
    decl = sem.declaration(name)
    if decl is None or decl.kind not in ("def", "abbrev") or depth >= _TYPE_DEPTH:
        return False
    if isinstance(sem.equation(name), NotSupported):  # the evaluator cannot unfold it
        return False
    body = analyse_declaration(decl, sem.known).equations
    if len(body) != 1 or not isinstance(body[0], S.BinOp) or body[0].op != "=":
        return False
    return _sampleable(body[0].rhs, sem, depth + 1)


_NUMBERS = NUMBER_NAMES
_SCALARS = _NUMBERS | {"Fin", "EuclideanSpace"}  # `EuclideanSpace ℝ (Fin n)`: a vector


def coverage(env: Environment, *, module: str | None = None) -> Coverage:
    """Per module, the theorems checked and unsupported (only `module`'s when given); the
    vocabulary ranked by the theorems it would unlock: sole blocker first, then all it
    blocks, then by name."""
    by_module: dict[str, ModuleCoverage] = {}
    sole: Counter[str] = Counter()
    blocks: Counter[str] = Counter()
    example: dict[str, str] = {}
    reasons: Counter[str] = Counter()
    theorems = sorted(
        (d for d in env.theorems() if module is None or d.module == module),
        key=lambda d: d.name,
    )
    for decl in theorems:
        name = decl.name
        row = by_module.setdefault(decl.module, ModuleCoverage(decl.module))
        row.theorems += 1
        why = blocker(name, env)
        if why is None:
            row.checked += 1
            continue
        row.unsupported += 1
        if not why.missing:
            reasons[_reason_kind(why.reason)] += 1
        for m in why.missing:
            blocks[m] += 1
            example.setdefault(m, name)
        if len(why.missing) == 1:
            sole[why.missing[0]] += 1
    ranked = sorted(blocks, key=lambda n: (-sole[n], -blocks[n], n))
    return Coverage(
        modules=[by_module[m] for m in sorted(by_module)],
        vocabulary=[VocabularyNeed(n, sole[n], blocks[n], example[n]) for n in ranked],
        other_reasons=reasons.most_common(),
    )


def _reason_kind(reason: str) -> str:
    """A reason without what is particular to one theorem (after a colon)."""
    return reason.split(":", 1)[0].strip()
