"""The `proofbridge` command line (CONTRACT.md, "Command line").

Exit codes: 0 success; 1 a check failed or errored, or (`ingest --strict`) ingestion
reported an error; 2 bad usage or input (including an ingestion from which nothing could be
read, unknown names or dimensions, unusable settings or database).
Results go to stdout, messages and errors to stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import SQLAlchemyError

from app.cli_args import EXIT_OK, EXIT_USAGE, commit, parse_dims, positive, queues, seed
from app.cli_coverage import add_coverage_parser, cmd_coverage
from app.cli_output import (
    describe_document_kinds,
    dumps,
    print_check_line,
    print_check_summary,
    print_ingest_report,
    say,
)
from app.cli_progress import progress_on_stderr
from app.cli_theorem import add_theorem_parsers, cmd_repro, cmd_show
from app.cli_watch import add_watch_parser, cmd_watch
from app.db import redact_url
from app.migrate import SchemaNotReady, upgrade_database
from app.runtime import load_settings, open_database, open_session
from app.settings import Settings
from app.token import TokenError

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.services.runs import RunOutcome

__all__ = ["build_parser", "main", "parse_dims", "version"]


class UsageError(Exception):
    """Bad input from the user: printed as `proofbridge: error: ...`, exit code 2."""


def version() -> str:
    """The installed distribution's version (its package metadata)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("proofbridge")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="proofbridge",
        description="Numeric checks for the theorem statements of Lean 4 formalisations.",
    )
    parser.add_argument("--version", action="version", version=f"proofbridge {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "ingest",
        help="read doc pages, doc-gen4 output or Lean source",
        description="Read doc pages, doc-gen4 output or Lean source into the database. "
        f"Folders are searched for {describe_document_kinds()}. Exit 0 when something was "
        "ingested, 2 when nothing could be (no documents found, missing paths, unreadable "
        "files); with --strict, 1 when anything was ingested but an error was reported.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    p.add_argument("--commit", type=commit, help="the commit the input comes from")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when any error was reported (for CI); warnings do not count",
    )

    p = sub.add_parser("check", help="run the checkers and record the results")
    p.add_argument("names", nargs="*", metavar="NAME", help="theorems (default: all)")
    p.add_argument("--module", help="only the theorems of this module")
    p.add_argument("--trials", type=positive, default=64, help="trials per draw (64)")
    p.add_argument("--seed", type=seed, default=0, help="the seed (0)")
    p.add_argument("--dtype", choices=("float64", "float32", "bfloat16"), default="float64")
    p.add_argument(
        "--dims",
        type=parse_dims,
        help="pin dimensions: K=V,... (each must be a dimension of at least one selected "
        "theorem; it is pinned in those that have it)",
    )
    p.add_argument("--draws", type=positive, help="dimension draws per theorem")
    p.add_argument(
        "--changed-only",
        action="store_true",
        help="only theorems whose statement or dependencies changed since their last result",
    )
    p.add_argument(
        "--unproved",
        action="store_true",
        help="only theorems whose proof is not complete (`sorry`, `admit`, a declared macro)",
    )
    p.add_argument("--commit", type=commit, help="the commit being checked")
    p.add_argument("--json", action="store_true", help="print a JSON array of results")
    p.add_argument("--junit", type=Path, metavar="FILE", help="also write JUnit XML here")
    p.add_argument(
        "--sarif",
        type=Path,
        metavar="FILE",
        help="also write the failures as SARIF 2.1.0 here (for code scanning)",
    )
    p.add_argument(
        "--jobs",
        type=positive,
        help="check in this many processes (default: one per core, at most 4, "
        "for 200 theorems or more; else 1)",
    )

    add_theorem_parsers(sub)

    p = sub.add_parser(
        "serve",
        help="serve the API and the dashboard",
        description="Serve the HTTP API and the dashboard. Without a broker the runs are "
        "checked in this process; with one (PROOFBRIDGE_BROKER_URL) they go to the "
        "workers, and --processes N serves from N processes sharing the port.",
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument(
        "--processes",
        type=positive,
        default=1,
        help="server processes (more than 1 needs PROOFBRIDGE_BROKER_URL: the in-process "
        "runner checks in one process only)",
    )

    p = sub.add_parser(
        "worker",
        help="a Celery worker that checks runs (GPU when present)",
        description="Start a Celery worker on PROOFBRIDGE_BROKER_URL that executes the "
        "runs' checks and records them in PROOFBRIDGE_DATABASE_URL. Queues: cpu and gpu "
        "(checks), light (bookkeeping: reconciling lost work, finishing runs, ingestion).",
    )
    p.add_argument(
        "--queues",
        type=queues,
        help="comma-separated queues to consume (default: cpu,light, or gpu,light "
        "where a GPU is present)",
    )
    p.add_argument(
        "--concurrency",
        type=positive,
        help="pool processes (default: one per core; one per GPU on the gpu queue)",
    )
    p.add_argument("--loglevel", default="INFO", help="Celery's log level (INFO)")
    p.add_argument("--hostname", help="the worker's node name (default: celery@HOST)")

    add_coverage_parser(sub)
    add_watch_parser(sub)
    p = sub.add_parser("db", help="database maintenance")
    db_sub = p.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    db_sub.add_parser("upgrade", help="apply the migrations")
    return parser


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    from app.services.ingestion import ingest_paths

    with open_session(settings) as session:
        report = ingest_paths(
            session, paths=args.paths, commit=args.commit, max_file_bytes=settings.max_file_bytes
        )
    if args.json:
        print(dumps(report.to_json()))
    else:
        print_ingest_report(report)
    return report.exit_code_strict if args.strict else report.exit_code


def cmd_check(args: argparse.Namespace, settings: Settings) -> int:
    from app.services.reading.proofs import ProofState, proof_states
    from app.services.runs import CheckParams, run_checks

    params = CheckParams(
        names=tuple(args.names),
        module=args.module,
        trials=args.trials,
        seed=args.seed,
        dtype=args.dtype,
        dims=args.dims,
        draws=args.draws,
        changed_only=args.changed_only,
        proof="unproved" if args.unproved else None,
    )
    with open_session(settings) as session, progress_on_stderr() as progress:
        # the named theorems' states (a check of a few need not read every declaration's)
        proofs = proof_states(session, args.names or None)

        def with_proof(result: dict[str, Any]) -> dict[str, Any]:
            return result | proofs.get(result["name"], ProofState()).to_json()

        def line(result: dict[str, Any]) -> None:
            print_check_line(with_proof(result))

        outcome = run_checks(
            session,
            params=params,
            commit=args.commit,
            on_result=progress.wrap(None if args.json else line),
            on_start=progress.start,
            jobs=args.jobs,
        )
        outcome.results[:] = [with_proof(r) for r in outcome.results]
        reports = _reports(args, outcome, session, settings)
    if args.json:
        print(dumps(outcome.results))
    else:
        print_check_summary(outcome)
    if outcome.error is not None:
        say(f"proofbridge: error: run {outcome.run_id} failed: {outcome.error}", file=sys.stderr)
    for option, path, body in reports:
        try:
            path.write_bytes(body)
        except OSError as exc:
            raise UsageError(f"cannot write {option} {path}: {exc.strerror}") from None
    return outcome.exit_code


def _reports(
    args: argparse.Namespace, outcome: RunOutcome, session: Session, settings: Settings
) -> list[tuple[str, Path, bytes]]:
    """The files `--junit` and `--sarif` ask for: (option, path, contents)."""
    if args.junit is None and args.sarif is None:
        return []
    from app.services.ci import junit_xml, sarif_document, sarif_json, source_lines

    names = [r["name"] for r in outcome.results]
    locations = source_lines(session, names=names, root=settings.source_root or os.getcwd())
    reports = []
    if args.junit is not None:
        reports.append(("--junit", args.junit, junit_xml(outcome.results, locations=locations)))
    if args.sarif is not None:
        sarif = sarif_document(
            outcome.results, locations=locations, automation_id=f"proofbridge/run/{outcome.run_id}"
        )
        reports.append(("--sarif", args.sarif, sarif_json(sarif).encode()))
    return reports


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from app.runtime import prepare_server, why_cannot_listen

    if args.processes > 1 and not settings.broker_url:
        raise UsageError(
            f"--processes {args.processes} needs PROOFBRIDGE_BROKER_URL: without a broker "
            "runs are checked by the server's own runner, which runs in one process; "
            "set a broker and start `proofbridge worker`, or serve from one process"
        )
    unusable = why_cannot_listen(args.host, args.port)
    if unusable is not None:
        raise UsageError(unusable)
    prepare_server(settings)
    workers = args.processes if args.processes > 1 else None
    uvicorn.run(
        "app.main:app",
        host=args.host,
        port=args.port,
        workers=workers,
        timeout_keep_alive=settings.keep_alive_s,  # see README, "Settings"
    )
    return EXIT_OK


def cmd_worker(args: argparse.Namespace, settings: Settings) -> int:
    from app.worker import run_worker

    if not settings.broker_url:
        raise UsageError(
            "PROOFBRIDGE_BROKER_URL is not set: a worker needs a broker, for example "
            "redis://127.0.0.1:6379/0 (without one, `proofbridge serve` checks in-process)"
        )
    open_database(settings)
    run_worker(
        settings,
        queues=args.queues,
        concurrency=args.concurrency,
        loglevel=args.loglevel,
        hostname=args.hostname,
    )
    return EXIT_OK


def cmd_db(args: argparse.Namespace, settings: Settings) -> int:
    revision = upgrade_database(settings.database_url)
    print(f"database {redact_url(settings.database_url)} is at schema revision {revision}")
    return EXIT_OK


COMMANDS: dict[str, Callable[[argparse.Namespace, Settings], int]] = {
    "ingest": cmd_ingest,
    "check": cmd_check,
    "repro": cmd_repro,
    "show": cmd_show,
    "serve": cmd_serve,
    "worker": cmd_worker,
    "coverage": cmd_coverage,
    "watch": cmd_watch,
    "db": cmd_db,
}


def main(argv: Sequence[str] | None = None) -> int:
    from app.services.runs import SelectionError

    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
    except ValueError as exc:
        say(f"proofbridge: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return COMMANDS[args.command](args, settings)
    except (UsageError, SelectionError, SchemaNotReady, TokenError) as exc:
        say(f"proofbridge: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SQLAlchemyError as exc:
        url = redact_url(settings.database_url)
        detail = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        say(f"proofbridge: error: database {url}: {detail}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("proofbridge: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`proofbridge show X | head`): stop quietly, as `cat` does;
        # stdout is pointed at devnull so that flushing it at exit raises nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
