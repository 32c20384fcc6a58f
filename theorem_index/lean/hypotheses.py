"""Which binders of a declaration are its hypotheses, read from their syntax.

`theorem sqrt_nonpos (x : ℝ) (h : x ≤ 0) : Real.sqrt x = 0` is true only under `x ≤ 0`: a
list that shows the statement alone shows a falsehood. A binder is a hypothesis when its
type is, by its form, a proposition: a relation (`=`, `≤`, `∈`, `∣`, ...), a connective
(`∧`, `∨`, `↔`, `¬`), a quantified statement (`∀`, `∃`), an implication between
propositions, `True` or `False`. A hypothesis named by a predicate alone
(`(hf : Continuous f)`) cannot be told from a type by its syntax and is not listed.
"""

from __future__ import annotations

from functools import lru_cache

from .errors import LeanParseError
from .parser import parse_binders
from .printer import print_term
from .syntax import NO_SPAN, BinOp, EventuallyRel, Ident, ModEq, Paren, Pi, Prefix, Quant, Term

__all__ = ["hypotheses", "is_proposition"]

RELATIONS = frozenset(
    {
        "=", "≠", "≤", "<", "≥", ">", "<=", ">=", "==", "!=", "≍", "≈", "≪", "∣",
        "∈", "∉", "⊆", "⊂", "⊇", "⊃", "∧", "∨", "/\\", "\\/", "↔", "<->",
    }
)  # fmt: skip
QUANTIFIERS = frozenset({"∀", "∃", "∃!", "∀ᶠ", "∃ᶠ"})
ARROWS = frozenset({"→", "->"})


def is_proposition(term: Term) -> bool:
    """Whether `term` is, by its form, a proposition (see the module's docstring)."""
    if isinstance(term, Paren):
        return is_proposition(term.term)
    if isinstance(term, BinOp):
        return term.op in RELATIONS or (term.op in ARROWS and is_proposition(term.rhs))
    if isinstance(term, EventuallyRel | ModEq):
        return True
    if isinstance(term, Prefix):
        return term.op == "¬"
    if isinstance(term, Quant):
        return term.q in QUANTIFIERS
    if isinstance(term, Pi):
        return is_proposition(term.body)
    return isinstance(term, Ident) and term.name in ("True", "False")


@lru_cache(maxsize=4096)
def hypotheses(binders: str) -> tuple[str, ...]:
    """The types of the hypotheses among `binders`, as written there (one per binder group:
    `(h₁ h₂ : 0 < x)` gives `0 < x` once); () when the binders do not parse."""
    try:
        parsed = parse_binders(binders)
    except LeanParseError:
        return ()
    found: list[str] = []
    for binder in parsed:
        kind, ty = binder.kind, binder.type
        if kind == "inst" or ty is None or not is_proposition(ty):
            continue
        span = ty.span
        text = binders[span.start : span.end] if span != NO_SPAN else print_term(ty)
        found.append(" ".join(text.split()))
    return tuple(found)
