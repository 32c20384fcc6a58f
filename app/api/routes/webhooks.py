"""Triggers from outside: GitHub's webhook (`push`, `pull_request` and `ping` events, signed
with `PROOFBRIDGE_WEBHOOK_SECRET`) and a generic CI trigger (bearer token).

A GitHub delivery is authenticated first, from the raw body: `X-Hub-Signature-256` must
be `sha256=` and the hex HMAC-SHA256 of the body under the secret (compared in constant
time); with no secret set every delivery is refused (403). Each delivery id
(`X-GitHub-Delivery`) is handled once (`app.services.ci.deliveries`): a delivery sent again
is ignored. A push, and a pull request opened or updated, queue a run over the theorems
that changed since they were last checked (`changed_only`), at the pushed commit or the pull
request's head; when it finishes, its reports go to GitHub (`app.services.ci.github_report`).
Both triggers queue through `app.services.runs.queueing`, as
`POST /runs` does.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import re
from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Request, Response, status
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError

from app import models
from app.api.deps import SessionDep, SettingsDep, WriteAccess
from app.api.errors import undecodable_body_error
from app.api.params import IdempotencyKey
from app.api.responses import error_responses, queue_responses
from app.api.routes.runs import TOO_LARGE, announce_run, queue_for_request
from app.api.schemas import (
    CiTrigger,
    ErrorOut,
    GithubWebhookOut,
    QueuedRunOut,
    ValidationErrorOut,
)
from app.services.ci import (
    GITHUB_TRIGGER,
    MAX_DELIVERY_LENGTH,
    NOTHING_CHANGED,
    DeliveryOutcome,
    handle_delivery,
)
from app.services.ci.github_events import BadPayload, read_target
from app.services.ci.github_report import GitHubContext
from app.services.ci.github_unchanged import post_unchanged
from app.services.runs import CheckParams
from app.settings import Settings

__all__ = ["CI_TRIGGER", "GITHUB_TRIGGER", "router", "signature"]

router = APIRouter(prefix="/webhooks", tags=["webhooks"])

CI_TRIGGER = "ci"
SIGNATURE_PREFIX = "sha256="
SIGNATURE = re.compile(r"sha256=[0-9a-fA-F]{64}")
HANDLED_EVENTS = ("push", "pull_request", "ping")

DISABLED = (
    "webhooks are disabled: set PROOFBRIDGE_WEBHOOK_SECRET to the secret of the GitHub "
    "webhook to accept deliveries"
)
MISSING_SIGNATURE = (
    "missing X-Hub-Signature-256 header: the delivery must be signed with the webhook secret"
)
MALFORMED_SIGNATURE = "malformed X-Hub-Signature-256 header: expected `sha256=<hex digest>`"
WRONG_SIGNATURE = (
    "X-Hub-Signature-256 does not match the body: it must be the HMAC-SHA256 of the raw "
    "body under PROOFBRIDGE_WEBHOOK_SECRET"
)
MISSING_EVENT = "missing X-GitHub-Event header: the event the delivery is for"
NOT_AN_OBJECT = "the payload must be a JSON object"

_TEXT_HEADER = r"^[!-~]+$"
_GITHUB_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "description": "the event's payload; a push's `after` is the commit to check",
                    "properties": {
                        "after": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
                        "ref": {"type": "string"},
                    },
                }
            }
        },
    }
}


def signature(secret: str, body: bytes) -> str:
    """The `X-Hub-Signature-256` GitHub sends with `body` under `secret`."""
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return SIGNATURE_PREFIX + digest


def _verify(settings: Settings, body: bytes, header: str | None) -> None:
    if settings.webhook_secret is None:
        raise HTTPException(status.HTTP_403_FORBIDDEN, detail=DISABLED)
    if not header:  # absent, or sent empty
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, detail=MISSING_SIGNATURE)
    if not SIGNATURE.fullmatch(header):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, detail=MALFORMED_SIGNATURE)
    expected = signature(settings.webhook_secret.get_secret_value(), body)
    if not hmac.compare_digest(header.lower().encode(), expected.encode()):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, detail=WRONG_SIGNATURE)


def _payload(body: bytes) -> Any:
    """The JSON body; 422 saying where it is malformed."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, detail=undecodable_body_error(exc)["msg"]
        ) from None
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        pos = exc.pos if isinstance(exc, json.JSONDecodeError) else 0
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        problem = {"type": "json_invalid", "loc": ("body", pos), "msg": "JSON decode error"}
        raise RequestValidationError([problem | {"ctx": {"error": reason}}], body=text) from None


def _read_delivery(settings: Settings, body: bytes, signature_header: str | None) -> Any:
    """The payload of an authentic delivery (401, 403 or 422 otherwise)."""
    _verify(settings, body, signature_header)
    return _payload(body)


def _not_uploaded(commit: str) -> str:
    return (
        f" (no documents were uploaded at commit {commit[:12]}: upload them with "
        "POST /ingest?commit= before the push is delivered)"
    )


def _run_links(request: Request, run: models.Run) -> dict[str, Any]:
    return {
        "run": run.id,
        "status": run.status,
        "total": run.total,
        "url": str(request.url_for("read_run", run_id=run.id).path),
        "junit": str(request.url_for("read_run_junit", run_id=run.id).path),
    }


