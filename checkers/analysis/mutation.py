"""Mutants of a theorem's statement: small edits that make a true statement (usually) false.

    from checkers.analysis.mutation import mutants, score
    for m in mutants(decl):                 # Mutant(operator, site, statement, sides)
        outcome = score(decl, m, env)       # 'killed', 'survived', 'equivalent', ...

A mutation edits one site of the relation the statement makes (after its leading
`∀ x,` and `P →`; hypotheses and types are left alone):

- `numeral`: a natural-number literal n becomes n + 1;
- `plus-minus`: a `+` becomes `-` and a `-` becomes `+`;
- `swap`: the operands of a `-`, `/` or `^` change places, or the two sides of an
  inequality (`a ≤ b` becomes `b ≤ a`);
- `index-shift`: an index variable `i` (a binder of type `Fin _`, or the variable of a
  `∑`/`∏`) given as an argument becomes `i + 1` (which wraps in `Fin n`).

A mutant is scored against the checker's own default check, then classified
honestly (`classify`): one that fails is `killed`; one that passes is checked again
with a stronger search (another seed, four times the trials and draws) and is
`survived` when that finds it false; otherwise, for an equation, the edited side is
compared with the original side under the same binders (`A = A'`): when they agree
at every sampled point the mutant is `equivalent` (it states the same thing there),
else `survived` (the two sides differ and the check did not see it). For an
inequality a passing mutant whose edited side differs may still be a true statement
(`x ≤ 3` after `x ≤ 2`): it is `not-shown-false`, counted apart. A mutant that gets
no checker is `stillborn` (the edit left the vocabulary the evaluator knows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from theorem_index.lean import LeanParseError, parse_term
from theorem_index.lean import syntax as S
from theorem_index.lean.printer import print_term
from theorem_index.model import Declaration

__all__ = [
    "OPERATORS",
    "OUTCOMES",
    "Mutant",
    "classify",
    "mutants",
    "mutated",
    "overlay",
    "relation_of",
]

OPERATORS = ("numeral", "plus-minus", "swap", "index-shift")
OUTCOMES = ("killed", "survived", "equivalent", "not-shown-false", "stillborn", "error")
_RELATIONS = ("=", "≤", "<", "≥", ">")
_NONCOMMUTATIVE = ("-", "/", "^")


@dataclass(frozen=True)
class Mutant:
    operator: str
    site: str  # the edited subterm as written before the edit
    statement: str  # the whole mutated statement
    relation: str  # the relation the statement makes (`=`, `≤`, ...)
    # the statement `A = A'` (edited side against the original) under the same binders;
    # None when the edit is not inside one side (a swap of the sides)
    sides: str | None


def _peel(t: S.Term) -> tuple[list[Callable[[S.Term], S.Term]], S.Term, set[str]]:
    """The leading `∀ x,` / `P →` wrappers (as rebuilders), the relation, and the names of
    the quantified variables whose written type is `Fin _`."""
    wraps: list[Callable[[S.Term], S.Term]] = []
    fins: set[str] = set()
    while True:
        if isinstance(t, S.Paren):
            t = t.term
        elif isinstance(t, S.Quant) and t.q == "∀":
            q = t
            fins |= _fin_names(q.binders)
            wraps.append(lambda body, q=q: replace(q, body=body))  # type: ignore[misc]
            t = q.body
        elif isinstance(t, S.BinOp) and t.op == "→":
            arrow = t
            wraps.append(lambda body, a=arrow: replace(a, rhs=body))  # type: ignore[misc]
            t = arrow.rhs
        else:
            return wraps, t, fins


def _fin_names(binders: tuple[S.Binder, ...]) -> set[str]:
    out: set[str] = set()
    for b in binders:
        ty = b.type
        head = ty.fn if isinstance(ty, S.App) else ty
        if isinstance(head, S.Ident) and head.name == "Fin":
            out.update(b.names)
    return out


def relation_of(statement: str) -> str | None:
    """The relation a statement makes after its binders, or None (not a relation)."""
    try:
        _, core, _ = _peel(parse_term(statement))
    except LeanParseError:
        return None
    return core.op if isinstance(core, S.BinOp) and core.op in _RELATIONS else None


def _edits(t: S.Term, indices: frozenset[str], down: bool) -> Iterator[tuple[str, S.Term, S.Term]]:
    """(operator, original subterm, the whole term with that one site edited), pre-order.
    Types (`(e : T)`, binder types) are not entered; `indices` grows under `∑ i`. With
    `down`, a positive numeral is also lowered by one (an inequality's bound moved
    either way)."""
    if isinstance(t, S.Num):
        n = int(t.text, 0)
        yield "numeral", t, S.Num(str(n + 1))
        if down and n > 0:
            yield "numeral", t, S.Num(str(n - 1))
    elif isinstance(t, S.BinOp):
        if t.op in ("+", "-"):
            yield "plus-minus", t, replace(t, op="-" if t.op == "+" else "+")
        if t.op in _NONCOMMUTATIVE and print_term(t.lhs) != print_term(t.rhs):
            yield "swap", t, replace(t, lhs=t.rhs, rhs=t.lhs)
    elif isinstance(t, S.App):
        for k, a in enumerate(t.args):
            if isinstance(a, S.Ident) and a.name in indices:
                shifted = S.Paren(S.BinOp("+", a, S.Num("1")))
                yield "index-shift", a, replace(t, args=t.args[:k] + (shifted,) + t.args[k + 1 :])
    if isinstance(t, S.Typed):
        for op, site, new in _edits(t.term, indices, down):
            yield op, site, replace(t, term=new)
        return
    inner = indices
    if isinstance(t, S.BigOp | S.Lam):
        untyped = {n for b in t.binders if b.type is None for n in b.names}
        inner = indices | untyped | _fin_names(t.binders)
    for name in S.node_fields(type(t)):
        if name in ("type", "binders", "domain", "binder", "pattern"):
            continue
        value = getattr(t, name)
        if isinstance(value, S.Term):
            for op, site, new in _edits(value, inner, down):
                yield op, site, _with(t, name, new)
        elif isinstance(value, tuple):
            for k, item in enumerate(value):
                if isinstance(item, S.Term):
                    for op, site, new in _edits(item, inner, down):
                        yield op, site, _with(t, name, value[:k] + (new,) + value[k + 1 :])


def _with(t: S.Term, field: str, value: Any) -> S.Term:
    """`t` with one field replaced."""
    kw: dict[str, Any] = {field: value}
    return replace(t, **kw)


def mutants(decl: Declaration, *, limit: int | None = None) -> list[Mutant]:
    """The mutants of `decl`'s statement, in a fixed order (operators interleaved, so that
    a `limit` keeps a mix of them); none when the statement is not a relation."""
    try:
        tree = parse_term(decl.statement)
    except LeanParseError:
        return []
    wraps, core, fins = _peel(tree)
    if not (isinstance(core, S.BinOp) and core.op in _RELATIONS):
        return []
    try:
        fins |= _fin_names(_binders_of(decl))
    except LeanParseError:
        pass

    def whole(rel: S.Term) -> str:
        for wrap in reversed(wraps):
            rel = wrap(rel)
        return print_term(rel)

    by_op: dict[str, list[Mutant]] = {op: [] for op in OPERATORS}
    seen: set[str] = set()
    for side in ("lhs", "rhs"):
        original = getattr(core, side)
        for op, site, edited in _edits(original, frozenset(fins), core.op != "="):
            text = whole(_with(core, side, edited))
            if text in seen:
                continue
            seen.add(text)
            sides = whole(S.BinOp("=", original, edited))
            by_op[op].append(Mutant(op, print_term(site), text, core.op, sides))
    if core.op != "=":
        text = whole(replace(core, lhs=core.rhs, rhs=core.lhs))
        by_op["swap"].insert(0, Mutant("swap", print_term(core), text, core.op, None))
    out: list[Mutant] = []
    queues = [list(q) for q in by_op.values()]
    while any(queues):
        for q in queues:
            if q:
                out.append(q.pop(0))
    return out if limit is None else out[:limit]


def _binders_of(decl: Declaration) -> tuple[S.Binder, ...]:
    from theorem_index.lean import parse_binders

    return parse_binders(decl.binders) if decl.binders.strip() else ()


def mutated(decl: Declaration, statement: str) -> Declaration:
    """`decl` stating `statement` instead (same name, binders and module)."""
    return replace(decl, statement=statement)


def overlay(env: Any, decl: Declaration) -> Any:
    """An environment like `env` in which `decl` replaces the declaration of its name; the
    semantics tables (built from the definitions alone) stay shared."""
    return _Overlay(env, decl)


class _Overlay:
    def __init__(self, base: Any, decl: Declaration) -> None:
        self._base = base
        self._decl = decl

    def get(self, name: str) -> Declaration | None:
        return self._decl if name == self._decl.name else self._base.get(name)

    def shared(self, key: str, build: Callable[[Any], Any]) -> Any:
        return self._base.shared(key, build)

    def names(self) -> list[str]:
        return list(self._base.names())


def classify(
    decl: Declaration, mutant: Mutant, env: Any, *, trials: int, seed: int = 0
) -> tuple[str, str]:
    """(outcome, why): how the default check (`trials` trials, the default draws) treats the
    mutant, and what the stronger searches say of one that passes (see the module's text)."""
    from checkers.core import Unsupported
    from checkers.harness.check import DEFAULT_DRAWS, run_checker
    from checkers.statements.derive import derive

    def checked(statement: str, n: int, s: int, draws: int) -> Any:
        checker = derive(decl.name, overlay(env, mutated(decl, statement)))
        if isinstance(checker, Unsupported):
            return checker
        return run_checker(checker, trials=n, seed=s, draws=draws, shrink_failures=False)

    first = checked(mutant.statement, trials, seed, DEFAULT_DRAWS)
    if isinstance(first, Unsupported):
        return "stillborn", first.reason
    if first.status == "fail":
        return "killed", first.reason
    if first.status != "pass":
        return ("stillborn" if first.status == "unsupported" else "error"), first.reason
    strong = (4 * trials, seed + 1, 4 * DEFAULT_DRAWS)
    again = checked(mutant.statement, *strong)
    if not isinstance(again, Unsupported) and again.status == "fail":
        return "survived", f"a stronger search finds it false: {again.reason}"
    if mutant.sides is None:
        return "not-shown-false", "the sides swapped, and no search finds the converse false"
    same = checked(mutant.sides, *strong)
    if isinstance(same, Unsupported) or same.status not in ("pass", "fail"):
        why = same.reason if isinstance(same, Unsupported) else same.reason
        return "not-shown-false", f"the edited side could not be compared with the original: {why}"
    if same.status == "pass":
        return "equivalent", "the edited side equals the original at every sampled point"
    if mutant.relation == "=":
        return "survived", "the edited side differs from the original, yet the check passed"
    return "not-shown-false", "the edited side differs, and the inequality may still hold"
