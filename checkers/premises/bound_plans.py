"""Planned bounds and the questions every planner asks of them: whether two may cross,
whether an input reads another through them, whether an expression is non-negative.

bounds.py plans the bounds of hypotheses; bound_search.py searches the ways of meeting
several at once; bound_values.py turns a planned bound into sampler bounds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from checkers.language.types import const_name, head_and_args
from theorem_index.lean import syntax as S

__all__ = ["FUNCTIONS", "BoundPlan", "crosses", "is_zero", "nonneg", "reaches"]

# functions whose value is non-negative wherever Lean defines them (total: √ of a
# negative is 0)
FUNCTIONS = frozenset({"Real.sqrt", "Real.exp"})


@dataclass(frozen=True)
class BoundPlan:
    """One bound on `target` (side 'lower', 'upper' or 'other' for `≠`), planned from
    hypothesis `hyp`; `labels` are the quantified indices the target is applied to."""

    target: str
    side: str
    strict: bool
    expr: S.Term = field(repr=False)
    labels: tuple[str, ...]
    hyp: str
    text: str
    names: frozenset[str] = frozenset()  # the real inputs `expr` reads


def is_zero(t: S.Term) -> bool:
    inner = t.term if isinstance(t, S.Typed) else t
    return isinstance(inner, S.Num) and int(inner.text, 0) == 0


def nonneg(t: S.Term, known: set[str]) -> bool:
    """Whether `t` is non-negative whatever the inputs (`known`: inputs known to be)."""
    if isinstance(t, S.Num | S.Abs):
        return True
    if isinstance(t, S.Decimal):
        return not t.text.startswith("-")
    if isinstance(t, S.Var | S.Ident):
        return t.name in known
    if isinstance(t, S.Typed):
        return nonneg(t.term, known)
    if isinstance(t, S.BinOp) and t.op in ("+", "*", "/"):
        return nonneg(t.lhs, known) and nonneg(t.rhs, known)
    if isinstance(t, S.BinOp) and t.op == "^":
        even = isinstance(t.rhs, S.Num) and int(t.rhs.text, 0) % 2 == 0
        return even or nonneg(t.lhs, known)
    head, args = head_and_args(t)
    return const_name(head) in FUNCTIONS and len(args) == 1


def crosses(ways: Sequence[Sequence[BoundPlan]], existing: Sequence[BoundPlan]) -> int:
    """How many bounds of the chosen `ways` (one per part of a hypothesis) may cross a
    bound on the other side of their input from another way or from `existing`: a lower
    bound with an upper one, unless the lower is 0 and the upper non-negative. Bounds of
    one way (`|x - c| ≤ r`: c - r and c + r) are that way's own concern (`_may_cross`)."""
    n = 0
    for k, way in enumerate(ways):
        others = [*existing, *(p for j, w in enumerate(ways) if j != k for p in w)]
        for p in way:
            if p.side == "other":
                continue
            for b in others:
                if b.target != p.target or b.side in (p.side, "other"):
                    continue
                low, high = (p, b) if p.side == "lower" else (b, p)
                if not (is_zero(low.expr) and nonneg(high.expr, set())):
                    n += 1
                    break
    return n


def reaches(starts: frozenset[str], goal: str, deps: Mapping[str, set[str]]) -> bool:
    """Whether some input in `starts` reads `goal` through the bounds planned so far."""
    seen: set[str] = set()
    todo = list(starts)
    while todo:
        n = todo.pop()
        if n == goal:
            return True
        if n not in seen:
            seen.add(n)
            todo.extend(deps.get(n, ()))
    return False
