"""The author's loop: watch files, re-ingest the ones saved, re-check what changed.

A `Watcher` ingests its paths once, then each `poll` looks at the files' modification
times and sizes: the files that changed (or appeared), once they have stayed unchanged
for one look (so that a file is never read half written), are read again, as reading the whole
path would read them (`theorem_index.readers.read_files_under`), and ingested; the
declarations of a file that disappeared are removed. What is
checked: the theorems whose revision the ingestion changed (a new or edited statement, a
proof that became complete or not), and the theorems whose checker used a definition that
changed. The process stays warm between rounds: the checkers loaded once, the compiled
programs kept, the environment of the declarations rebuilt only when they changed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

from app import models
from app.crud.declarations import THEOREM_KINDS
from app.services.ingestion import IngestReport, ingest_batch, ingest_paths, remove_sources
from app.services.runs import CheckParams, RunOutcome, WarmEnvironment, create_run, execute_run
from theorem_index.readers import FOLDER_EXTENSIONS, read_files_under

__all__ = ["Round", "Watcher"]

Stamp = tuple[int, int]  # modification time (ns), size


@dataclass
class Round:
    """One poll that found changes: the files, the ingestion's report, what was checked."""

    files: list[str]
    report: IngestReport | None = None
    checked: list[str] = field(default_factory=list)
    outcome: RunOutcome | None = None


def _scan(path: Path) -> dict[Path, Stamp]:
    """Every document file under `path` (or `path` itself), with its stamp."""
    found: dict[Path, Stamp] = {}
    files: list[Path]
    if path.is_file():
        files = [path]
    else:
        files = []
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            files += [
                Path(dirpath) / f
                for f in filenames
                if not f.startswith(".") and os.path.splitext(f)[1].lower() in FOLDER_EXTENSIONS
            ]
    for file in files:
        try:
            st = file.stat()
        except OSError:  # gone between the listing and now
            continue
        found[file] = (st.st_mtime_ns, st.st_size)
    return found


class Watcher:
    """Watches `paths`; `start` ingests them, each `poll` handles what changed since."""

    def __init__(
        self,
        session: Session,
        paths: Sequence[str],
        *,
        params: CheckParams,
        warm: WarmEnvironment | None = None,
        on_result: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.session = session
        self.paths = [Path(p) for p in paths]
        self.params = params
        self.warm = warm or WarmEnvironment()
        self.on_result = on_result
        self.stamps: dict[Path, dict[Path, Stamp]] = {}
        # by root: the files changed at the last look, not yet read, with their stamps
        self.unsettled: dict[Path, dict[Path, Stamp]] = {}

    def start(self) -> IngestReport:
        """Ingest every path as `proofbridge ingest` would; remember the files' stamps."""
        self.stamps = {p: _scan(p) for p in self.paths}
        report = ingest_paths(self.session, paths=[str(p) for p in self.paths])
        self.warm.get(self.session)  # the checkers and the environment, loaded now
        return report

    @property
    def files(self) -> int:
        return sum(len(s) for s in self.stamps.values())

    def poll(self) -> Round | None:
        """Ingest what changed since the last look and name the theorems to check (`check`
        checks them); None when nothing changed."""
        batches = []
        changed_files: list[str] = []
        gone: list[str] = []
        for root in self.paths:
            now = _scan(root)
            before = self.stamps.get(root, {})
            changed = {f: stamp for f, stamp in now.items() if before.get(f) != stamp}
            # a file is read once its stamp held still for one look: one caught between an
            # editor truncating it and writing it is read when the writing is done
            waiting = self.unsettled.setdefault(root, {})
            saved = sorted(f for f, stamp in changed.items() if waiting.get(f) == stamp)
            waiting.clear()
            waiting.update((f, stamp) for f, stamp in changed.items() if f not in saved)
            gone += [str(f) for f in sorted(set(before) - set(now))]
            self.stamps[root] = {
                f: before[f] if f in waiting else stamp
                for f, stamp in now.items()
                if f not in waiting or f in before
            }
            if saved:
                batches.append(read_files_under(root, saved))
                changed_files += [str(f) for f in saved]
        if not changed_files and not gone:
            return None
        hashes = self._hashes()
        out = Round([*changed_files, *gone])
        if gone:
            remove_sources(self.session, paths=gone)
        for batch in batches:
            out.report = ingest_batch(self.session, batch=batch)
        out.checked = self._to_check(hashes)
        return out

    def _hashes(self) -> dict[str, str]:
        d = models.Declaration
        stmt = select(d.name, d.content_hash).where(d.removed.is_(False))
        return {str(name): str(h) for name, h in self.session.execute(stmt).all()}

    def _to_check(self, before: dict[str, str]) -> list[str]:
        """The live theorems whose revision changed, and those whose checker used a
        declaration that changed."""
        d, dep = models.Declaration, models.Dependency
        after = self._hashes()
        changed = {n for n, h in after.items() if before.get(n) != h}
        changed |= set(before) - set(after)  # removed: what used them changes too
        if not changed:
            return []
        kinds = dict(
            self.session.execute(
                select(d.name, d.kind).where(d.name.in_(sorted(changed)), d.removed.is_(False))
            ).all()
        )
        names = {n for n, kind in kinds.items() if kind in THEOREM_KINDS}
        live = (d.removed.is_(False), d.kind.in_(THEOREM_KINDS))
        # what a check recorded its checker used (definitions under definitions included)
        users = select(d.name).join(dep, dep.declaration_id == d.id)
        names |= set(self.session.scalars(users.where(dep.depends_on.in_(sorted(changed)), *live)))
        # what a statement names, for the theorems never checked since
        r = models.DeclarationRevision
        stmt = (
            select(d.name, r.constants)
            .join(r, and_(r.declaration_id == d.id, r.revision == d.current_revision))
            .where(*live)
        )
        names |= {n for n, used in self.session.execute(stmt) if changed.intersection(used or ())}
        return sorted(names)

    def check(self, found: Round) -> RunOutcome | None:
        """Check the round's theorems in the warm environment (None: there are none)."""
        if not found.checked:
            return None
        names = found.checked
        params = CheckParams(names=tuple(names), trials=self.params.trials, seed=self.params.seed)
        run = create_run(self.session, params=params, trigger="cli")
        self.session.commit()
        backend, env, _ = self.warm.get(self.session)
        found.outcome = execute_run(
            self.session,
            run_id=run.id,
            backend=backend,
            env=env,
            on_result=self.on_result,
            jobs=1,
        )
        return found.outcome
