"""A statement as the clauses a numeric check tests: definitions unfolded, `∧` split.

`clauses(binders, statement, sem)` walks the statement under its leading
`∀ x,` and `P →` and returns one clause per conjunct, each the relation it
states (`=`, `≤`, `<`, `≥`, `>`, `≠`, `↔`) under every `∀` and premise on its
path, rebuilt as a statement `∀ x, P → A R B` that `split_statement` reads
as before:

- `A ∧ B` is both conjuncts; `∀ x, A ∧ B` is `(∀ x, A) ∧ (∀ x, B)` (the
  binders and premises in scope are each conjunct's);
- a project predicate with an ingested equation (`def ReluLB (v l u a c : ℝ) :
  Prop := ∀ z, l ≤ z → z ≤ u → ...`) applied to its arguments is its
  definition's body with the arguments substituted (capture-avoiding,
  substitute.py); its implicit arguments (`{n k : ℕ}`) are solved from the
  explicit ones' types, as the elaborator does (inference.py), or given by
  name (`(n := 4)`). The body is split again, to `MAX_UNFOLD` definitions deep.
  A premise that is such a predicate is unfolded too (not split), so that its
  bounds reach the sampler (bounds.py);
- `∀ x ∈ Finset.univ, P` is `∀ x, P`; `∀ x ∈ Set.Icc a b, P` (an interval),
  `∀ ε > 0, P` are `∀ x, x ∈ s → P` (the membership a premise the sampler
  meets); a membership in another set is refused, saying which set;
- `∃` is refused (its witness is not given: nothing to sample).

Anything else stays a leaf, and `split_statement` says why it is not a
relation.
"""

from __future__ import annotations

import dataclasses
import weakref
from dataclasses import dataclass
from typing import Any

from checkers.core import Unsupported
from checkers.language.inference import Inference, settle_types
from checkers.language.substitute import Capture, names_in, substitute
from checkers.language.types import PROP_NAMES, const_name, head_and_args
from checkers.language.unify import (
    Fun,
    Meta,
    ground,
    resolve,
    signature,
    strip,
    to_type,
    unify,
    zonk,
)
from checkers.library.mathlib_analysis import READINGS
from checkers.premises.bounds import _INTERVALS, _head_name
from theorem_index.lean import analyse_declaration, print_term
from theorem_index.lean import syntax as S

__all__ = ["MAX_UNFOLD", "Clause", "clauses"]

MAX_UNFOLD = 4
LEAVES = ("=", "≤", "≥", "<", ">", "≠", "↔")


# the sets of every element of their type: `∀ x ∈ Set.univ, p x` is `∀ x, p x`
_WHOLE_TYPE = frozenset({"Finset.univ", "Set.univ"})


@dataclass(frozen=True)
class Clause:
    """One conjunct: `statement` is `∀ .., P → .. → A R B` over the theorem's binders;
    `unfolded` the predicates unfolded to reach it."""

    statement: S.Term
    text: str
    unfolded: tuple[str, ...] = ()
    binders: tuple[S.Binder, ...] = ()  # the theorem's, hypotheses that are predicates unfolded


@dataclass(frozen=True)
class _Step:
    kind: str  # '∀' or '→'
    binders: tuple[S.Binder, ...] = ()
    premise: S.Term | None = None


def clauses(
    binders: tuple[S.Binder, ...], statement: S.Term, sem: Any
) -> tuple[Clause, ...] | Unsupported:
    """The statement's clauses (see the module), or why it cannot be split into any."""
    walker = _Walker(binders, sem)
    hyps = walker.hypotheses()
    try:
        walker.walk(statement, (), ())
    except _Refused as e:
        return Unsupported(e.reason, e.missing)
    return tuple(
        dataclasses.replace(c, binders=walker.binders, unfolded=(*hyps, *c.unfolded))
        for c in walker.found
    )


