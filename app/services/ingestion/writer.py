"""Writing one ingestion batch inside the caller's locked transaction (see ingest.py for
the rules): compare against a snapshot in memory, parse what is new, write in bulk."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from app import models
from app.services.ingestion.batch import (
    DEFINITION_KINDS,
    THEOREM_KINDS,
    BatchLike,
    Collected,
    Entry,
    IngestReport,
    module_docs_hash,
    revision_hash,
    sha256_json,
)
from app.services.ingestion.module_docs import write_module_docs
from app.services.ingestion.owners import choose_owners
from app.services.ingestion.parsing import ParseOutcome, Parser
from app.services.ingestion.snapshot import Snapshot, chunks, load_snapshot, revision_to_declaration
from theorem_index.model import IngestError

__all__ = ["BatchWriter", "parse_error_to_ingest_error"]


def _revision_row(
    entry: Entry, declaration_id: int, number: int, source_id: int | None, commit: str | None
) -> dict[str, Any]:
    decl = entry.decl
    loc = decl.location
    return {
        "declaration_id": declaration_id,
        "revision": number,
        "content_hash": entry.hash,
        "kind": decl.kind,
        "module": decl.module,
        "binders": decl.binders,
        "statement": decl.statement,
        "docstring": decl.docstring,
        "equations": list(decl.equations),
        "equations_rendered": decl.equations_rendered,
        "attributes": list(decl.attributes),
        "modifiers": list(decl.modifiers),
        "namespace": decl.namespace,
        "opens": list(decl.opens),
        "sorried": decl.sorried,
        "proof": decl.proof,
        "proof_uses": list(decl.proof_uses),
        "links": [list(x) for x in decl.links],
        "source_id": source_id,
        "file": loc.file if loc else entry.doc.file,
        "line_start": loc.line_start if loc else None,
        "line_end": loc.line_end if loc else None,
        "statement_line": decl.statement_line,
        "statement_column": decl.statement_column,
        "commit": commit,
    }


def _parse_columns(outcome: ParseOutcome) -> dict[str, Any]:
    return {
        "parsed": outcome.parsed,
        "parse_error": outcome.parse_error,
        "constants": outcome.constants,
        "unknown_constants": outcome.unknown_constants,
    }


def parse_error_to_ingest_error(
    name: str, file: str | None, line: int | None, parse_error: dict[str, Any]
) -> IngestError:
    """A stored parse error as a report entry: at its file position when known, else at
    the declaration's first line, the position within the part in the message."""
    part = parse_error.get("part") or "statement"
    message = f"cannot parse the {part} of {name}: {parse_error.get('message', '')}"
    if parse_error.get("line") is not None:
        message += (
            f" (line {parse_error['line']}, column {parse_error.get('column')} of the {part})"
        )
    file_line = parse_error.get("file_line")
    return IngestError(
        file or "",
        file_line if file_line is not None else line,
        parse_error.get("file_column") if file_line is not None else None,
        message,
    )


