"""What a GitHub delivery that queued no run posts: the commit still gets its status.

A push or pull request after which no theorem changed since it was last checked queues
no run, yet a repository whose branch protection requires the `proofbridge` status
would wait for it for ever. Such a commit is answered from each live theorem's newest
result, which is what it would get if every theorem were checked again: `failure` while
any of them is failing (`fail` or `error`), else `success`, the counts in the
description; with a GitHub App, a check run with one annotation per failing theorem at
its line. A commit no documents were uploaded at gets `error` (nothing of it was
checked), and so does a database with nothing ingested.

Posted on a thread of its own with a session of its own, as a run's reports are.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter

import httpx
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app import models
from app.crud.declarations import THEOREM_KINDS
from app.db import get_sessionmaker
from app.services.ci.github import GitHubError
from app.services.ci.github_report import (
    CONTEXT,
    FAILING,
    GitHubContext,
    check_annotations,
    github_client,
    post_not_uploaded,
    result_rows,
)
from app.services.ci.locations import source_lines
from app.settings import Settings

__all__ = ["post_unchanged", "report_unchanged"]

log = logging.getLogger("proofbridge.github")

# the failing theorems read for annotations (GitHub takes 50 a request; the client pages)
MOST_ANNOTATED = 1000


def _newest_statuses(session: Session) -> Counter[str]:
    d = models.Declaration
    stmt = (
        select(d.latest_status, func.count())
        .where(d.removed.is_(False), d.kind.in_(THEOREM_KINDS))
        .group_by(d.latest_status)
    )
    return Counter({status or "unchecked": int(n) for status, n in session.execute(stmt)})


def _failing_results(session: Session) -> list[models.Result]:
    d, res = models.Declaration, models.Result
    stmt = (
        select(res)
        .join(d, d.latest_result_id == res.id)
        .where(d.removed.is_(False), d.latest_status.in_(FAILING))
        .order_by(d.name)
        .limit(MOST_ANNOTATED)
    )
    return list(session.scalars(stmt))


def report_unchanged(
    session: Session,
    settings: Settings,
    ctx: GitHubContext,
    nothing: str,
    *,
    transport: httpx.BaseTransport | None = None,
) -> list[str]:
    """Post the status (and, for an App, the check run) of a commit whose delivery queued
    no run because `nothing` (why not); what was posted, as lines."""
    try:
        client = github_client(settings, ctx.installation, transport)
    except GitHubError as exc:
        log.warning("commit %s: not reported to GitHub: %s", ctx.sha, exc)
        return [f"not reported: {exc}"]
    if not client.can_post:
        return ["not reported: no GitHub credentials (PROOFBRIDGE_GITHUB_TOKEN or an App)"]
    try:
        if not ctx.uploaded:
            return [post_not_uploaded(client, ctx)]
        counts = _newest_statuses(session)
        if not counts:
            client.create_status(
                ctx.repo,
                ctx.sha,
                state="error",
                description=nothing,
                context=CONTEXT,
                target_url=ctx.run_url,
            )
            return ["status (nothing ingested)"]
        failing = sum(counts[s] for s in FAILING)
        shown = ("pass", "fail", "error", "unsupported", "unchecked")
        summary = ", ".join(f"{counts[s]} {s}" for s in shown if counts[s])
        # the whole corpus's state, not a run's: said so, since a run's status speaks of
        # the theorems it checked only
        description = (
            f"no theorem changed since it was last checked; all theorems as last checked: {summary}"
        )
        client.create_status(
            ctx.repo,
            ctx.sha,
            state="failure" if failing else "success",
            description=description,
            context=CONTEXT,
            target_url=ctx.run_url,
        )
        done = ["status"]
        if client.can_check_runs:
            rows = result_rows(session, _failing_results(session))
            names = [r["name"] for r in rows]
            notes = check_annotations(
                rows, source_lines(session, names=names, root=settings.source_root)
            )
            unplaced = len(rows) - len(notes)
            text = f"{description}." + (
                f"\n\n{unplaced} failing theorem(s) have no known source line." if unplaced else ""
            )
            client.create_check_run(
                ctx.repo,
                name=CONTEXT,
                head_sha=ctx.sha,
                conclusion="failure" if failing else "success",
                title=f"unchanged: {summary}",
                summary=text,
                annotations=notes,
                details_url=ctx.run_url,
            )
            done.append(f"check run ({len(notes)} annotations)")
        return done
    except GitHubError as exc:
        log.warning("commit %s: reporting to GitHub stopped: %s", ctx.sha, exc)
        return [f"stopped: {exc}"]
    finally:
        client.close()


def post_unchanged(settings: Settings, ctx: GitHubContext, nothing: str) -> None:
    """`report_unchanged` on a thread of its own, with a session of its own."""

    def work() -> None:
        try:
            with get_sessionmaker(settings.database_url)() as session:
                posted = report_unchanged(session, settings, ctx, nothing)
        except Exception:  # the database went away, say: logged, never raised
            log.exception("commit %s: reporting to GitHub failed", ctx.sha)
            return
        log.info("commit %s reported to GitHub: %s", ctx.sha, "; ".join(posted))

    name = f"proofbridge-github-unchanged-{ctx.sha[:12]}"
    threading.Thread(target=work, name=name, daemon=True).start()
