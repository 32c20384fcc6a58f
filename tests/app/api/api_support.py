"""Helpers of the HTTP API tests: the token, example inputs, archives, waiting for runs."""

from __future__ import annotations

import io
import tarfile
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from app.settings import Settings

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
TOKEN = "api-test-token-5f0c1e9a7b3d"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
API = "/api/v1"

# A plain-text page (the seeds' form) of small statements: one true, one false, one whose
# vocabulary has no semantics, and a definition.
SMALL_PAGE = """Small checks #

module: Small.Page

theorem Small.div_zero (x : ℝ) : x / 0 = 0

Division by zero is zero.

theorem Small.div_zero_wrong (x : ℝ) : x / 0 = 1

A false statement: division by zero is zero, not one.

theorem Small.opaque_id (x : ℝ) : mysteryFunction x = x

Uses a constant nobody defined.

noncomputable def Small.double (x : ℝ) : ℝ

Twice x.

Equations

• Small.double x = x + x
"""

# Lean source of two theorems, one with a dimension (`n`) and one without.
DIMS_PAGE = """namespace Dims

theorem sum_zero {n : ℕ} (x : Fin n → ℝ) : ∑ i : Fin n, 0 * x i = 0 := by simp

theorem add_zero (x : ℝ) : x + 0 = x := by simp

end Dims
"""


def make_settings(database_url: str, data_dir: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "database_url": database_url,
        "api_token": TOKEN,
        "data_dir": data_dir,
        "jax_cache_dir": None,
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[arg-type,call-arg]


def example_files() -> list[tuple[str, bytes]]:
    """(path below examples/, bytes) of every example document (the Lean package marker
    `lean/lean-toolchain` included): not the README, nor the CI examples under `ci/`."""
    return sorted(
        (p.relative_to(EXAMPLES).as_posix(), p.read_bytes())
        for p in EXAMPLES.rglob("*")
        if p.is_file() and p.name != "README.md" and p.relative_to(EXAMPLES).parts[0] != "ci"
    )


def tar_gz(members: dict[str, bytes], *, extra: list[tarfile.TarInfo] | None = None) -> bytes:
    """A .tar.gz holding `members` (path -> bytes), plus raw `extra` entries."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for info in extra or []:
            archive.addfile(info)
    return buffer.getvalue()


def multipart(files: list[tuple[str, bytes]], field: str = "files") -> list[tuple[str, Any]]:
    return [(field, (name, data, "application/octet-stream")) for name, data in files]


def ingest(client: TestClient, files: list[tuple[str, bytes]]) -> dict[str, Any]:
    response = client.post(f"{API}/ingest", files=multipart(files), headers=AUTH)
    assert response.status_code == 200, response.text
    return dict(response.json())


def ingest_small_page(client: TestClient) -> dict[str, Any]:
    return ingest(client, [("Small.Page.txt", SMALL_PAGE.encode())])


def wait_for_run(client: TestClient, run_id: int, *, timeout: float = 240.0) -> dict[str, Any]:
    """The run once it has finished (fails the test after `timeout` seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        response = client.get(f"{API}/runs/{run_id}")
        assert response.status_code == 200, response.text
        run = dict(response.json())
        if run["status"] not in ("queued", "running"):
            return run
        if time.monotonic() > deadline:
            raise AssertionError(f"run {run_id} still {run['status']} after {timeout} s: {run}")
        time.sleep(0.1)
