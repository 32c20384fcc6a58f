"""Lean text and docstrings are inert on every page; writes need a login and a CSRF token."""

from __future__ import annotations

import re

import pytest
from dashboard_support import (
    TOKEN,
    XSS_DOC,
    XSS_IMG,
    XSS_SCRIPT,
    csrf_of,
    ingest,
    module_doc,
    seed_history,
    seed_library,
)
from db_support import theorem
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app import crud
from app.dashboard.auth import COOKIE
from app.dashboard.render import render_markdown

EVIL = "Evil.<script>window.__xss=1</script>"


def _seed_evil(db: Session) -> None:
    ingest(
        db,
        [
            theorem(
                EVIL,
                f"f x = {XSS_SCRIPT} {XSS_IMG}",
                binders=f"(x : ℝ) {XSS_IMG}",
                module="Evil<b>",
                file="Evil.lean",
                docstring=XSS_DOC,
            )
        ],
        module="Evil<b>",
        file="Evil.lean",
        docs=[module_doc("Evil<b>", "Evil.lean", XSS_DOC)],
    )


TAG = re.compile(r"<[a-zA-Z][^>]*>")


def _assert_inert(html: str) -> None:
    """No tag of the page came from the text: no script, image, event handler, b,
    javascript: address; the text itself shows escaped."""
    tags = TAG.findall(html)
    ours = (
        '<script src="/static/dashboard.js"',
        '<svg class="bar"',
        '<svg class="chart"',
        '<svg class="strip"',
        '<svg class="graph"',
    )
    assert not [t for t in tags if re.match(r"<(script|img|b|svg)\b", t) and not t.startswith(ours)]
    assert not [t for t in tags if re.search(r"\son\w+\s*=", t)]
    assert not [t for t in tags if "javascript:" in t.lower()]
    assert "<script>" not in html and "<b>" not in html


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        "[a](javascript:alert(1))",
        "[a](JaVaScRiPt:alert(1))",
        "<a href='javascript:alert(1)'>a</a>",
        "![x](javascript:alert(1))",
        "[a](data:text/html;base64,PHNjcmlwdD4=)",
        '<svg onload="alert(1)">',
    ],
)
def test_render_markdown_leaves_no_markup_that_runs(text: str) -> None:
    html = str(render_markdown(text))
    assert "<script" not in html and "<img" not in html and "<svg" not in html
    assert 'href="javascript' not in html.lower() and 'href="data' not in html
    assert " on" not in html.split(">")[0] if html.startswith("<a") else True


def test_render_markdown_keeps_safe_links_and_formatting() -> None:
    html = str(render_markdown("**b** `c` [ok](https://example.org/a) [rel](/theorems/X)"))
    assert "<strong>b</strong>" in html and "<code>c</code>" in html
    assert '<a href="https://example.org/a" rel="noopener noreferrer nofollow">ok</a>' in html
    assert '<a href="/theorems/X" rel="noopener noreferrer nofollow">rel</a>' in html


def test_pages_show_script_in_lean_text_and_docstrings_as_text(
    client: TestClient, db: Session
) -> None:
    _seed_evil(db)
    pages = {
        "/": client.get("/"),
        "/theorems": client.get("/theorems"),
        "/theorems?q=script": client.get("/theorems", params={"q": "script"}),
        "module": client.get("/modules/Evil<b>"),
        "graph": client.get("/modules/Evil<b>/graph"),
        "theorem": client.get("/theorems/" + EVIL.replace("<", "%3C").replace(">", "%3E")),
    }
    for where, response in pages.items():
        assert response.status_code == 200, where
        _assert_inert(response.text)
    theorem_html = pages["theorem"].text
    assert "&lt;script&gt;window.__xss = 1; alert(1)&lt;/script&gt;" in theorem_html
    assert "&lt;img src=x onerror=" in theorem_html
    assert 'href="javascript' not in theorem_html  # the link stays text
    assert '<a href="https://example.org/a" rel="noopener noreferrer nofollow">ok</a>' in (
        theorem_html
    )
    assert "Evil.&lt;script&gt;window.__xss=1&lt;/script&gt;" in pages["/theorems"].text


def test_search_and_filter_values_are_escaped(client: TestClient) -> None:
    html = client.get("/theorems", params={"q": '"><script>x</script>', "module": "<b>"}).text
    _assert_inert(html)
    assert 'value="&#34;&gt;&lt;script&gt;x&lt;/script&gt;"' in html