class _Refused(Exception):
    def __init__(self, reason: str, missing: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.missing = missing


def _rebuild(path: tuple[_Step, ...], core: S.Term) -> S.Term:
    t = core
    for step in reversed(path):
        if step.kind == "∀":
            t = S.Quant("∀", step.binders, t)
        else:
            assert step.premise is not None
            t = S.BinOp("→", step.premise, t)
    return t


class _Walker:
    def __init__(self, binders: tuple[S.Binder, ...], sem: Any) -> None:
        self.binders = binders
        self.sem = sem
        self.found: list[Clause] = []

    def walk(self, t: S.Term, path: tuple[_Step, ...], unfolded: tuple[str, ...]) -> None:
        t = strip(t)
        if isinstance(t, S.Quant) and t.q == "∀":
            if t.bound is None:
                self.walk(t.body, (*path, _Step("∀", t.binders)), unfolded)
            else:
                steps = self.bounded(t, path)
                self.walk(t.body, (*path, *steps), unfolded)
            return
        if isinstance(t, S.Quant) and t.q in ("∃", "∃!"):
            raise _Refused(
                f"the statement {'is' if not path else 'has a clause that is'} an existential "
                f"({t.q}) whose witness is not given: a numeric check cannot search for one"
            )
        if isinstance(t, S.BinOp) and t.op == "→":
            premise = self.unfold_premise(t.lhs, path, 0)
            self.walk(t.rhs, (*path, _Step("→", premise=premise)), unfolded)
            return
        if isinstance(t, S.BinOp) and t.op == "∧":
            self.walk(t.lhs, path, unfolded)
            self.walk(t.rhs, path, unfolded)
            return
        body = self.unfold(t, path)
        if body is not None:
            name, expanded = body
            if len(unfolded) >= MAX_UNFOLD:
                raise _Refused(
                    f"unfolding {' → '.join((*unfolded, name))} goes deeper than "
                    f"{MAX_UNFOLD} definitions"
                )
            self.walk(expanded, path, (*unfolded, name))
            return
        self.found.append(Clause(_rebuild(path, t), str(print_term(t)), unfolded))

    def hypotheses(self) -> tuple[str, ...]:
        """Unfold the theorem's hypotheses that are predicates (`(hz : Dom2 z)`), so that
        they are read as propositions (bounds, premises); the predicates unfolded."""
        out: list[S.Binder] = []
        names: list[str] = []
        for b in self.binders:
            if b.kind != "inst" and b.type is not None and b.pattern is None:
                self.binders = tuple(out)
                head = strip(b.type)
                head = strip(head.fn) if isinstance(head, S.App) else head
                unfolded = self.unfold_premise(b.type, (), 0)
                if unfolded is not b.type and isinstance(head, S.Const):
                    names.append(head.name)
                    b = dataclasses.replace(b, type=unfolded)
            out.append(b)
        self.binders = tuple(out)
        return tuple(dict.fromkeys(names))

    # --- `∀ x ∈ s` and `∀ ε > 0` ---------------------------------------------------

    def bounded(self, t: S.Quant, path: tuple[_Step, ...]) -> tuple[_Step, ...]:
        assert t.bound is not None
        op, rhs = t.bound
        names = [n for b in t.binders for n in b.names]
        if op == "∈" and const_name(strip(rhs)) in _WHOLE_TYPE:  # every element: no bound
            return (_Step("∀", t.binders),)
        if op == "∈":
            head, args = head_and_args(strip(rhs))
            kinds = _INTERVALS.get(_head_name(head) or "")
            if kinds is None or len(args) != sum(k is not None for k in kinds):
                raise _Refused(
                    "a ∀ bounded by a set the evaluator cannot sample from (it samples "
                    "Finset.univ, Set.univ and the intervals Set.Icc, Set.Ioo, ...): "
                    f"∀ {', '.join(names)} ∈ {print_term(rhs)}"
                )
        elif op not in ("<", "≤", ">", "≥", "≠", "∉"):
            raise _Refused(f"∀ {', '.join(names)} {op} {print_term(rhs)}: an unknown binder bound")
        steps = [_Step("∀", t.binders)]
        for n in names:
            steps.append(_Step("→", premise=S.BinOp(op, S.Var(n), rhs)))
        return tuple(steps)

    # --- unfolding ---------------------------------------------------------------

    def unfold_premise(self, t: S.Term, path: tuple[_Step, ...], depth: int) -> S.Term:
        """A premise that is a predicate with an equation, unfolded (to MAX_UNFOLD deep)."""
        if depth >= MAX_UNFOLD:
            return t
        try:
            got = self.unfold(strip(t), path)
        except _Refused:  # evaluated as it stands, through its equation
            return t
        if got is None:
            return t
        return self.unfold_premise(got[1], path, depth + 1)

    def unfold(self, t: S.Term, path: tuple[_Step, ...]) -> tuple[str, S.Term] | None:
        """(the predicate's name, its body at the arguments) where `t` is a predicate with
        an ingested equation applied to all its explicit arguments; None otherwise."""
        head, args = (t.fn, t.args) if isinstance(t, S.App) else (t, ())
        head = strip(head)
        if not isinstance(head, S.Const):
            return None
        pred = _predicate(self.sem, head.name)
        if pred is None:
            return None
        positional = [a for a in args if not isinstance(a, S.NamedArg)]
        named = {a.name: a.value for a in args if isinstance(a, S.NamedArg)}
        explicit = [p for p in pred.params if p.kind == "explicit"]
        if len(positional) != len(explicit):
            raise _Refused(
                f"{head.name} is applied to {len(positional)} of its {len(explicit)} explicit "
                "arguments: a partial application is not unfolded"
            )
        scope_binders = self.binders + tuple(b for s in path if s.kind == "∀" for b in s.binders)
        mapping = self.implicits(pred, positional, named, scope_binders, head.name)
        for p, a in zip(explicit, positional, strict=True):
            mapping[p.name] = a
        avoid = {n for b in scope_binders for n in b.names} | names_in(tuple(args))
        try:
            body = substitute(pred.body, mapping, avoid)
        except Capture as e:
            raise _Refused(
                f"unfolding {head.name} would capture the variable {e} of its arguments"
            ) from e
        return head.name, body

    def implicits(
        self,
        pred: _Predicate,
        positional: list[S.Term],
        named: dict[str, S.Term],
        scope_binders: tuple[S.Binder, ...],
        name: str,
    ) -> dict[str, S.Term]:
        """The implicit arguments the body uses: given by name, or solved by unifying the
        explicit parameters' types with the arguments' (as the elaborator does)."""
        inf = Inference(self.sem)
        scope = inf.bind(scope_binders, {})
        subst: dict[str, Any] = {}
        out: dict[str, S.Term] = {}
        for p in pred.params:
            if p.kind == "explicit":
                continue
            if p.name in named:
                out[p.name] = named[p.name]
                subst[p.name] = named[p.name]
            else:
                subst[p.name] = Meta(owner="")
        explicit = [p for p in pred.params if p.kind == "explicit"]
        for p, a in zip(explicit, positional, strict=True):
            expected = to_type(p.type, subst) if p.type is not None else None
            partial = _partial_type(inf, a, scope)
            if expected is not None and partial is not None:
                unify(partial, expected)
            elif expected is not None:
                inf.check(a, expected, scope)
            a0 = strip(a)
            subst[p.name] = a0 if isinstance(a0, S.Num | S.Var) else Meta()
        used = names_in(pred.body) | names_in(tuple(q.type for q in pred.params if q.type))
        for p in pred.params:
            if p.kind == "explicit" or p.name in out or p.name not in used:
                continue
            solved = _solution(subst[p.name])
            if solved is None:
                raise _Refused(
                    f"the implicit argument {p.name} of {name} is not settled by its explicit "
                    "arguments' types"
                )
            out[p.name] = solved
        return out


def _partial_type(inf: Inference, t: S.Term, scope: dict[str, Any]) -> Any:
    """The type of a definition applied to fewer than its explicit arguments (`peak`,
    `bnForward m ε γ β`): a function of the rest; None for anything else."""
    t = strip(t)
    fn, args = (strip(t.fn), t.args) if isinstance(t, S.App) else (t, ())
    if not isinstance(fn, S.Const) or any(isinstance(a, S.NamedArg) for a in args):
        return None
    sig = signature(inf.sem, fn.name)
    if sig is None or sig.kinds:
        return None
    explicit = [p for p in sig.params if p.explicit]
    if len(args) >= len(explicit):
        return None
    subst: dict[str, Any] = {p.name: Meta() for p in sig.params if not p.explicit}
    for p, a in zip(explicit, args, strict=False):
        inf.check(a, to_type(p.type, subst), scope)
        a0 = strip(a)
        subst[p.name] = a0 if isinstance(a0, S.Num | S.Var) else Meta()
    rest = explicit[len(args) :]
    for p in rest:
        subst[p.name] = Meta()
    out = to_type(sig.result, subst)
    for p in reversed(rest):
        out = Fun(to_type(p.type, subst), out)
    return out


def _solution(m: Any) -> S.Term | None:
    v = resolve(m)
    if isinstance(v, Meta):
        return None
    if isinstance(v, S.Term):
        z = zonk(v)
        if any(isinstance(u, S.Hole) for u in S.subterms(z)):
            return None
        return S.Paren(z) if not isinstance(z, S.Num | S.Var | S.Ident | S.Const) else z
    return ground(v)


@dataclass(frozen=True)
class _Param:
    name: str
    type: S.Term | None
    kind: str


@dataclass(frozen=True)
class _Predicate:
    params: tuple[_Param, ...]
    body: S.Term


_CACHE: weakref.WeakKeyDictionary[Any, dict[str, _Predicate | None]] = weakref.WeakKeyDictionary()


def _predicate(sem: Any, name: str) -> _Predicate | None:
    try:
        cache = _CACHE.setdefault(sem, {})
    except TypeError:
        cache = {}
    if name not in cache:
        cache[name] = _load_predicate(sem, name)
    return cache[name]


def _load_predicate(sem: Any, name: str) -> _Predicate | None:
    """A definition of a proposition (`def P (..) : Prop := body`) with one ingested
    equation whose arguments are the parameters; None for anything else."""
    reading = READINGS.get(name)
    decl = reading.declaration() if reading is not None else sem.declaration(name)
    if decl is None or decl.kind != "def" or not decl.equations:
        return None
    a = analyse_declaration(decl, sem.known)
    if a.errors or a.binders is None or a.statement is None or len(a.equations) != 1:
        return None
    result = strip(a.statement)
    if not (isinstance(result, S.Const | S.Ident | S.Sort) and _is_prop(result)):
        return None
    eq = a.equations[0]
    if not (isinstance(eq, S.BinOp) and eq.op == "="):
        return None
    lhs_args = eq.lhs.args if isinstance(eq.lhs, S.App) else ()
    params = tuple(
        _Param(n, b.type, b.kind) for b in a.binders if b.kind != "inst" for n in b.names
    )
    explicit = [p for p in params if p.kind == "explicit"]
    if len(lhs_args) != len(explicit) or not all(isinstance(x, S.Var) for x in lhs_args):
        return None
    # the equation's variables name the explicit parameters (positionally)
    renamed: list[_Param] = []
    it = iter(lhs_args)
    for p in params:
        if p.kind == "explicit":
            v = next(it)
            assert isinstance(v, S.Var)
            renamed.append(_Param(v.name, p.type, p.kind))
        else:
            renamed.append(p)
    # untyped binders of the body (`∀ v, .. f v ..`) typed in the definition's own
    # context, where the parameters' types settle them, before any argument replaces them
    body = settle_types(a.binders, eq.rhs, sem).statement
    return _Predicate(tuple(renamed), body)


def _is_prop(t: S.Term) -> bool:
    if isinstance(t, S.Sort):
        return str(print_term(t)) in PROP_NAMES
    return isinstance(t, S.Const | S.Ident) and t.name in PROP_NAMES
