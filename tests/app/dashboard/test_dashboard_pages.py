"""The dashboard's pages on SQLite and PostgreSQL: what each one shows."""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

import pytest
from dashboard_support import csrf_of, seed_history, seed_library
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.orm import Session

from app import models
from app.dashboard import runs as dashboard_runs
from app.dashboard import theorems
from app.db import get_sessionmaker


@pytest.fixture(autouse=True)
def _recorded_checker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages show the checker as recorded (whether this test process loaded JAX or not)."""
    monkeypatch.setattr(theorems, "checkers_loaded", lambda: False)


def _text(html: str) -> str:
    """The page's text, tags removed and spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_read_overview_when_empty_says_how_to_ingest(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert "proofbridge ingest PATH" in response.text
    assert "No runs yet." in response.text
    assert '<a href="/docs">' in response.text


def test_read_overview_counts_coverage_modules_runs_and_new_failures(
    client: TestClient, db: Session
) -> None:
    seed_library(db)
    seed_history(db)
    html = client.get("/").text
    counts = dict(re.findall(r'id="count-(\w+)">(\d+)<', html))
    assert counts == {"pass": "1", "fail": "1", "error": "0", "unsupported": "1", "unchecked": "1"}
    text = _text(html)
    assert "Coverage: 2 of 4 theorems have a checker (50.0 %)" in text
    # per module: a row with its bar
    assert '<a href="/modules/Alg"><bdi>Alg</bdi></a></td><td>3</td><td><svg class="bar"' in html
    assert '<a href="/modules/Geo"><bdi>Geo</bdi></a></td><td>1</td>' in html
    assert "<title>1 never run</title>" in html
    # the latest runs, newest first, and what started failing in run 2
    assert html.index('href="/runs/2"') < html.index('href="/runs/1"')
    assert "Started failing in run 2" in text
    section = html[html.index("Started failing") : html.index("<h2>Modules")]
    assert '<a href="/theorems/Alg.bad"><bdi>Alg.bad</bdi></a>' in section
    assert "lhs 3 vs rhs 1.5" in section
    assert "Alg.mul_one" not in section  # unsupported, not failing


def test_read_module_lists_theorems_and_renders_docs(client: TestClient, db: Session) -> None:
    seed_library(db)
    seed_history(db)
    html = client.get("/modules/Alg").text
    assert "<h1>Algebra</h1>" in html
    assert "Identities of <code>+</code> and <code>*</code>." in html
    names = re.findall(r'<td><a href="/theorems/([\w.]+)">', html)
    assert names == ["Alg.add_zero", "Alg.bad", "Alg.mul_one"]
    assert "3 theorems; 1–3 shown." in _text(html)
    assert "Log in</a> to start a run." in html


def test_read_module_unknown_is_404(client: TestClient) -> None:
    response = client.get("/modules/Nope")
    assert response.status_code == 404
    assert "There is no module <bdi>Nope</bdi>." in response.text


def test_read_theorem_shows_statement_docstring_checker_results_and_counterexample(
    client: TestClient, db: Session
) -> None:
    seed_library(db)
    seed_history(db)
    response = client.get("/theorems/Alg.bad")
    assert response.status_code == 200
    html = response.text
    assert (
        '<pre class="lean statement" id="statement">theorem <bdi>Alg.bad</bdi> '
        "<bdi>(x : ℝ)</bdi> : <bdi>double x = x</bdi></pre>" in html
    )
    assert "<p>A <em>false</em> statement.</p>" in html
    text = _text(html)
    assert "kind derived" in text
    # the definitions it depends on: linked when ingested
    assert '<a href="/theorems/Alg.double"><code><bdi>Alg.double</bdi></code></a>' in html
    assert "<code><bdi>Mystery.thing</bdi></code> (not ingested)" in html
    # its newest result per dtype, with worker and device
    assert "celery@w2" in html and "NVIDIA H200" in html
    # the counterexample and how to replay it
    assert "n=1" in text and "3 (seed 7, shrunk)" in text
    assert '<code id="lhs">[3.0]</code>' in html and '<code id="rhs">[1.5]</code>' in html
    assert "<th><code>x</code></th><td><code>1.5</code></td>" in html
    assert '<code id="repro"><bdi>proofbridge repro Alg.bad --seed 7</bdi></code>' in html
    # the history: one dot per result, the tolerance as dashes, on a log scale
    chart = html[
        html.index('<svg class="chart"') : html.index("</svg>", html.index('class="chart"'))
    ]
    assert chart.count("<circle") == 2
    assert "run 2, float64: max rel err 0.5, fail (rtol 1e-10)" in chart
    assert "stroke-dasharray" in chart and ">1e-10<" in chart
    assert "Vacuous share of the newest result: 0 of 64 trials (0.0 %)" in text
    assert "; 0 unstable (failed in float64, held at high precision, drawn again)." in text
    assert "<th>unstable</th>" in html


def test_read_theorem_vacuous_share_and_never_checked(client: TestClient, db: Session) -> None:
    seed_library(db)
    seed_history(db)
    first = _text(client.get("/theorems/Alg.add_zero").text)
    assert "Vacuous share of the newest result: 0 of 64 trials" in first
    assert "Counterexample" not in first
    assert "16 of 64 (25 %)" not in first
    never = _text(client.get("/theorems/Geo.never").text)
    assert "Never checked." in never and "No error measured yet." in never


