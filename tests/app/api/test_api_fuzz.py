"""The API under a fuzzer: Schemathesis generates requests for every operation from the
OpenAPI document, valid ones and invalid ones, against the app in-process (token sent, seed
pages ingested), and every response must be documented: no server error, no undocumented
status code, content type, header or body.

`positive_data_acceptance` is left out: a valid request may still name a theorem or module
that does not exist, or upload a file that holds no declaration, which is a documented 422.
The worker's checks are scripted (no JAX) so that runs finish and their results are read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from api_support import AUTH, make_settings
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from app.main import create_app
from app.services.runs.runner import InProcessRunner
from tests.conftest import SEED_MODULE_DOC

pytestmark = pytest.mark.slow

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]
WEBHOOK_SECRET = "fuzz-webhook-secret-3e9a7c51"  # the fuzzer's deliveries are never signed
POSITIVE, NEGATIVE = schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE
EXAMPLES = {POSITIVE: 10, NEGATIVE: 5}
# Operations no request can violate: no parameters, or only a path name, whose violations
# (empty, NUL, too long) cannot be sent in a path.
NO_NEGATIVE = {
    "GET /api/v1/theorems/{name}",
    "GET /api/v1/modules",
    "GET /api/v1/healthz",
    "GET /api/v1/metrics",
}


class ScriptedChecks:
    """The worker's backend: passes theorems, fails every third with a counterexample."""

    class Environment:
        @staticmethod
        def from_declarations(decls: Any) -> None:
            return None

    def __init__(self) -> None:
        self.calls = 0

    def check(self, name: str, env: Any, **params: Any) -> Any:
        self.calls += 1
        failed = self.calls % 3 == 0
        payload: dict[str, Any] = {
            "name": name,
            "status": "fail" if failed else "pass",
            "checker": "derived",
            "reason": "scripted",
            "trials": params.get("trials") or 1,
            "seed": params.get("seed") or 0,
            "dtype": params.get("dtype") or "float64",
            "dims": {"n": 2},
            "max_abs_err": 0.5 if failed else 0.0,
        }
        if failed:
            payload["counterexample"] = {
                "dims": {"n": 1},
                "seed": 7,
                "trial": 0,
                "inputs": {"x": [1.0]},
                "lhs": 1.0,
                "rhs": 0.5,
                "shrunk": True,
                "note": "scripted",
            }
        return type("Outcome", (), {"to_json": lambda self: payload})()


@pytest.fixture
def fuzzed_app(database_url: str, tmp_path: Path, seed_page: Path) -> Any:
    settings = make_settings(database_url, tmp_path / "var", webhook_secret=WEBHOOK_SECRET)
    app: FastAPI = create_app(settings)
    app.state.runner = InProcessRunner(database_url, backend=ScriptedChecks())
    with TestClient(app) as client:  # started: schema checked, token settled, worker up
        files = [seed_page, seed_page.parent / SEED_MODULE_DOC]
        upload = [("files", (p.name, p.read_bytes(), "text/plain")) for p in files]
        assert client.post("/api/v1/ingest", files=upload, headers=AUTH).status_code == 200
        run = client.post("/api/v1/runs", json={"trials": 2}, headers=AUTH)
        assert run.status_code == 202
        # the first coverage report imports the checkers (JAX): seconds, not a fuzzed case
        assert client.get("/api/v1/coverage").status_code == 200
        yield app


def _fuzz(operation: Any, mode: schemathesis.GenerationMode) -> None:
    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES[mode],
        deadline=None,
        derandomize=True,  # a fixed seed: the same requests on every run
        database=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    def call(case: schemathesis.Case) -> None:
        case.call_and_validate(headers=AUTH, checks=CHECKS)

    call()


def test_fuzz_every_operation_answers_only_what_it_documents(fuzzed_app: FastAPI) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", fuzzed_app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == 18
    failures: list[str] = []
    unsatisfiable: set[str] = set()
    for operation in operations:
        for mode in EXAMPLES:
            try:
                _fuzz(operation, mode)
            except Unsatisfiable:
                if mode is not NEGATIVE:
                    raise
                unsatisfiable.add(operation.label)
            except Exception as exc:  # every operation is fuzzed; all failures are reported
                failures.append(f"{operation.label} ({mode}): {type(exc).__name__}: {exc}")
    assert not failures, "\n\n".join(failures)
    assert unsatisfiable == NO_NEGATIVE
