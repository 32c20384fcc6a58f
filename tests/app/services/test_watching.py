"""The author's loop (`app.services.watching`), on SQLite and PostgreSQL: a saved file is
read again as its folder would be, and what changed is checked: an edited statement, a
theorem whose checker used an edited definition, a new file's theorems; a removed file's
declarations are removed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from db_support import declaration
from sqlalchemy.orm import Session

from app.services.runs import CheckParams
from app.services.watching import Watcher

DEFS = """namespace W

noncomputable def double (x : ℝ) : ℝ := 2 * x

theorem double_eq (x : ℝ) : double x = x + x := by
  unfold double; ring

theorem plain (x : ℝ) : x + 0 = x := by simp

end W
"""


def _save(path: Path, text: str) -> None:
    """Write `text` with a modification time unlike the one before (coarse clocks)."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    if path.stat().st_mtime_ns == before:
        os.utime(path, ns=(before + 1_000_000, before + 1_000_000))


def _settled(watcher: Watcher) -> Any:
    """The round of a save: read at the look after the one that saw it change."""
    assert watcher.poll() is None  # changed since the last look: perhaps half written
    return watcher.poll()


def test_watch_checks_what_each_save_changed(session: Session, tmp_path: Path) -> None:
    root = tmp_path / "src"
    (root / "W").mkdir(parents=True)
    _save(root / "W" / "Defs.lean", DEFS)
    seen: list[tuple[str, str]] = []
    watcher = Watcher(
        session,
        [str(root)],
        params=CheckParams(trials=8),
        on_result=lambda r: seen.append((r["name"], r["status"])),
    )
    report = watcher.start()
    assert (report.theorems, watcher.files) == (2, 1)
    assert watcher.poll() is None  # nothing saved yet
    module = declaration(session, "W.plain").module

    # a statement edited: that theorem alone, read under the same module name
    _save(root / "W" / "Defs.lean", DEFS.replace("x + 0 = x", "x + 0 = x + 1"))
    found = _settled(watcher)
    assert found is not None and found.checked == ["W.plain"]
    watcher.check(found)
    assert seen == [("W.plain", "fail")]
    assert declaration(session, "W.plain").module == module

    # a definition edited: the theorem whose checker used it
    _save(root / "W" / "Defs.lean", DEFS.replace("2 * x", "3 * x"))
    found = _settled(watcher)
    assert found is not None
    assert found.checked == ["W.double_eq", "W.plain"]  # plain's statement is back, too
    watcher.check(found)
    assert seen[-2:] == [("W.double_eq", "fail"), ("W.plain", "pass")]

    # a new file, then its removal
    _save(root / "W" / "More.lean", "theorem W.more (x : ℝ) : x * 1 = x := by simp\n")
    found = _settled(watcher)
    assert found is not None and found.checked == ["W.more"]
    (root / "W" / "More.lean").unlink()
    found = watcher.poll()
    assert found is not None and found.checked == []
    session.expire_all()
    assert declaration(session, "W.more").removed
    assert watcher.poll() is None


def test_a_file_caught_half_written_is_read_once_written(session: Session, tmp_path: Path) -> None:
    # an editor that saves in place truncates the file, then writes it: a look between the
    # two must not read the empty file (its theorems would be removed, then come back)
    root = tmp_path / "src"
    (root / "W").mkdir(parents=True)
    _save(root / "W" / "Defs.lean", DEFS)
    watcher = Watcher(session, [str(root)], params=CheckParams(trials=8))
    watcher.start()
    _save(root / "W" / "Defs.lean", "")  # truncated
    assert watcher.poll() is None
    _save(root / "W" / "Defs.lean", DEFS.replace("x + 0 = x", "x + 0 = x + 1"))  # written
    assert watcher.poll() is None  # changed again since the last look
    found = watcher.poll()
    assert found is not None and found.checked == ["W.plain"]
    assert not declaration(session, "W.double_eq").removed
