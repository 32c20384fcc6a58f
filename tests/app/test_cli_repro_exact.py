"""`proofbridge repro` shows a failing trial's sides in float64 and evaluated exactly, side
by side, with what the exact evaluation says (checkers/confirm)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import cli, upgraded
from db_support import REPO

FALSE = "Examples.sqrt_sq_draft"  # √(x²) = x: false for every negative x


def test_repro_shows_float64_and_exact_sides(db_url: str, tmp_path: Path) -> None:
    url = upgraded(db_url, tmp_path)
    assert cli("ingest", str(REPO / "examples"), url=url, cwd=tmp_path).returncode == 0
    assert cli("check", FALSE, "--trials", "8", url=url, cwd=tmp_path).returncode == 1

    text = cli("repro", FALSE, url=url, cwd=tmp_path)
    data = json.loads(cli("repro", FALSE, "--json", url=url, cwd=tmp_path).stdout)

    assert text.returncode == 1, text.stderr
    lines = text.stdout.splitlines()
    x = float(data["inputs"]["x"][0])
    assert x < 0
    assert lines[-5:] == [
        f"  lhs = {-x!r}",
        f"  rhs = {x!r}",
        f"  lhs, evaluated exactly = {data['lhs_exact'][0]}",
        f"  rhs, evaluated exactly = {data['rhs_exact'][0]}",
        "  exactly: confirmed at 200 bits: the statement fails at these inputs",
    ]
    assert float(data["lhs_exact"][0]) == -x and float(data["rhs_exact"][0]) == x
    assert data["exact"].startswith("confirmed")
