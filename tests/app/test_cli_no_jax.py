"""`proofbridge show` reads the database and imports no JAX (nor Alembic, nor the Lean
parser) while the theorem's newest result is current; it describes the checker afresh
(loading the checkers) only when no current result says which checker runs, or when
asked to. `proofbridge coverage` decides what each statement needs without JAX."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_support import cli, upgraded
from db_support import REPO

CHECKED = "Examples.sqrt_sq_draft"
UNCHECKED = "Examples.sqrt_sq_abs"


HEAVY = ("jax", "alembic", "theorem_index.readers", "checkers")
# what a check has no use for unless asked: the readers of ingestion (and lxml), the HTTP
# schemas (and so pydantic's models), the CI reports
UNUSED_BY_CHECK = ("lxml", "theorem_index.readers.batch", "app.schemas", "app.services.ci")


def _run(
    url: str,
    cwd: Path,
    *args: str,
    extra_env: dict[str, str] | None = None,
    heavy: tuple[str, ...] = HEAVY,
) -> tuple[int, dict, list[str]]:
    """`main(args)` in a fresh process: exit code, its JSON, and which of `heavy` (JAX,
    Alembic, the readers with the Lean parser, the checkers) it imported."""
    script = textwrap.dedent(
        f"""
        import contextlib, io, json, sys
        from app.cli import main
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main({list(args)!r})
        heavy = [m for m in {heavy!r} if m in sys.modules]
        print(json.dumps([code, json.loads(out.getvalue()), heavy]))
        """
    )
    env = dict(os.environ, PYTHONPATH=str(REPO), PROOFBRIDGE_DATABASE_URL=url)
    env.pop("PROOFBRIDGE_COVERAGE_STORE", None)
    env.update(extra_env or {})
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=cwd, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    code, data, heavy = json.loads(proc.stdout)
    return code, data, heavy


@pytest.fixture
def checked(db_url: str, tmp_path: Path) -> str:
    url = upgraded(db_url, tmp_path)
    assert cli("ingest", str(REPO / "examples"), url=url, cwd=tmp_path).returncode == 0
    proc = cli("check", CHECKED, "--trials", "8", url=url, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr  # false on purpose
    return url


def test_show_a_checked_theorem_imports_no_jax(checked: str, tmp_path: Path) -> None:
    code, detail, heavy = _run(checked, tmp_path, "show", CHECKED, "--json")

    # nor Alembic (the database is at the newest schema) nor the parser (nothing is read),
    # nor the checkers (the result recorded which checker ran)
    assert (code, heavy) == (0, [])
    assert detail["checker_source"] == "recorded"
    assert detail["checker"]["kind"] == "derived"
    assert [r["status"] for r in detail["results"]] == ["fail"]


def test_show_describes_afresh_without_a_current_result_or_when_asked(
    checked: str, tmp_path: Path
) -> None:
    code, detail, heavy = _run(checked, tmp_path, "show", UNCHECKED, "--json")
    assert (code, "jax" in heavy, detail["checker_source"]) == (0, True, "described")
    assert (detail["checker"]["kind"], detail["results"]) == ("derived", [])

    code, detail, heavy = _run(checked, tmp_path, "show", CHECKED, "--json", "--describe")
    assert (code, "jax" in heavy, detail["checker_source"]) == (0, True, "described")
    assert detail["checker"]["kind"] == "derived"


def test_show_text_says_which_run_recorded_the_checker(checked: str, tmp_path: Path) -> None:
    proc = cli("show", CHECKED, url=checked, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "\nchecker: derived, as recorded by run 1\n" in proc.stdout


def test_coverage_imports_no_jax(checked: str, tmp_path: Path) -> None:
    # deciding what each statement needs traces and computes nothing (checkers.lazyjax)
    code, report, heavy = _run(checked, tmp_path, "coverage", "--json")

    assert (code, "jax" in heavy) == (0, False)
    assert (report["theorems"], report["checked"], report["unsupported"]) == (21, 21, 0)


def test_coverage_asked_again_reads_the_kept_report(checked: str, tmp_path: Path) -> None:
    # the first call analyses the statements and keeps the report; the second reads it back
    # without importing the checkers at all
    first = _run(checked, tmp_path, "coverage", "--json")
    again = _run(checked, tmp_path, "coverage", "--json")

    assert first[0] == again[0] == 0
    assert first[1] == again[1]
    assert "checkers" in first[2]
    assert "checkers" not in again[2]
    assert len(list((tmp_path / "var" / "coverage").glob("*.json"))) == 1


def _verdicts(results: list[dict]) -> list[tuple]:
    keep = ("name", "status", "reason", "max_abs_err", "dims", "counterexample", "checker")
    return [tuple(json.dumps(r.get(k), sort_keys=True) for k in keep) for r in results]


def test_check_again_runs_stored_programs_without_jax(checked: str, tmp_path: Path) -> None:
    # the first check files each interpreted program in the program store; a fresh process
    # checking the same theorems runs them without tracing, and without importing JAX
    # while nothing fails (a failure's exact confirmation traces the statement)
    cache = {"PROOFBRIDGE_JAX_CACHE_DIR": str(tmp_path / "cache")}
    passing = ["Examples.sqrt_sq_abs", "Examples.sum_fin_prod"]
    args = ("check", *passing, "--trials", "16", "--json")
    code, first, heavy = _run(checked, tmp_path, *args, extra_env=cache)
    assert (code, "jax" in heavy) == (0, True)
    assert [r["status"] for r in first] == ["pass", "pass"]
    code, again, heavy = _run(
        checked, tmp_path, *args, extra_env=cache, heavy=("jax", *UNUSED_BY_CHECK)
    )
    assert (code, heavy) == (0, [])
    assert _verdicts(again) == _verdicts(first)

    code, failing, _ = _run(checked, tmp_path, "check", CHECKED, "--json", extra_env=cache)
    code2, failing2, _ = _run(checked, tmp_path, "check", CHECKED, "--json", extra_env=cache)
    assert (code, code2) == (1, 1)
    assert _verdicts(failing2) == _verdicts(failing)
    assert failing2[0]["counterexample"] is not None
