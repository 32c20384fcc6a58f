"""The README's "First steps", run as written: `make demo` in one terminal, the second
block's commands in another, in a copy of the repository (so that `./var` is its own) that
shares this checkout's virtual environment.

The copy keeps the files' times, so `make demo` finds the environment installed and
installs nothing; it skips, saying so, when `.venv` was not set up by this Makefile.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VENV = REPO / ".venv"

pytestmark = pytest.mark.slow


def first_steps() -> list[str]:
    """The shell blocks of the README's "First steps" section, in order."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## First steps\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, flags=re.S)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    stamp = VENV / ".runtime"
    if not stamp.exists() or stamp.stat().st_mtime < (REPO / "pyproject.toml").stat().st_mtime:
        pytest.skip("no .venv installed by `make install` or `make demo` beside the repository")
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    root = tmp_path / "proofbridge"
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)  # times kept: make sees nothing to rebuild
    (root / ".venv").symlink_to(VENV)
    return root


@pytest.fixture
def demo(copy: Path) -> Iterator[tuple[Path, str, Path]]:
    block = first_steps()[0].strip()
    assert block == "make demo"
    port = _free_port()
    log = copy / "demo.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROOFBRIDGE_")}
    env["PORT"] = str(port)
    with log.open("w") as out:
        proc = subprocess.Popen(
            ["bash", "-c", block],
            cwd=copy,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                if _get(base + "/api/v1/healthz")[0] == 200:
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.5)
        yield copy, base, log
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_first_steps_work_as_written(demo: tuple[Path, str, Path]) -> None:
    copy, base, log = demo
    demo_out = log.read_text()
    assert "proofbridge is installed in .venv/bin" in demo_out
    assert "21 theorems checked: 20 pass, 1 fail, 0 error, 0 unsupported" in demo_out
    assert "pip install" not in demo_out  # the environment was there: nothing installed

    status, page = _get(base + "/theorems?status=fail")
    assert status == 200 and "Examples.sqrt_sq_draft" in page

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PROOFBRIDGE_", "VIRTUAL"))}
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"  # a new terminal: no proofbridge on it
    lines = first_steps()[1].strip().splitlines()
    outputs = []
    assert lines[0].startswith(". .venv/bin/activate")
    for command in lines[1:]:  # each in a new shell that sourced the environment first
        script = lines[0] + "\n" + command
        proc = subprocess.run(
            ["bash", "-c", script], cwd=copy, env=env, capture_output=True, text=True
        )
        outputs.append((command.split("#")[0].strip(), proc))
    codes = {command: proc.returncode for command, proc in outputs}
    assert codes == {
        "proofbridge check Examples.sqrt_sq_draft": 1,
        "proofbridge repro Examples.sqrt_sq_draft": 1,
        "proofbridge show Examples.sqrt_sq_draft": 0,
        "proofbridge check Examples.sqrt_sq_abs": 0,
    }, [(c, p.stderr) for c, p in outputs]
    text = {command: proc.stdout for command, proc in outputs}
    assert text["proofbridge check Examples.sqrt_sq_draft"].startswith(
        "FAIL        Examples.sqrt_sq_draft"
    )
    assert "x = -1.0" in text["proofbridge repro Examples.sqrt_sq_draft"]
    assert "lhs = 1.0" in text["proofbridge repro Examples.sqrt_sq_draft"]
    assert "rhs = -1.0" in text["proofbridge repro Examples.sqrt_sq_draft"]
    assert "Real.sqrt (x ^ 2) = x" in text["proofbridge show Examples.sqrt_sq_draft"]
    assert text["proofbridge check Examples.sqrt_sq_abs"].startswith(
        "PASS        Examples.sqrt_sq_abs"
    )
