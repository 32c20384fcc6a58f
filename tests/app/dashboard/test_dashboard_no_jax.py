"""Rendering every dashboard page imports no JAX (the web process loads it only to check)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent


def test_render_every_page_without_importing_jax(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        sys.path[:0] = [{str(HERE)!r}, {str(HERE.parent)!r}]
        from fastapi.testclient import TestClient
        from dashboard_support import TOKEN, make_settings, seed_history, seed_library
        from app.db import get_sessionmaker
        from app.main import create_app
        from app.migrate import upgrade_database
        from pathlib import Path

        url = "sqlite:///{tmp_path}/web.db"
        upgrade_database(url)
        with get_sessionmaker(url)() as session:
            seed_library(session)
            seed_history(session)
        app = create_app(make_settings(url, Path({str(tmp_path / "var")!r})))
        app.state.submit_run = lambda run_id: None
        with TestClient(app) as client:
            client.get("/login?token=" + TOKEN)
            for path in ("/", "/theorems", "/theorems?status=fail&q=a", "/modules/Alg",
                         "/theorems/Alg.bad", "/theorems/Alg.double", "/runs", "/runs/2",
                         "/runs/2/events", "/login"):
                assert client.get(path).status_code == 200, path
        assert "jax" not in sys.modules, "rendering a page imported JAX"
        assert "checkers" not in sys.modules, "rendering a page imported the checkers"
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
