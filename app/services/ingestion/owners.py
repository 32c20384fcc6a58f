"""Which copy of a name a batch stores, when several modules declare it.

Rule: a name belongs to the module (source file) that first declared it, until that file,
read cleanly again, no longer declares it. A copy in any other file is reported as a
warning (its file and line, and the owner's module, file and line) and not stored, so that
ingesting the same inputs again, in any order, changes nothing. Between copies none of
which is owned yet, the batch's first wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.services.ingestion.batch import Entry
from app.services.ingestion.snapshot import KnownDeclaration, Snapshot
from theorem_index.model import IngestError

__all__ = ["choose_owners", "duplicate_warning"]


def duplicate_warning(
    copy: Entry, name: str, module: str, file: str | None, line: int | None
) -> IngestError:
    where = file or "an unknown file"
    if line is not None:
        where += f":{line}"
    loc = copy.decl.location
    return IngestError(
        loc.file if loc else copy.doc.file,
        loc.line_start if loc else None,
        None,
        f"duplicate declaration {name}: it belongs to module {module} ({where}); "
        "this copy is not stored",
    )


def _owner_in_batch(
    known: KnownDeclaration | None,
    group: Sequence[Entry],
    source_ids: Mapping[str, int],
    clean_sources: set[int],
) -> Entry | KnownDeclaration:
    """The copy that keeps the name: an entry of `group`, or the stored owner when no
    copy of this batch may take it."""
    if known is None or known.removed or known.source_id is None:
        return group[0]
    for entry in group:
        if source_ids.get(entry.doc.file) == known.source_id:
            return entry  # the owner still declares it
    if known.source_id in clean_sources:
        return group[0]  # the owner was read cleanly and dropped it: the name is free
    return known


def choose_owners(
    entries: Sequence[Entry],
    snap: Snapshot,
    source_ids: Mapping[str, int],
    clean_sources: set[int],
) -> tuple[list[Entry], list[IngestError]]:
    """The entries to store (one per name, in batch order) and a warning per copy left out.

    `source_ids` maps the batch's files to their source ids; `clean_sources` are the ids
    of the batch's files read without errors (only those can give a name up)."""
    groups: dict[str, list[Entry]] = {}
    for entry in entries:
        groups.setdefault(entry.decl.name, []).append(entry)
    owners = {
        name: _owner_in_batch(snap.declarations.get(name), group, source_ids, clean_sources)
        for name, group in groups.items()
    }
    kept: list[Entry] = []
    warnings: list[IngestError] = []
    for entry in entries:
        owner = owners[entry.decl.name]
        if owner is entry:
            kept.append(entry)
            continue
        file: str | None
        if isinstance(owner, Entry):
            loc = owner.decl.location
            module, file = owner.decl.module, loc.file if loc else owner.doc.file
            line = loc.line_start if loc else None
        else:
            module, file, line = owner.module, owner.file, owner.line_start
        warnings.append(duplicate_warning(entry, entry.decl.name, module, file, line))
    return kept, warnings
