"""`proofbridge serve --processes N`: refused without a broker (the in-process runner runs
in one process); with one, N processes share the port on one database, and what one of
them writes is seen by the others' page caches at once."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import socket
import stat
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from db_support import REPO

from app.cli import main

TOKEN = "serve-processes-token-3b9e"
PAGE = b"""Two #

module: Two.Page

theorem Two.div_zero (x : \xe2\x84\x9d) : x / 0 = 0

Division by zero is zero.
"""


def test_several_processes_need_a_broker(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--processes", "2"]) == 2
    err = capsys.readouterr().err
    assert "--processes 2 needs PROOFBRIDGE_BROKER_URL" in err


def test_serve_refuses_a_port_in_use_saying_how_to_choose_another(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"proofbridge: error: port {port} on 127.0.0.1 is already in use (another "
        "`proofbridge serve`?): choose another with --port N (`make demo PORT=N`)\n"
    )


def test_serve_refuses_an_unknown_host(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--host", "no-such-host.invalid", "--port", "8000"]) == 2
    assert "proofbridge: error: cannot serve on no-such-host.invalid:8000: " in (
        capsys.readouterr().err
    )


def test_processes_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--processes", "0"])
    assert exc.value.code == 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> tuple[dict[str, Any], str]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read()), response.headers.get("x-cache", "")


def _ingest(base: str) -> None:
    boundary = "pbboundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="two.txt"\r\n'
            "Content-Type: text/plain\r\n\r\n"
        ).encode()
        + PAGE
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        f"{base}/api/v1/ingest",
        data=body,
        headers={
            "Authorization": f"Bearer {TOKEN}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200


@pytest.mark.slow
@pytest.mark.postgres
def test_two_processes_serve_one_database_and_see_each_others_writes(
    pg_url: str, tmp_path: Path
) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROOFBRIDGE_")}
    env.update(
        PYTHONPATH=str(REPO),
        PROOFBRIDGE_DATABASE_URL=pg_url,
        PROOFBRIDGE_API_TOKEN=TOKEN,
        PROOFBRIDGE_DATA_DIR=str(tmp_path / "var"),
        PROOFBRIDGE_BROKER_URL="redis://127.0.0.1:6379/14",
    )
    subprocess.run(
        [sys.executable, "-m", "app", "db", "upgrade"], env=env, check=True, capture_output=True
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port), "--processes", "2"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                _get(f"{base}/api/v1/healthz")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        # fill both processes' caches (connections land on either process)
        for _ in range(8):
            body, _state = _get(f"{base}/api/v1/theorems")
            assert body["count"] == 0
        _ingest(base)
        for _ in range(8):
            body, state = _get(f"{base}/api/v1/theorems")
            assert body["count"] == 1
            assert state in ("hit", "miss")
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert out.count("Started server process") == 2, out


@contextlib.contextmanager
def _served(tmp_path: Path, **settings: str) -> Iterator[tuple[int, dict[str, Any], list[str]]]:
    """`proofbridge serve` on the embedded database under `tmp_path`, with `settings` as
    PROOFBRIDGE_ variables: (its port, the first health answer, then its stderr)."""
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PROOFBRIDGE_DATABASE_URL", None)
    env.update({f"PROOFBRIDGE_{k.upper()}": v for k, v in settings.items()})
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    err: list[str] = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                url = f"http://127.0.0.1:{port}/api/v1/healthz"
                with urllib.request.urlopen(url, timeout=2) as response:
                    body = json.loads(response.read())
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield port, body, err
    finally:
        proc.terminate()
        err.append(proc.communicate(timeout=30)[1])


def _serve_once(tmp_path: Path) -> tuple[dict[str, Any], str]:
    with _served(tmp_path) as (_, body, err):
        pass
    return body, err[0]


def _reused_after(port: int, idle_s: float) -> int | None:
    """The status of a second request sent on one connection after `idle_s` seconds idle,
    or None when the server had closed the connection."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/api/v1/healthz")
        connection.getresponse().read()
        time.sleep(idle_s)
        connection.request("GET", "/api/v1/healthz")
        return connection.getresponse().status
    except (http.client.RemoteDisconnected, ConnectionError):
        return None
    finally:
        connection.close()


@pytest.mark.slow
def test_an_idle_connection_outlives_the_clients_own_keep_alive(tmp_path: Path) -> None:
    # clients keep idle connections for a while (httpx: 5 s) and send the next request on
    # them; a server that closes them first (uvicorn's own default is 5 s) loses requests
    # sent as it closes, with nothing in its log
    with _served(tmp_path) as (port, _, _):
        assert _reused_after(port, 6.0) == 200
    with _served(tmp_path, keep_alive_s="1") as (port, _, _):
        assert _reused_after(port, 2.0) is None  # the setting is what the server applies


@pytest.mark.slow
def test_serve_generates_token_once_and_answers_health(tmp_path: Path) -> None:
    body, first_err = _serve_once(tmp_path)
    _, second_err = _serve_once(tmp_path)

    assert body["status"] == "ok"
    token_file = tmp_path / "var" / "api_token"
    token = token_file.read_text(encoding="utf-8").strip()
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert "Generated the API token" in first_err and token in first_err
    assert "Generated the API token" not in second_err and token not in second_err
