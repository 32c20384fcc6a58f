"""JAX set-up: float64 on, the persistent compilation cache when configured, device detection."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jax

from checkers import device_kind

REPO = Path(__file__).resolve().parents[2]


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "PROOFBRIDGE_JAX_CACHE_DIR"}
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), environ.get("PYTHONPATH")]))
    environ.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ)


def test_enable_float64_on_import():
    assert jax.config.jax_enable_x64


def test_detect_device_kind():
    expected = "gpu" if jax.default_backend() in ("gpu", "cuda", "rocm") else "cpu"
    assert device_kind() == expected


def test_persistent_cache_off_by_default():
    done = _python("import jax, checkers; print(jax.config.jax_compilation_cache_dir)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"


def test_persistent_cache_fills_configured_dir(tmp_path):
    code = (
        "import json, jax\n"
        "from checkers import Environment, check\n"
        "r = check('Proofs.sum_fin_prod', Environment.from_declarations([], derive=None),"
        " trials=4, draws=1)\n"
        "print(json.dumps([jax.config.jax_compilation_cache_dir, r.status]))\n"
    )
    # compiled, not interpreted (checkers/interpret), so that there is something to cache
    done = _python(code, PROOFBRIDGE_JAX_CACHE_DIR=str(tmp_path / "jax"), PROOFBRIDGE_INTERPRET="0")
    assert done.returncode == 0, done.stderr
    directory, status = json.loads(done.stdout.strip().splitlines()[-1])
    assert directory == str(tmp_path / "jax") and status == "pass"
    assert any((tmp_path / "jax").iterdir())