def test_login_sets_an_httponly_strict_cookie_and_redirects(client: TestClient) -> None:
    response = client.get(f"/login?token={TOKEN}&next=/runs", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/runs"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert TOKEN not in cookie
    assert "Log out" in client.get("/").text


def test_login_refuses_a_wrong_token_and_foreign_next(client: TestClient) -> None:
    response = client.get("/login?token=wrong-token-0000000000", follow_redirects=False)
    assert response.status_code == 401
    assert "That is not the API token." in response.text
    assert "set-cookie" not in response.headers
    away = client.get(f"/login?token={TOKEN}&next=//evil.example/", follow_redirects=False)
    assert away.headers["location"] == "/"
    form = client.post("/login", data={"token": TOKEN, "next": "/theorems"}, follow_redirects=False)
    assert form.status_code == 303 and form.headers["location"] == "/theorems"


def test_forged_cookie_is_not_a_login(client: TestClient) -> None:
    client.cookies.set(COOKIE, "9999999999.abc.0123")
    assert "Log out" not in client.get("/").text
    response = client.post("/runs", data={"csrf": "00", "module": "Alg"})
    assert response.status_code == 401


def test_write_without_login_is_401_saying_how_to_log_in(
    client: TestClient, db: Session, submitted: list[int]
) -> None:
    seed_library(db)
    response = client.post("/runs", data={"module": "Alg"})
    assert response.status_code == 401
    assert "You are not logged in." in response.text
    assert "/login?token=TOKEN" in response.text
    assert client.post("/runs/1/cancel").status_code == 401
    assert submitted == []


def test_write_with_a_wrong_csrf_token_is_403(
    logged_in: TestClient, db: Session, submitted: list[int]
) -> None:
    seed_library(db)
    for data in ({"module": "Alg"}, {"module": "Alg", "csrf": "0" * 64}):
        response = logged_in.post("/runs", data=data)
        assert response.status_code == 403
        assert "CSRF token is missing or wrong" in response.text
    assert submitted == []


def test_start_a_run_over_a_module_then_cancel_it(
    logged_in: TestClient, db: Session, submitted: list[int]
) -> None:
    seed_library(db)
    page = logged_in.get("/modules/Alg").text
    assert "Check this module" in page
    csrf = csrf_of(page)
    response = logged_in.post("/runs", data={"csrf": csrf, "module": "Alg"}, follow_redirects=False)
    assert response.status_code == 303
    run_id = int(response.headers["location"].rsplit("/", 1)[1])
    assert submitted == [run_id]
    run = crud.get_run(db, run_id=run_id)
    assert run is not None and run.status == "queued" and run.trigger == "dashboard"
    assert sorted(run.params["selection"]) == ["Alg.add_zero", "Alg.bad", "Alg.mul_one"]
    page = logged_in.get(f"/runs/{run_id}").text
    assert "Refresh</a>" in page and 'data-active="true"' in page
    assert "/static/dashboard.js" in page
    cancel = logged_in.post(
        f"/runs/{run_id}/cancel", data={"csrf": csrf_of(page)}, follow_redirects=False
    )
    assert cancel.status_code == 303
    db.rollback()  # a fresh snapshot
    assert crud.get_run(db, run_id=run_id).status == "cancelled"  # type: ignore[union-attr]
    assert "Cancel this run" not in logged_in.get(f"/runs/{run_id}").text


def test_start_a_run_over_one_theorem_and_refuse_an_unknown_one(
    logged_in: TestClient, db: Session, submitted: list[int]
) -> None:
    seed_library(db)
    seed_history(db)
    csrf = csrf_of(logged_in.get("/theorems/Alg.bad").text)
    ok = logged_in.post("/runs", data={"csrf": csrf, "name": "Alg.bad"}, follow_redirects=False)
    assert ok.status_code == 303
    run = crud.get_run(db, run_id=submitted[0])
    assert run is not None and run.params["selection"] == ["Alg.bad"]
    bad = logged_in.post("/runs", data={"csrf": csrf, "name": "No.such"})
    assert bad.status_code == 422
    assert "unknown theorem: No.such" in bad.text
    assert len(submitted) == 1


def test_logout_needs_the_csrf_token(logged_in: TestClient) -> None:
    assert logged_in.post("/logout").status_code == 403
    csrf = csrf_of(logged_in.get("/").text)
    response = logged_in.post("/logout", data={"csrf": csrf}, follow_redirects=False)
    assert response.status_code == 303
    assert f"{COOKIE}=" in response.headers["set-cookie"]
    assert (
        "Max-Age=0" in response.headers["set-cookie"]
        or "expires" in response.headers["set-cookie"].lower()
    )
