"""The dashboard in a browser: Playwright driving Debian's Chromium against a real
`proofbridge serve` over a SQLite database holding examples/ and a page of our own
(a failing theorem, markup in docstrings and statements, 60 theorems to page through),
ingested and checked with the command line.

Skips, saying so, without Playwright or /usr/bin/chromium, except under CI=true, where it
fails. Every page visited is saved as a screenshot under the test's tmp folder.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
CHROMIUM = Path("/usr/bin/chromium")
TOKEN = "browser-test-token-4b8e2f1a"
FINAL = ("passed", "failed", "error", "cancelled")

PAGE = """Browser checks #

module: Browser.Page

Checks for the <script>window.__xss = 1; alert(1)</script> dashboard, <img src=x onerror="window.__xss = 1; alert(1)"> and [click me](javascript:window.__xss=1;alert(1)).

theorem Browser.div_zero (x : ℝ) : x / 0 = 0

Division by zero is zero.

theorem Browser.div_zero_wrong (x : ℝ) : x / 0 = 1

A false statement: <script>window.__xss = 1; alert(1)</script> and <img src=x onerror="window.__xss = 1; alert(1)"> and [click me](javascript:window.__xss=1;alert(1)).

theorem Browser.evil (x : ℝ) (h : "<script>window.__xss = 1; alert(1)</script>" = "<img src=x onerror=alert(1)>") : x = x