class BatchWriter:
    """One attempt at writing a batch, inside the caller's locked transaction."""

    def __init__(
        self,
        session: Session,
        batch: BatchLike,
        collected: Collected,
        commit: str | None,
        parser_factory: Callable[[Iterable[str]], Parser],
    ) -> None:
        self.session = session
        self.batch = batch
        self.collected = collected
        self.entries: list[Entry] = []  # one per name, chosen in `run`
        self.errors = list(collected.errors)
        self.commit = commit
        self.parser_factory = parser_factory
        self.now = models.utcnow()
        # whether what proofs use or rest on may have changed (`proof_graph`): a
        # declaration added, removed or restored, or a proof's status or names changed
        self.proofs_changed = False

    def run(self) -> IngestReport:
        snap = load_snapshot(self.session)
        source_ids = self._write_sources(snap)
        clean = self._clean_sources(source_ids)
        self.entries, warnings = choose_owners(self.collected.entries, snap, source_ids, clean)
        batch_names = {e.decl.name for e in self.entries}
        new: list[Entry] = []
        changed: list[Entry] = []
        decl_updates: list[dict[str, Any]] = []
        location_updates: list[dict[str, Any]] = []
        proof_updates: list[dict[str, Any]] = []
        decl_proofs: list[dict[str, Any]] = []
        restored: set[str] = set()
        for entry in self.entries:
            known = snap.declarations.get(entry.decl.name)
            if known is None:
                new.append(entry)
            elif known.content_hash != entry.hash:
                changed.append(entry)
            else:
                source_id = source_ids.get(entry.doc.file)
                loc = entry.decl.location
                file = loc.file if loc else entry.doc.file
                lines = (loc.line_start, loc.line_end) if loc else (None, None)
                moved = (known.source_id, known.module) != (source_id, entry.decl.module)
                if moved or known.removed:
                    decl_updates.append(self._decl_update(known.id, entry, source_id))
                    if known.removed:
                        restored.add(entry.decl.name)
                proof = (entry.decl.proof, entry.decl.proof_uses)
                if proof != (known.proof, known.proof_uses):  # the statement is unchanged
                    proof_updates.append(
                        {"id": known.revision_id, "proof": proof[0], "proof_uses": list(proof[1])}
                    )
                    if proof[0] != known.proof:
                        decl_proofs.append({"id": known.id, "proof": proof[0]})
                if moved or (known.file, known.line_start, known.line_end) != (file, *lines):
                    location_updates.append(
                        {
                            "id": known.revision_id,
                            "module": entry.decl.module,
                            "source_id": source_id,
                            "file": file,
                            "line_start": lines[0],
                            "line_end": lines[1],
                        }
                    )

        live = {n for n, d in snap.declarations.items() if not d.removed}
        parser = self.parser_factory(live | batch_names)
        to_parse = [*new, *changed]
        analysed = parser.analyse_many([e.decl for e in to_parse])
        outcomes = {e.decl.name: o for e, o in zip(to_parse, analysed, strict=True)}

        ids = self._insert_declarations(new, source_ids)
        revision_rows: list[dict[str, Any]] = []
        for entry in new:
            row = _revision_row(
                entry, ids[entry.decl.name], 1, source_ids.get(entry.doc.file), self.commit
            )
            revision_rows.append(row | _parse_columns(outcomes[entry.decl.name]))
        for entry in changed:
            known = snap.declarations[entry.decl.name]
            number = known.current_revision + 1
            source_id = source_ids.get(entry.doc.file)
            row = _revision_row(entry, known.id, number, source_id, self.commit)
            revision_rows.append(row | _parse_columns(outcomes[entry.decl.name]))
            decl_updates.append(
                self._decl_update(known.id, entry, source_id)
                | {
                    "current_revision": number,
                    "content_hash": entry.hash,
                }
            )
        if revision_rows:
            self.session.execute(insert(models.DeclarationRevision), revision_rows)
        self._bulk_update(models.Declaration, decl_updates)
        self._bulk_update(models.DeclarationRevision, location_updates)
        self._bulk_update(models.DeclarationRevision, proof_updates)
        self._bulk_update(models.Declaration, decl_proofs)
        self.proofs_changed = bool(new or restored or proof_updates) or any(
            (e.decl.proof, e.decl.proof_uses)
            != (snap.declarations[e.decl.name].proof, snap.declarations[e.decl.name].proof_uses)
            for e in changed
        )
        reparsed = {e.decl.name for e in to_parse}
        self._resolve_again(snap, parser, (set(ids) | restored) - live, reparsed)
        removed = self._mark_removed(snap, clean, batch_names)
        self.proofs_changed = self.proofs_changed or removed > 0
        module_docs, doc_warnings = write_module_docs(
            self.session,
            documents=self.batch.documents,
            source_ids=source_ids,
            snap=snap,
            now=self.now,
        )
        parsed = self._collect_parse_state(snap, new, changed, outcomes)
        kinds = [e.decl.kind for e in self.entries]
        return IngestReport(
            files=self.batch.files - self.collected.repeated_files,
            declarations=len(self.entries),
            theorems=sum(k in THEOREM_KINDS for k in kinds),
            definitions=sum(k in DEFINITION_KINDS for k in kinds),
            new=len(new),
            changed=len(changed),
            unchanged=len(self.entries) - len(new) - len(changed),
            removed=removed,
            parsed=parsed,
            module_docs=module_docs,
            errors=tuple(self.errors),
            warnings=(*warnings, *doc_warnings),
        )

    def _decl_update(self, decl_id: int, entry: Entry, source_id: int | None) -> dict[str, Any]:
        return {
            "id": decl_id,
            "kind": entry.decl.kind,
            "module": entry.decl.module,
            "proof": entry.decl.proof,
            "source_id": source_id,
            "removed": False,
            "removed_at": None,
            "updated_at": self.now,
        }

    def _bulk_update(self, model: type[models.Base], rows: list[dict[str, Any]]) -> None:
        # Bulk UPDATE by primary key needs the same keys in every row of one statement.
        groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for row in rows:
            groups.setdefault(tuple(sorted(row)), []).append(row)
        for group in groups.values():
            self.session.execute(update(model), group)

    def _write_sources(self, snap: Snapshot) -> dict[str, int]:
        ids: dict[str, int] = {}
        fresh: list[dict[str, Any]] = []
        updates: list[dict[str, Any]] = []
        existing = snap.sources_for(self.session, [d.file for d in self.batch.documents])
        for doc in self.batch.documents:
            if doc.file in ids:
                continue
            docs_hash = module_docs_hash(doc.module_docs)
            content = sha256_json(
                [[d.name, revision_hash(d)] for d in doc.declarations] + [docs_hash]
            )
            row = {
                "format": doc.format,
                "module": doc.module,
                "content_hash": content,
                "commit": self.commit,
                "last_ingested_at": self.now,
            }
            known = existing.get(doc.file)
            if known is None:
                fresh.append(row | {"path": doc.file, "created_at": self.now})
                ids[doc.file] = -1
            else:
                ids[doc.file] = known.id
                updates.append(row | {"id": known.id})
        if fresh:
            result = self.session.execute(
                insert(models.Source).returning(models.Source.id, models.Source.path), fresh
            )
            for source_id, path in result:
                ids[path] = source_id
        self._bulk_update(models.Source, updates)
        return ids

    def _insert_declarations(self, new: list[Entry], source_ids: dict[str, int]) -> dict[str, int]:
        if not new:
            return {}
        rows = [
            {
                "name": e.decl.name,
                "kind": e.decl.kind,
                "module": e.decl.module,
                "source_id": source_ids.get(e.doc.file),
                "current_revision": 1,
                "content_hash": e.hash,
                "proof": e.decl.proof,
                "removed": False,
                "created_at": self.now,
                "updated_at": self.now,
            }
            for e in new
        ]
        stmt = insert(models.Declaration).returning(models.Declaration.id, models.Declaration.name)
        return {name: decl_id for decl_id, name in self.session.execute(stmt, rows)}

    def _resolve_again(
        self, snap: Snapshot, parser: Parser, newly_known: set[str], reparsed: set[str]
    ) -> None:
        """Re-parse the current revisions (not new in this batch) whose unknown constants
        this batch has defined; their text is unchanged, so no new revision is made."""
        if not newly_known:
            return
        ids = [
            d.revision_id
            for d in snap.declarations.values()
            if d.unknown_constants
            and d.name not in reparsed
            and newly_known.intersection(d.unknown_constants)
        ]
        updates: list[dict[str, Any]] = []
        for chunk in chunks(ids):
            stmt = (
                select(models.Declaration, models.DeclarationRevision)
                .join(
                    models.DeclarationRevision,
                    models.DeclarationRevision.declaration_id == models.Declaration.id,
                )
                .where(models.DeclarationRevision.id.in_(chunk))
            )
            for decl_row, rev in self.session.execute(stmt):
                outcome = parser.analyse(revision_to_declaration(decl_row, rev))
                updates.append({"id": rev.id} | _parse_columns(outcome))
        self._bulk_update(models.DeclarationRevision, updates)

    def _clean_sources(self, source_ids: dict[str, int]) -> set[int]:
        """The stored sources this batch read without errors."""
        return {
            source_ids[doc.file]
            for doc in self.batch.documents
            if not doc.errors and source_ids.get(doc.file, -1) > 0
        }

    def _mark_removed(self, snap: Snapshot, clean: set[int], batch_names: set[str]) -> int:
        gone = [
            d.id
            for name, d in snap.declarations.items()
            if d.source_id in clean and not d.removed and name not in batch_names
        ]
        for chunk in chunks(gone):
            self.session.execute(
                update(models.Declaration)
                .where(models.Declaration.id.in_(chunk))
                .values(removed=True, removed_at=self.now, updated_at=self.now)
            )
        return len(gone)

    def _collect_parse_state(
        self,
        snap: Snapshot,
        new: list[Entry],
        changed: list[Entry],
        outcomes: dict[str, ParseOutcome],
    ) -> int:
        """Count the batch's parsed declarations; report every parse error among them."""
        fresh = {e.decl.name for e in (*new, *changed)}
        failed_before: list[int] = []
        parsed = 0
        for entry in self.entries:
            name = entry.decl.name
            if name in fresh:
                outcome = outcomes[name]
                parsed += outcome.ok
                if outcome.parse_error is not None:
                    loc = entry.decl.location
                    self.errors.append(
                        parse_error_to_ingest_error(
                            name,
                            loc.file if loc else entry.doc.file,
                            loc.line_start if loc else None,
                            outcome.parse_error,
                        )
                    )
            else:
                known = snap.declarations[name]
                if known.parse_ok:
                    parsed += 1
                else:
                    failed_before.append(known.revision_id)
        for chunk in chunks(failed_before):
            stmt = (
                select(
                    models.Declaration.name,
                    models.DeclarationRevision.file,
                    models.DeclarationRevision.line_start,
                    models.DeclarationRevision.parse_error,
                )
                .join(
                    models.Declaration,
                    models.Declaration.id == models.DeclarationRevision.declaration_id,
                )
                .where(models.DeclarationRevision.id.in_(chunk))
            )
            for name, file, line, error in self.session.execute(stmt):
                if error is not None:
                    self.errors.append(parse_error_to_ingest_error(name, file, line, error))
        return parsed
