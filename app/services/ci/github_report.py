"""What a finished run posts to GitHub, where the author looks: a commit status, a check
run with one annotation per failing theorem at its file and line, and, for a pull request,
one comment kept up to date (never a second one).

A run queued by a GitHub delivery carries its context (`GitHubContext`: the repository, the
commit, the pull request and its base, the App installation, the run's page); a run without
one posts nothing, and so does a server with no GitHub credentials. A failure to post is
logged and reported back to the caller, never a failure of the run.

The comment compares the run with the newest finished run at the pull request's base
commit: newly failing (failing now, not at the base: passing, unsupported or not checked
there), fixed (failing at the base, passing now), flaky (both `pass` and `fail` recorded at
the theorem's current revision), and unproved and false (`app.services.reading.proofs`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import literal, or_, select
from sqlalchemy.orm import Session

from app import crud, models
from app.db import get_sessionmaker
from app.services.ci.github import GitHubClient, GitHubError
from app.services.ci.junit import repro_command
from app.services.ci.locations import SourceLine, source_lines
from app.services.reading import views
from app.services.reading.proofs import UNPROVED_FALSE, ProofState, proof_states, triage
from app.services.runs.lifecycle import FINISH_LISTENERS
from app.settings import Settings

__all__ = [
    "CONTEXT",
    "MARKER",
    "GitHubContext",
    "check_annotations",
    "comment_body",
    "github_client",
    "install_reporting",
    "post_not_uploaded",
    "report_run",
    "result_rows",
]

log = logging.getLogger("proofbridge.github")

CONTEXT = "proofbridge"  # the commit status's context and the check run's name
MARKER = "<!-- proofbridge:pull-request-comment -->"  # how the comment is found again
FAILING = ("fail", "error")
_WHAT = {"fail": "false at sampled inputs", "error": "the checker could not run"}
LISTED = 25  # theorems listed per group in the comment


@dataclass(frozen=True)
class GitHubContext:
    """Where a run's reports go, as the webhook delivery told it."""

    repo: str  # owner/name
    sha: str  # the commit checked (a push's `after`, a pull request's head)
    pull_request: int | None = None
    base_sha: str | None = None
    installation: int | None = None
    run_url: str = ""  # the run's page, linked from the status, check run and comment
    uploaded: bool = True  # documents were ingested at `sha` before the delivery

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GitHubContext:
        def number(key: str) -> int | None:
            value = data.get(key)
            return int(value) if isinstance(value, int) else None

        return cls(
            repo=str(data["repo"]),
            sha=str(data["sha"]),
            pull_request=number("pull_request"),
            base_sha=str(data["base_sha"]) if data.get("base_sha") else None,
            installation=number("installation"),
            run_url=str(data.get("run_url") or ""),
            uploaded=data.get("uploaded") is not False,
        )


def github_client(
    settings: Settings, installation: int | None, transport: httpx.BaseTransport | None = None
) -> GitHubClient:
    """A client with the server's credentials (a private key given as @FILE is read)."""
    secret = settings.github_app_private_key
    key = secret.get_secret_value() if secret is not None else None
    if key is not None and key.startswith("@"):
        try:
            key = Path(key[1:]).read_text(encoding="utf-8")
        except OSError as exc:
            raise GitHubError(
                f"cannot read PROOFBRIDGE_GITHUB_APP_PRIVATE_KEY's file {key[1:]}: {exc.strerror}"
            ) from None
    return GitHubClient(
        base_url=settings.github_api_url,
        token=settings.github_token.get_secret_value() if settings.github_token else None,
        app_id=settings.github_app_id,
        private_key=key,
        installation_id=installation,
        transport=transport,
    )


