"""The two ViT-Tiny statements at their literal dimensions check and agree.

Each runs in a fresh process. Their speed and memory (targets: under 2 s per
trial, under 2 GB; the materialised Jacobian of the per-token dense layer
would need ~89 GB) are measured by bench/literal_dims.py, not asserted here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

SCRIPT = r"""
import json, resource, sys, time
from pathlib import Path
import numpy as np, jax
from checkers import Environment, Registry, check
from checkers.statements.derive import derive
from theorem_index.readers.text_page import read_text_page

page, name, dims = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
doc = read_text_page(str(page), page.read_text(encoding="utf-8"), page.stem)
env = Environment.from_declarations(doc.declarations, registry=Registry())
checker = derive(name, env)
specs = checker.input_specs(dims)
rng = np.random.default_rng(0)

def draw():
    out = {}
    for n, s in specs.items():
        out[n] = rng.normal(size=s.shape) if s.kind == "real" else np.int64(rng.integers(0, s.high))
    return out

t = time.perf_counter()
fn = jax.jit(checker.build(dims, np.float64)).lower(draw()).compile()
compile_s = time.perf_counter() - t
times, errs = [], []
for _ in range(5):
    x = draw()
    t = time.perf_counter()
    lhs, rhs = fn(x)
    lhs.block_until_ready()
    times.append(time.perf_counter() - t)
    errs.append(abs(float(lhs) - float(rhs)) / (1 + abs(float(rhs))))
t = time.perf_counter()
result = check(name, env, trials=64, seed=0, dims=dims)
check_s = time.perf_counter() - t
print(json.dumps({
    "compile_s": compile_s, "trial_s": max(times), "rel_err": max(errs),
    "check_status": result.status, "check_s": check_s, "check_trials": result.trials,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, dims",
    [
        ("Proofs.vit_rowDenseW_grad_bridge", {"N": 197, "a": 192, "c": 768}),
        ("Proofs.vit_rowlnGamma_grad_bridge", {"N": 197, "D": 192}),
    ],
)
def test_check_vit_tiny_literal_dims_pass(seed_page: Path, name: str, dims: dict[str, int]) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(seed_page), name, json.dumps(dims)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=600,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    m = json.loads(out.stdout.strip().splitlines()[-1])
    assert m["rel_err"] < 1e-10
    assert m["check_status"] == "pass"
    assert m["check_trials"] == 64
    print(name, m)
