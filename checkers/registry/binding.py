"""A hand-written checker is bound to the statement it was written for.

A registration names its theorem's Lean text (`register(..., statement=...)`).
`bind` compares it with the declaration ingested under the same name: both
are parsed and resolved with the same known names (the registered text in
the namespace of the checker's name, the ingested one in its own context)
and brought to `theorem_index.lean.canonical` form, so that layout, grouping
parentheses, binder groups, field notation and the names of bound variables
do not matter, and anything else does.

The rule the environment and the harness apply:

- nothing ingested under the name: the registered checker checks the
  statement it was written for (and says so through `describe`);
- the statements match: the registered checker runs, and so does the checker
  derived from the ingested statement, with the same trials and seed; a
  disagreement between them is an `error` that names both verdicts;
- they differ (or the registration names no statement): the registered
  result is never reported as the theorem's. The derived checker runs when
  there is one, and its `reason` says why the registered checker was set
  aside; otherwise the check is an `error` that shows both statements and
  where they first differ (`StatementMismatch`);
- the statements match but a definition the checker reimplements was
  ingested otherwise (`checkers.registry.definition_binding`): the same as a
  statement that differs, and the reason names the definition and where the
  two first differ. A definition not ingested (or ingested without its
  equation) is the one the checker was written for, as its statement is
  when none is ingested; and where no statement is ingested the definitions
  are not compared: the checker checks the statement it was written for, in
  the terms it was written for.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from checkers.core import Unsupported
from checkers.registry.definition_binding import DefinitionDrift, first_drift
from theorem_index.lean import KnownNames, analyse_declaration, canonical, first_difference
from theorem_index.lean.resolve import Resolver
from theorem_index.prose_claims import paragraph_hash

if TYPE_CHECKING:
    from checkers.registry.definition_binding import Lookup
    from checkers.registry.registrations import RegisteredChecker
    from theorem_index.model import Declaration

__all__ = ["MATCHES", "StatementBinding", "StatementMismatch", "bind"]

THEOREM_KINDS = ("theorem", "lemma")
PROSE = "prose"
MATCHES, DIFFERS, NOT_INGESTED, UNNAMED = "matches", "differs", "not ingested", "unnamed"
DEFINITION_DIFFERS = "definition differs"


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class StatementBinding:
    """How a registered checker's statement relates to the one ingested under its name.

    `state` is `matches`, `differs`, `not ingested` (nothing by that name),
    `unnamed` (the registration names no statement) or `definition differs`
    (the statements match, a definition it reimplements does not: `drift`).
    `difference` says where the statements first differ (`lhs: `-f x` vs `f
    x``) when they do.
    """

    state: str
    registered: str
    ingested: str = ""
    difference: str = ""
    drift: DefinitionDrift | None = None

    @property
    def usable(self) -> bool:
        """The registered checker may answer for the theorem."""
        return self.state in (MATCHES, NOT_INGESTED)

    @property
    def matches(self) -> bool | None:
        """True or False when there is an ingested statement to compare with, else None."""
        return None if self.state == NOT_INGESTED else self.state in (MATCHES, DEFINITION_DIFFERS)

    def explain(self, *, full: bool = False) -> str:
        """Why the registered checker may not answer (empty when it may); `full` quotes
        both statements (or both definitions)."""
        if self.drift is not None:
            return self.drift.explain(full=full)
        if self.state == UNNAMED:
            return "the registered checker names no statement it was written for"
        if self.state != DIFFERS:
            return ""
        if not full:
            return f"it was written for another statement (they differ at {self.difference})"
        return (
            f"it was written for `{self.registered}`, but `{self.ingested}` is ingested; "
            f"they differ at {self.difference}"
        )


class StatementMismatch(Unsupported):
    """A registered checker set aside with no derived checker to take its place: an error."""


def _ingested_text(decl: Declaration) -> str:
    binders = _one_line(decl.binders)
    return f"{binders} : {_one_line(decl.statement)}" if binders else _one_line(decl.statement)


def bind(
    entry: RegisteredChecker,
    decl: Declaration | None,
    known: KnownNames,
    lookup: Lookup | None = None,
) -> StatementBinding:
    """Compare the statement `entry` was written for with `decl`, ingested under its name,
    and, when they match, the definitions it reimplements with those `lookup` finds.

    Never raises: a comparison that breaks counts as a difference (the registered
    checker is then set aside, never trusted)."""
    try:
        binding = _bind(entry, decl, known)
        definitions = getattr(entry, "definitions", ())
        if binding.state != MATCHES or not definitions or lookup is None:
            return binding
        drift = first_drift(definitions, lookup, known)
        if drift is None:
            return binding
        return dataclasses.replace(binding, state=DEFINITION_DIFFERS, drift=drift)
    except Exception as e:  # an analyser bug must not make a registered result count
        ingested = "" if decl is None else _ingested_text(decl)
        why = f"the comparison, which raised {type(e).__name__}: {e}"
        return StatementBinding(DIFFERS, entry.statement, ingested, why)


def _bind(
    entry: RegisteredChecker, decl: Declaration | None, known: KnownNames
) -> StatementBinding:
    registered = entry.statement
    if decl is None:
        return StatementBinding(NOT_INGESTED, registered)
    ingested = _ingested_text(decl)
    expected = getattr(entry, "paragraph_sha256", None)
    if isinstance(expected, str):
        return _bind_prose(expected, registered, decl, ingested)
    if decl.kind == PROSE:
        why = "the declaration kind: a theorem with a formal statement vs one stated in prose"
        return StatementBinding(DIFFERS, registered, ingested, why)
    if entry.signature is None:
        return StatementBinding(UNNAMED, registered, ingested)
    if decl.kind not in THEOREM_KINDS:
        why = f"the declaration kind: a theorem vs a {decl.kind}"
        return StatementBinding(DIFFERS, registered, ingested, why)
    analysis = analyse_declaration(decl, known)
    if analysis.errors or analysis.statement is None or analysis.binders is None:
        why = "; ".join(str(e) for e in analysis.errors) or "no statement"
        return StatementBinding(
            DIFFERS, registered, ingested, f"the ingested statement, which does not parse ({why})"
        )
    resolver = Resolver(namespace=entry.name.rpartition(".")[0], known=known)
    raw_binders, raw_statement = entry.signature
    binders, scope = resolver.binders(raw_binders, {})
    mine = canonical(binders, resolver.term(raw_statement, scope), known)
    theirs = canonical(analysis.binders, analysis.statement, known)
    difference = first_difference(mine, theirs)
    if difference is None:
        return StatementBinding(MATCHES, registered, ingested)
    return StatementBinding(DIFFERS, registered, ingested, str(difference))


def _bind_prose(
    expected: str, registered: str, decl: Declaration, ingested: str
) -> StatementBinding:
    """A prose checker is bound to its paragraph's hash (`theorem_index.prose_claims`)."""
    if decl.kind != PROSE:
        why = f"the declaration kind: a theorem stated in prose vs a {decl.kind}"
        return StatementBinding(DIFFERS, registered, ingested, why)
    found = paragraph_hash(decl.statement)
    if found == expected:
        return StatementBinding(MATCHES, registered, ingested)
    why = (
        f"the paragraph, which changed since the checker was written (sha256 "
        f"{found[:12]}… ingested, {expected[:12]}… expected)"
    )
    return StatementBinding(DIFFERS, registered, ingested, why)
