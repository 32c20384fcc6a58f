"""Log lines that show control characters visibly.

A theorem name may hold control characters (`app.visible`); a server or worker that logs
one raw ("describing the checker of «\\x1b]0;…» failed") would let it retitle the
operator's terminal, or forge a line of its own with a newline. Each log record made in a
server or worker process writes the text of its arguments through `visible`; the message
templates, which are the project's own, keep their layout.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from app.visible import visible

__all__ = ["VisibleLogRecord", "install_visible_log_records"]


def _shown(value: Any) -> Any:
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, BaseException):
        return visible(str(value))
    return value


class VisibleLogRecord(logging.LogRecord):
    """A record whose arguments' control characters are written as escapes."""

    def getMessage(self) -> str:  # noqa: N802 (logging's own name)
        message = str(self.msg)
        if not self.args:
            return message
        if isinstance(self.args, Mapping):
            return message % {k: _shown(v) for k, v in self.args.items()}
        return message % tuple(_shown(a) for a in self.args)


def install_visible_log_records() -> None:
    """Make every log record of this process a `VisibleLogRecord` (idempotent)."""
    if logging.getLogRecordFactory() is not VisibleLogRecord:
        logging.setLogRecordFactory(VisibleLogRecord)