Its statement holds markup.
"""  # noqa: E501


def _many_page() -> str:
    lines = ["Many theorems #", "", "module: Browser.Many", ""]
    for i in range(60):
        lines += [f"theorem Browser.Many.t{i:02d} (x : ℝ) : x + {i} = {i} + x", "", "Commutes.", ""]
    return "\n".join(lines)


def _unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{message}; CI is set, so the browser tests must run")
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright is not installed (pip install playwright)")
    if not CHROMIUM.is_file():
        _unavailable(f"{CHROMIUM} is absent (apt-get install -y chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox"], headless=True
        )
        yield browser
        browser.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _proofbridge(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a served dashboard over examples/ and the browser pages, checked."""
    root = tmp_path_factory.mktemp("served")
    inputs = root / "in"
    inputs.mkdir()
    (inputs / "Browser.Page.txt").write_text(PAGE, encoding="utf-8")
    (inputs / "Browser.Many.txt").write_text(_many_page(), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROOFBRIDGE_")}
    env |= {
        "PROOFBRIDGE_DATA_DIR": str(root / "var"),
        "PROOFBRIDGE_DATABASE_URL": f"sqlite:///{root / 'var' / 'proofbridge.db'}",
        "PROOFBRIDGE_API_TOKEN": TOKEN,
        "PROOFBRIDGE_JAX_CACHE_DIR": "",
        "PYTHONPATH": str(REPO),
    }
    for args, codes in (
        (("db", "upgrade"), (0,)),
        (("ingest", str(REPO / "examples"), str(inputs)), (0,)),
        (("check",), (1,)),  # Browser.div_zero_wrong fails
    ):
        done = _proofbridge(env, *args, cwd=root)
        assert done.returncode in codes, (args, done.stdout, done.stderr)
    port = _free_port()
    log = (root / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        env=env,
        cwd=root,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/v1/healthz", timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError((root / "serve.log").read_text()) from None
                time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def _open(browser: Any, shots: Path, **options: Any) -> Any:
    """A page of a fresh context that records its dialogs (answered: dismissed)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, **options)
    page = context.new_page()
    page.dialogs = []
    page.shots = shots
    shots.mkdir(exist_ok=True)

    def on_dialog(dialog: Any) -> None:
        page.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    return page


@pytest.fixture
def page(browser: Any, tmp_path: Path) -> Iterator[Any]:
    page = _open(browser, tmp_path / "screenshots")
    yield page
    page.context.close()


def _shot(page: Any, name: str) -> None:
    path = page.shots / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 0


def test_overview_to_a_failure_and_its_counterexample(page: Any, server: str) -> None:
    page.goto(server + "/")
    assert page.locator("h1").inner_text() == "Overview"
    # Browser.div_zero_wrong, and examples/'s Examples.sqrt_sq_draft (false on purpose)
    assert page.locator("#count-fail").inner_text() == "2"
    assert "Browser.Page" in page.locator("table.modules").inner_text()
    _shot(page, "overview")
    page.locator("#count-fail").click()
    page.wait_for_url("**/theorems?status=fail")
    rows = page.locator("table.theorems tbody tr")
    assert rows.count() == 2
    _shot(page, "failures")
    rows.filter(has_text="Browser.div_zero_wrong").locator("a").first.click()
    page.wait_for_url("**/theorems/Browser.div_zero_wrong")
    assert "x / 0 = 1" in page.locator("#statement").inner_text()
    counterexample = page.locator("#counterexample")
    assert "Counterexample" in counterexample.inner_text()
    assert page.locator("#lhs").inner_text() == "[0.0]"
    assert page.locator("#rhs").inner_text() == "[1.0]"
    assert (
        page.locator("#repro").inner_text() == "proofbridge repro Browser.div_zero_wrong --seed 0"
    )
    assert page.locator("svg.chart circle").count() == 1
    _shot(page, "theorem")


def test_a_passing_theorem_shows_its_checker_and_no_counterexample(page: Any, server: str) -> None:
    page.goto(server + "/theorems?status=pass&q=Browser.div_zero")
    rows = page.locator("table.theorems tbody tr")
    assert rows.count() == 1
    rows.locator("a").first.click()
    page.wait_for_url("**/theorems/Browser.div_zero")
    assert "x / 0 = 0" in page.locator("#statement").inner_text()
    assert page.locator("#counterexample").count() == 0
    assert page.locator("#repro").count() == 0
    assert "pass" in page.locator("main").inner_text()
    assert page.locator("svg.chart circle").count() == 1
    _shot(page, "theorem-pass")


def test_log_in_start_a_run_and_watch_it_complete(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{server}/login?token={TOKEN}&next=/modules/Browser.Page")
    page.wait_for_url("**/modules/Browser.Page")
    cookie = next(c for c in page.context.cookies() if c["name"] == "proofbridge_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert "Division by zero" not in page.locator(".docs").inner_text()  # module docs only
    _shot(page, "module")
    loads: list[str] = []
    page.on("load", lambda p: loads.append(p.url))
    page.get_by_role("button", name="Check this module").click()
    page.wait_for_url("**/runs/*")
    active_when_loaded = page.locator("#run").get_attribute("data-active") == "true"
    # the script follows the events and reloads the page once the run has finished
    expect(page.locator("#run-status .badge")).to_have_text(
        re.compile("^(passed|failed|error|cancelled)$"), timeout=120_000
    )
    page.wait_for_load_state()
    assert page.locator("#run-status").inner_text() == "failed"
    if active_when_loaded:  # the script saw it finish, and reloaded the page
        expect(page.locator("#run")).to_have_attribute("data-active", "false")
        assert len([u for u in loads if "/runs/" in u]) >= 2, loads
    assert page.locator("#run-done").inner_text() == "3"
    results = page.locator("table.results tbody tr")
    assert results.count() == 3
    assert "in-process@" in page.locator("table.results").inner_text()
    _shot(page, "run")
    page.goto(server + "/runs")
    assert "dashboard" in page.locator("table.runs").inner_text()
    _shot(page, "runs")


def test_run_page_without_javascript_shows_state_and_refresh(
    browser: Any, server: str, tmp_path: Path
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(server + "/runs/1")
    assert page.locator("#run-done").inner_text() == page.locator("#run-total").inner_text()
    page.screenshot(path=str(tmp_path / "run-no-js.png"), full_page=True)
    context.close()


def test_search_filter_and_page(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.get_by_role("searchbox", name="search").fill("softmax")
    page.get_by_role("button", name="Search").click()
    page.wait_for_url("**/theorems?q=softmax")
    names = page.locator("table.theorems tbody tr td:first-child").all_inner_texts()
    assert names and all("softmax" in n for n in names)
    _shot(page, "search")
    page.goto(server + "/theorems")
    page.locator("select[name=module]").select_option("Browser.Many")
    page.locator("form.filters button").click()
    page.wait_for_url("**/theorems?*module=Browser.Many*")
    assert "60 theorems; 1–50 shown." in page.locator("#found").inner_text()
    page.get_by_role("link", name="next ›").click()
    page.wait_for_url("**page=2**")
    assert "51–60 shown" in page.locator("#found").inner_text()
    assert page.locator("table.theorems tbody tr").count() == 10
    assert "page 2 of 2" in page.locator("nav.pages").inner_text()
    _shot(page, "page-2")


@pytest.mark.parametrize("bypass_csp", [False, True], ids=["with-csp", "without-csp"])
def test_markup_in_docstrings_and_statements_stays_inert(
    browser: Any, server: str, tmp_path: Path, bypass_csp: bool
) -> None:
    """Inert with the pages' Content-Security-Policy, and without it: escaping and
    sanitising alone keep every payload from running."""
    page = _open(browser, tmp_path / "screenshots", bypass_csp=bypass_csp)
    page.add_init_script(
        "Object.defineProperty(window, '__xss', {set() { window.__xssSet = true; }, "
        "get() { return undefined; }});"
    )
    for path in (
        "/theorems/Browser.div_zero_wrong",
        "/theorems/Browser.evil",
        "/modules/Browser.Page",
        "/theorems?q=script",
        "/",
    ):
        page.goto(server + path)
        page.wait_for_load_state("load")
        assert page.evaluate("window.__xssSet === undefined"), path
        assert page.locator("main img").count() == 0, path
    page.goto(server + "/theorems/Browser.div_zero_wrong")
    docstring = page.locator("#docstring")
    assert "<script>window.__xss = 1; alert(1)</script>" in docstring.inner_text()
    assert docstring.locator("a").count() == 0  # the javascript: link stayed text
    docstring.get_by_text("click me", exact=False).click()
    page.goto(server + "/theorems/Browser.evil")
    assert "<img src=x onerror=alert(1)>" in page.locator("#statement").inner_text()
    _shot(page, "xss-without-csp" if bypass_csp else "xss")
    assert page.evaluate("window.__xssSet === undefined")
    assert page.dialogs == []
    page.context.close()
