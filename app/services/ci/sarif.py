"""SARIF 2.1.0 for a run's results (`check --sarif FILE`, `GET /runs/{id}/sarif`), the
format code scanning reads.

One result per theorem that failed (rule `proofbridge/false-statement`, level `error`:
a counterexample that holds at high precision) or whose checker broke
(`proofbridge/checker-error`, level `warning`), at its file and line in the repository
(`locations`), named as a logical location, with the counterexample, the tolerances and the
`proofbridge repro` command in its message and properties. A theorem whose proof is
complete yet fails says so: that is a defect of the checker's semantics, not of the
statement. Passing and unsupported theorems are not findings.

`partialFingerprints` make a finding the same finding across runs and commits: they hash
the rule and the theorem's name (not its line, which moves as the file is edited).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

from app import __version__
from app.plain_json import jsonable
from app.services.ci.junit import repro_command
from app.services.ci.locations import SourceLine
from app.visible import visible

__all__ = ["FINGERPRINT", "RULES", "sarif_document", "sarif_json"]

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT = "proofbridge/theorem/v1"

RULES: dict[str, dict[str, Any]] = {
    "fail": {
        "id": "proofbridge/false-statement",
        "name": "FalseStatement",
        "shortDescription": {"text": "A stated equality or inequality fails at sampled inputs"},
        "fullDescription": {
            "text": "The statement, evaluated with Lean's semantics at random inputs that meet "
            "its hypotheses, fails at a counterexample confirmed at high precision."
        },
        "help": {
            "text": "Replay the counterexample with the `proofbridge repro` command in the "
            "result; fix the statement (or the definitions it uses) before proving it."
        },
        "defaultConfiguration": {"level": "error"},
    },
    "error": {
        "id": "proofbridge/checker-error",
        "name": "CheckerError",
        "shortDescription": {"text": "The theorem's checker could not run"},
        "fullDescription": {
            "text": "The checker broke, or a registered checker was written for a statement "
            "other than the one ingested; the result says how."
        },
        "help": {"text": "Read the reason; rerun with `proofbridge check NAME`."},
        "defaultConfiguration": {"level": "warning"},
    },
}
_ORDER = list(RULES)


def fingerprint(rule_id: str, name: str) -> str:
    return hashlib.sha256(f"{rule_id}\x00{name}".encode()).hexdigest()


def _message(result: Mapping[str, Any]) -> str:
    name = visible(str(result["name"]))
    reason = visible(str(result.get("reason") or ""), keep="\n")
    if result["status"] == "error":
        return f"{name}: the checker could not run: {reason}"
    text = f"{name} is false at sampled inputs: {reason}"
    proof = result.get("proof")
    if proof == "proved" and not result.get("rests_on"):
        text += (
            " Its proof is complete, so this failure is a defect of the checker's semantics "
            "to report, not of the statement."
        )
    elif proof == "unproved" or result.get("rests_on"):
        text += " Its proof is not complete: stop proving it as stated."
    seed = result.get("seed")
    if seed is not None:
        dtype = str(result.get("dtype") or "float64")
        replay = repro_command(str(result["name"]), int(seed), dtype)
        text += f" Replay: {replay}"
    return text


def _artifact(path: str) -> dict[str, Any]:
    """A repository path as SARIF's artifact location: percent-encoded (a `#` or a space
    in a file name), relative to %SRCROOT% unless absolute (outside the repository)."""
    if path.startswith("/"):
        return {"uri": "file://" + quote(path, safe="/")}
    return {"uri": quote(path, safe="/"), "uriBaseId": "%SRCROOT%"}


def _properties(result: Mapping[str, Any]) -> dict[str, Any]:
    keys = (
        "checker", "trials", "seed", "dtype", "dims", "atol", "rtol", "max_abs_err",
        "max_rel_err", "trial", "counterexample", "proof", "rests_on",
    )  # fmt: skip
    props = {k: result[k] for k in keys if result.get(k) is not None}
    return dict(jsonable(props))


def sarif_document(
    results: Iterable[Mapping[str, Any]],
    *,
    locations: Mapping[str, SourceLine],
    automation_id: str | None = None,
) -> dict[str, Any]:
    """The findings among `results` (result dicts, as `check --json` prints them) as one
    SARIF 2.1.0 log; `locations` maps theorem names to where they stand."""
    findings = []
    for r in results:
        status = r.get("status")
        if status not in RULES:
            continue
        rule = RULES[status]
        name = str(r["name"])
        where = locations.get(name)
        location: dict[str, Any] = {
            "logicalLocations": [
                {"fullyQualifiedName": visible(name), "name": visible(name.rsplit(".", 1)[-1])}
            ]
        }
        if where is not None and where.path is not None:
            region = {"startLine": where.line} if where.line else {}
            location["physicalLocation"] = {
                "artifactLocation": _artifact(where.path),
                **({"region": region} if region else {}),
            }
        findings.append(
            {
                "ruleId": rule["id"],
                "ruleIndex": _ORDER.index(status),
                "level": rule["defaultConfiguration"]["level"],
                "message": {"text": _message(r)},
                "locations": [location],
                "partialFingerprints": {FINGERPRINT: fingerprint(rule["id"], name)},
                "properties": _properties(r),
            }
        )
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "ProofBridge",
                "version": __version__,
                "rules": [RULES[s] for s in _ORDER],
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the repository root"}}},
        "results": findings,
    }
    if automation_id:
        run["automationDetails"] = {"id": automation_id}
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def sarif_json(document: Mapping[str, Any]) -> str:
    """The log as JSON text: strict JSON (no NaN), as code scanning requires."""
    return json.dumps(document, allow_nan=False, ensure_ascii=False, indent=1, default=str) + "\n"
