"""Runs queued by GitHub deliveries report back to GitHub (a GitHub-like server of our own on
127.0.0.1 that checks every request against the REST API's documentation): a commit
status, a check run with one annotation per failing theorem at its line, and one pull
request comment, updated by the next event, never duplicated."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import API, AUTH, make_settings, wait_for_run
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from db_support import PROOF_SOURCE
from fastapi.testclient import TestClient
from github_fake import FakeGitHub, serve
from webhook_support import SECRET, deliver

from app.main import create_app
from app.services.ci.github_report import MARKER

BASE, HEAD1, HEAD2 = "b" * 40, "c1" * 20, "c2" * 20
REPO, PR, INSTALLATION, APP_ID = "octo/lean-proj", 7, 4242, 99
# the pull request proves lemma1's statement corrected, and breaks `apart`, then repairs it
HEAD1_SOURCE = PROOF_SOURCE.replace(
    "theorem lemma1 (x : ℝ) : x * 2 = x := by\n  sorry",
    "theorem lemma1 (x : ℝ) : x * 2 = x + x := by\n  ring",
).replace(
    "theorem apart (x : ℝ) : x + 0 = x := by simp",
    "theorem apart (x : ℝ) : x + 0 = x + 1 := by simp",
)
HEAD2_SOURCE = HEAD1_SOURCE.replace("x + 0 = x + 1", "x + 0 = x")


@pytest.fixture
def github() -> Iterator[tuple[FakeGitHub, str, str]]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    fake = FakeGitHub(
        token="ghp_" + "x" * 36, app_id=APP_ID, public_key=public, installation=INSTALLATION
    )
    server, url = serve(fake)
    try:
        yield fake, url, pem
    finally:
        server.shutdown()


@pytest.fixture
def reporting(
    database_url: str, tmp_path: Path, github: tuple[FakeGitHub, str, str]
) -> Iterator[TestClient]:
    fake, url, pem = github
    key_file = tmp_path / "app.pem"
    key_file.write_text(pem, encoding="utf-8")
    settings = make_settings(
        database_url,
        tmp_path / "var",
        webhook_secret=SECRET,
        github_api_url=url,
        github_token=fake.token,
        github_app_id=APP_ID,
        github_app_private_key=f"@{key_file}",
        public_url="https://proofbridge.example.org",
    )
    with TestClient(create_app(settings)) as client:
        yield client


def _ingest(client: TestClient, source: str, commit: str) -> None:
    files = [("files", ("Proofs/P.lean", source.encode(), "text/plain"))]
    response = client.post(f"{API}/ingest", params={"commit": commit}, files=files, headers=AUTH)
    assert response.status_code == 200, response.text


def _event(client: TestClient, event: str, payload: dict[str, Any], delivery: str) -> int:
    answer = deliver(client, payload, event=event, delivery=delivery)
    assert answer.status_code == 202, answer.text
    run = wait_for_run(client, answer.json()["run"])
    return int(run["id"])


def _pull_request(action: str, head: str) -> dict[str, Any]:
    return {
        "action": action,
        "number": PR,
        "pull_request": {"number": PR, "head": {"sha": head}, "base": {"sha": BASE}},
        "repository": {"full_name": REPO},
        "installation": {"id": INSTALLATION},
    }


def _wait(predicate: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "GitHub was not sent what was expected"
        time.sleep(0.1)


def test_pull_request_events_post_status_check_run_and_one_comment(
    reporting: TestClient, github: tuple[FakeGitHub, str, str]
) -> None:
    fake = github[0]
    # the base: a push, checked and reported (status and check run; no comment)
    _ingest(reporting, PROOF_SOURCE, BASE)
    push = {"after": BASE, "repository": {"full_name": REPO}, "installation": {"id": INSTALLATION}}
    base_run = _event(reporting, "push", push, "d-base")
    _wait(lambda: len(fake.check_runs) == 1)
    assert fake.statuses[0]["sha"] == BASE and fake.statuses[0]["state"] == "failure"
    assert not fake.comments

    # someone quotes our marker in a comment of their own: it is never edited
    foreign = {"id": 1, "body": f"{MARKER} look", "user": {"login": "someone"}}
    fake.comments[PR] = [foreign]

    # the pull request opened at its head: only what changed is checked
    _ingest(reporting, HEAD1_SOURCE, HEAD1)
    first = _event(reporting, "pull_request", _pull_request("opened", HEAD1), "d-pr-1")
    _wait(lambda: len(fake.comments.get(PR, [])) == 2)
    assert fake.comments[PR][0] == {"id": 1, "body": f"{MARKER} look", "user": {"login": "someone"}}
    status = fake.statuses[-1]
    assert (status["sha"], status["state"], status["context"]) == (HEAD1, "failure", "proofbridge")
    assert status["target_url"] == f"https://proofbridge.example.org/runs/{first}"
    assert len(status["description"]) <= 140
    (check,) = [c for c in fake.check_runs.values() if c["head_sha"] == HEAD1]
    assert (check["status"], check["conclusion"], check["name"]) == (
        "completed",
        "failure",
        "proofbridge",
    )
    notes = {(n["path"], n["start_line"], n["annotation_level"]) for n in check["annotations"]}
    assert notes == {("Proofs/P.lean", 12, "failure")}  # `apart`, at its line
    (note,) = check["annotations"]
    assert "proofbridge repro P.apart --seed 0" in note["message"]
    assert "tolerance: atol" in note["message"]

    comment = fake.comments[PR][1]
    assert comment["user"]["login"] == "proofbridge-ci[bot]"
    body = comment["body"]
    assert body.startswith(MARKER)
    assert f"compared with run {base_run} at the base" in body
    assert "**Newly failing** (1)" in body and "`P.apart`" in body
    assert "**Fixed** (1)\n- `P.lemma1` (at the base: fail)" in body
    # installation tokens for the App's requests: every request authenticated with one
    tokens = [r for r in fake.requests if r["path"].startswith("/app/installations/")]
    assert tokens and all(r["method"] == "POST" for r in tokens)

    # the next push to the pull request: the same comment, updated
    _ingest(reporting, HEAD2_SOURCE, HEAD2)
    _event(reporting, "pull_request", _pull_request("synchronize", HEAD2), "d-pr-2")
    _wait(
        lambda: (
            fake.statuses[-1]["sha"] == HEAD2
            and "Nothing newly failing" in fake.comments[PR][1]["body"]
        )
    )
    assert len(fake.comments[PR]) == 2
    assert fake.comments[PR][1]["id"] == comment["id"]
    assert fake.comments[PR][0]["body"] == f"{MARKER} look"
    patched = [
        r for r in fake.requests if r["method"] == "PATCH" and "/issues/comments/" in r["path"]
    ]
    assert len(patched) == 1
    assert fake.statuses[-1]["state"] == "success"


def test_a_pull_request_action_that_changes_no_code_queues_nothing(
    reporting: TestClient, github: tuple[FakeGitHub, str, str]
) -> None:
    answer = deliver(
        reporting, _pull_request("labeled", HEAD1), event="pull_request", delivery="d-l"
    )
    assert answer.status_code == 202
    assert answer.json()["run"] is None
    assert "checks nothing" in answer.json()["ignored"]
    bad = _pull_request("opened", HEAD1)
    bad["pull_request"]["head"] = {"sha": "not-a-sha"}
    refused = deliver(reporting, bad, event="pull_request", delivery="d-bad")
    assert refused.status_code == 422
    assert "pull_request.head.sha" in refused.json()["detail"]
    assert github[0].requests == []


def test_a_token_alone_posts_statuses_and_comments(
    database_url: str, tmp_path: Path, github: tuple[FakeGitHub, str, str]
) -> None:
    fake, url, _ = github
    settings = make_settings(
        database_url,
        tmp_path / "var",
        webhook_secret=SECRET,
        github_api_url=url,
        github_token=fake.token,
    )
    with TestClient(create_app(settings)) as client:
        _ingest(client, PROOF_SOURCE, HEAD1)
        _event(client, "pull_request", _pull_request("opened", HEAD1), "d-token")
        _wait(lambda: len(fake.comments.get(PR, [])) == 1)
    assert fake.statuses and not fake.check_runs  # check runs need a GitHub App
    assert "no finished run at the base" in fake.comments[PR][0]["body"]
    assert "**Unproved and false** (3)" in fake.comments[PR][0]["body"]
    assert all(r["headers"]["authorization"] == f"Bearer {fake.token}" for r in fake.requests)


def test_a_commit_nothing_was_uploaded_at_gets_an_error_status_only(
    reporting: TestClient, github: tuple[FakeGitHub, str, str]
) -> None:
    fake = github[0]
    _ingest(reporting, PROOF_SOURCE, BASE)  # documents of another commit only
    _event(reporting, "pull_request", _pull_request("opened", HEAD1), "d-none")
    _wait(lambda: bool(fake.statuses))
    time.sleep(0.5)  # nothing else follows
    (status,) = fake.statuses
    assert (status["sha"], status["state"]) == (HEAD1, "error")
    assert "no documents were uploaded" in status["description"]
    assert not fake.check_runs and not fake.comments


def test_a_commit_after_which_nothing_changed_still_gets_its_status(
    reporting: TestClient, github: tuple[FakeGitHub, str, str]
) -> None:
    # a branch protection that requires the `proofbridge` status must not wait for ever
    fake = github[0]
    _ingest(reporting, HEAD1_SOURCE, HEAD1)
    _event(reporting, "pull_request", _pull_request("opened", HEAD1), "d-u1")
    _wait(lambda: len(fake.comments.get(PR, [])) == 1)
    comment = dict(fake.comments[PR][0])
    first = [c for c in fake.check_runs.values() if c["head_sha"] == HEAD1]

    _ingest(reporting, HEAD1_SOURCE, HEAD2)  # the same sources at the next commit
    payload = _pull_request("synchronize", HEAD2)
    answer = deliver(reporting, payload, event="pull_request", delivery="d-u2")
    assert answer.status_code == 200 and answer.json()["run"] is None
    _wait(lambda: any(c["head_sha"] == HEAD2 for c in fake.check_runs.values()))
    (status,) = [s for s in fake.statuses if s["sha"] == HEAD2]
    assert status["state"] == "failure"  # `apart` still fails, as last checked
    assert status["description"].startswith("no theorem changed since it was last checked")
    assert " fail" in status["description"] and len(status["description"]) <= 140
    assert status["target_url"] == "https://proofbridge.example.org/"
    (check,) = [c for c in fake.check_runs.values() if c["head_sha"] == HEAD2]
    assert check["conclusion"] == "failure"
    placed = {(n["path"], n["start_line"], n["title"]) for n in check["annotations"]}
    assert placed == {(n["path"], n["start_line"], n["title"]) for n in first[0]["annotations"]}
    assert fake.comments[PR] == [comment]  # the comment speaks of runs: left as it is


def test_an_unchanged_commit_whose_theorems_all_pass_gets_success(
    reporting: TestClient, github: tuple[FakeGitHub, str, str]
) -> None:
    fake = github[0]
    clean = "theorem ok (x : ℝ) : x + 0 = x := by simp\n"
    _ingest(reporting, clean, HEAD1)
    push = {"after": HEAD1, "repository": {"full_name": REPO}, "installation": {"id": INSTALLATION}}
    _event(reporting, "push", push, "d-c1")
    _wait(lambda: any(s["sha"] == HEAD1 for s in fake.statuses))
    _ingest(reporting, clean, HEAD2)
    payload = _pull_request("opened", HEAD2)
    answer = deliver(reporting, payload, event="pull_request", delivery="d-c2")
    assert answer.status_code == 200 and answer.json()["run"] is None
    _wait(lambda: any(c["head_sha"] == HEAD2 for c in fake.check_runs.values()))
    (status,) = [s for s in fake.statuses if s["sha"] == HEAD2]
    assert status["state"] == "success"
    assert status["description"].endswith("as last checked: 1 pass")
    (check,) = [c for c in fake.check_runs.values() if c["head_sha"] == HEAD2]
    assert (check["conclusion"], check["annotations"]) == ("success", [])
    assert PR not in fake.comments


def test_an_unchanged_commit_nothing_was_uploaded_at_gets_an_error_status(
    reporting: TestClient, github: tuple[FakeGitHub, str, str]
) -> None:
    fake = github[0]
    _ingest(reporting, PROOF_SOURCE, BASE)
    _event(reporting, "push", {"after": BASE, "repository": {"full_name": REPO}}, "d-n1")
    _wait(lambda: any(s["sha"] == BASE for s in fake.statuses))
    answer = deliver(
        reporting, _pull_request("opened", HEAD1), event="pull_request", delivery="d-n2"
    )
    assert answer.status_code == 200 and answer.json()["run"] is None
    _wait(lambda: any(s["sha"] == HEAD1 for s in fake.statuses))
    (status,) = [s for s in fake.statuses if s["sha"] == HEAD1]
    assert status["state"] == "error" and "no documents were uploaded" in status["description"]
