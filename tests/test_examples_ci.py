"""The CI examples under examples/ci/: the GitHub Actions workflow (parsed with PyYAML, its
shell steps read by `bash -n`) and proofbridge-ci.sh (read by `sh -n`, then run against a
real `proofbridge serve` on a free port: a passing upload exits 0, a false theorem 1, a
wrong token 2)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
CI = REPO / "examples" / "ci"
WORKFLOW = CI / "github-actions.yml"
SCRIPT = CI / "proofbridge-ci.sh"
TOKEN = "ci-example-token-7d1e3b9a"
PAGE = """Tiny checks #

module: Tiny.Page

theorem Tiny.div_zero (x : ℝ) : x / 0 = 0

Division by zero is zero.

theorem Tiny.add_zero (x : ℝ) : x + 0 = x

Adding zero changes nothing.
"""
FALSE = """
theorem Tiny.div_zero_wrong (x : ℝ) : x / 0 = 1

Division by zero is zero, not one.
"""


def workflow() -> dict[Any, Any]:
    return dict(yaml.safe_load(WORKFLOW.read_text(encoding="utf-8")))


def steps() -> list[dict[str, Any]]:
    return list(workflow()["jobs"]["statements"]["steps"])


def test_workflow_runs_on_push_with_token_from_secrets() -> None:
    data = workflow()
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "push" in triggers
    env = data["jobs"]["statements"]["env"]
    assert env["PROOFBRIDGE_API_TOKEN"] == "${{ secrets.PROOFBRIDGE_API_TOKEN }}"
    assert env["COMMIT"] == "${{ github.sha }}"


def test_workflow_uploads_triggers_polls_and_fails_on_failed_or_error() -> None:
    scripts = [s.get("run", "") for s in steps()]
    everything = "\n".join(scripts)
    assert '-F "files=@docs.tar.gz;type=application/gzip"' in everything
    assert "/api/v1/ingest?commit=$COMMIT" in everything
    assert "/api/v1/webhooks/ci" in everything
    assert "queued|running) sleep 5" in everything
    assert "-o junit.xml" in everything
    last = steps()[-1]
    assert "failed|error|cancelled)" in last["run"] and "exit 1" in last["run"]
    assert "if" not in last  # it runs only when every step before it succeeded


def test_workflow_annotates_failing_theorems_from_the_sarif(tmp_path: Path) -> None:
    from app.services.ci.locations import SourceLine
    from app.services.ci.sarif import sarif_document

    (step,) = [s for s in steps() if "annotate" in s.get("name", "")]
    assert "/sarif" in step["run"]
    script = step["run"].split("python3 - <<'PY'\n", 1)[1].split("\nPY", 1)[0]
    failing = {
        "name": "P.lemma1",
        "status": "fail",
        "reason": "x = 1: 2 ≠ 1,\nconfirmed",
        "seed": 3,
    }
    broken = {"name": "P.broken", "status": "error", "reason": "raised", "seed": 0}
    log = sarif_document(
        [failing, broken], locations={"P.lemma1": SourceLine("P", "Proofs/P.lean", 3)}
    )
    (tmp_path / "proofbridge.sarif").write_text(json.dumps(log), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    first, second = proc.stdout.splitlines()
    assert first.startswith(
        "::error file=Proofs/P.lean,line=3,title=proofbridge/false-statement%3A P.lemma1::"
    )
    assert "2 ≠ 1,%0Aconfirmed" in first  # a message's newline escaped, its comma kept
    assert second.startswith("::warning title=proofbridge/checker-error%3A P.broken::")
    uploads = [s for s in steps() if s.get("uses", "").startswith("github/codeql-action/upload")]
    assert uploads and uploads[0]["with"]["sarif_file"] == "proofbridge.sarif"
    assert workflow()["permissions"]["security-events"] == "write"


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_workflow_shell_steps_are_valid_bash() -> None:
    for step in steps():
        if "run" not in step:
            continue
        # the expressions GitHub substitutes before the shell reads the script
        script = step["run"].replace("${{", "X").replace("}}", "X")
        proc = subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True)
        assert proc.returncode == 0, (step["name"], proc.stderr)


def test_script_is_valid_posix_shell() -> None:
    proc = subprocess.run(["sh", "-n", str(SCRIPT)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert SCRIPT.read_text(encoding="utf-8").splitlines()[:1] == ["#!/bin/sh"]
    assert "set -eu" in SCRIPT.read_text(encoding="utf-8")


def test_script_refuses_missing_settings(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "PROOFBRIDGE_URL": "http://127.0.0.1:9"}
    proc = subprocess.run(["sh", str(SCRIPT)], env=env, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "PROOFBRIDGE_API_TOKEN" in proc.stderr


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_script_exits_2_when_server_does_not_answer(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "Tiny.Page.txt").write_text(PAGE, encoding="utf-8")
    proc = run_script(f"http://127.0.0.1:{_free_port()}", docs, "a1b2c3d")
    assert proc.returncode == 2
    assert "proofbridge-ci: no answer from http://127.0.0.1:" in proc.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The URL of a `proofbridge serve` on a free port, on an embedded database."""
    port = _free_port()
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO),
        PROOFBRIDGE_DATABASE_URL=f"sqlite:///{tmp_path / 'proofbridge.db'}",
        PROOFBRIDGE_DATA_DIR=str(tmp_path / "var"),
        PROOFBRIDGE_API_TOKEN=TOKEN,
        PROOFBRIDGE_JAX_CACHE_DIR="",
    )
    env.pop("PROOFBRIDGE_BROKER_URL", None)
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v1/healthz", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError((tmp_path / "serve.log").read_text()) from None
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def run_script(url: str, docs: Path, commit: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ["PATH"],
        "PROOFBRIDGE_URL": url,
        "PROOFBRIDGE_API_TOKEN": TOKEN,
        "COMMIT": commit,
        "DOCS_DIR": str(docs),
        "POLL_S": "1",
        "TIMEOUT_S": "240",
        "JUNIT_FILE": str(docs.parent / "junit.xml"),
        "SARIF_FILE": str(docs.parent / "out.sarif"),
    } | extra
    return subprocess.run(["sh", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_script_against_server_exits_by_run_status(server: str, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "Tiny.Page.txt").write_text(PAGE, encoding="utf-8")
    junit = tmp_path / "junit.xml"

    passed = run_script(server, docs, "a1b2c3d")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "run 1 passed: 2 pass, 0 fail, 0 error, 0 unsupported" in passed.stdout
    cases = ElementTree.parse(junit).getroot().iter("testcase")
    assert sorted(c.get("name") for c in cases) == ["Tiny.add_zero", "Tiny.div_zero"]

    (docs / "Tiny.Page.txt").write_text(PAGE + FALSE, encoding="utf-8")
    failed = run_script(server, docs, "e4f5a6b")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "run 2 queued, 1 theorem(s) to check" in failed.stdout  # only what changed
    assert "run 2 failed: 0 pass, 1 fail, 0 error, 0 unsupported" in failed.stdout
    [case] = ElementTree.parse(junit).getroot().iter("testcase")
    assert case.get("name") == "Tiny.div_zero_wrong"
    sarif = json.loads((tmp_path / "out.sarif").read_text(encoding="utf-8"))
    [finding] = sarif["runs"][0]["results"]
    assert finding["ruleId"] == "proofbridge/false-statement"
    assert finding["properties"]["proof"] == "unknown"  # a text page says nothing of it

    with urllib.request.urlopen(f"{server}/api/v1/runs/2") as response:
        run = json.loads(response.read())
    assert (run["trigger"], run["commit"]) == ("ci", "e4f5a6b")

    refused = run_script(server, docs, "e4f5a6b", PROOFBRIDGE_API_TOKEN="not-the-token-123456")
    assert refused.returncode == 2
    assert "POST /ingest answered HTTP 401" in refused.stderr
