"""JUnit XML for a run's results (`check --junit FILE`, `GET /runs/{id}/junit.xml`).

One `<testcase>` per theorem, its module as the class name, its `file` (relative to the
repository) and `line` where they are known (`locations`): `fail` is a `<failure>`,
`error` an `<error>` (each with the errors, the counterexample and the `proofbridge repro`
command that replays it), `unsupported` is `<skipped>` with the reason. Control characters
in names and texts (which XML 1.0 forbids) are written visibly, as `\\x1b` (`app.visible`).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from typing import Any

from app.services.ci.locations import SourceLine
from app.visible import shell_quote, visible

__all__ = ["junit_xml", "repro_command"]


def repro_command(name: str, seed: int, dtype: str = "float64") -> str:
    """The command that replays a recorded result's failing (or worst) trial (a name with
    control characters quoted as `$'…'`, visible and exact)."""
    command = f"proofbridge repro {shell_quote(name)} --seed {seed}"
    if dtype != "float64":
        command += f" --dtype {dtype}"
    return command


def _detail(result: Mapping[str, Any]) -> str:
    keys = ("checker", "trials", "seed", "dtype", "dims", "max_abs_err", "max_rel_err")
    lines = [f"{k}: {json.dumps(result.get(k), default=str)}" for k in keys]
    for k in ("atol", "rtol", "trial", "worst_index"):
        if result.get(k) is not None:
            lines.append(f"{k}: {json.dumps(result.get(k), default=str)}")
    ce = result.get("counterexample")
    if ce:
        lines.append(f"counterexample: {json.dumps(ce, default=str)}")
    name, seed = result.get("name"), result.get("seed")
    if name is not None and seed is not None:
        dtype = str(result.get("dtype") or "float64")
        lines.append(f"replay: {repro_command(str(name), int(seed), dtype)}")
    return visible("\n".join(lines), keep="\t\n")


def _text(value: str) -> str:
    return visible(value, keep="\t\n")


def junit_xml(
    results: Iterable[Mapping[str, Any]],
    *,
    suite: str = "proofbridge",
    modules: Mapping[str, str] | None = None,
    locations: Mapping[str, SourceLine] | None = None,
) -> bytes:
    """The results as a JUnit XML document (UTF-8). `modules` maps names to modules,
    `locations` to where they stand (module, file and line)."""
    rows = list(results)
    locations = locations or {}
    modules = {n: w.module for n, w in locations.items()} | dict(modules or {})
    suite_el = ET.Element(
        "testsuite",
        {
            "name": visible(suite),
            "tests": str(len(rows)),
            "failures": str(sum(r["status"] == "fail" for r in rows)),
            "errors": str(sum(r["status"] == "error" for r in rows)),
            "skipped": str(sum(r["status"] == "unsupported" for r in rows)),
            "time": f"{sum(float(r.get('duration_s') or 0.0) for r in rows):.3f}",
        },
    )
    for r in rows:
        name = str(r["name"])
        module = modules.get(name) or name.rpartition(".")[0] or name
        attrs = {
            "classname": visible(module),
            "name": visible(name),
            "time": f"{float(r.get('duration_s') or 0.0):.3f}",
        }
        where = locations.get(name)
        if where is not None and where.path is not None:
            attrs["file"] = visible(where.path)
            if where.line is not None:
                attrs["line"] = str(where.line)
        case = ET.SubElement(suite_el, "testcase", attrs)
        reason = str(r.get("reason") or "")
        if r["status"] == "fail":
            el = ET.SubElement(case, "failure", {"message": _text(reason or "check failed")})
            el.text = _detail(r)
        elif r["status"] == "error":
            el = ET.SubElement(case, "error", {"message": _text(reason or "checker error")})
            el.text = _detail(r)
        elif r["status"] == "unsupported":
            ET.SubElement(case, "skipped", {"message": _text(reason or "no checker")})
    root = ET.Element("testsuites")
    root.append(suite_el)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
