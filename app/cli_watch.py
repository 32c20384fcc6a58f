"""`proofbridge watch PATH...`: re-ingest the files that are saved, re-check what changed,
print each verdict (with its counterexample) as the file is saved; Ctrl-C stops."""

from __future__ import annotations

import argparse
import time
from typing import Any

from app.cli_args import positive, seed
from app.cli_output import print_check_line, say
from app.runtime import open_session
from app.settings import Settings

__all__ = ["add_watch_parser", "cmd_watch"]


def _interval(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 0.01 <= value <= 60:
        raise argparse.ArgumentTypeError(f"the interval must be from 0.01 to 60 s, got {text}")
    return value


def add_watch_parser(sub: Any) -> None:
    p = sub.add_parser(
        "watch",
        help="re-check what changed each time a file is saved",
        description="Ingest PATHs, then watch them: each time a file is saved, read it "
        "again, check the theorems whose statement (or proof status) changed and those "
        "whose checker used a definition that changed, and print each verdict with its "
        "counterexample. The process stays warm (checkers loaded, programs compiled). "
        "Ctrl-C stops it (exit 0).",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    p.add_argument("--trials", type=positive, default=64, help="trials per draw (64)")
    p.add_argument("--seed", type=seed, default=0, help="the seed (0)")
    p.add_argument("--interval", type=_interval, default=0.2, help="seconds between looks (0.2)")


def cmd_watch(args: argparse.Namespace, settings: Settings) -> int:
    from app.cli_output import print_check_summary
    from app.services.reading.proofs import ProofState, proof_states
    from app.services.runs import CheckParams
    from app.services.watching import Watcher

    with open_session(settings) as session:
        params = CheckParams(trials=args.trials, seed=args.seed)

        def line(result: dict[str, Any]) -> None:
            state = proof_states(session, [result["name"]]).get(result["name"], ProofState())
            print_check_line(result | state.to_json())

        watcher = Watcher(session, args.paths, params=params, on_result=line)
        report = watcher.start()
        say(
            f"watching {watcher.files} file{'' if watcher.files == 1 else 's'} "
            f"({report.declarations} declarations, {report.theorems} theorems); save a "
            "file to check what changed, Ctrl-C to stop",
            flush=True,
        )
        try:
            while True:
                started = time.monotonic()
                found = watcher.poll()
                if found is not None:
                    shown = ", ".join(found.files[:3]) + (" ..." if len(found.files) > 3 else "")
                    n = len(found.checked)
                    say(f"{shown} saved: {n} theorem{'' if n == 1 else 's'} to check", flush=True)
                    for error in (found.report.errors if found.report else ())[:20]:
                        say(f"  {error}", flush=True)
                    if watcher.check(found) is not None and found.outcome is not None:
                        proofs = proof_states(session, found.checked)
                        found.outcome.results[:] = [
                            r | proofs.get(r["name"], ProofState()).to_json()
                            for r in found.outcome.results
                        ]
                        print_check_summary(found.outcome)
                        say(f"  ({time.monotonic() - started:.2f} s)", flush=True)
                time.sleep(args.interval)
        except KeyboardInterrupt:
            say("stopped watching", flush=True)
    return 0