def report_run(
    session: Session,
    settings: Settings,
    run_id: int,
    *,
    transport: httpx.BaseTransport | None = None,
) -> list[str]:
    """Post the finished run's reports to GitHub; what was posted (or why not), as lines."""
    run = session.get(models.Run, run_id)
    data = (run.params or {}).get("github") if run is not None else None
    if run is None or not isinstance(data, dict):
        return []
    ctx = GitHubContext.from_json(data)
    try:
        client = github_client(settings, ctx.installation, transport)
    except GitHubError as exc:
        log.warning("run %s: not reported to GitHub: %s", run_id, exc)
        return [f"not reported: {exc}"]
    if not client.can_post:
        return ["not reported: no GitHub credentials (PROOFBRIDGE_GITHUB_TOKEN or an App)"]
    rows = _rows(session, run_id)
    locations = source_lines(session, names=[r["name"] for r in rows], root=settings.source_root)
    done: list[str] = []
    try:
        if not ctx.uploaded:  # what ran is not this commit's: say so, claim nothing
            return [post_not_uploaded(client, ctx)]
        summary = _summary(run)
        client.create_status(
            ctx.repo,
            ctx.sha,
            state={"passed": "success", "failed": "failure"}.get(run.status, "error"),
            description=f"run {run.id} {run.status}: {summary}",
            context=CONTEXT,
            target_url=ctx.run_url,
        )
        done.append("status")
        if client.can_check_runs:
            notes = check_annotations(rows, locations)
            client.create_check_run(
                ctx.repo,
                name=CONTEXT,
                head_sha=ctx.sha,
                conclusion="success" if run.status == "passed" else "failure",
                title=f"{summary}",
                summary=_check_summary(run, rows, notes),
                annotations=notes,
                details_url=ctx.run_url,
                external_id=str(run.id),
            )
            done.append(f"check run ({len(notes)} annotations)")
        if ctx.pull_request is not None:
            body = comment_body(session, run, ctx, rows)
            _, created = client.upsert_comment(ctx.repo, ctx.pull_request, body=body, marker=MARKER)
            done.append("comment created" if created else "comment updated")
    except GitHubError as exc:
        log.warning("run %s: reporting to GitHub stopped: %s", run_id, exc)
        done.append(f"stopped: {exc}")
    finally:
        client.close()
    return done


def install_reporting(settings: Settings) -> None:
    """Report every run that finishes in this process (`lifecycle.FINISH_LISTENERS`), on a
    thread of its own with a session of its own: GitHub answering slowly (or not at all,
    30 s a request) never holds up the next run."""

    def work(run_id: int) -> None:
        try:
            with get_sessionmaker(settings.database_url)() as session:
                posted = report_run(session, settings, run_id)
        except Exception:  # the database went away, say: logged, never raised
            log.exception("run %s: reporting to GitHub failed", run_id)
            return
        if posted:
            log.info("run %s reported to GitHub: %s", run_id, "; ".join(posted))

    def report(session: Session, run_id: int) -> None:
        run = session.get(models.Run, run_id)
        if run is None or not isinstance((run.params or {}).get("github"), dict):
            return  # nothing to report: no thread
        session.commit()  # end the caller's read before another session writes nothing
        name = f"proofbridge-github-report-{run_id}"
        threading.Thread(target=work, args=(run_id,), name=name, daemon=True).start()

    FINISH_LISTENERS["github"] = report


def post_not_uploaded(client: GitHubClient, ctx: GitHubContext) -> str:
    """An `error` status for a commit no documents were uploaded at: what was checked (if
    anything) is not this commit's, so nothing is claimed about it."""
    client.create_status(
        ctx.repo,
        ctx.sha,
        state="error",
        description=f"no documents were uploaded at {ctx.sha[:12]} before the "
        "delivery: nothing of this commit was checked (POST /ingest?commit= first)",
        context=CONTEXT,
        target_url=ctx.run_url,
    )
    return "status (nothing uploaded at the commit)"


def _rows(session: Session, run_id: int) -> list[dict[str, Any]]:
    return result_rows(session, crud.run_results(session, run_id=run_id))


def result_rows(session: Session, results: Sequence[models.Result]) -> list[dict[str, Any]]:
    """The results as the API shows them, each with its theorem's proof state."""
    rows = [r.model_dump(mode="json") for r in views.results_out(session, results)]
    proofs = proof_states(session, [r["name"] for r in rows])
    return [r | proofs.get(r["name"], ProofState()).to_json() for r in rows]


def _summary(run: models.Run) -> str:
    return (
        f"{run.passed} pass, {run.failed} fail, {run.errored} error, {run.unsupported} unsupported"
    )


def _replay(row: Mapping[str, Any]) -> str:
    dtype = str(row.get("dtype") or "float64")
    return repro_command(str(row["name"]), int(row.get("seed") or 0), dtype)


def check_annotations(
    rows: Sequence[Mapping[str, Any]], locations: Mapping[str, SourceLine]
) -> list[dict[str, Any]]:
    """One annotation per failing theorem whose file and line are known (GitHub needs both)."""
    out = []
    for r in rows:
        if r["status"] not in FAILING:
            continue
        where = locations.get(str(r["name"]))
        if where is None or where.path is None or where.line is None:
            continue
        tolerance = f"atol {r.get('atol')}, rtol {r.get('rtol')}"
        message = f"{r.get('reason') or r['status']}\nreplay: {_replay(r)}"
        if r["status"] == "fail":
            message = f"{message}\ntolerance: {tolerance}"
        ce = r.get("counterexample")
        out.append(
            {
                "path": where.path,
                "start_line": where.line,
                "end_line": where.line,
                "annotation_level": "failure" if r["status"] == "fail" else "warning",
                "title": f"{r['name']}: {_WHAT[str(r['status'])]}"[:255],
                "message": message[:64000],
                **({"raw_details": str(ce)[:64000]} if ce else {}),
            }
        )
    return out


