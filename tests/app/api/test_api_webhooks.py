"""GitHub's signed webhook: `push` and `ping`, the other events ignored, each delivery
handled once. The worker's checks are scripted (tests/app/checks_support.py), with the
definitions each theorem's checker used, so that what a changed definition makes stale is
known."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from api_support import API, wait_for_run
from fastapi.testclient import TestClient
from sqlalchemy import select
from webhook_support import (
    FIRST,
    HOOK,
    MAX_BODY,
    SECOND,
    SECRET,
    check_everything,
    deliver,
    ingest_page,
    push,
    runs_by,
)

from app import models
from app.api.routes.webhooks import signature
from app.db import get_sessionmaker


def test_sign_like_github_documents() -> None:
    # the example of GitHub's "Validating webhook deliveries"
    assert signature("It's a Secret to Everybody", b"Hello, World!") == (
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    )


def test_refuse_delivery_without_signature(hooks: TestClient) -> None:
    raw = json.dumps(push(FIRST)).encode()
    response = hooks.post(HOOK, content=raw, headers={"X-GitHub-Event": "push"})
    assert response.status_code == 401
    assert response.json() == {
        "detail": "missing X-Hub-Signature-256 header: the delivery must be signed with the "
        "webhook secret"
    }


def test_refuse_delivery_with_empty_signature(hooks: TestClient) -> None:
    raw = json.dumps(push(FIRST)).encode()
    response = deliver(hooks, None, body=raw, sign="")
    assert response.status_code == 401
    assert response.json() == {
        "detail": "missing X-Hub-Signature-256 header: the delivery must be signed with the "
        "webhook secret"
    }


@pytest.mark.parametrize(
    "sign",
    [
        "sha256=",
        "sha256=" + "g" * 64,
        "sha256=" + "a" * 63,
        "sha256=" + "a" * 65,
        "sha256=" + "a" * 300,
        "sha256= " + "a" * 64,
        "sha256=" + "a" * 64 + "\x7f",
    ],
)
def test_refuse_delivery_with_malformed_signature(hooks: TestClient, sign: str) -> None:
    raw = json.dumps(push(FIRST)).encode()
    response = deliver(hooks, None, body=raw, sign=sign)
    assert response.status_code == 401
    assert response.json() == {
        "detail": "malformed X-Hub-Signature-256 header: expected `sha256=<hex digest>`"
    }


def test_accept_signature_in_upper_case_hex(hooks: TestClient) -> None:
    raw = json.dumps({"zen": "Approachable is better than simple."}).encode()
    digest = signature(SECRET, raw).removeprefix("sha256=").upper()
    assert deliver(hooks, None, event="ping", body=raw, sign=f"sha256={digest}").status_code == 200


def test_refuse_delivery_with_signature_of_wrong_prefix(hooks: TestClient) -> None:
    raw = json.dumps(push(FIRST)).encode()
    sha1 = "sha1=" + signature(SECRET, raw).removeprefix("sha256=")
    response = deliver(hooks, None, body=raw, sign=sha1)
    assert response.status_code == 401
    assert response.json() == {
        "detail": "malformed X-Hub-Signature-256 header: expected `sha256=<hex digest>`"
    }


@pytest.mark.parametrize("key", [SECRET + "x", "another-secret-of-length"])
def test_refuse_delivery_with_wrong_digest(hooks: TestClient, key: str) -> None:
    raw = json.dumps(push(FIRST)).encode()
    response = deliver(hooks, None, body=raw, sign=signature(key, raw))
    assert response.status_code == 401
    assert response.json()["detail"].startswith("X-Hub-Signature-256 does not match the body")
    # the signature of another body does not do either
    other = deliver(hooks, None, body=raw + b" ", sign=signature(SECRET, raw))
    assert other.status_code == 401


def test_accept_delivery_with_right_signature(hooks: TestClient) -> None:
    response = deliver(hooks, {"zen": "Design for failure."}, event="ping")
    assert response.status_code == 200, response.text
    assert response.json()["detail"] == "pong: the webhook's signature is right"


def test_refuse_every_delivery_while_secret_unset(client: TestClient) -> None:
    raw = json.dumps(push(FIRST)).encode()
    response = client.post(
        HOOK,
        content=raw,
        headers={"X-GitHub-Event": "push", "X-Hub-Signature-256": signature(SECRET, raw)},
    )
    assert response.status_code == 403
    assert response.json() == {
        "detail": "webhooks are disabled: set PROOFBRIDGE_WEBHOOK_SECRET to the secret of the "
        "GitHub webhook to accept deliveries"
    }


# --- events --------------------------------------------------------------------------


def test_answer_ping_with_200(hooks: TestClient) -> None:
    response = deliver(hooks, {"zen": "Keep it logically awesome.", "hook_id": 1}, event="ping")
    assert response.status_code == 200
    body = response.json()
    assert (body["event"], body["delivery"], body["run"], body["ignored"]) == (
        "ping",
        "d-1",
        None,
        None,
    )


def test_ignore_unhandled_event(hooks: TestClient, database_url: str) -> None:
    response = deliver(hooks, {"action": "opened"}, event="issues")
    assert response.status_code == 202
    body = response.json()
    assert body["ignored"] == "event 'issues' is not handled (only push, pull_request, ping)"
    assert body["run"] is None
    assert runs_by(database_url, "github") == 0


def test_refuse_oversized_delivery_with_413(hooks: TestClient) -> None:
    raw = json.dumps(push(FIRST) | {"padding": "x" * MAX_BODY}).encode()
    response = deliver(hooks, None, body=raw)
    assert response.status_code == 413
    assert response.json() == {
        "detail": f"request body too large: {len(raw)} bytes (limit {MAX_BODY} bytes, "
        "PROOFBRIDGE_MAX_UPLOAD_BYTES)"
    }


def test_refuse_malformed_json_with_its_position(hooks: TestClient) -> None:
    response = deliver(hooks, None, body=b'{"after":\n  }')
    assert response.status_code == 422
    [problem] = response.json()["detail"]
    assert problem["msg"] == "malformed JSON: Expecting value (at line 2, column 3)"
    assert (problem["line"], problem["column"]) == (2, 3)


def test_refuse_push_without_commit(hooks: TestClient) -> None:
    for payload in ({"ref": "refs/heads/main"}, {"after": "main"}, ["after"]):
        response = deliver(hooks, payload)
        assert response.status_code == 422, payload
    assert response.json() == {"detail": "the payload must be a JSON object"}


@pytest.mark.parametrize(
    ("event", "body"),
    [
        ("push", b"null"),
        ("push", b'"after"'),
        ("push", b'{"after": 5}'),
        ("push", b'{"after": "' + b"g" * 40 + b'"}'),
        ("push", b"[" * 5000 + b"]" * 5000),
        ("push", b'{"after": "\xff"}'),
        ("push", b"\xff\xfe"),
        ("ping", b"[]"),
        ("release", b'{"after": null}'),
    ],
)
def test_answer_odd_signed_payloads_without_server_error(
    hooks: TestClient, event: str, body: bytes
) -> None:
    response = deliver(hooks, None, event=event, body=body, delivery=None)
    assert response.status_code in (200, 202, 422), response.text
    assert isinstance(response.json()["detail"], str | list)


def test_refuse_signed_delivery_without_event(hooks: TestClient) -> None:
    raw = json.dumps(push(FIRST)).encode()
    response = hooks.post(
        HOOK, content=raw, headers={"X-Hub-Signature-256": signature(SECRET, raw)}
    )
    assert response.status_code == 422
    assert response.json() == {
        "detail": "missing X-GitHub-Event header: the event the delivery is for"
    }


def test_ignore_push_deleting_branch(hooks: TestClient, database_url: str) -> None:
    ingest_page(hooks, "x + x", FIRST)
    response = deliver(hooks, push("0" * 40) | {"deleted": True})
    assert response.status_code == 202
    assert response.json()["ignored"] == "the push deleted its branch: nothing to check"
    assert runs_by(database_url, "github") == 0


def test_push_with_nothing_ingested_queues_nothing(hooks: TestClient) -> None:
    response = deliver(hooks, push(FIRST))
    assert response.status_code == 200
    body = response.json()
    assert body["run"] is None
    assert body["detail"].startswith("no theorems ingested yet")


# --- pushes --------------------------------------------------------------------------


def test_push_changing_one_definition_reruns_exactly_its_dependents(
    hooks: TestClient, database_url: str
) -> None:
    ingest_page(hooks, "x + x", FIRST)
    check_everything(hooks)
    nothing = deliver(hooks, push(FIRST), delivery="d-0")
    assert nothing.status_code == 200
    assert nothing.json()["run"] is None
    assert (
        nothing.json()["detail"] == "no theorem changed since it was last checked: nothing to run"
    )

    ingest_page(hooks, "2 * x", SECOND)  # D's equation changes; T1, T2, T3 do not
    response = deliver(hooks, push(SECOND), delivery="d-1")
    assert response.status_code == 202, response.text
    body = response.json()
    run_id = body["run"]
    assert body["url"] == f"{API}/runs/{run_id}"
    assert body["junit"] == f"{API}/runs/{run_id}/junit.xml"
    assert response.headers["location"] == body["url"]
    assert (body["commit"], body["total"]) == (SECOND, 2)

    run = wait_for_run(hooks, run_id)
    assert run["status"] == "passed"
    assert (run["trigger"], run["commit"]) == ("github", SECOND)
    assert run["params"]["changed_only"] is True
    assert run["params"]["selection"] == ["Deps.T1", "Deps.T2"]
    assert run["progress"] == {"done": 2, "total": 2}
    with get_sessionmaker(database_url)() as session:
        stored = session.get(models.Run, run_id)
        assert stored is not None and stored.idempotency_key == "github:d-1"
        deliveries = session.scalars(select(models.WebhookDelivery.delivery)).all()
        assert sorted(deliveries) == ["d-0", "d-1"]


def test_ignore_repeated_delivery(hooks: TestClient, database_url: str) -> None:
    ingest_page(hooks, "x + x", FIRST)
    first = deliver(hooks, push(FIRST), delivery="again")
    assert first.status_code == 202, first.text
    run_id = first.json()["run"]
    assert first.json()["total"] == 3  # never checked: every theorem

    again = deliver(hooks, push(FIRST), delivery="again")
    assert again.status_code == 202
    body = again.json()
    assert body["ignored"] == f"delivery again was already handled (run {run_id})"
    assert body["run"] == run_id
    wait_for_run(hooks, run_id)
    assert runs_by(database_url, "github") == 1


def test_say_when_push_commit_was_not_uploaded(hooks: TestClient) -> None:
    ingest_page(hooks, "x + x", FIRST[:7])  # an abbreviation of the pushed commit
    known = deliver(hooks, push(FIRST), delivery="known")
    assert known.status_code == 202
    assert known.json()["detail"] == (
        f"run {known.json()['run']} queued: 3 theorems changed since they were last checked"
    )
    wait_for_run(hooks, known.json()["run"])

    unknown = deliver(hooks, push(SECOND), delivery="unknown")
    assert unknown.status_code == 200
    assert unknown.json()["detail"] == (
        "no theorem changed since it was last checked: nothing to run (no documents were "
        "uploaded at commit 2a2a2a2a2a2a: upload them with POST /ingest?commit= before the "
        "push is delivered)"
    )


def test_store_longest_delivery_id_and_refuse_longer(hooks: TestClient, database_url: str) -> None:
    ingest_page(hooks, "x + x", FIRST)
    longest = "d" * 193  # its key `github:<delivery>` fills the 200 characters of a run's
    response = deliver(hooks, push(FIRST), delivery=longest)
    assert response.status_code == 202, response.text
    wait_for_run(hooks, response.json()["run"])
    longer = deliver(hooks, push(FIRST), delivery="d" * 194)
    assert longer.status_code == 422
    assert longer.json()["detail"][0]["loc"] == ["header", "x-github-delivery"]


def test_concurrent_copies_of_one_delivery_queue_one_run(
    hooks: TestClient, database_url: str
) -> None:
    ingest_page(hooks, "x + x", FIRST)
    raw = json.dumps(push(FIRST)).encode()
    answers: list[Any] = []
    barrier = threading.Barrier(4)

    def send() -> None:
        barrier.wait()
        answers.append(deliver(hooks, None, body=raw, delivery="same"))

    threads = [threading.Thread(target=send) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(a.status_code for a in answers) == [202] * 4
    assert len({a.json()["run"] for a in answers}) == 1
    assert sum(a.json()["ignored"] is None for a in answers) == 1
    wait_for_run(hooks, answers[0].json()["run"])
    assert runs_by(database_url, "github") == 1


# --- the CI trigger ------------------------------------------------------------------
