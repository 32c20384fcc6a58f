"""GitHub deliveries, each handled once: recorded (`webhook_deliveries`) in the transaction
that queues its run, so that a delivery sent again finds its row and changes nothing. A push
queues a run over the theorems that changed since they were last checked (`changed_only`),
at the pushed commit, with the idempotency key `github:<delivery>` as a second guard; so
does a pull request opened or updated, at its head commit. The run keeps where its reports
go (`github_report.GitHubContext`, with the run's page under `site`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sqlalchemy import literal, or_, select
from sqlalchemy.orm import Session

from app import models
from app.db import run_in_transaction
from app.services.ci.github_report import GitHubContext
from app.services.runs import (
    CheckParams,
    IdempotencyConflict,
    SelectionError,
    lock_runs,
    queue_run,
    select_theorems,
)
from app.settings import Settings

__all__ = [
    "GITHUB_TRIGGER",
    "MAX_DELIVERY_LENGTH",
    "NOTHING_CHANGED",
    "DeliveryOutcome",
    "handle_delivery",
    "uploaded_at",
]

GITHUB_TRIGGER = "github"
# the longest delivery id whose idempotency key (`github:<delivery>`) a run can store
MAX_DELIVERY_LENGTH = 200 - len(GITHUB_TRIGGER) - 1
NOTHING_CHANGED = "no theorem changed since it was last checked: nothing to run"


@dataclass
class DeliveryOutcome:
    """What a delivery did: the run it queued (`created`), the earlier delivery of the
    same id it repeats, or why a push queued nothing (`nothing`)."""

    run: models.Run | None = None
    created: bool = False
    earlier: models.WebhookDelivery | None = None
    nothing: str | None = None
    uploaded: bool = True  # documents were ingested at the push's commit


def uploaded_at(session: Session, commit: str) -> bool:
    """Whether documents were ingested at `commit` (or at an abbreviation of it)."""
    s = models.Source
    match = or_(s.commit == commit, literal(commit).startswith(s.commit))
    return session.scalar(select(s.id).where(s.commit.is_not(None), match).limit(1)) is not None


def handle_delivery(
    session: Session,
    *,
    settings: Settings,
    event: str,
    delivery: str | None,
    commit: str | None,
    github: GitHubContext | None = None,
    site: str = "",
) -> DeliveryOutcome:
    """Record the delivery and, for a push or pull request (`commit` set), queue its run,
    in one transaction (committed). A delivery id already recorded changes nothing. The
    caller hands a created run to the workers. `github`: where the run's reports go, its
    page under `site` (the dashboard's address)."""

    def work() -> DeliveryOutcome:
        lock_runs(session)
        d = models.WebhookDelivery
        if delivery is not None:
            earlier = session.scalar(select(d).where(d.delivery == delivery))
            if earlier is not None:
                run = session.get(models.Run, earlier.run_id) if earlier.run_id else None
                return DeliveryOutcome(run=run, earlier=earlier)
        out = DeliveryOutcome()
        if event in ("push", "pull_request") and commit is not None:
            out = _queue_push(session, settings, delivery, commit)
            if out.created and out.run is not None and github is not None:
                url = f"{site.rstrip('/')}/runs/{out.run.id}" if site else ""
                context = dataclasses.replace(github, run_url=url, uploaded=out.uploaded)
                out.run.params = dict(out.run.params or {}) | {"github": context.to_json()}
                session.flush()
        if delivery is not None:
            run_id = out.run.id if out.run is not None else None
            session.add(d(delivery=delivery, event=event, commit=commit, run_id=run_id))
            session.flush()
        return out

    return run_in_transaction(session, work)


def _queue_push(
    session: Session, settings: Settings, delivery: str | None, commit: str
) -> DeliveryOutcome:
    uploaded = uploaded_at(session, commit)
    try:
        changed = select_theorems(session, changed_only=True)
    except SelectionError as exc:  # nothing ingested yet
        return DeliveryOutcome(nothing=f"{exc}: nothing to run", uploaded=uploaded)
    if not changed:
        return DeliveryOutcome(nothing=NOTHING_CHANGED, uploaded=uploaded)
    params = CheckParams(changed_only=True)
    key = f"{GITHUB_TRIGGER}:{delivery}" if delivery is not None else None
    try:
        run, created = queue_run(
            session,
            settings=settings,
            params=params,
            trigger=GITHUB_TRIGGER,
            commit=commit,
            idempotency_key=key,
            locked=True,
        )
    except IdempotencyConflict:  # another client's request took the key: go without it
        run, created = queue_run(
            session,
            settings=settings,
            params=params,
            trigger=GITHUB_TRIGGER,
            commit=commit,
            locked=True,
        )
    return DeliveryOutcome(run=run, created=created, uploaded=uploaded)
