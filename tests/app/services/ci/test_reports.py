"""CI reports at each theorem's file and line: repository paths from stored sources, JUnit's
`file` and `line`, and SARIF 2.1.0 with fingerprints stable across runs."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from app.services.ci.junit import junit_xml
from app.services.ci.locations import SourceLine, repository_path
from app.services.ci.sarif import FINGERPRINT, sarif_document

FAIL = {
    "name": "P.lemma1",
    "status": "fail",
    "checker": "derived",
    "reason": "16 of 16 trials outside rtol=1e-10",
    "trials": 16,
    "seed": 3,
    "dtype": "float64",
    "counterexample": {"inputs": {"x": 1.0}, "lhs": 2.0, "rhs": 1.0},
    "proof": "unproved",
    "rests_on": [],
}
PROVED_FAIL = FAIL | {"name": "P.closed", "proof": "proved"}
ERROR = {"name": "P.broken", "status": "error", "reason": "checker raised", "seed": 0}
PASS = {"name": "P.apart", "status": "pass", "seed": 0}
WHERE = {
    "P.lemma1": SourceLine("P", "Proofs/P.lean", 3),
    "P.closed": SourceLine("P", "Proofs/P.lean", 17),
    "P.apart": SourceLine("P", None, None),
}


def test_repository_paths_from_stored_sources() -> None:
    link = "https://github.com/o/r/blob/0123abc/LeanMlir/Proofs/A.lean#L10-L14"
    assert repository_path(link) == "LeanMlir/Proofs/A.lean"
    assert repository_path("https://gitlab.com/g/s/r/-/blob/main/A/B.lean#L3") == "A/B.lean"
    assert repository_path("https://example.org/A.lean") is None  # no repository layout
    assert repository_path("/ci/work/Proofs/A.lean", "/ci/work") == "Proofs/A.lean"
    assert repository_path("/ci/work/Proofs/A.lean", "/ci/work/") == "Proofs/A.lean"
    assert repository_path("/elsewhere/A.lean", "/ci/work") == "/elsewhere/A.lean"
    assert repository_path("./Proofs/A.lean") == "Proofs/A.lean"
    assert repository_path(None) is None


def test_junit_testcases_carry_file_and_line() -> None:
    root = ET.fromstring(junit_xml([FAIL, PASS], locations=WHERE))
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert (cases["P.lemma1"].get("file"), cases["P.lemma1"].get("line")) == ("Proofs/P.lean", "3")
    assert cases["P.lemma1"].get("classname") == "P"
    assert "file" not in cases["P.apart"].attrib  # no known source: no attribute


def test_sarif_holds_failures_and_errors_at_their_lines() -> None:
    log = sarif_document([FAIL, PROVED_FAIL, ERROR, PASS], locations=WHERE, automation_id="r/1")
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rules == ["proofbridge/false-statement", "proofbridge/checker-error"]
    results = {
        r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]: r for r in run["results"]
    }
    assert sorted(results) == ["P.broken", "P.closed", "P.lemma1"]  # no pass
    lemma = results["P.lemma1"]
    assert (lemma["ruleId"], lemma["level"], lemma["ruleIndex"]) == (rules[0], "error", 0)
    physical = lemma["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"] == {"uri": "Proofs/P.lean", "uriBaseId": "%SRCROOT%"}
    assert physical["region"] == {"startLine": 3}
    assert "proofbridge repro P.lemma1 --seed 3" in lemma["message"]["text"]
    assert "stop proving it" in lemma["message"]["text"]
    assert lemma["properties"]["counterexample"]["lhs"] == 2.0
    assert "defect of the checker" in results["P.closed"]["message"]["text"]
    broken = results["P.broken"]
    assert (broken["level"], broken["ruleIndex"]) == ("warning", 1)
    assert "physicalLocation" not in broken["locations"][0]  # its source is not known
    assert run["automationDetails"] == {"id": "r/1"}


def test_sarif_fingerprints_name_the_finding_not_the_line() -> None:
    first = sarif_document([FAIL], locations=WHERE)["runs"][0]["results"][0]
    moved = {"P.lemma1": SourceLine("P", "Proofs/P.lean", 40)}
    again = sarif_document([FAIL | {"seed": 9}], locations=moved)["runs"][0]["results"][0]
    print_ = first["partialFingerprints"][FINGERPRINT]
    assert print_ == again["partialFingerprints"][FINGERPRINT]
    other = sarif_document([FAIL | {"name": "P.other"}], locations={})["runs"][0]["results"][0]
    assert other["partialFingerprints"][FINGERPRINT] != print_
    error = sarif_document([FAIL | {"status": "error"}], locations={})["runs"][0]["results"][0]
    assert error["partialFingerprints"][FINGERPRINT] != print_  # another rule, another finding


def test_sarif_is_strict_json_and_its_uris_are_encoded() -> None:
    from app.services.ci.sarif import sarif_json

    odd = FAIL | {"max_abs_err": float("inf"), "counterexample": {"lhs": float("nan")}}
    where = {"P.lemma1": SourceLine("P", "Proofs/My File#1.lean", 3)}
    text = sarif_json(sarif_document([odd], locations=where))
    log = json.loads(text)  # strict: no NaN or Infinity literals
    (result,) = log["runs"][0]["results"]
    assert result["properties"]["max_abs_err"] == "Infinity"
    assert result["properties"]["counterexample"]["lhs"] == "NaN"
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri == {"uri": "Proofs/My%20File%231.lean", "uriBaseId": "%SRCROOT%"}
    outside = sarif_document([FAIL], locations={"P.lemma1": SourceLine("P", "/ci/x.lean", 3)})
    place = outside["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert place["artifactLocation"] == {"uri": "file:///ci/x.lean"}
