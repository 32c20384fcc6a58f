"""What ingestion works with: the batch it is given, the report it returns, and how a
declaration's revision is told apart from another (`revision_hash`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from theorem_index.model import Declaration, Document, IngestError, ModuleDoc

__all__ = [
    "DEFINITION_KINDS",
    "THEOREM_KINDS",
    "BatchLike",
    "Entry",
    "IngestReport",
    "collect",
    "module_docs_hash",
    "revision_hash",
    "sha256_json",
]

THEOREM_KINDS = frozenset({"theorem", "lemma"})
DEFINITION_KINDS = frozenset({"def", "abbrev", "instance", "opaque"})


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
    """CONTRACT.md's ingestion report (plus the number of module docs read)."""

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

    @property
    def exit_code(self) -> int:
        """2 when nothing could be ingested and something was wrong, else 0."""
        nothing = self.declarations == 0 and self.module_docs == 0
        return 2 if nothing and self.errors else 0

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
            "errors": [
                {"file": e.file, "line": e.line, "column": e.column, "message": e.message}
                for e in self.errors
            ],
        }


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


def collect(batch: BatchLike) -> tuple[list[Entry], list[IngestError]]:
    """The batch's declarations (first occurrence of each name wins) and its errors."""
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
    first: dict[str, Declaration] = {}
    for doc in batch.documents:
        for error in doc.errors:
            add(error)
        for decl in doc.declarations:
            if decl.name in first:
                earlier = first[decl.name]
                where = earlier.location.file if earlier.location else "an earlier file"
                line = earlier.location.line_start if earlier.location else None
                here = decl.location
                add(
                    IngestError(
                        here.file if here else doc.file,
                        here.line_start if here else None,
                        None,
                        f"duplicate declaration {decl.name}: already read from "
                        + (where if line is None else f"{where}:{line}"),
                    )
                )
                continue
            first[decl.name] = decl
            entries.append(Entry(decl, doc, revision_hash(decl)))
    return entries, errors