def test_read_theorem_of_a_definition_and_unknown(client: TestClient, db: Session) -> None:
    seed_library(db)
    html = client.get("/theorems/Alg.double").text
    assert "def <bdi>Alg.double</bdi> <bdi>(x : ℝ)</bdi> : <bdi>ℝ</bdi>" in html
    assert "Alg.double x = x + x" in html
    assert "Check this theorem" not in html
    response = client.get("/theorems/No.such")
    assert response.status_code == 404
    assert "There is no declaration named <bdi>No.such</bdi>." in response.text


def test_read_runs_and_run_detail_with_worker_and_device(client: TestClient, db: Session) -> None:
    seed_library(db)
    seed_history(db)
    runs = client.get("/runs").text
    assert "2 runs." in runs
    assert '<span class="badge r-failed">failed</span>' in runs
    html = client.get("/runs/2").text
    text = _text(html)
    assert "3 of 3 theorems checked: 1 pass, 1 fail, 0 error, 1 unsupported." in text
    assert "celery@w2" in html and "NVIDIA H200" in html and "cli@test" in html
    assert "Refresh" not in html  # finished: nothing to follow
    assert '<a href="/api/v1/runs/2/junit.xml">JUnit XML</a>' in html
    only_fail = client.get("/runs/2?status=fail").text
    assert re.findall(r'<td><a href="/theorems/([\w.]+)">', only_fail) == ["Alg.bad"]
    assert client.get("/runs/9").status_code == 404


def test_read_run_events_of_a_finished_run_ends_with_done(client: TestClient, db: Session) -> None:
    seed_library(db)
    seed_history(db)
    response = client.get("/runs/2/events")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = re.findall(r"event: (\w+)\ndata: (.*)\n\n", response.text)
    assert [name for name, _ in events] == ["progress", "done"]
    assert '"status": "failed"' in events[-1][1] and '"done": 3' in events[-1][1]
    assert client.get("/runs/9/events").status_code == 404


def test_read_theorem_shows_the_live_checker_once_loaded(
    client: TestClient, db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed_library(db)
    seed_history(db)
    calls: list[str] = []

    def describe(session: Any, *, name: str) -> dict[str, Any]:
        calls.append(name)
        return {
            "kind": "registered",
            "reason": "",
            "dependencies": ["Alg.double"],
            "version": "3",
            "statement": "double x = x + 0",
            "statement_matches": False,
            "statement_difference": "rhs: `x` vs `x + 0`",
        }

    monkeypatch.setattr(theorems, "checkers_loaded", lambda: True)
    monkeypatch.setattr(client.app.state.describer, "describe", describe)  # type: ignore[attr-defined]
    text = _text(client.get("/theorems/Alg.bad").text)
    assert calls == ["Alg.bad"]
    assert "kind registered (version 3)" in text
    assert "differs from the ingested statement: rhs: `x` vs `x + 0`" in text


def test_read_run_events_follows_a_run_until_it_finishes(
    logged_in: TestClient, db: Session, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed_library(db)
    monkeypatch.setattr(dashboard_runs, "EVENT_POLL_S", 0.05)
    csrf = csrf_of(logged_in.get("/runs").text)
    created = logged_in.post("/runs", data={"csrf": csrf, "module": "Alg"}, follow_redirects=False)
    run_id = int(created.headers["location"].rsplit("/", 1)[1])

    def work() -> None:  # what a worker would write, a step at a time
        maker = get_sessionmaker(database_url)
        for values in (
            {"status": "running", "completed": 1, "passed": 1},
            {"completed": 2, "passed": 2},
            {"status": "passed", "completed": 3, "passed": 3},
        ):
            time.sleep(0.3)
            with maker() as session:
                session.execute(update(models.Run).where(models.Run.id == run_id).values(**values))
                session.commit()

    thread = threading.Thread(target=work)
    thread.start()
    response = logged_in.get(f"/runs/{run_id}/events")
    thread.join()
    events = [
        (name, json.loads(payload))
        for name, payload in re.findall(r"event: (\w+)\ndata: (.*)\n\n", response.text)
    ]
    assert events[0] == ("progress", events[0][1]) and events[0][1]["status"] == "queued"
    done = [e[1]["done"] for e in events if e[0] == "progress"]
    # each change once, in order (a busy machine may read two steps as one)
    assert done[0] == 0 and done[-1] == 3 and done == sorted(set(done)), done
    assert events[-1][0] == "done" and events[-1][1]["status"] == "passed"


@pytest.mark.parametrize(
    "path", ["/", "/theorems", "/runs", "/runs/2", "/runs/2/events", "/api/v1/runs", "/docs"]
)
def test_head_answers_as_get_without_a_body(client: TestClient, db: Session, path: str) -> None:
    seed_library(db)
    seed_history(db)
    got = client.get(path)
    head = client.head(path)
    assert (head.status_code, got.status_code) == (200, 200)
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    if "content-length" in got.headers:
        assert head.headers["content-length"] == got.headers["content-length"]
    assert client.head("/runs/9").status_code == 404


def test_every_page_names_its_icon_and_favicon_ico_answers(client: TestClient) -> None:
    assert (
        '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in client.get("/").text
    )
    for path in ("/favicon.ico", "/static/favicon.svg"):
        icon = client.get(path)
        assert icon.status_code == 200, path
        assert icon.headers["content-type"].startswith("image/svg+xml")
        assert icon.content.startswith(b"<svg ")
    assert client.head("/favicon.ico").status_code == 200
