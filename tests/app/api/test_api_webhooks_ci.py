"""The generic CI trigger (bearer token): a run at a commit, of what changed by default."""

from __future__ import annotations

from api_support import API, AUTH, wait_for_run
from fastapi.testclient import TestClient
from webhook_support import (
    CI,
    FIRST,
    NAMES,
    SECOND,
    check_everything,
    ingest_page,
)


def test_refuse_ci_trigger_without_token(hooks: TestClient) -> None:
    response = hooks.post(CI, json={"commit": FIRST})
    assert response.status_code == 401
    assert response.json()["detail"].startswith("missing bearer token")


def test_ci_trigger_queues_run_at_commit(hooks: TestClient) -> None:
    ingest_page(hooks, "x + x", FIRST)
    response = hooks.post(CI, json={"commit": FIRST.upper()[:12]}, headers=AUTH)
    assert response.status_code == 202, response.text
    body = response.json()
    run_id = body["run"]
    # the answer is read after the run was handed over: the runner may have started it
    assert body["status"] in ("queued", "running")
    assert body == {
        "run": run_id,
        "status": body["status"],
        "total": 3,
        "url": f"{API}/runs/{run_id}",
        "junit": f"{API}/runs/{run_id}/junit.xml",
    }
    run = wait_for_run(hooks, run_id)
    assert (run["status"], run["trigger"], run["commit"]) == ("passed", "ci", FIRST[:12])
    junit = hooks.get(body["junit"])
    assert junit.status_code == 200 and 'tests="3"' in junit.text


def test_ci_trigger_checks_only_what_changed_by_default(hooks: TestClient) -> None:
    ingest_page(hooks, "x + x", FIRST)
    check_everything(hooks)
    ingest_page(hooks, "2 * x", SECOND)
    changed = hooks.post(CI, json={"commit": SECOND}, headers=AUTH).json()
    assert wait_for_run(hooks, changed["run"])["params"]["selection"] == ["Deps.T1", "Deps.T2"]

    nothing = hooks.post(CI, json={"commit": SECOND}, headers=AUTH).json()
    assert nothing["total"] == 0
    assert wait_for_run(hooks, nothing["run"])["status"] == "passed"

    every = hooks.post(CI, json={"commit": SECOND, "changed_only": False}, headers=AUTH).json()
    assert wait_for_run(hooks, every["run"])["params"]["selection"] == NAMES
    named = {"commit": SECOND, "changed_only": False, "names": ["Deps.T3"]}
    assert hooks.post(CI, json=named, headers=AUTH).json()["total"] == 1


def test_ci_trigger_with_idempotency_key_queues_one_run(hooks: TestClient) -> None:
    ingest_page(hooks, "x + x", FIRST)
    headers = AUTH | {"Idempotency-Key": "ci-build-41"}
    first = hooks.post(CI, json={"commit": FIRST}, headers=headers)
    again = hooks.post(CI, json={"commit": FIRST}, headers=headers)
    assert (first.status_code, again.status_code) == (202, 200)
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json()["run"] == first.json()["run"]

    other = hooks.post(CI, json={"commit": SECOND}, headers=headers)
    assert other.status_code == 409
    assert other.json() == {
        "detail": f"Idempotency-Key 'ci-build-41' was used for run {first.json()['run']}, "
        "whose request differs from this one"
    }
    wait_for_run(hooks, first.json()["run"])


def test_refuse_ci_trigger_with_unknown_names_or_bad_commit(hooks: TestClient) -> None:
    ingest_page(hooks, "x + x", FIRST)
    body = {"commit": FIRST, "names": ["Deps.T1", "Deps.nope", "Deps.D"]}
    response = hooks.post(CI, json=body, headers=AUTH)
    assert response.status_code == 422
    assert [(p["loc"], p["msg"]) for p in response.json()["detail"]] == [
        (["body", "names", 1], "unknown theorem: Deps.nope"),
        (["body", "names", 2], "Deps.D is a def, not a theorem"),
    ]
    bad = hooks.post(CI, json={"commit": "not-a-sha"}, headers=AUTH)
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["loc"] == ["body", "commit"]


def test_refuse_ci_trigger_before_anything_ingested(hooks: TestClient) -> None:
    response = hooks.post(CI, json={"commit": FIRST}, headers=AUTH)
    assert response.status_code == 422
    [problem] = response.json()["detail"]
    assert problem["loc"] == ["body"]
    assert problem["msg"].startswith("no theorems ingested yet")
