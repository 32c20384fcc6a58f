"""`check`'s progress on stderr: done/total, counts by status, elapsed time and an estimate
of the time left, drawn with rich while stderr is a terminal and never otherwise (so that
`--json` output, pipes and CI logs stay clean)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TextIO

__all__ = ["STATUSES", "CheckProgress", "format_duration", "progress_line", "progress_on_stderr"]

STATUSES = ("pass", "fail", "error", "unsupported")
ResultCallback = Callable[[dict[str, Any]], None]


def format_duration(seconds: float) -> str:
    """`m:ss`, or `h:mm:ss` from an hour on."""
    whole = max(0, int(round(seconds)))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def progress_line(done: int, total: int, counts: Mapping[str, int], elapsed_s: float) -> str:
    """'12/40 theorems: 9 pass, 1 fail, 0 error, 2 unsupported; 0:31 elapsed, ETA 1:12'.

    The estimate assumes the theorems left take as long on average as those done; it is
    '?' before the first one is done."""
    tally = ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES)
    eta = format_duration(elapsed_s / done * (total - done)) if done else "?"
    return (
        f"{done}/{total} theorem{'' if total == 1 else 's'}: {tally}; "
        f"{format_duration(elapsed_s)} elapsed, ETA {eta}"
    )


class CheckProgress:
    """Counts results and redraws the line; does nothing without a display."""

    def __init__(self, stream: TextIO | None) -> None:
        self._stream = stream
        self._progress: Any = None
        self._task: Any = None
        self.total = 0
        self.done = 0
        self.counts: dict[str, int] = {}

    def start(self, total: int) -> None:
        self.total = total
        if self._stream is None:
            return
        from rich.console import Console
        from rich.progress import BarColumn, Progress, ProgressColumn
        from rich.text import Text

        owner = self

        class _Line(ProgressColumn):
            def render(self, task: Any) -> Text:
                elapsed = task.elapsed or 0.0
                return Text(progress_line(owner.done, owner.total, owner.counts, elapsed))

        console = Console(file=self._stream)
        # results printed on stdout appear above the bar when stdout is the same terminal
        shared = sys.stdout.isatty()
        self._progress = Progress(
            BarColumn(bar_width=12),
            _Line(),
            console=console,
            transient=True,
            redirect_stdout=shared,
            redirect_stderr=False,
        )
        self._progress.start()
        self._task = self._progress.add_task("check", total=total)

    def add(self, result: Mapping[str, Any]) -> None:
        self.done += 1
        status = str(result.get("status"))
        self.counts[status] = self.counts.get(status, 0) + 1
        if self._progress is not None:
            self._progress.update(self._task, completed=self.done)

    def wrap(self, then: ResultCallback | None) -> ResultCallback:
        """A result callback that runs `then` and counts the result."""

        def on_result(result: dict[str, Any]) -> None:
            if then is not None:
                then(result)
            self.add(result)

        return on_result

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


@contextmanager
def progress_on_stderr(stream: TextIO | None = None) -> Iterator[CheckProgress]:
    """A CheckProgress drawing on `stream` (default: stderr) when it is a terminal."""
    stream = sys.stderr if stream is None else stream
    progress = CheckProgress(stream if stream.isatty() else None)
    try:
        yield progress
    finally:
        progress.stop()
