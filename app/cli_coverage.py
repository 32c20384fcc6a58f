"""`proofbridge coverage [--module M] [--json]`: which theorems get a checker, per module,
and the missing vocabulary ranked by the theorems each name would unlock."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from app.cli_output import dumps, say
from app.db import get_sessionmaker
from app.runtime import open_database
from app.settings import Settings
from app.visible import visible

if TYPE_CHECKING:  # the schemas load only when the command runs
    from app.schemas import CoverageOut

__all__ = ["add_coverage_parser", "cmd_coverage", "print_coverage"]

SHOWN = 20  # vocabulary names and reasons printed as text (--json has them all)


def add_coverage_parser(sub: Any) -> None:
    p = sub.add_parser(
        "coverage",
        help="checked / unsupported per module, and the missing vocabulary",
        description="Per module, the theorems that get a checker and those that do not, "
        "decided without tracing or compiling anything; then the constants without "
        "semantics, ranked by the theorems for which each is the only missing constant "
        "(sole blocker), then by all it blocks. Exit 2 when --module has no theorems.",
    )
    p.add_argument("--module", help="only this module")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")


def cmd_coverage(args: argparse.Namespace, settings: Settings) -> int:
    from app.services.coverage import CoverageStore, coverage_report
    from app.services.runs import SelectionError

    open_database(settings)
    store = CoverageStore.for_settings(settings)
    with get_sessionmaker(settings.database_url)() as session:
        report = coverage_report(session, module=args.module, store=store)
    if args.module and report.theorems == 0:
        raise SelectionError(f"no theorems in module {args.module}")
    if args.json:
        print(dumps(report.model_dump(mode="json")))
    else:
        print_coverage(report)
    return 0


def _percent(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f} %" if whole else "-"


def print_coverage(report: CoverageOut) -> None:
    width = max([len("module"), *(len(visible(m.module)) for m in report.modules.data)])
    say(f"{'module':<{width}}  theorems  checked  unsupported")
    for m in report.modules.data:
        say(f"{visible(m.module):<{width}}  {m.theorems:>8}  {m.checked:>7}  {m.unsupported:>11}")
    say(
        f"{report.theorems} theorem{'' if report.theorems == 1 else 's'}: {report.checked} checked "
        f"({_percent(report.checked, report.theorems)}), {report.unsupported} unsupported"
    )
    if report.vocabulary.count:
        say(f"\nmissing vocabulary ({report.vocabulary.count} names; sole blocker / blocks):")
        for v in report.vocabulary.data[:SHOWN]:
            name, example = visible(v.name), visible(v.example)
            say(f"  {v.sole_blocker:>6} / {v.blocks:<6} {name}  (e.g. {example})")
    if report.other_reasons.count:
        say("\nother reasons (theorems):")
        for r in report.other_reasons.data[:SHOWN]:
            say(f"  {r.theorems:>6}  {r.reason}")