def _check_summary(
    run: models.Run, rows: Sequence[Mapping[str, Any]], notes: Sequence[Mapping[str, Any]]
) -> str:
    failing = [r for r in rows if r["status"] in FAILING]
    lines = [f"ProofBridge run {run.id} at {run.commit or 'no commit'}: {_summary(run)}."]
    unplaced = len(failing) - len(notes)
    if unplaced:
        lines.append(f"{unplaced} failing theorem(s) have no known source line: see the run.")
    return "\n\n".join(lines)


def _base_statuses(
    session: Session, run: models.Run, base: str | None
) -> tuple[models.Run | None, dict[str, str]]:
    """The newest completed run at the base commit (or an abbreviation of it), and each
    theorem's newest status among all completed runs there: a push run checks only what
    changed, so one run rarely holds every theorem."""
    if not base:
        return None, {}
    r = models.Run
    stmt = (
        select(r)
        .where(
            r.id != run.id,
            r.status.in_(("passed", "failed")),
            r.commit.is_not(None),
            or_(r.commit == base, literal(base).startswith(r.commit)),
        )
        .order_by(r.id.desc())
        .limit(50)
    )
    runs = list(session.scalars(stmt))
    statuses: dict[str, str] = {}
    for earlier in runs:  # newest first: a theorem's newest status is the one kept
        for res in crud.run_results(session, run_id=earlier.id):
            statuses.setdefault(res.name, res.status)
    return (runs[0] if runs else None), statuses


def comment_body(
    session: Session, run: models.Run, ctx: GitHubContext, rows: Sequence[Mapping[str, Any]]
) -> str:
    """The pull request comment: the run's counts, then each group that is not empty."""
    base_run, before = _base_statuses(session, run, ctx.base_sha)
    ids = {r["name"]: r for r in rows}
    decls = {
        d.name: d.id
        for d in session.scalars(
            select(models.Declaration).where(models.Declaration.name.in_(list(ids)))
        )
    }
    flaky_ids = crud.flaky_theorems(session, declaration_ids=list(decls.values()))
    groups: dict[str, list[str]] = {
        "Newly failing": [],
        "Fixed": [],
        "Flaky": [],
        "Unproved and false": [],
    }
    for r in rows:
        name, status = str(r["name"]), str(r["status"])
        earlier = before.get(name)
        line = f"`{name}`: {str(r.get('reason') or status)[:300]}"
        if status in FAILING and earlier not in FAILING:
            was = f" (at the base: {earlier})" if earlier else " (not checked at the base)"
            groups["Newly failing"].append(f"{line}{was}<br>replay: `{_replay(r)}`")
        if status == "pass" and earlier in FAILING:
            groups["Fixed"].append(f"`{name}` (at the base: {earlier})")
        if decls.get(name) in flaky_ids:
            groups["Flaky"].append(f"`{name}`")
        state = ProofState(str(r.get("proof") or "unknown"), tuple(r.get("rests_on") or ()))
        if triage(status, state) == UNPROVED_FALSE:
            groups["Unproved and false"].append(f"{line}<br>replay: `{_replay(r)}`")
    link = f"[run {run.id}]({ctx.run_url})" if ctx.run_url else f"run {run.id}"
    compared = (
        f"compared with run {base_run.id} at the base `{ctx.base_sha[:12]}`"
        if base_run is not None and ctx.base_sha
        else f"no finished run at the base `{(ctx.base_sha or '?')[:12]}` to compare with"
    )
    parts = [
        MARKER,
        f"### ProofBridge: {link} {run.status} at `{ctx.sha[:12]}`",
        f"{_summary(run)}; {compared}.",
    ]
    for title, items in groups.items():
        if not items:
            continue
        shown = items[:LISTED]
        more = f"\n- … and {len(items) - LISTED} more" if len(items) > LISTED else ""
        parts.append(f"**{title}** ({len(items)})\n" + "\n".join(f"- {i}" for i in shown) + more)
    if not any(groups.values()):
        parts.append("Nothing newly failing, fixed, flaky, or unproved and false.")
    return "\n\n".join(parts) + "\n"
