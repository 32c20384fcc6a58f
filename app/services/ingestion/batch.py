"""What ingestion works with: the batch it is given, the report it returns, and how a
declaration's revision is told apart from another (`revision_hash`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from theorem_index.model import Declaration, Document, IngestError, ModuleDoc
from theorem_index.proofs import with_markers

__all__ = [
    "DEFINITION_KINDS",
    "THEOREM_KINDS",
    "DOCUMENT_KINDS",
    "BatchLike",
    "Collected",
    "Entry",
    "IngestReport",
    "collect",
    "describe_document_kinds",
    "module_docs_hash",
    "revision_hash",
    "sha256_json",
]

THEOREM_KINDS = frozenset({"theorem", "lemma", "prose"})
DEFINITION_KINDS = frozenset({"def", "abbrev", "instance", "opaque"})
# What a folder is searched for (theorem_index.readers.batch.FOLDER_EXTENSIONS), by kind.
DOCUMENT_KINDS = (
    ("doc-gen4 HTML pages", (".html", ".htm", ".xhtml")),
    ("doc-gen4 JSON data", (".bmp",)),
    ("plain-text doc pages", (".txt",)),
    ("Lean 4 source", (".lean",)),
)


def describe_document_kinds() -> str:
    """'doc-gen4 HTML pages (.html, .htm, .xhtml), ..., Lean 4 source (.lean)'."""
    kinds = [f"{kind} ({', '.join(exts)})" for kind, exts in DOCUMENT_KINDS]
    return ", ".join(kinds[:-1]) + f" and {kinds[-1]}"


class BatchLike(Protocol):
    """What `theorem_index.readers.read_paths` returns."""

    @property
    def documents(self) -> Sequence[Document]: ...

    @property
    def errors(self) -> Sequence[IngestError]: ...

    @property
    def files(self) -> int: ...


@dataclass(frozen=True)
class IngestReport:
    """CONTRACT.md's ingestion report (plus the number of module docs read, and the
    warnings: copies of names other modules own, read but not stored)."""

    files: int
    declarations: int
    theorems: int
    definitions: int
    new: int
    changed: int
    unchanged: int
    removed: int
    parsed: int
    module_docs: int
    errors: tuple[IngestError, ...]
    # what was read but deliberately not stored (a name another module owns)
    warnings: tuple[IngestError, ...] = ()

    @property
    def exit_code(self) -> int:
        """2 when nothing could be ingested and something was wrong, else 0."""
        nothing = self.declarations == 0 and self.module_docs == 0
        return 2 if nothing and self.errors else 0

    @property
    def exit_code_strict(self) -> int:
        """`--strict`: as `exit_code`, and 1 when anything else reported an error."""
        return self.exit_code or (1 if self.errors else 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "declarations": self.declarations,
            "theorems": self.theorems,
            "definitions": self.definitions,
            "new": self.new,
            "changed": self.changed,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "parsed": self.parsed,
            "module_docs": self.module_docs,
            "errors": [_located(e) for e in self.errors],
            "warnings": [_located(e) for e in self.warnings],
        }


def _located(e: IngestError) -> dict[str, Any]:
    return {"file": e.file, "line": e.line, "column": e.column, "message": e.message}


def sha256_json(payload: Any) -> str:
    raw = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(raw.encode()).hexdigest()


def revision_hash(decl: Declaration) -> str:
    """What makes two revisions differ: the text, and the scope its names resolve in."""
    return sha256_json(
        [decl.content_hash(), decl.namespace, list(decl.opens), [list(x) for x in decl.links]]
    )


def module_docs_hash(docs: Sequence[ModuleDoc]) -> str:
    return sha256_json([[d.module, d.text, list(d.headings), list(d.mentions)] for d in docs])


@dataclass(frozen=True)
class Entry:
    decl: Declaration
    doc: Document
    hash: str


@dataclass(frozen=True)
class Collected:
    """A batch's declarations in order, every copy of a name included (which copy is
    stored is decided against the database: `owners`), its errors, and how many
    documents repeated a file read earlier in the batch (given twice, or inside a folder
    also given)."""

    entries: list[Entry]
    errors: list[IngestError]
    repeated_files: int


def collect(batch: BatchLike, sorry_macros: Collection[str] = ()) -> Collected:
    """The batch's declarations and errors (each error once); a document of a file already
    read in this batch is skipped. A proof that uses one of `sorry_macros` is unproved."""
    errors: list[IngestError] = []
    seen_errors: set[tuple[str, int | None, int | None, str]] = set()

    def add(error: IngestError) -> None:
        key = (error.file, error.line, error.column, error.message)
        if key not in seen_errors:
            seen_errors.add(key)
            errors.append(error)

    for error in batch.errors:
        add(error)
    entries: list[Entry] = []
    files: set[str] = set()
    repeated = 0
    for doc in batch.documents:
        if doc.file in files:
            repeated += 1
            continue
        files.add(doc.file)
        for error in doc.errors:
            add(error)
        for decl in doc.declarations:
            decl = with_markers(decl, sorry_macros)
            entries.append(Entry(decl, doc, revision_hash(decl)))
    return Collected(entries, errors, repeated)
