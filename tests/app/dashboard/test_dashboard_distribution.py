"""The theorem page's error distribution: each result's maximum relative error, by dtype,
against the tolerance."""

from __future__ import annotations

import re

from dashboard_support import add_run, seed_history, seed_library
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.dashboard.svg import ErrorSample, HistoryPoint, history_chart, strip_chart


def _strip(html: str) -> str:
    start = html.index('<svg class="strip"')
    return html[start : html.index("</svg>", start)]


def test_read_theorem_draws_the_error_of_every_result_against_the_tolerance(
    client: TestClient, db: Session
) -> None:
    seed_library(db)
    seed_history(db)  # Alg.bad: float64 pass at 2e-15, then fail at 0.5 (rtol 1e-10)
    add_run(
        db,
        {"Alg.bad": {"status": "pass", "dtype": "float32", "max_rel_err": 1e-7, "rtol": 1e-6}},
    )
    add_run(db, {"Alg.bad": {"status": "error", "seed": 9, "max_rel_err": None}})
    html = client.get("/theorems/Alg.bad").text
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert "the dims drawn, not that draw's error" in text
    assert "each of its results that measured one (3 of 4), over all runs, seeds and dtypes" in text
    strip = _strip(html)
    dots = re.findall(r"<circle[^>]*><title>(.*?)</title>", strip)
    assert dots == [
        "run 3, seed 0, float32: max rel err 1e-07, pass (rtol 1e-06)",
        "run 1, seed 0, float64: max rel err 2e-15, pass (rtol 1e-10)",
        "run 2, seed 7, float64: max rel err 0.5, fail (rtol 1e-10)",
    ]
    assert re.findall(r'<line class="rtol"[^>]*><title>(.*?)</title>', strip) == [
        "rtol 1e-06 (float32)",
        "rtol 1e-10 (float64)",
    ]
    assert ">float32</text>" in strip and ">float64</text>" in strip


def test_read_theorem_never_checked_has_no_distribution(client: TestClient, db: Session) -> None:
    seed_library(db)
    html = client.get("/theorems/Geo.never").text
    section = html[html.index('<section id="distribution">') :]
    assert "No error measured yet." in section and "<svg" not in section


def _labels(svg: str) -> list[str]:
    return re.findall(r'<text [^>]*font-size="10">([^<]*)</text>', svg)


def test_strip_chart_draws_zero_apart_from_the_log_axis_and_escapes_text() -> None:
    svg = str(
        strip_chart(
            [
                ErrorSample(1, 0, "<b>", "pass", 0.0, 1e-6),
                ErrorSample(2, 1, "<b>", "fail", 1e-3, 1e-6),
            ]
        )
    )
    assert "<b>" not in svg and ">&lt;b&gt;</text>" in svg
    zero = re.search(r'<circle cx="([\d.]+)"[^>]*><title>run 1,', svg)
    assert zero is not None and float(zero.group(1)) == 88.0  # the zero band, left of the axis
    assert '<rect x="110" y="10" width="438"' in svg  # the log axis starts after the band
    assert _labels(svg) == ["1e-7", "1e-6", "1e-5", "1e-4", "1e-3", "1e-2", "exact 0"]


def test_strip_chart_without_zero_has_no_zero_band() -> None:
    svg = str(strip_chart([ErrorSample(1, 0, "float64", "pass", 1e-12, 1e-10)]))
    assert _labels(svg) == ["1e-13", "1e-12", "1e-11", "1e-10", "1e-9"]
    assert 'class="zero"' not in svg


def test_history_chart_draws_zero_apart_from_the_log_axis() -> None:
    points = [
        HistoryPoint(1, 0.0, 1e-10, "pass", "float64"),
        HistoryPoint(2, 1e-12, 1e-10, "pass", "float64"),
    ]
    svg = str(history_chart(points))
    labels = re.findall(r'text-anchor="end" font-size="10">([^<]*)</text>', svg)
    assert labels == ["exact 0", "1e-13", "1e-12", "1e-11", "1e-10", "1e-9"]
    zero = re.search(r'<circle cx="[\d.]+" cy="([\d.]+)"[^>]*><title>run 1,', svg)
    axis = re.search(r'<rect x="48" y="10" width="500" height="([\d.]+)"', svg)
    assert zero is not None and axis is not None
    assert float(zero.group(1)) > 10 + float(axis.group(1))  # below the log axis
