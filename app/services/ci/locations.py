"""Where each theorem stands in its repository: the file (relative to the repository's
root) and line that CI reports point at (JUnit's `file` and `line`, SARIF's locations,
GitHub's annotations).

A stored source is the path ingestion was given (`Proofs/A.lean`, `/ci/work/Proofs/A.lean`)
or, for doc-gen4 output, the declaration's source link
(`https://github.com/o/r/blob/<ref>/Proofs/A.lean#L10-L14`). The path in the repository is
the link's path after the ref, or the stored path with `root` (a setting: the checkout's
folder, or a prefix) taken off; an absolute path outside `root` is kept as it is, and a
declaration without a stored source has no location.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

from app import models

__all__ = ["SourceLine", "repository_path", "source_lines"]

# a source link on a forge: .../blob/<ref>/<path>, GitLab's .../-/blob/<ref>/<path>
_BLOB = re.compile(r"^https?://[^/]+/(?:[^/]+/)+?(?:-/)?blob/[^/]+/(?P<path>[^#?]+)")


@dataclass(frozen=True)
class SourceLine:
    """A theorem's module, its file in the repository (None: not known) and first line."""

    module: str
    path: str | None
    line: int | None


def repository_path(file: str | None, root: str | None = None) -> str | None:
    """The path of a stored source within its repository (POSIX separators), or None."""
    if not file:
        return None
    if "://" in file:
        m = _BLOB.match(file)
        return m.group("path") if m else None
    path = file.replace("\\", "/")
    if root:
        prefix = root.replace("\\", "/").rstrip("/") + "/"
        if path.startswith(prefix):
            return path[len(prefix) :]
    if path.startswith("./"):
        path = path[2:]
    return str(PurePosixPath(path))


def source_lines(
    session: Session, *, names: Sequence[str], root: str | None = None
) -> dict[str, SourceLine]:
    """name -> where its current revision stands, for the given declaration names."""
    if not names:
        return {}
    d, r = models.Declaration, models.DeclarationRevision
    out: dict[str, SourceLine] = {}
    unique = sorted(set(names))
    for start in range(0, len(unique), 500):
        stmt = (
            select(d.name, d.module, r.file, r.line_start)
            .join(r, and_(r.declaration_id == d.id, r.revision == d.current_revision))
            .where(d.name.in_(unique[start : start + 500]))
        )
        for name, module, file, line in session.execute(stmt):
            path = repository_path(file, root)
            out[name] = SourceLine(module, path, line if path is not None else None)
    return out
