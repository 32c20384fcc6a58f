"""The names a declaration's text refers to without binding them.

Lean adds a section `variable` to a declaration only when the declaration
refers to it: a name bound by `fun x`, `∀ x`, `let x`, a match pattern or the
declaration's own binders is not a reference, and neither is a field name
(`h.x`) or a named argument (`(x := 1)`). The resolver already tracks every
binding construct, so resolving against no known constants leaves exactly the
free names unresolved.
"""

from __future__ import annotations

from collections.abc import Iterable

from .known import KnownNames
from .parser import parse_binders, parse_term
from .resolve import Resolver
from .syntax import App, BinOp

_NOTHING = KnownNames(builtins=False)


def free_names(binders: str, statement: str = "", equations: Iterable[str] = ()) -> set[str]:
    """The heads of the free identifiers of a declaration's binders, statement and
    equations (`name args = body`: the arguments bind their names in the body, and
    `name` is the declaration itself).

    Raises `LeanParseError` when a part does not parse.
    """
    r = Resolver(known=_NOTHING)
    scope: dict[str, str | None] = {}
    if binders.strip():
        _, scope = r.binders(parse_binders(binders), {})
    if statement.strip():
        r.term(parse_term(statement), scope)
    for text in equations:
        eq = parse_term(text)
        inner = dict(scope)
        if isinstance(eq, BinOp) and eq.op == "=":
            if isinstance(eq.lhs, App):
                for arg in eq.lhs.args:
                    inner.update(dict.fromkeys(r.pattern_vars(arg, inner)))
            eq = eq.rhs
        r.term(eq, inner)
    return {name.split(".", 1)[0] for name in r.unknown}
