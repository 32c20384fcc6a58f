"""doc-gen4's SQLite database (`api-docs.db`, written by recent doc-gen4): which
declarations use `sorry`.

Its table `name_info` holds one row per declaration with `name` and `sorried` (besides the
rendered types, which are serialized Lean values this reader does not decode). So the
database gives proof status, not statements: `read_proof_marks` returns name -> whether the
declaration uses `sorry`, which ingestion applies to the declarations it has from the HTML,
JSON or Lean source of the same build. The file is opened read-only and never written.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from theorem_index.model import IngestError

__all__ = ["DATABASE_NAME", "SQLITE_MAGIC", "read_proof_marks"]

DATABASE_NAME = "api-docs.db"
SQLITE_MAGIC = b"SQLite format 3\x00"


def read_proof_marks(path: Path) -> tuple[dict[str, bool], list[IngestError]]:
    """(name -> sorried, errors) of a doc-gen4 database; an error, not an exception, when
    the file is not one (not SQLite, or no `name_info` table with `name` and `sorried`)."""
    file = str(path)
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError as exc:
        return {}, [IngestError(file, None, None, f"cannot read the file: {exc.strerror}")]
    if head != SQLITE_MAGIC:
        return {}, [IngestError(file, None, None, "not a SQLite database (doc-gen4's api-docs.db)")]
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return {}, [IngestError(file, None, None, f"cannot open the database: {exc}")]
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(name_info)")}
        if not {"name", "sorried"} <= columns:
            message = "not a doc-gen4 database: no table name_info with name and sorried"
            return {}, [IngestError(file, None, None, message)]
        marks = {
            str(name): bool(sorried)
            for name, sorried in conn.execute("SELECT name, sorried FROM name_info")
            if isinstance(name, str)
        }
        return marks, []
    except sqlite3.Error as exc:
        return {}, [IngestError(file, None, None, f"cannot read the database: {exc}")]
    finally:
        conn.close()
