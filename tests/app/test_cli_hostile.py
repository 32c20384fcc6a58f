"""The hostile-input corpus (`hostile_corpus.py`) through the command line, on SQLite and
PostgreSQL: no traceback, every good declaration kept, every error naming its file, and
the JSON and JUnit outputs well-formed."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import cli, upgraded
from hostile_corpus import CASES, Case
from lxml import etree

# `show` starts a process of a few seconds: one case of each kind kept (names with
# control characters, a right-to-left override, quotes in «…», a statement nested
# 10,000 deep), each in another form; the good declarations are all checked instead
SHOWN = [
    next(c for c in CASES if (c.kind, c.form) == pair)
    for pair in (
        ("control", "lean"),
        ("bidi", "json"),
        ("guillemet_quote", "html"),
        ("deep_nesting", "text"),
    )
]


def _write(root: Path) -> dict[str, Case]:
    files: dict[str, Case] = {}
    for case in CASES:
        path = root / case.file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(case.data)
        files[str(path)] = case
    return files


def test_cli_reads_hostile_corpus_keeping_every_good_declaration(
    db_url: str, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    files = _write(corpus)
    upgraded(db_url, tmp_path)

    ingested = cli("ingest", str(corpus), "--json", url=db_url, cwd=tmp_path)
    assert ingested.returncode == 0, ingested.stderr
    assert "Traceback" not in ingested.stderr
    report = json.loads(ingested.stdout)
    assert report["files"] == len(CASES)
    assert report["theorems"] == sum(len(c.kept) for c in CASES)
    for problem in [*report["errors"], *report["warnings"]]:
        assert problem["file"] in files, problem
    refused = {c.file for c in CASES if len(c.kept) == 1}
    reported = {files[p["file"]].file for p in report["errors"]}
    assert refused <= reported

    again = cli("ingest", str(corpus), url=db_url, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    for line in again.stderr.splitlines()[:-1]:  # the last one counts the errors
        assert line.split(":", 1)[0] in files, line
    assert "0 new, 0 changed" in again.stdout

    names = [name for case in CASES for name in case.kept]
    junit = tmp_path / "junit.xml"
    checked = cli("check", "--json", "--junit", str(junit), *names, url=db_url, cwd=tmp_path)
    assert "Traceback" not in checked.stderr
    results = json.loads(checked.stdout)
    by_name = {r["name"]: r["status"] for r in results}
    assert sorted(by_name) == sorted(names)
    assert {by_name[c.good] for c in CASES} == {"pass"}
    cases = [t.get("name") for t in etree.parse(str(junit)).getroot().iter("testcase")]
    assert len(cases) == len(names)
    # XML 1.0 cannot hold control characters: junit.xml writes those names escaped
    assert {n for n in names if n.isprintable()} <= set(cases)

    for case in SHOWN:  # the terminal's form of the names with control characters
        as_json = case.kind != "control"
        shown = cli(
            "show", *(["--json"] if as_json else []), case.hostile, url=db_url, cwd=tmp_path
        )
        assert shown.returncode == 0, shown.stderr
        assert "Traceback" not in shown.stderr
        if as_json:
            assert json.loads(shown.stdout)["name"] == case.hostile
        else:
            assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
