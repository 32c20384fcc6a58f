"""`proofbridge show NAME` and `proofbridge repro NAME`: one theorem, as recorded and
replayed."""

from __future__ import annotations

import argparse
from typing import Any

from sqlalchemy.orm import Session

from app.cli_args import EXIT_FAILED, EXIT_OK, parse_dims, positive, seed
from app.cli_output import dumps, print_replay, print_theorem, replay_json
from app.runtime import open_session
from app.services.runs import SelectionError
from app.settings import Settings

__all__ = ["add_theorem_parsers", "cmd_repro", "cmd_show"]


def add_theorem_parsers(sub: Any) -> None:
    p = sub.add_parser("repro", help="replay one recorded trial")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--seed", type=seed, help="the seed (default: the newest result's)")
    p.add_argument("--dims", type=parse_dims, help="K=V,... (default: the recorded ones)")
    p.add_argument("--trial", type=int, help="the trial (default: the recorded one)")
    p.add_argument("--trials", type=positive, help="trial count (default: the recorded one)")
    p.add_argument("--dtype", choices=("float64", "float32", "bfloat16"))
    p.add_argument("--json", action="store_true")

    p = sub.add_parser(
        "show",
        help="statement, checker and history of a declaration",
        description="The declaration's statement, its checker and its results. The checker "
        "is shown as its newest result recorded it while that result is current (of this "
        "revision, no definition it used changed since), else described afresh.",
    )
    p.add_argument("name", metavar="NAME")
    p.add_argument(
        "--describe",
        action="store_true",
        help="describe the checker afresh even where a current result recorded it",
    )
    p.add_argument("--json", action="store_true")


def cmd_repro(args: argparse.Namespace, settings: Settings) -> int:
    from app.services.runs import replay

    with open_session(settings) as session:
        result = replay(
            session,
            name=args.name,
            seed=args.seed,
            dims=args.dims,
            trial=args.trial,
            trials=args.trials,
            dtype=args.dtype,
        )
    if args.json:
        print(dumps(replay_json(result)))
    else:
        print_replay(result)
    return EXIT_FAILED if result.repro.result.status in ("fail", "error") else EXIT_OK


def cmd_show(args: argparse.Namespace, settings: Settings) -> int:
    from app.services.reading import theorem_detail

    with open_session(settings) as session:
        detail = theorem_detail(session, name=args.name)  # the checker as recorded
        if detail is None:
            raise SelectionError(f"unknown declaration: {args.name}")
        # the newest result is of this revision and these definitions: it says which
        # checker ran without loading the checkers (and JAX); else describe it afresh
        described = args.describe or (detail.checker.kind != "none" and detail.stale)
        if described:
            detail = theorem_detail(session, name=args.name, checker=_describe(session, args.name))
    assert detail is not None
    source = "described" if described else "recorded"
    if args.json:
        print(dumps(detail.model_dump(mode="json") | {"checker_source": source}))
    else:
        print_theorem(detail, checker_source=source)
    return EXIT_OK


def _describe(session: Session, name: str) -> dict[str, Any] | None:
    from app.services.runs import SelectionError, describe_theorem

    try:
        return describe_theorem(session, name=name)
    except SelectionError:
        return None  # not a theorem: theorem_detail says so
    except Exception as exc:  # the checkers could not describe it: say so, show the rest
        return {"kind": "unknown", "reason": f"describing the checker failed: {exc}"}
