"""The database's generation: a value that changes whenever a change to it commits.

Two reads that return the same generation saw the same committed data, whichever process
or connection made the changes; what it is depends on the backend:

- PostgreSQL: the sum of `data_generation`, to which every statement that writes to one
  of the application's tables adds one in its own transaction (`app.triggers`): the sum
  a reader sees changes when, and only when, a write to this database commits.
- SQLite: `PRAGMA data_version` on one connection kept for it that never writes: SQLite
  changes that number whenever another connection, in any process, commits to the file.

Read the generation *before* the data it keys: data read afterwards is at least as new,
and if the generation is still the same later, nothing committed in between.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.db import get_engine, sqlite_file

__all__ = ["COMPACT_ABOVE", "Generation"]

# rows (one per backend process that ever wrote) beyond which those of ended backends are
# folded into row 0
COMPACT_ABOVE = 256


def _compact(conn: Any) -> None:
    """Fold the rows of backends that have ended into row 0, in one transaction: the sum
    every reader sees is the same before and after, so nothing cached is missed for it.
    A row whose backend id was taken again meanwhile is locked by it until it commits;
    the fold then waits for it and moves its newer count, which keeps the sum too."""
    conn.execute(
        text(
            "WITH gone AS (DELETE FROM data_generation WHERE slot <> 0 AND slot NOT IN "
            "(SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL) RETURNING n) "
            "INSERT INTO data_generation AS g (slot, n) "
            "SELECT 0, coalesce(sum(n), 0) FROM gone "
            "ON CONFLICT (slot) DO UPDATE SET n = g.n + excluded.n"
        )
    )
    conn.commit()


class Generation:
    """`read()` -> the current generation of the database at `url` (None: unknown)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.backend = make_url(url).get_backend_name()
        self._lock = threading.Lock()
        self._sqlite: sqlite3.Connection | None = None

    def read(self) -> str | None:
        if self.backend == "postgresql":
            with get_engine(self.url).connect() as conn:
                row = conn.execute(text("SELECT sum(n), count(*) FROM data_generation")).one()
                if row[1] > COMPACT_ABOVE:
                    _compact(conn)
            return f"pg:{row[0] or 0}"
        if self.backend == "sqlite":
            return self._sqlite_version()
        return None

    def _sqlite_version(self) -> str | None:
        path = sqlite_file(self.url)
        if path is None:  # in memory: private to one connection, nothing to follow
            return None
        with self._lock:
            if self._sqlite is None:
                self._sqlite = sqlite3.connect(
                    str(path), isolation_level=None, check_same_thread=False
                )
            row: Any = self._sqlite.execute("PRAGMA data_version").fetchone()
        return f"sqlite:{id(self._sqlite)}:{row[0]}"

    def close(self) -> None:
        with self._lock:
            if self._sqlite is not None:
                self._sqlite.close()
                self._sqlite = None
