"""Helpers of the dashboard tests: settings, declarations and results written directly
(no checker runs), the CSRF token of a page."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from db_support import batch, declaration, definition, document, theorem
from sqlalchemy.orm import Session

from app import crud, models
from app.services.ingestion.ingest import ingest_batch
from app.settings import Settings
from theorem_index.model import Declaration, ModuleDoc, SourceLocation

TOKEN = "dashboard-test-token-7c1d9e"

XSS_SCRIPT = "<script>window.__xss = 1; alert(1)</script>"
XSS_IMG = '<img src=x onerror="window.__xss = 1; alert(1)">'
XSS_LINK = "[click me](javascript:window.__xss=1)"
XSS_DOC = f"Docs {XSS_SCRIPT} and {XSS_IMG} and {XSS_LINK} and [ok](https://example.org/a)."


def make_settings(database_url: str, data_dir: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "database_url": database_url,
        "api_token": TOKEN,
        "data_dir": data_dir,
        "jax_cache_dir": None,
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[arg-type,call-arg]


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert match, "no CSRF token on the page"
    return match.group(1)


def ingest(
    session: Session,
    decls: Sequence[Declaration],
    *,
    module: str,
    file: str,
    docs: Sequence[ModuleDoc] = (),
) -> None:
    ingest_batch(session, batch=batch(document(file, list(decls), module=module, docs=docs)))


def module_doc(module: str, file: str, text: str) -> ModuleDoc:
    return ModuleDoc(module=module, text=text, location=SourceLocation(file, 1, 2))


def seed_library(session: Session) -> None:
    """Two modules: Alg (three theorems and a definition, module docs) and Geo (one)."""
    ingest(
        session,
        [
            theorem(
                "Alg.add_zero",
                "x + 0 = x",
                binders="(x : ℝ)",
                module="Alg",
                docstring="Adding **zero** changes nothing.",
            ),
            theorem("Alg.mul_one", "x * 1 = x", binders="(x : ℝ)", module="Alg"),
            theorem(
                "Alg.bad",
                "double x = x",
                binders="(x : ℝ)",
                module="Alg",
                docstring="A *false* statement.",
            ),
            definition("Alg.double", "x + x", module="Alg"),
        ],
        module="Alg",
        file="Alg.lean",
        docs=[module_doc("Alg", "Alg.lean", "# Algebra\n\nIdentities of `+` and `*`.")],
    )
    ingest(
        session,
        [theorem("Geo.never", "x = x", binders="(x : ℝ)", module="Geo")],
        module="Geo",
        file="Geo.lean",
    )


def add_run(
    session: Session, results: dict[str, dict[str, Any]], *, status: str = "passed"
) -> models.Run:
    """A finished run holding `results` (name -> fields), written as the recorder would."""
    counts = {
        s: sum(1 for r in results.values() if r["status"] == s) for s in models.RESULT_STATUSES
    }
    run = models.Run(
        status=status,
        trigger="cli",
        params={"seed": 0, "trials": 64, "dtype": "float64"},
        total=len(results),
        completed=len(results),
        passed=counts["pass"],
        failed=counts["fail"],
        errored=counts["error"],
        unsupported=counts["unsupported"],
        created_at=models.utcnow(),
        finished_at=models.utcnow(),
    )
    session.add(run)
    session.flush()
    for name, fields in results.items():
        decl = declaration(session, name)
        rev = crud.get_current_revision(session, declaration=decl)
        ce = fields.pop("counterexample", None)
        values: dict[str, Any] = {
            "checker": "derived",
            "reason": "",
            "trials": 64,
            "seed": 0,
            "dtype": "float64",
            "dims": {},
            "draws": [],
            "max_abs_err": 0.0,
            "max_rel_err": 0.0,
            "atol": 1e-300,
            "rtol": 1e-10,
            "duration_s": 0.01,
            "device": "cpu",
            "worker": "cli@test",
            "assumptions": [],
            "vacuous_trials": 0,
        } | fields
        result = models.Result(
            run_id=run.id, declaration_id=decl.id, revision_id=rev.id, name=name, **values
        )
        session.add(result)
        session.flush()
        if ce is not None:
            session.add(models.Counterexample(result_id=result.id, **ce))
    session.commit()
    return run


COUNTEREXAMPLE = {
    "dims": {"n": 1},
    "seed": 7,
    "trial": 3,
    "inputs": {"x": 1.5},
    "lhs": [3.0],
    "rhs": [1.5],
    "shrunk": True,
    "note": "",
}


def seed_history(session: Session) -> tuple[models.Run, models.Run]:
    """Run 1: everything of Alg passes; run 2: Alg.bad fails (it started failing), with a
    counterexample, on another worker and device. Geo.never is never run."""
    first = add_run(
        session,
        {
            "Alg.add_zero": {"status": "pass", "max_rel_err": 1e-16},
            "Alg.mul_one": {"status": "pass", "vacuous_trials": 16},
            "Alg.bad": {"status": "pass", "max_rel_err": 2e-15},
        },
    )
    second = add_run(
        session,
        {
            "Alg.add_zero": {"status": "pass", "max_rel_err": 3e-16},
            "Alg.mul_one": {
                "status": "unsupported",
                "checker": "none",
                "reason": "no semantics for mysteryFunction",
            },
            "Alg.bad": {
                "status": "fail",
                "max_rel_err": 0.5,
                "seed": 7,
                "worker": "celery@w2",
                "device": "NVIDIA H200",
                "reason": "lhs 3 vs rhs 1.5",
                "counterexample": dict(COUNTEREXAMPLE),
            },
        },
        status="failed",
    )
    bad = declaration(session, "Alg.bad")
    double = declaration(session, "Alg.double")
    session.add_all(
        [
            models.Dependency(
                declaration_id=bad.id, depends_on="Alg.double", revision_hash=double.content_hash
            ),
            models.Dependency(declaration_id=bad.id, depends_on="Mystery.thing"),
        ]
    )
    session.commit()
    return first, second
