"""Interpreted programs kept in the program store: a later process checks without tracing
and, on the CPU, without importing JAX, and gets the same results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from checkers.runtime import jaxsetup

REPO = Path(__file__).resolve().parents[3]

LEAN = """
theorem two_sum (n : ℕ) (v : Fin n → ℝ) : ∑ i, 2 * v i = 2 * ∑ i, v i := by
  simp [Finset.mul_sum]

theorem three_sum (n : ℕ) (v : Fin n → ℝ) : ∑ i, 2 * v i = 3 * ∑ i, v i := by
  sorry

theorem big_off_by_one : (10 ^ 12 : ℤ) + 1 = 10 ^ 12 := by
  sorry
"""

SCRIPT = """
import json, sys
from checkers import Environment, check
from theorem_index import read_paths
docs = read_paths([sys.argv[1]]).documents
env = Environment.from_declarations([d for doc in docs for d in doc.declarations])
out = []
for name in sys.argv[2:]:
    r = check(name, env, trials=16, seed=4, draws=2)
    c = r.counterexample
    out.append([r.status, r.max_abs_err, r.dims, r.reason,
                None if c is None else [c.dims, c.trial, c.inputs, c.lhs, c.rhs],
                r.stats["programs_interpreted"]])
out.append("jax" in sys.modules)
print(json.dumps(out))
"""


def _run(tmp_path: Path, *names: str) -> list:
    source = tmp_path / "Sums.lean"
    source.write_text(LEAN, encoding="utf-8")
    environ = dict(os.environ, PROOFBRIDGE_JAX_CACHE_DIR=str(tmp_path / "cache"))
    environ.pop("PROOFBRIDGE_INTERPRET", None)
    environ.pop("JAX_PLATFORMS", None)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(source), *names],
        capture_output=True,
        text=True,
        env=environ,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not jaxsetup._cpu_only(), reason="an accelerator may be installed here")
def test_later_process_checks_from_stored_programs_without_jax(tmp_path):
    names = ("two_sum", "Proofs.vit_rowDenseW_grad_bridge")
    *first, first_jax = _run(tmp_path, *names)
    stored = list((tmp_path / "cache" / "proofbridge-programs").glob("*.bin"))
    assert first_jax and len(stored) == 4  # two dims draws of each theorem
    *again, again_jax = _run(tmp_path, *names)
    assert again == first
    assert [r[0] for r in again] == ["pass", "pass"]
    assert not again_jax  # nothing traced, nothing compiled: JAX never imported


def test_failing_check_from_stored_programs_is_the_same_failure(tmp_path):
    *first, _ = _run(tmp_path, "three_sum", "big_off_by_one")
    *again, _ = _run(tmp_path, "three_sum", "big_off_by_one")
    assert again == first
    (status, _, _, reason, counterexample, _), (_, _, _, exact_reason, _, _) = again
    assert status == "fail" and "confirmed exactly" in reason
    assert counterexample[3] != counterexample[4]
    # the exact sides' tolerance, decided by tracing, holds for the untraced program too
    assert "outside atol=0, rtol=0" in exact_reason


def test_a_kept_program_compares_at_the_tolerance_its_trace_decided(tmp_path):
    # integers are compared exactly (atol = rtol = 0): a second check in the same process,
    # of a fresh environment, runs the kept program without tracing and must not fall back
    # to the float tolerance, at which 10^12 + 1 and 10^12 agree
    from checkers import Environment, check
    from theorem_index import read_paths

    source = tmp_path / "Sums.lean"
    source.write_text(LEAN, encoding="utf-8")
    decls = [d for doc in read_paths([str(source)]).documents for d in doc.declarations]
    got = [
        check("big_off_by_one", Environment.from_declarations(decls), trials=8, seed=0, draws=2)
        for _ in range(2)
    ]
    assert [(r.status, r.atol, r.rtol) for r in got] == [("fail", 0.0, 0.0)] * 2


def test_a_stored_program_of_other_sources_is_never_loaded(tmp_path, monkeypatch):
    from checkers.runtime import program_store

    key = program_store.interpreted_key("derived|x|v1|", {"n": 3}, {"v": "spec"})
    monkeypatch.setattr(program_store, "source_hash", lambda: "another source")
    assert program_store.interpreted_key("derived|x|v1|", {"n": 3}, {"v": "spec"}) != key
    monkeypatch.setattr(program_store, "_directory", str(tmp_path))
    assert program_store.save_bytes(key, b"payload")
    assert program_store.load_bytes(key) == b"payload"
    (path,) = tmp_path.glob("*.bin")
    path.write_bytes(b"0" * 64 + b"\0payload")  # a file whose key is not this one
    assert program_store.load_bytes(key) is None


@pytest.mark.parametrize(
    ("platforms", "cpu_only"),
    [("cpu", True), ("CPU", True), ("cuda", False), ("cuda,cpu", False), ("tpu", False)],
)
def test_device_known_without_jax_only_where_jax_platforms_allows_cpu_alone(
    monkeypatch, platforms, cpu_only
):
    monkeypatch.setenv("JAX_PLATFORMS", platforms)
    assert jaxsetup._cpu_only() is cpu_only


def test_an_installed_plugin_leaves_the_device_to_jax(monkeypatch):
    import importlib.util

    monkeypatch.delenv("JAX_PLATFORMS", raising=False)
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name == "jax_plugins" else real(name, *a),
    )
    assert jaxsetup._cpu_only() is False
