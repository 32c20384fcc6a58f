"""What a GitHub delivery asks for, read from its payload (the fields GitHub documents for
the `push` and `pull_request` events): the commit to check, and where its reports go.

A push names its commit in `after`; a pull request its head (`pull_request.head.sha`) and
base (`pull_request.base.sha`), its number, and acts when it is opened, reopened, updated
(`synchronize`) or marked ready for review; other actions (labelled, closed, ...) check
nothing. Both name the repository (`repository.full_name`) and, for a GitHub App, the
installation (`installation.id`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from app.services.ci.github_report import GitHubContext

__all__ = ["PULL_REQUEST_ACTIONS", "BadPayload", "Target", "read_target"]

COMMIT_SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
PULL_REQUEST_ACTIONS = ("opened", "reopened", "synchronize", "ready_for_review")


class BadPayload(ValueError):
    """A payload without a field the event needs; the message says which."""


@dataclass(frozen=True)
class Target:
    commit: str | None  # None: nothing to check (`ignored` says why)
    github: GitHubContext | None = None
    ignored: str | None = None


NO_AFTER = "a push payload needs `after`, the commit SHA (40 or 64 hex digits) pushed"


def _sha(value: Any, what: str) -> str:
    if not isinstance(value, str) or not COMMIT_SHA.match(value.lower()):
        raise BadPayload(f"a pull_request payload needs {what}, a commit SHA (40 or 64 hex digits)")
    return value.lower()


def _context(payload: dict[str, Any], sha: str, **extra: Any) -> GitHubContext | None:
    repo = payload.get("repository")
    name = repo.get("full_name") if isinstance(repo, dict) else None
    if not isinstance(name, str) or not REPOSITORY.match(name):
        return None  # nowhere to report: the run still runs
    installation = payload.get("installation")
    number = installation.get("id") if isinstance(installation, dict) else None
    installation_id = number if isinstance(number, int) and number > 0 else None
    return GitHubContext(repo=name, sha=sha, installation=installation_id, **extra)


def read_target(event: str, payload: dict[str, Any]) -> Target:
    """The commit a `push` or `pull_request` delivery asks to check, and its context."""
    if event == "push":
        after = payload.get("after")
        if not isinstance(after, str) or not COMMIT_SHA.match(after.lower()):
            raise BadPayload(NO_AFTER)
        after = after.lower()
        if after.strip("0") == "" or payload.get("deleted") is True:
            return Target(None, ignored="the push deleted its branch: nothing to check")
        return Target(after, _context(payload, after))
    if event == "pull_request":
        action = payload.get("action")
        if action not in PULL_REQUEST_ACTIONS:
            shown = action if isinstance(action, str) else "none"
            return Target(
                None,
                ignored=f"pull request action {shown[:64]!r} checks nothing "
                f"(only {', '.join(PULL_REQUEST_ACTIONS)})",
            )
        pr = payload.get("pull_request")
        if not isinstance(pr, dict):
            raise BadPayload("a pull_request payload needs its `pull_request` object")
        head, base = pr.get("head"), pr.get("base")
        sha = _sha(head.get("sha") if isinstance(head, dict) else None, "`pull_request.head.sha`")
        base_sha = _sha(
            base.get("sha") if isinstance(base, dict) else None, "`pull_request.base.sha`"
        )
        number = payload.get("number", pr.get("number"))
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise BadPayload("a pull_request payload needs its `number`, a positive integer")
        return Target(sha, _context(payload, sha, pull_request=number, base_sha=base_sha))
    raise BadPayload(f"event {event!r} names no commit")
