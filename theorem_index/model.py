"""What ingestion produces: declarations, module docs and precise errors.

These records are plain frozen dataclasses so that every reader (seed text,
doc-gen4 HTML and JSON, Lean source) returns the same shape and the database
layer can store them without knowing where they came from.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

DECL_KINDS = (
    "theorem",
    "def",
    "axiom",
    "opaque",
    "instance",
    "inductive",
    "structure",
    "class",
    "ctor",
    "abbrev",
    "lemma",
    "example",
    "prose",
)
# a theorem a module doc states in words: its statement is the paragraph, never Lean
PROSE = "prose"

# Whether a declaration's own proof is complete: `proved` (no `sorry` in it), `unproved`
# (it uses `sorry`, `admit` or a macro declared to expand to one), or `unknown` (the
# input does not say: a text page, doc-gen4 JSON without the mark).
PROVED, UNPROVED, UNKNOWN = "proved", "unproved", "unknown"
PROOF_STATES = (PROVED, UNPROVED, UNKNOWN)


@dataclass(frozen=True)
class SourceLocation:
    """Where a declaration stands: a file and its 1-based first and last lines."""

    file: str
    line_start: int | None = None
    line_end: int | None = None


@dataclass(frozen=True)
class Declaration:
    """One documented declaration, as text, before its terms are parsed."""

    name: str
    kind: str
    module: str
    binders: str
    statement: str
    docstring: str | None = None
    equations: tuple[str, ...] = ()
    equations_rendered: bool = True
    attributes: tuple[str, ...] = ()
    modifiers: tuple[str, ...] = ()
    location: SourceLocation | None = None
    namespace: str = ""
    opens: tuple[str, ...] = ()  # `open` directives in force, as `theorem_index.opens` writes them
    proof: str = UNKNOWN  # one of PROOF_STATES
    # the names the proof mentions, as written (Lean source only): what it rests on, once
    # resolved against the ingested declarations (`theorem_index.proofs`)
    proof_uses: tuple[str, ...] = ()
    # Fully qualified names that the source already resolved for us
    # (doc-gen4 HTML links): written text -> full name.
    links: tuple[tuple[str, str], ...] = ()
    # Where the binders / statement text start in the source, for error positions.
    statement_line: int | None = None
    statement_column: int | None = None

    @property
    def sorried(self) -> bool:
        """Whether the declaration's own proof uses `sorry` (or a stand-in for it)."""
        return self.proof == UNPROVED

    @property
    def short_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    @property
    def header(self) -> str:
        """The declaration as one line, the way the seed pages print it."""
        parts = [" ".join((*self.modifiers, self.kind)), self.name]
        if self.binders:
            parts.append(self.binders)
        return " ".join(parts) + (f" : {self.statement}" if self.statement else "")

    def content_hash(self) -> str:
        """A hash of everything that makes two revisions of this declaration differ."""
        payload = {
            "kind": self.kind,
            "binders": self.binders,
            "statement": self.statement,
            "docstring": self.docstring or "",
            "equations": list(self.equations),
            "equations_rendered": self.equations_rendered,
            "attributes": list(self.attributes),
            "modifiers": list(self.modifiers),
            "sorried": self.sorried,
        }
        raw = json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()
        return hashlib.sha256(raw).hexdigest()


@dataclass(frozen=True)
class ModuleDoc:
    """A module-doc block: its prose, headings and the declaration names it mentions."""

    module: str
    text: str
    headings: tuple[str, ...] = ()
    mentions: tuple[str, ...] = ()
    location: SourceLocation | None = None


@dataclass(frozen=True)
class IngestError:
    """A precise complaint about one place in one input file."""

    file: str
    line: int | None
    column: int | None
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"


@dataclass
class Document:
    """Everything read from one input file."""

    file: str
    format: str
    module: str
    declarations: list[Declaration] = field(default_factory=list)
    module_docs: list[ModuleDoc] = field(default_factory=list)
    errors: list[IngestError] = field(default_factory=list)
