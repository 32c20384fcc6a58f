"""The two ViT-Tiny statements of the seed page at their literal dimensions (issue 4).

    python bench/literal_dims.py [SEED_PAGE]

Each statement runs in a fresh process so that its peak resident memory is its own:
compile time of one trial's program, the slowest of 5 jitted trials, a whole
64-trial `check`, and the peak RSS. Targets: under 2 s per trial and under 2 GB
(the materialised Jacobian of the per-token dense layer would need ~89 GB).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PAGE = REPO.parent / "shared" / "seeds" / "004_6d8c43833ffb9c10.txt"

CASES = (
    ("Proofs.vit_rowDenseW_grad_bridge", {"N": 197, "a": 192, "c": 768}),
    ("Proofs.vit_rowlnGamma_grad_bridge", {"N": 197, "D": 192}),
)

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
    return {
        n: rng.normal(size=s.shape) if s.kind == "real" else np.int64(rng.integers(0, s.high))
        for n, s in specs.items()
    }

t = time.perf_counter()
fn = jax.jit(checker.build(dims, np.float64)).lower(draw()).compile()
compile_s = time.perf_counter() - t
times = []
for _ in range(5):
    x = draw()
    t = time.perf_counter()
    fn(x)[0].block_until_ready()
    times.append(time.perf_counter() - t)
t = time.perf_counter()
result = check(name, env, trials=64, seed=0, dims=dims)
print(json.dumps({
    "compile_s": round(compile_s, 3), "trial_s": round(max(times), 4),
    "check": result.status, "check_s": round(time.perf_counter() - t, 3),
    "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
}))
"""


def main() -> None:
    page = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_PAGE
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "PROOFBRIDGE_JAX_CACHE_DIR": ""}
    for name, dims in CASES:
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT, str(page), name, json.dumps(dims)],
            capture_output=True,
            text=True,
            env=env,
            cwd=REPO,
            check=True,
        )
        print(name, dims, out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
