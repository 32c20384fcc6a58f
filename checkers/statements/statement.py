"""A theorem's statement split into binders and the relation it states.

Leading `∀ x,` and `P →` are binders (a statement of several clauses is split
into them first: propositions.py); the relation is `=`, `≤`, `≥`, `<`, `>`,
or `≠` / `↔` (read as readings.py says), or a proposition the evaluator decides (`a ∣ b`,
`i ∈ s` for a finset s, `IsUnit a`), checked as `P ↔ True`; an equation between functions `f = fun
(x : T) => e` is checked pointwise at a sampled x : T, and so is one between functions of
a real its form shows (`deriv Real.sin = Real.cos`, `log ∘ exp = id`); binders written without
a type get the type their uses settle (inference.py) first, and a binder whose
type is still unknown makes the theorem unsupported, saying why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from checkers.core import Unsupported
from checkers.evaluator.big_operators import INFINITE
from checkers.language.inference import settle_types
from checkers.language.types import COMPLEX_NAMES, REAL_NAMES, const_name, head_and_args
from checkers.language.values import Builtin
from checkers.library.mathlib_algebra import DECIDED_PREDICATES
from checkers.library.mathlib_analysis import UNREFUTABLE
from theorem_index.lean import syntax as S

RELATIONS = ("=", "≤", "≥", "<", ">")
# what a clause may state: a relation, or `≠` / `↔` (readings.py)
STATED = (*RELATIONS, "≠", "↔")
# propositions the evaluator decides, stated as a clause: divisibility, finset membership
DECIDED = ("∣", "∈", "∉")


def split_statement(
    binders: tuple[S.Binder, ...], statement: S.Term, sem: Any
) -> tuple[tuple[S.Binder, ...], tuple[S.Binder, ...], S.BinOp] | Unsupported:
    """(every binder, the binders taken from the statement, the relation), or why not."""
    infinite = next(
        (u.op for u in S.subterms(statement) if isinstance(u, S.BigOp) and u.op in INFINITE), None
    )
    if infinite is not None:
        return Unsupported(INFINITE[infinite])
    settled = settle_types(binders, statement, sem)
    extra, core = _peel(settled.statement)
    if (isinstance(core, S.BinOp) and core.op in DECIDED) or (
        isinstance(core, S.App) and const_name(head_and_args(core)[0]) in DECIDED_PREDICATES
    ):
        # a truth value the evaluator computes: checked as that it holds, `P ↔ True`
        core = S.BinOp("↔", core, S.Const("True", written="True"))
    if not (isinstance(core, S.BinOp) and core.op in STATED):
        head = const_name(head_and_args(core)[0]) if isinstance(core, S.App) else None
        if head is not None and head in UNREFUTABLE:
            return Unsupported(f"the statement is {head}: {UNREFUTABLE[head]}")
        what = core.op if isinstance(core, S.BinOp) else type(core).__name__
        return Unsupported(f"the statement is not an equation or inequality (its head is {what})")
    funext, core = _extensional(core, _binder_names(settled.binders + extra))
    extra = extra + funext
    if not funext:
        funext, core = _real_functions_equal(core, settled.binders + extra, sem)
        extra = extra + funext
    every = settled.binders + extra
    why = untyped_reason(every, core, settled.reasons)
    if why is not None:
        return Unsupported(why)
    return every, extra, core


def _extensional(core: S.BinOp, taken: set[str]) -> tuple[tuple[S.Binder, ...], S.BinOp]:
    """`f = fun (x : T) => e` holds when `f x = e` for every x: T becomes a sampled input."""
    extra: list[S.Binder] = []
    while core.op == "=":
        lam = core.lhs if isinstance(core.lhs, S.Lam) else core.rhs
        if not isinstance(lam, S.Lam) or not lam.binders:
            break
        b = lam.binders[0]
        if b.pattern is not None or b.type is None or not b.names:
            break
        head = b.type.fn if isinstance(b.type, S.App) else b.type
        if isinstance(head, S.Const | S.Ident) and head.name == "Fin":
            break
        name = b.names[0]
        while name in taken:
            name += "'"
        taken.add(name)
        extra.append(S.Binder("explicit", (name,), b.type))
        x = S.Var(name)
        core = S.BinOp("=", S.App(core.lhs, (x,)), S.App(core.rhs, (x,)))
    return tuple(extra), core


# the point two real functions stated equal are compared at (no source name has ✝)
_POINT = "x✝"


def _real_functions_equal(
    core: S.BinOp, binders: tuple[S.Binder, ...], sem: Any
) -> tuple[tuple[S.Binder, ...], S.BinOp]:
    """`f = g` between functions of a real (`deriv Real.exp = Real.exp`, `deriv f = g`)
    holds when `f x = g x` at every real x (funext): x becomes a sampled input. A side is
    such a function where its form says so (`_real_function`); a numeral on the other side
    is the constant function (`deriv (0 : ℝ → ℝ) = 0`)."""
    if core.op != "=":
        return (), core
    arrows = {n: b.type for b in binders for n in b.names if b.type is not None}
    sides = (core.lhs, core.rhs)
    if not any(_real_function(t, arrows, sem) for t in sides):
        return (), core
    if not all(_numeral(t) or _function(t, arrows, sem) for t in sides):
        return (), core
    x = S.Var(_POINT)

    def at(t: S.Term) -> S.Term:
        return t if _numeral(t) else S.App(S.Paren(t), (x,))

    domain = next(d for t in sides if (d := _domain(t, arrows, sem)) is not None)
    ty = S.Const(_DOMAINS[domain], written="ℝ" if domain == "real" else "ℂ")
    return (S.Binder("explicit", (_POINT,), ty),), S.BinOp("=", at(core.lhs), at(core.rhs))


def _numeral(t: S.Term) -> bool:
    while isinstance(t, S.Paren | S.Typed):
        t = t.term
    return isinstance(t, S.Num | S.Decimal)


def _function(t: S.Term, arrows: Mapping[str, S.Term], sem: Any) -> bool:
    """Whether `t` is a function, of reals or of a domain its form does not say (`id`)."""
    if _real_function(t, arrows, sem):
        return True
    while isinstance(t, S.Paren):
        t = t.term
    head, args = head_and_args(t)
    f = sem.library.get(const_name(head) or "")
    return isinstance(f, Builtin) and len(args) < f.arity


def _real_function(t: S.Term, arrows: Mapping[str, S.Term], sem: Any) -> bool:
    """Whether `t` is, by its form, a function of one number (real or complex): see
    `_domain`."""
    return _domain(t, arrows, sem) is not None


_DOMAINS = {"real": "Real", "complex": "Complex"}


def _domain(t: S.Term, arrows: Mapping[str, S.Term], sem: Any) -> str | None:
    """'real' or 'complex' where `t` is, by its form, a function of one real or complex
    number: a binder of type `ℝ → …` or `ℂ → …`, a library function of one not applied to
    all its arguments (`Real.exp`, `Real.logb b`, `Complex.cos`), `deriv f` of one, or
    arithmetic of those; else None."""
    while isinstance(t, S.Paren):
        t = t.term
    if isinstance(t, S.Var) and t.name in arrows:
        ty = arrows[t.name]
        while isinstance(ty, S.Paren):
            ty = ty.term
        if not (isinstance(ty, S.BinOp) and ty.op == "→"):
            return None
        name = const_name(head_and_args(ty.lhs)[0])
        return "real" if name in REAL_NAMES else "complex" if name in COMPLEX_NAMES else None
    if isinstance(t, S.BinOp) and t.op in ("+", "-", "*", "/"):
        return _domain(t.lhs, arrows, sem) or _domain(t.rhs, arrows, sem)
    if isinstance(t, S.BinOp) and t.op == "∘":  # the domain is the inner function's
        return _domain(t.rhs, arrows, sem)
    if isinstance(t, S.Prefix) and t.op == "-":
        return _domain(t.arg, arrows, sem)
    head, args = head_and_args(t)
    name = const_name(head)
    if name == "deriv" and len(args) == 1:
        return _domain(args[0], arrows, sem) or "real"
    f = sem.library.get(name) if name is not None else None
    if isinstance(f, Builtin) and len(args) < f.arity:
        kind = f.param_types[len(args)] if len(f.param_types) > len(args) else None
        return kind if kind in _DOMAINS else None
    return None


def _binder_names(binders: tuple[S.Binder, ...]) -> set[str]:
    return {n for b in binders for n in b.names}


def _peel(statement: S.Term) -> tuple[tuple[S.Binder, ...], S.Term]:
    """Leading `∀ x, ...` and `P → ...` become binders."""
    extra: list[S.Binder] = []
    t = statement
    while True:
        if isinstance(t, S.Quant) and t.q == "∀" and t.bound is None:
            extra.extend(t.binders)
            t = t.body
        elif isinstance(t, S.BinOp) and t.op == "→":
            extra.append(S.Binder("explicit", (f"_h{len(extra)}",), t.lhs))
            t = t.rhs
        else:
            return tuple(extra), t


def untyped_reason(
    binders: tuple[S.Binder, ...], core: S.Term, reasons: Mapping[str, str]
) -> str | None:
    """Why a binder of the theorem, or the index of a sum over a whole type in the
    relation it states, has no type; None when each has one."""
    for b in binders:
        if b.type is None and b.pattern is None and b.kind != "inst":
            name = b.names[0] if b.names else "_"
            return f"the binder {name} has no type, and {reasons.get(name, 'it is not used')}"
    for u in S.subterms(core):
        if isinstance(u, S.BigOp) and u.domain is None:
            for b in u.binders:
                if b.type is None and b.pattern is None and b.names and b.names[0] in reasons:
                    name = b.names[0]
                    return (
                        f"the type of the summation variable {name} is not written, "
                        f"and {reasons[name]}"
                    )
    return None
