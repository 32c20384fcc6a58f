"""A declaration's binders, statement and equations as resolved term trees.

`analyse_declaration` parses each part separately, so one broken part never
hides the others, and resolves names in the declaration's context: its
binders are bound in the statement and the equations; on an equation's
left-hand side every identifier that is not the head and not a known
constant is a pattern variable, bound on both sides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..model import PROSE, Declaration
from .errors import LeanParseError
from .known import KnownNames
from .parser import parse_binders, parse_term
from .resolve import Resolver
from .syntax import App, Binder, BinOp, Term, from_json, to_json

_NOT_RENDERED = re.compile(r"did not get rendered", re.IGNORECASE)


@dataclass(frozen=True)
class LocatedParseError:
    """A parse error in one part of a declaration.

    `line`/`column` (1-based) are relative to that part's text; for the
    statement, `file_line`/`file_column` are also given absolute in the source
    file when the declaration says where its statement starts
    (`statement_line`/`statement_column`, 1-based).
    """

    part: str  # "binders" | "statement" | "equation N" (1-based)
    message: str
    line: int
    column: int
    file_line: int | None = None
    file_column: int | None = None

    def __str__(self) -> str:
        where = f"{self.part}, line {self.line}, column {self.column}"
        return f"{self.message} ({where})"

    def to_json(self) -> dict[str, Any]:
        return {
            "part": self.part,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "file_line": self.file_line,
            "file_column": self.file_column,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LocatedParseError:
        return cls(
            part=data["part"],
            message=data["message"],
            line=data["line"],
            column=data["column"],
            file_line=data.get("file_line"),
            file_column=data.get("file_column"),
        )


@dataclass(frozen=True)
class Analysis:
    """What the parser and resolver made of one declaration."""

    binders: tuple[Binder, ...] | None
    statement: Term | None
    equations: tuple[Term, ...]
    constants: tuple[str, ...]
    unknown_constants: tuple[str, ...]
    errors: tuple[LocatedParseError, ...]

    @property
    def parsed(self) -> bool:
        return not self.errors

    @property
    def first_error(self) -> LocatedParseError | None:
        return self.errors[0] if self.errors else None

    def to_json(self) -> dict[str, Any]:
        return {
            "binders": to_json(self.binders) if self.binders is not None else None,
            "statement": to_json(self.statement) if self.statement is not None else None,
            "equations": to_json(self.equations),
            "constants": list(self.constants),
            "unknown_constants": list(self.unknown_constants),
            "errors": [e.to_json() for e in self.errors],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Analysis:
        binders = from_json(data["binders"]) if data.get("binders") is not None else None
        statement = from_json(data["statement"]) if data.get("statement") is not None else None
        return cls(
            binders=binders,
            statement=statement,
            equations=tuple(from_json(data.get("equations", []))),
            constants=tuple(data.get("constants", ())),
            unknown_constants=tuple(data.get("unknown_constants", ())),
            errors=tuple(LocatedParseError.from_json(e) for e in data.get("errors", ())),
        )


def _absolute(
    decl: Declaration, offset_text: str, err: LeanParseError
) -> tuple[int | None, int | None]:
    """File position of `err`, given the text that precedes the part in the header."""
    if decl.statement_line is None:
        return None, None
    line, column = err.line, err.column
    lead_lines = offset_text.count("\n")
    lead_col = len(offset_text) - (offset_text.rfind("\n") + 1)
    file_line = decl.statement_line + lead_lines + line - 1
    if line == 1:
        base = (decl.statement_column or 1) if lead_lines == 0 else 1
        return file_line, base + lead_col + column - 1
    return file_line, column


def _located(
    decl: Declaration, part: str, err: LeanParseError, offset_text: str | None
) -> LocatedParseError:
    file_line = file_column = None
    if offset_text is not None:
        file_line, file_column = _absolute(decl, offset_text, err)
    return LocatedParseError(part, err.msg, err.line, err.column, file_line, file_column)


def _namespace_and_opens(decl: Declaration) -> tuple[str, tuple[str, ...]]:
    namespace = decl.name.rpartition(".")[0]
    opens = tuple(decl.opens)
    if decl.namespace and not (namespace + ".").startswith(decl.namespace + "."):
        opens = (decl.namespace, *opens)
    return namespace, opens


def analyse_declaration(decl: Declaration, known: KnownNames) -> Analysis:
    """Parse and resolve the binders, statement and rendered equations of `decl`.

    A prose declaration's statement is a paragraph of prose: nothing to parse."""
    if decl.kind == PROSE:
        return Analysis(None, None, (), (), (), ())
    namespace, opens = _namespace_and_opens(decl)
    links = dict(decl.links)
    links.setdefault(decl.name, decl.name)
    resolver = Resolver(namespace=namespace, opens=opens, known=known, links=links)
    errors: list[LocatedParseError] = []

    binders: tuple[Binder, ...] | None = ()
    scope: dict[str, str | None] = {}
    if decl.binders.strip():
        try:
            raw = parse_binders(decl.binders)
        except LeanParseError as err:
            errors.append(_located(decl, "binders", err, None))
            binders = None
        else:
            binders, scope = resolver.binders(raw, {})

    statement: Term | None = None
    if decl.statement.strip():
        try:
            raw_statement = parse_term(decl.statement)
        except LeanParseError as err:
            errors.append(_located(decl, "statement", err, ""))
        else:
            statement = resolver.term(raw_statement, scope)

    equations: list[Term] = []
    for n, text in enumerate(decl.equations, start=1):
        if _NOT_RENDERED.search(text):
            continue
        try:
            raw_eq = parse_term(text)
        except LeanParseError as err:
            errors.append(_located(decl, f"equation {n}", err, None))
            continue
        eq_scope = dict(scope)
        if isinstance(raw_eq, BinOp) and raw_eq.op == "=" and isinstance(raw_eq.lhs, App):
            for arg in raw_eq.lhs.args:
                for name in resolver.pattern_vars(arg, eq_scope):
                    eq_scope.setdefault(name, None)
        equations.append(resolver.term(raw_eq, eq_scope))

    return Analysis(
        binders=binders,
        statement=statement,
        equations=tuple(equations),
        constants=tuple(sorted(resolver.constants)),
        unknown_constants=tuple(sorted(resolver.unknown)),
        errors=tuple(errors),
    )
