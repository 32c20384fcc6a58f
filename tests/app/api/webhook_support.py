"""Helpers of the webhook tests: the secret, a page of three theorems and a definition,
scripted checks that record which definitions each theorem used, signed deliveries."""

from __future__ import annotations

import json
from typing import Any

from api_support import API, AUTH, wait_for_run
from checks_support import ScriptedBackend, passing
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app import models
from app.api.routes.webhooks import signature
from app.db import get_sessionmaker

SECRET = "webhook-test-secret-4c8e1f2a9b"
HOOK = f"{API}/webhooks/github"
CI = f"{API}/webhooks/ci"
MAX_BODY = 16 * 1024
FIRST = "1" * 40
SECOND = "2a" * 20
NAMES = ["Deps.T1", "Deps.T2", "Deps.T3"]


def page(equation: str) -> bytes:
    """T1 and T2 use the definition Deps.D, whose equation is `equation`; T3 does not."""
    return f"""Dependencies #

module: Deps.Page

noncomputable def Deps.D (x : ℝ) : ℝ

Twice x.

Equations

• Deps.D x = {equation}

theorem Deps.T1 (x : ℝ) : Deps.D x = 2 * x

D doubles.

theorem Deps.T2 (x : ℝ) : Deps.D x - x = x

D adds x.

theorem Deps.T3 (x : ℝ) : x + 0 = x

Adding zero.
""".encode()


def scripted() -> ScriptedBackend:
    uses_d = passing(("Deps.D",))
    return ScriptedBackend({"Deps.T1": uses_d, "Deps.T2": uses_d, "Deps.T3": passing()})


def deliver(
    client: TestClient,
    payload: Any,
    *,
    event: str = "push",
    delivery: str | None = "d-1",
    sign: str | None = None,
    body: bytes | None = None,
) -> Any:
    raw = body if body is not None else json.dumps(payload).encode()
    headers = {"Content-Type": "application/json", "X-GitHub-Event": event}
    if delivery is not None:
        headers["X-GitHub-Delivery"] = delivery
    headers["X-Hub-Signature-256"] = sign if sign is not None else signature(SECRET, raw)
    return client.post(HOOK, content=raw, headers=headers)


def push(after: str) -> dict[str, Any]:
    return {"ref": "refs/heads/main", "before": FIRST, "after": after}


def ingest_page(client: TestClient, equation: str, commit: str) -> None:
    files = [("Deps.Page.txt", page(equation))]
    response = client.post(
        f"{API}/ingest",
        params={"commit": commit},
        files=[("files", (n, d, "text/plain")) for n, d in files],
        headers=AUTH,
    )
    assert response.status_code == 200, response.text


def check_everything(client: TestClient) -> None:
    response = client.post(f"{API}/runs", json={}, headers=AUTH)
    assert response.status_code == 202, response.text
    assert wait_for_run(client, response.json()["id"])["status"] == "passed"


def runs_by(database_url: str, trigger: str) -> int:
    with get_sessionmaker(database_url)() as session:
        r = models.Run
        return int(session.scalar(select(func.count()).where(r.trigger == trigger)) or 0)


# --- signatures ----------------------------------------------------------------------
