"""`proofbridge check` and `show` say what is known of each proof beside its status:
`--unproved` checks only the unproved, lines and JSON carry the proof, the summary names
the unproved and false apart from the proved yet failing."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from cli_support import cli, upgraded
from db_support import PROOF_SOURCE


def test_check_shows_proofs_and_checks_only_the_unproved(db_url: str, tmp_path: Path) -> None:
    url = upgraded(db_url, tmp_path)
    (tmp_path / "P.lean").write_text(PROOF_SOURCE, encoding="utf-8")
    macros = {"PROOFBRIDGE_SORRY_MACROS": "sorry_proof"}
    ingested = cli("ingest", str(tmp_path / "P.lean"), url=url, cwd=tmp_path, extra_env=macros)
    assert ingested.returncode == 0, ingested.stderr

    only = cli("check", "--unproved", "--trials", "8", "--json", url=url, cwd=tmp_path)
    assert only.returncode == 1, only.stderr  # P.lemma1 is false
    results = {r["name"]: r for r in json.loads(only.stdout)}
    assert sorted(results) == ["P.lemma1", "P.stand_in"]
    assert (results["P.lemma1"]["status"], results["P.lemma1"]["proof"]) == ("fail", "unproved")
    assert results["P.stand_in"]["rests_on"] == []

    reports = ("--junit", "out.xml", "--sarif", "out.sarif")
    every = cli("check", "--trials", "8", *reports, url=url, cwd=tmp_path)
    assert every.returncode == 1, every.stderr
    lines = {line.split()[1]: line for line in every.stdout.splitlines() if line[:4].isupper()}
    assert lines["P.lemma1"].startswith("FAIL        P.lemma1 (unproved)  [derived]")
    assert "P.top (rests on unproved P.lemma1)" in lines["P.top"]
    assert "P.apart  [derived]" in lines["P.apart"]  # proved: nothing to say
    assert "  3 unproved and false: P.lemma1, P.middle, P.top" in every.stdout
    assert "  1 proved yet failing: P.closed" in every.stdout

    shown = cli("show", "P.middle", url=url, cwd=tmp_path)
    assert "proof: proved (rests on unproved P.lemma1)" in shown.stdout

    # the reports point at the theorem's line, relative to the folder `check` ran in
    junit = ET.parse(tmp_path / "out.xml").getroot()
    case = next(c for c in junit.iter("testcase") if c.get("name") == "P.lemma1")
    assert (case.get("file"), case.get("line")) == ("P.lean", "3")
    sarif = json.loads((tmp_path / "out.sarif").read_text())
    found = {
        r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]: r
        for r in sarif["runs"][0]["results"]
    }
    assert sorted(found) == ["P.closed", "P.lemma1", "P.middle", "P.top"]
    region = found["P.top"]["locations"][0]["physicalLocation"]
    assert region == {
        "artifactLocation": {"uri": "P.lean", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 9},
    }
