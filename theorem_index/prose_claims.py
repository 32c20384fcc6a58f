"""Prose declarations: theorems a module doc states in words, claimed by a checker.

Some theorems are documented in a module doc's prose only, with no formal
statement on the page. A checker may claim one by name (`Proofs.vit_net_lossGrad`)
and by how the prose writes it (`vit_net_lossGrad`); `add_prose_declarations`
then gives each document that mentions a claimed name, and declares no theorem
of that name itself, a declaration of kind `prose`: its statement is the
paragraph of the first mention (never parsed as Lean), its location that
paragraph's first line. Only the first document of a batch that mentions a
name gets it.

`paragraph_hash` is what a checker binds to: the SHA-256 of the paragraph with
its whitespace collapsed, so that a re-wrapped paragraph is the same text and
a changed word is not.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import replace

from theorem_index.model import PROSE, Declaration, Document, ModuleDoc, SourceLocation
from theorem_index.readers.prose import mentions

__all__ = ["add_prose_declarations", "normalise", "paragraph_hash"]


def normalise(text: str) -> str:
    return " ".join(text.split())


def paragraph_hash(text: str) -> str:
    return hashlib.sha256(normalise(text).encode()).hexdigest()


def _paragraph(doc: ModuleDoc, mention: str) -> tuple[str, int | None] | None:
    """The first paragraph of `doc` that mentions `mention`, and its first line."""
    line = doc.location.line_start if doc.location else None
    for para in doc.text.split("\n\n"):
        if mention in mentions(para):
            return para, line
        if line is not None:
            line += para.count("\n") + 2
    return None


def add_prose_declarations(
    documents: Iterable[Document], claims: Mapping[str, str]
) -> list[Document]:
    """The documents, each with the prose declarations it holds (see the module doc).

    `claims` maps a theorem's full name to the name as the prose writes it."""
    taken: set[str] = set()
    out: list[Document] = []
    for document in documents:
        declared = {d.name for d in document.declarations}
        added: list[Declaration] = []
        for name, mention in claims.items():
            if name in taken or name in declared:
                continue
            for doc in document.module_docs:
                if mention not in doc.mentions:
                    continue
                found = _paragraph(doc, mention)
                if found is None:
                    continue
                text, line = found
                file = doc.location.file if doc.location else document.file
                added.append(
                    Declaration(
                        name=name,
                        kind=PROSE,
                        module=doc.module,
                        binders="",
                        statement=text,
                        namespace=name.rpartition(".")[0],
                        location=SourceLocation(file, line, line),
                        statement_line=line,
                        statement_column=1 if line is not None else None,
                    )
                )
                taken.add(name)
                break
        out.append(replace(document, declarations=[*document.declarations, *added]))
    return out
