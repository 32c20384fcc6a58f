"""`GET /login?token=TOKEN` logs in, and the token stays out of the access log: a real
`proofbridge serve`, its log read back."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from db_support import REPO

from app.access_log import redact_query

TOKEN = "access-log-token-9d2f6a1c"


@pytest.mark.parametrize(
    ("target", "logged"),
    [
        ("/login?token=abc&next=/runs", "/login?token=[redacted]&next=/runs"),
        ("/login?next=/&token=abc", "/login?next=/&token=[redacted]"),
        ("/login?tok%65n=abc", "/login?tok%65n=[redacted]"),
        ("/login?token=", "/login?token="),
        ("/theorems?q=token%3Dabc", "/theorems?q=token%3Dabc"),
        ("/login", "/login"),
    ],
)
def test_redact_token_query_parameter(target: str, logged: str) -> None:
    assert redact_query(target) == logged


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _status(url: str) -> int:
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


@pytest.mark.slow
def test_login_by_query_keeps_token_out_of_access_log(tmp_path: Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROOFBRIDGE_")}
    env.update(
        PYTHONPATH=str(REPO),
        PROOFBRIDGE_DATABASE_URL=f"sqlite:///{tmp_path / 'pb.db'}",
        PROOFBRIDGE_API_TOKEN=TOKEN,
        PROOFBRIDGE_DATA_DIR=str(tmp_path / "var"),
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/v1/healthz", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        statuses = [
            _status(f"{base}/login?token={TOKEN}&next=/runs"),
            _status(f"{base}/login?tok%65n={TOKEN}"),
            _status(f"{base}/login?token={TOKEN}x"),
        ]
    finally:
        proc.terminate()
        log, _ = proc.communicate(timeout=30)

    assert statuses == [303, 303, 401]
    assert TOKEN not in log
    assert '"GET /login?token=[redacted]&next=/runs HTTP/1.1" 303' in log
    assert '"GET /login?tok%65n=[redacted] HTTP/1.1" 303' in log
    assert '"GET /login?token=[redacted] HTTP/1.1" 401' in log
