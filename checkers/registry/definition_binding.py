"""A hand-written checker is bound to the definitions it reimplements.

A registration names, next to its statement, the Lean text of each project
definition its code computes by hand, as the source writes it after the name:

    definitions={
        "Proofs.rowDense_weight_grad": "{N a c : ℕ} (X : Mat N a) (dY : Mat N c) : "
        "Mat a c := fun i j => ∑ r : Fin N, X r i * dY r j",
    }

`first_drift` compares each with the definition ingested under its name, in
the canonical form statements are compared in (`theorem_index.lean.canonical`):
the binders and the type, then the equation. An equation's arguments that are
variables become a `fun` over them, so that `f X dY i j = e` (a doc page's
rendering), `f X dY = fun i j => e` (the source's) and `:= fun i j => e` (the
registration's) are one tree, and the names of arguments and bound variables
do not matter; anything else does.

The rule (`checkers.registry.binding` applies it once the statement matches):

- the definition is ingested and differs (another equation, type or kind, or
  it does not parse): the registered checker is set aside, as for a changed
  statement, and the reason names the definition and where the two first
  differ;
- nothing is ingested under its name, or it is ingested without an equation
  (`equations did not get rendered`): the registered checker keeps the
  definition it was written for, as it keeps its statement when none is
  ingested. The derived checker cannot unfold such a definition either, so
  there is nothing to disagree with.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from theorem_index.lean import (
    Binder,
    Difference,
    KnownNames,
    LeanParseError,
    Term,
    analyse_declaration,
    canonical,
    first_difference,
    parse_definition,
)
from theorem_index.lean.resolve import Resolver
from theorem_index.lean.syntax import App, BinOp, Const, Lam, Var
from theorem_index.model import Declaration

__all__ = ["DefinitionDrift", "RegisteredDefinition", "first_drift", "parse_definitions"]

DEFINITION_KINDS = ("def", "abbrev", "instance", "opaque")
_NOT_RENDERED = re.compile(r"did not get rendered", re.IGNORECASE)
_EXPLICIT = ("explicit", "plain")
_LAMBDA_BODY = "body of `fun`"

Lookup = Callable[[str], "Declaration | None"]


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class RegisteredDefinition:
    """One definition a registered checker reimplements: its name and Lean text
    (`binders : type := body`, whitespace collapsed)."""

    name: str
    text: str
    parsed: tuple[tuple[Binder, ...], Term | None, Term] = field(repr=False, compare=False)

    @property
    def lean(self) -> str:
        return f"{self.name} {self.text}"


def parse_definitions(definitions: Mapping[str, str]) -> tuple[RegisteredDefinition, ...]:
    """The registered definitions, parsed now; ValueError says which one is wrong and why."""
    if not isinstance(definitions, Mapping):
        raise ValueError(
            f"definitions must map each definition's name to its Lean text, got {definitions!r}"
        )
    out = []
    for name, text in definitions.items():
        if not isinstance(name, str) or not all(p.isidentifier() for p in name.split(".")):
            raise ValueError(f"definition name {name!r} is not a Lean name")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"definition {name}: its Lean text must be a string, got {text!r}")
        try:
            binders, type_, body = parse_definition(text)
        except LeanParseError as e:
            raise ValueError(f"definition {name} does not parse: {e}") from None
        out.append(RegisteredDefinition(name, _one_line(text), (binders, type_, body)))
    return tuple(out)


@dataclass(frozen=True)
class DefinitionDrift:
    """A definition ingested otherwise than the registered checker reimplements it."""

    name: str
    registered: str
    ingested: str
    difference: str

    def explain(self, *, full: bool = False) -> str:
        if not full:
            return (
                f"it was written for another definition of {self.name} (they differ at "
                f"{self.difference})"
            )
        return (
            f"it was written for `{self.registered}`, but `{self.ingested}` is ingested; "
            f"they differ at {self.difference}"
        )


def _ingested_text(decl: Declaration) -> str:
    """Its header and equations, as a doc page prints them."""
    return "; ".join(_one_line(t) for t in (decl.header, *decl.equations))


def _has_equation(decl: Declaration) -> bool:
    return any(not _NOT_RENDERED.search(e) for e in decl.equations)


def first_drift(
    definitions: tuple[RegisteredDefinition, ...], lookup: Lookup, known: KnownNames
) -> DefinitionDrift | None:
    """The first registered definition that the ingested one under its name contradicts,
    or None when every one matches or is not ingested (see the module docstring)."""
    for definition in definitions:
        decl = lookup(definition.name)
        if decl is None:
            continue
        difference = _compare(definition, decl, known)
        if difference is not None:
            return DefinitionDrift(
                definition.name, definition.lean, _ingested_text(decl), difference
            )
    return None


def _compare(definition: RegisteredDefinition, decl: Declaration, known: KnownNames) -> str | None:
    if decl.kind not in DEFINITION_KINDS:
        return f"the declaration kind: a definition vs a {decl.kind}"
    if not _has_equation(decl):
        return None  # its equation is not ingested: kept, as a definition not ingested is
    analysis = analyse_declaration(decl, known)
    if analysis.errors or analysis.binders is None:
        why = "; ".join(str(e) for e in analysis.errors) or "no binders"
        return f"the ingested definition, which does not parse ({why})"
    name = definition.name
    resolver = Resolver(namespace=name.rpartition(".")[0], known=known)
    raw_binders, raw_type, raw_body = definition.parsed
    binders, scope = resolver.binders(raw_binders, {})
    mine_type = resolver.term(raw_type, scope) if raw_type is not None else None
    theirs_type = analysis.statement
    if mine_type is not None and theirs_type is not None:
        found = first_difference(
            canonical(binders, mine_type, known), canonical(analysis.binders, theirs_type, known)
        )
        if found is not None:
            return _labelled("type", found, lambda_body=False)
    elif len(binders) != len(analysis.binders):  # no type to compare: the binders alone
        found = first_difference(
            canonical(binders, Var("_"), known), canonical(analysis.binders, Var("_"), known)
        )
        if found is not None:
            return _labelled("type", found, lambda_body=False)
    values = tuple(_value(name, eq) for eq in analysis.equations)
    if len(values) != 1:
        return f"the equations: one (`:= …`) vs {len(values)} (by cases)"
    explicit = tuple(n for b in binders if b.kind in _EXPLICIT for n in b.names)
    body = resolver.term(raw_body, scope)
    mine = Lam((Binder("plain", explicit, None),), body) if explicit else body
    found = first_difference(
        canonical(binders, mine, known), canonical(analysis.binders, values[0], known)
    )
    if found is None:
        return None
    return _labelled("equation", found, lambda_body=bool(explicit))


def _value(name: str, equation: Term) -> Term:
    """`name x y = e` as `fun x y => e` (as `e` when it takes no argument); an equation by
    cases, whose arguments are not all distinct variables, stays as it is."""
    if not (isinstance(equation, BinOp) and equation.op == "="):
        return equation
    lhs = equation.lhs
    if isinstance(lhs, Const) and lhs.name == name:
        return equation.rhs
    if not (isinstance(lhs, App) and isinstance(lhs.fn, Const) and lhs.fn.name == name):
        return equation
    names = tuple(a.name for a in lhs.args if isinstance(a, Var))
    if len(names) != len(lhs.args) or len(set(names)) != len(names):
        return equation
    return Lam((Binder("plain", names, None),), equation.rhs)


def _labelled(part: str, found: Difference, *, lambda_body: bool) -> str:
    path = found.path
    if path and path[0].startswith("binder"):
        return str(found)
    if lambda_body and path and path[0] == _LAMBDA_BODY:
        path = path[1:]  # the `fun` over the equation's arguments is this module's own
    return str(replace(found, path=(part, *path)))
