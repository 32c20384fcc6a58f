"""Server and worker log lines show the control characters of what they log as escapes."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap

from db_support import REPO

from app.logs import VisibleLogRecord, install_visible_log_records

NAME = "Hostile.«\x1b]0;pwned\x07\nforged line»"


def _record(msg: str, args: object) -> logging.LogRecord:
    return VisibleLogRecord("proofbridge.test", logging.WARNING, __file__, 1, msg, args, None)


def test_arguments_are_shown_visibly_and_the_template_kept() -> None:
    record = _record("describing the checker of %s failed:\n%s", (NAME, ValueError(NAME)))
    assert record.getMessage() == (
        "describing the checker of Hostile.«\\x1b]0;pwned\\x07\\x0aforged line» failed:\n"
        "Hostile.«\\x1b]0;pwned\\x07\\x0aforged line»"
    )
    assert _record("%(name)s at %(n)d", {"name": "\x08", "n": 3}).getMessage() == "\\x08 at 3"
    assert _record("no arguments \x1b", ()).getMessage() == "no arguments \x1b"


def test_a_server_process_logs_a_hostile_name_visibly() -> None:
    # what the server and the worker install: every logger's records, to any handler
    script = textwrap.dedent(
        f"""
        import logging, sys
        from app.main import create_app
        create_app()
        logging.basicConfig(stream=sys.stdout, format="%(message)s")
        logging.getLogger("proofbridge.api").warning("unknown theorem %s", {NAME!r})
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "unknown theorem Hostile.«\\x1b]0;pwned\\x07\\x0aforged line»\n"


def test_install_is_idempotent() -> None:
    before = logging.getLogRecordFactory()
    try:
        install_visible_log_records()
        install_visible_log_records()
        assert logging.getLogRecordFactory() is VisibleLogRecord
    finally:
        logging.setLogRecordFactory(before)
