"""`check`'s progress line: its rendering, and that it is drawn only on a terminal."""

from __future__ import annotations

import io

import pytest

from app.cli_progress import format_duration, progress_line, progress_on_stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_render_counts_elapsed_and_eta() -> None:
    counts = {"pass": 9, "fail": 1, "unsupported": 2}

    line = progress_line(12, 40, counts, elapsed_s=30.0)

    assert line == (
        "12/40 theorems: 9 pass, 1 fail, 0 error, 2 unsupported; 0:30 elapsed, ETA 1:10"
    )


def test_render_unknown_eta_before_the_first_result() -> None:
    assert progress_line(0, 1, {}, elapsed_s=2.4) == (
        "0/1 theorem: 0 pass, 0 fail, 0 error, 0 unsupported; 0:02 elapsed, ETA ?"
    )


@pytest.mark.parametrize(
    ("seconds", "shown"), [(0, "0:00"), (59.6, "1:00"), (3599, "59:59"), (3723, "1:02:03")]
)
def test_format_duration(seconds: float, shown: str) -> None:
    assert format_duration(seconds) == shown


def test_draw_nothing_when_stream_is_not_a_terminal() -> None:
    stream = io.StringIO()

    with progress_on_stderr(stream) as progress:
        progress.start(2)
        progress.wrap(None)({"status": "pass"})

    assert stream.getvalue() == ""
    assert (progress.done, progress.counts) == (1, {"pass": 1})


def test_draw_progress_when_stream_is_a_terminal() -> None:
    stream = _Terminal()
    seen: list[str] = []

    with progress_on_stderr(stream) as progress:
        progress.start(2)
        progress.wrap(lambda r: seen.append(r["status"]))({"status": "fail"})
        progress._progress.refresh()

    assert seen == ["fail"]
    assert "1/2 theorems: 0 pass, 1 fail, 0 error" in stream.getvalue()