@router.post(
    "/github",
    response_model=GithubWebhookOut,
    status_code=status.HTTP_202_ACCEPTED,
    openapi_extra=_GITHUB_BODY,
    responses=error_responses(
        e401="missing, malformed or wrong X-Hub-Signature-256",
        e403="webhooks are disabled: PROOFBRIDGE_WEBHOOK_SECRET is not set",
        e413=TOO_LARGE,
        e422={
            "model": ErrorOut | ValidationErrorOut,
            "description": "malformed JSON, no X-GitHub-Event, or a push without its "
            "`after` commit",
        },
    )
    | {
        status.HTTP_200_OK: {
            "model": GithubWebhookOut,
            "description": "a ping, or a push after which no theorem needs checking "
            "(`run` is null)",
        }
    },
)
async def create_github_delivery(
    request: Request,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    # not validated here: whatever it holds, a signature that is not right answers 401
    x_hub_signature_256: Annotated[
        str | None,
        Header(description="`sha256=` and the hex HMAC-SHA256 of the body under the secret"),
    ] = None,
    x_github_event: Annotated[
        str | None,
        Header(max_length=64, pattern=_TEXT_HEADER, description="`push`, `ping`, ..."),
    ] = None,
    x_github_delivery: Annotated[
        str | None,
        Header(
            max_length=MAX_DELIVERY_LENGTH,
            pattern=_TEXT_HEADER,
            description="the delivery's id: a delivery sent again is ignored",
        ),
    ] = None,
) -> GithubWebhookOut:
    """A GitHub webhook delivery (content type `application/json`). A `push` queues a run
    (202, trigger `github`, commit `after`) over the theorems that changed since they were
    last checked: their statement, or a definition their checker used; when none did, 200
    with `run` null (with GitHub credentials, the commit still gets its status from each
    theorem's newest result). A `ping` answers 200. Any other event, and a delivery id already
    handled, is ignored (202, `ignored` says why). 401 without the right signature, 403
    while PROOFBRIDGE_WEBHOOK_SECRET is unset."""
    body = await request.body()
    # hashing and parsing up to PROOFBRIDGE_MAX_UPLOAD_BYTES: off the event loop
    payload = await run_in_threadpool(_read_delivery, settings, body, x_hub_signature_256)
    if not x_github_event:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=MISSING_EVENT)
    event, delivery = x_github_event, x_github_delivery
    commit: str | None = None
    ignored: str | None = None
    github: GitHubContext | None = None
    if event in ("push", "pull_request"):
        if not isinstance(payload, dict):
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=NOT_AN_OBJECT)
        try:
            target = read_target(event, payload)
        except BadPayload as exc:
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=str(exc)) from None
        commit, github, ignored = target.commit, target.github, target.ignored
    elif event != "ping":
        ignored = f"event {event!r} is not handled (only {', '.join(HANDLED_EVENTS)})"

    def handle() -> DeliveryOutcome:
        outcome = handle_delivery(
            session,
            settings=settings,
            event=event,
            delivery=delivery,
            commit=commit,
            github=github,
            site=settings.public_url or str(request.base_url),
        )
        if outcome.created and outcome.run is not None:
            announce_run(request, session, outcome.run)
        return outcome

    handled = await run_in_threadpool(handle)
    out: dict[str, Any] = {"event": event, "delivery": delivery, "commit": commit}
    if handled.run is not None:
        out |= _run_links(request, handled.run)
    if handled.earlier is not None:
        earlier = f" (run {handled.earlier.run_id})" if handled.earlier.run_id else ""
        ignored = f"delivery {delivery} was already handled{earlier}"
        out["commit"] = handled.earlier.commit
    if ignored is not None:
        return GithubWebhookOut(**out, ignored=ignored, detail=f"ignored: {ignored}")
    if event == "ping":
        response.status_code = status.HTTP_200_OK
        return GithubWebhookOut(**out, detail="pong: the webhook's signature is right")
    note = "" if handled.uploaded or commit is None else _not_uploaded(commit)
    if handled.run is None:
        nothing = handled.nothing or NOTHING_CHANGED
        if github is not None and (settings.github_token or settings.github_app_id):
            # the commit still gets its status, from each theorem's newest result
            site = (settings.public_url or str(request.base_url)).rstrip("/") + "/"
            context = dataclasses.replace(github, run_url=site, uploaded=handled.uploaded)
            post_unchanged(settings, context, nothing)
        response.status_code = status.HTTP_200_OK
        return GithubWebhookOut(**out, detail=nothing + note)
    response.headers["Location"] = out["url"]
    return GithubWebhookOut(
        **out,
        detail=f"run {handled.run.id} queued: {handled.run.total} theorems changed since "
        f"they were last checked{note}",
    )


@router.post(
    "/ci",
    response_model=QueuedRunOut,
    status_code=status.HTTP_202_ACCEPTED,
    responses=queue_responses(QueuedRunOut, too_large=TOO_LARGE),
)
def create_ci_run(
    request: Request,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    _: WriteAccess,
    body: CiTrigger,
    idempotency_key: IdempotencyKey = None,
) -> QueuedRunOut:
    """Queue a run (trigger `ci`) at `commit`: of `names` (default: every theorem), by
    default only those that changed since they were last checked (`changed_only`; a run
    of no theorem passes at once). 202 with the run's id, status and URLs; follow it at
    `url` until its status is `passed`, `failed`, `error` or `cancelled`. Unknown names are
    422 errors located at their index in `names`. With an `Idempotency-Key` an earlier
    request used, that request's run (200)."""
    params = CheckParams(names=tuple(body.names or ()), changed_only=body.changed_only)
    run = queue_for_request(
        request,
        response,
        session,
        settings=settings,
        params=params,
        trigger=CI_TRIGGER,
        commit=body.commit.lower(),
        idempotency_key=idempotency_key,
        selection_error=lambda exc: RequestValidationError(
            [{"type": "value_error", "loc": ("body",), "msg": str(exc), "input": None}]
        ),
    )
    out = QueuedRunOut(**_run_links(request, run))
    response.headers["Location"] = out.url
    return out
