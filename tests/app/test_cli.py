"""The `proofbridge` command line end to end, through real processes (`python -m app`), on
SQLite and PostgreSQL (in-process runs of `main` with a scripted checkers backend are in
test_cli_scripted.py, `serve` in test_cli_serve.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from cli_support import cli, upgraded
from contract_support import CONTRACT_RESULT_KEYS
from db_support import REPO

from theorem_index.readers.errors import BINARY


def test_ingest_seeds_json_then_nothing_new(db_url: str, tmp_path: Path, seeds_dir: Path) -> None:
    url = upgraded(db_url, tmp_path)

    first = cli("ingest", str(seeds_dir), "--json", url=url, cwd=tmp_path)
    second = cli("ingest", str(seeds_dir), "--json", "--commit", "0123abcd", url=url, cwd=tmp_path)

    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert {k: report[k] for k in ("files", "declarations", "theorems", "definitions")} == {
        "files": 2,
        "declarations": 36,  # the four theorems page 000 states in prose among them
        "theorems": 28,
        "definitions": 8,
    }
    assert (report["new"], report["parsed"], report["errors"]) == (36, 36, [])
    assert second.returncode == 0, second.stderr
    again = json.loads(second.stdout)
    assert (again["new"], again["changed"], again["unchanged"], again["removed"]) == (0, 0, 36, 0)


def test_exit_2_when_nothing_could_be_ingested(db_url: str, tmp_path: Path) -> None:
    url = upgraded(db_url, tmp_path)
    blob = tmp_path / "blob.txt"
    blob.write_bytes(b"\x00\x01\x02binary")

    proc = cli("ingest", str(blob), "--json", url=url, cwd=tmp_path)

    assert proc.returncode == 2
    report = json.loads(proc.stdout)
    assert (report["declarations"], report["files"]) == (0, 1)
    assert report["errors"] == [
        {"file": str(blob), "line": None, "column": None, "message": BINARY}
    ]


def test_print_errors_to_stderr_when_not_json(db_url: str, tmp_path: Path) -> None:
    url = upgraded(db_url, tmp_path)
    missing = tmp_path / "nope"

    proc = cli("ingest", str(missing), url=url, cwd=tmp_path)

    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"{missing}: no such file or directory\n"
        "proofbridge: error: nothing was ingested (1 error)\n"
    )


def test_exit_2_naming_what_was_looked_for_when_folder_is_empty(
    db_url: str, tmp_path: Path
) -> None:
    url = upgraded(db_url, tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()

    proc = cli("ingest", str(empty), url=url, cwd=tmp_path)

    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"{empty}: no documents found: looked for doc-gen4 HTML pages (.html, .htm, .xhtml), "
        "doc-gen4 JSON data (.bmp), plain-text doc pages (.txt) and Lean 4 source (.lean)\n"
        "proofbridge: error: nothing was ingested (1 error)\n"
    )


def test_exit_1_when_strict_and_a_path_is_missing(db_url: str, tmp_path: Path) -> None:
    url = upgraded(db_url, tmp_path)
    good = tmp_path / "A.lean"
    good.write_text("theorem A.t (x : ℝ) : x = x := rfl\n", encoding="utf-8")
    missing = tmp_path / "nope"

    lenient = cli("ingest", str(missing), str(good), url=url, cwd=tmp_path)
    strict = cli("ingest", "--strict", str(missing), str(good), url=url, cwd=tmp_path)

    assert (lenient.returncode, strict.returncode) == (0, 1)
    assert strict.stderr == f"{missing}: no such file or directory\n1 error\n"
    assert strict.stdout.splitlines() == [
        "1 file: 1 declaration (1 theorem, 0 definitions), 0 module docs",
        "0 new, 0 changed, 1 unchanged, 0 removed; 1 of 1 parsed",
    ]


def test_warn_about_copies_and_store_none_when_reingested(
    db_url: str, tmp_path: Path, seeds_dir: Path
) -> None:
    url = upgraded(db_url, tmp_path)
    examples = REPO / "examples"

    first = cli("ingest", str(examples), str(seeds_dir), url=url, cwd=tmp_path)
    second = cli("ingest", str(seeds_dir), str(examples), "--json", url=url, cwd=tmp_path)

    assert first.returncode == 0, first.stderr
    warnings = first.stderr.splitlines()
    assert len(warnings) == 5 and warnings[-1] == "4 warnings"
    assert warnings[0] == (
        f"{seeds_dir}/004_6d8c43833ffb9c10.txt:21: warning: duplicate declaration "
        "Proofs.sum_fin_prod: it belongs to module Examples.Text "
        f"({examples}/text/Examples.Text.txt:14); this copy is not stored"
    )
    report = json.loads(second.stdout)
    assert (report["new"], report["changed"], report["unchanged"]) == (0, 0, 61)
    assert (len(report["warnings"]), report["errors"]) == (4, [])


def test_print_version_from_package_metadata(tmp_path: Path) -> None:
    from importlib.metadata import version

    proc = cli("--version", url=None, cwd=tmp_path)

    with (REPO / "pyproject.toml").open("rb") as f:
        declared = tomllib.load(f)["project"]["version"]
    assert version("proofbridge") == declared
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"proofbridge {declared}\n", "")


@pytest.mark.slow
def test_check_show_repro_on_seeds(db_url: str, tmp_path: Path, seeds_dir: Path) -> None:
    url = upgraded(db_url, tmp_path)
    assert cli("ingest", str(seeds_dir), url=url, cwd=tmp_path).returncode == 0
    junit = tmp_path / "out" / "junit.xml"
    junit.parent.mkdir()

    checked = cli("check", "--json", "--trials", "16", "--junit", str(junit), url=url, cwd=tmp_path)

    assert checked.returncode == 0, checked.stderr
    results = json.loads(checked.stdout)
    assert len(results) == 28
    assert all(CONTRACT_RESULT_KEYS <= set(r) for r in results)
    statuses = {r["name"]: r["status"] for r in results}
    for name in (
        "Proofs.sum_fin_prod",
        "Proofs.vit_rowDenseW_grad_bridge",
        "Proofs.pdiv_rowLN_beta",
        "Proofs.vit_net_lossGrad",
        "Proofs.vitNetB_eq_vitForwardKV",
    ):
        assert statuses[name] == "pass"
    assert set(statuses.values()) <= {"pass", "unsupported"}
    assert all(r["reason"] for r in results if r["status"] == "unsupported")
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("28", "0", "0")
    assert suite.get("skipped") == str(sum(s == "unsupported" for s in statuses.values()))

    shown = cli("show", "Proofs.sum_fin_prod", "--json", url=url, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    detail = json.loads(shown.stdout)
    keys = {"name", "kind", "statement", "parsed", "parse_error", "constants", "checker", "results"}
    assert keys <= set(detail)
    assert (detail["kind"], detail["parse_error"], detail["checker"]["kind"]) == (
        "theorem",
        None,
        "registered",
    )
    assert "finProdFinEquiv" in detail["constants"]
    assert detail["docstring"].startswith("Sum over a flat product index")
    assert detail["results"][0]["status"] == "pass"

    replayed = cli("repro", "Proofs.sum_fin_prod", "--seed", "0", "--json", url=url, cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    data = json.loads(replayed.stdout)
    assert data["result"]["status"] == "pass"
    # the two sides sum the same products in different orders: equal up to rounding,
    # within the tolerance the check used, not necessarily to the last bit
    rtol = data["result"]["rtol"]
    lhs, rhs = np.asarray(data["lhs"], float), np.asarray(data["rhs"], float)
    assert lhs.shape == rhs.shape and np.all(np.abs(lhs - rhs) <= rtol * np.abs(rhs))


def test_exit_2_with_message_when_names_are_unknown(db_url: str, tmp_path: Path) -> None:
    url = upgraded(db_url, tmp_path)

    checked = cli("check", "Proofs.nope", url=url, cwd=tmp_path)
    shown = cli("show", "Proofs.nope", url=url, cwd=tmp_path)

    assert (checked.returncode, checked.stderr) == (
        2,
        "proofbridge: error: unknown theorem: Proofs.nope\n",
    )
    assert (shown.returncode, shown.stderr) == (
        2,
        "proofbridge: error: unknown declaration: Proofs.nope\n",
    )


def test_exit_2_when_arguments_are_malformed(tmp_path: Path) -> None:
    dims = cli("check", "--dims", "N=3,a=x", url=None, cwd=tmp_path)
    commit = cli("ingest", "x", "--commit", "not-a-sha", url=None, cwd=tmp_path)

    assert dims.returncode == 2
    assert "argument --dims: expected K=V,... with V a positive integer, got 'a=x'" in dims.stderr
    assert commit.returncode == 2
    assert (
        "argument --commit: expected a commit SHA (4 to 64 hexadecimal digits), got 'not-a-sha'"
        in commit.stderr
    )
    assert not (tmp_path / "var").exists()  # nothing was opened


def test_exit_2_when_api_token_unsafe(tmp_path: Path) -> None:
    proc = cli(
        "db", "upgrade", url=None, cwd=tmp_path, extra_env={"PROOFBRIDGE_API_TOKEN": "12345"}
    )

    assert proc.returncode == 2
    assert proc.stderr == (
        "proofbridge: error: invalid settings: PROOFBRIDGE_API_TOKEN is 5 characters long; "
        "at least 16 are required\n"
    )


@pytest.mark.postgres
def test_exit_2_when_postgres_schema_not_upgraded(pg_url: str, tmp_path: Path) -> None:
    proc = cli("ingest", str(tmp_path), url=pg_url, cwd=tmp_path)

    assert proc.returncode == 2
    assert proc.stderr.startswith("proofbridge: error: database postgresql+psycopg://")
    assert proc.stderr.endswith(
        "has no schema yet; this version needs 0009_proof_status: run `proofbridge db upgrade`\n"
    )


def test_create_embedded_database_when_first_used(tmp_path: Path) -> None:
    proc = cli("ingest", str(tmp_path / "absent"), "--json", url=None, cwd=tmp_path)

    assert proc.returncode == 2  # nothing to ingest, but the database was created
    assert (tmp_path / "var" / "proofbridge.db").is_file()


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    # `proofbridge … | head`: the pipe is closed before anything is written to it
    read, write = os.pipe()
    os.close(read)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env["PROOFBRIDGE_DATABASE_URL"] = f"sqlite:///{tmp_path / 'pb.db'}"
    proc = subprocess.run(
        [sys.executable, "-m", "app", "db", "upgrade"],
        cwd=tmp_path,
        env=env,
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
    )
    os.close(write)
    assert proc.returncode == 141, proc.stderr
    assert "Traceback" not in proc.stderr
