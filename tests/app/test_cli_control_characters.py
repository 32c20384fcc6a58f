"""Theorem names holding control characters (Lean accepts them inside `«…»`) on the command
line: JUnit XML stays well-formed, no terminal output carries them raw, JSON keeps them
exactly (the API's JUnit: tests/app/api/test_api_control_characters.py)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_support import cli, upgraded
from db_support import REPO

from app.visible import shell_quote, visible

TITLE = "a\x1b]0;pwned\x07b"  # an OSC sequence: retitles a terminal that obeys it
BACKSPACE = "back\x08space [x]"  # rich markup would take `[x]` for a style
FORM_FEED = "form\x0cfeed\x9b2J"  # \x9b: the one-byte C1 CSI

HOSTILE = f"""namespace Hostile

theorem «{TITLE}» (x : ℝ) : x + 0 = x := by simp

theorem «{BACKSPACE}» (x : ℝ) : x * 1 = x + 1 := by simp

theorem «{FORM_FEED}» (x : ℝ) : Real.frobnicate x = 0 := by simp

end Hostile
"""
NAMES = [f"Hostile.«{n}»" for n in (TITLE, BACKSPACE, FORM_FEED)]
RAW = ("\x1b", "\x07", "\x08", "\x0c", "\x9b")


@pytest.mark.parametrize(
    ("text", "keep", "shown"),
    [
        ("a\x1b]0;t\x07b", "", "a\\x1b]0;t\\x07b"),
        ("x\ty\nz\r", "\t\n", "x\ty\nz\\x0d"),
        ("x\ty\n", "", "x\\x09y\\x0a"),
        ("\x00\x7f\x85\x9f", "", "\\x00\\x7f\\x85\\x9f"),
        ("\ufffe\uffff\ud800", "", "\\ufffe\\uffff\\ud800"),
        ("ℝ → «a b» \u202e", "", "ℝ → «a b» \u202e"),
    ],
)
def test_write_control_characters_visibly(text: str, keep: str, shown: str) -> None:
    assert visible(text, keep=keep) == shown


@pytest.mark.parametrize(
    ("word", "quoted"),
    [
        ("Proofs.sum_fin_prod", "Proofs.sum_fin_prod"),
        ("Hostile.«a b»", "'Hostile.«a b»'"),
        ("a\x1b]0;t\x07b", "$'a\\x1b]0;t\\x07b'"),
        ("q'uo\\te\x08", "$'q\\'uo\\\\te\\x08'"),
        ("c1\x9b2J", "$'c1\\u009b2J'"),
    ],
)
def test_quote_names_for_the_shell_visibly_and_exactly(word: str, quoted: str) -> None:
    assert shell_quote(word) == quoted
    echoed = subprocess.run(
        ["bash", "-c", f"printf %s {quoted}"],
        capture_output=True,
        env={"LC_ALL": "C.UTF-8"},
        check=True,
    )
    assert echoed.stdout.decode("utf-8") == word


def _junit_names(data: bytes) -> list[str]:
    suite = ET.fromstring(data).find("testsuite")
    assert suite is not None
    return sorted(str(case.get("name")) for case in suite.iter("testcase"))


def test_check_writes_wellformed_junit_and_no_raw_control_characters(
    db_url: str, tmp_path: Path
) -> None:
    url = upgraded(db_url, tmp_path)
    page = tmp_path / "Hostile.lean"
    page.write_text(HOSTILE, encoding="utf-8")
    junit = tmp_path / "junit.xml"

    ingested = cli("ingest", str(page), url=url, cwd=tmp_path)
    checked = cli("check", "--trials", "8", "--junit", str(junit), url=url, cwd=tmp_path)
    shown = cli("show", NAMES[1], url=url, cwd=tmp_path)
    replayed = cli("repro", NAMES[1], "--seed", "0", url=url, cwd=tmp_path)
    coverage = cli("coverage", url=url, cwd=tmp_path)
    unknown = cli("show", "Hostile.\x1b]0;gone\x07", url=url, cwd=tmp_path)
    as_json = cli("check", "--json", "--trials", "8", url=url, cwd=tmp_path)

    assert ingested.returncode == 0, ingested.stderr
    assert checked.returncode == 1, checked.stderr
    assert (shown.returncode, replayed.returncode, coverage.returncode) == (0, 1, 0)  # 1: fails
    assert unknown.returncode == 2
    assert unknown.stderr == "proofbridge: error: unknown declaration: Hostile.\\x1b]0;gone\\x07\n"
    for proc in (ingested, checked, shown, replayed, coverage, unknown):
        for char in RAW:
            assert char not in proc.stdout + proc.stderr, (proc.args, char)
    lines = checked.stdout.splitlines()
    assert lines[0].startswith("PASS        Hostile.«a\\x1b]0;pwned\\x07b»  [derived]")
    assert lines[1].startswith("FAIL        Hostile.«back\\x08space [x]»  [derived]")
    assert lines[2].startswith("UNSUPPORTED Hostile.«form\\x0cfeed\\x9b2J»  no semantics for")
    assert shown.stdout.startswith("theorem Hostile.«back\\x08space [x]»\n")
    assert replayed.stdout.startswith("Hostile.«back\\x08space [x]»: seed 0,")

    assert _junit_names(junit.read_bytes()) == sorted(visible(n) for n in NAMES)
    assert "replay: proofbridge repro $'Hostile.«back\\x08space [x]»' --seed 0" in (
        junit.read_text(encoding="utf-8")
    )
    results = json.loads(as_json.stdout)
    assert sorted(r["name"] for r in results) == sorted(NAMES)  # exact, control characters kept
    assert "\x9b" not in as_json.stdout and "\\u009b" in as_json.stdout


def _run_on_terminal(args: list[str], env: dict[str, str], cwd: Path) -> str:
    """What the command writes with stdout and stderr on one terminal (a pseudo-terminal),
    where `check` draws its progress with rich."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", *args], stdout=slave, stderr=slave, env=env, cwd=cwd
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the terminal closed: the command has exited
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=600) == 0
    return b"".join(chunks).decode("utf-8", "replace")


def test_check_on_a_terminal_shows_markup_and_escapes_as_text(tmp_path: Path) -> None:
    url = upgraded(f"sqlite:///{tmp_path / 'pb.db'}", tmp_path)
    page = tmp_path / "Rich.lean"
    page.write_text(
        "namespace R\n\ntheorem «r[bold red]x[/bold red]\x1b]0;pwned\x07» (x : ℝ) : "
        "x + 0 = x := by simp\n\nend R\n",
        encoding="utf-8",
    )
    assert cli("ingest", str(page), url=url, cwd=tmp_path).returncode == 0
    env = dict(os.environ, PYTHONPATH=str(REPO), PROOFBRIDGE_DATABASE_URL=url, COLUMNS="200")

    shown = _run_on_terminal(["check", "--trials", "4"], env, tmp_path)

    assert "PASS        R.«r[bold red]x[/bold red]\\x1b]0;pwned\\x07»  [derived]" in shown
    assert "\x1b]0;pwned" not in shown  # the name's own sequence (a new title), never raw
