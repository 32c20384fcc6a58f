"""The program store: compiled checker programs reused across processes without tracing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from checkers import Environment, InputSpec, Registry, check, repro
from checkers.harness.interpreted import INTERPRET_VARIABLE
from checkers.harness.programs import clear_program_cache
from checkers.registry.registrations import real
from checkers.runtime import program_store as store
from theorem_index.model import Declaration

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def compiled_programs(monkeypatch):
    """The store keeps compiled programs: small CPU programs are compiled here, not
    interpreted (checkers/interpret.py), in this process and in the ones it starts."""
    monkeypatch.setenv(INTERPRET_VARIABLE, "0")


@pytest.fixture
def store_dir(tmp_path):
    before = store.directory()
    store.set_directory(str(tmp_path))
    clear_program_cache()
    yield Path(store.directory() or "")
    store._directory = before
    clear_program_cache()


@pytest.fixture
def env():
    return Environment.from_declarations([], derive=None)


def test_reuse_stored_programs_without_compiling(store_dir, env):
    first = check("Proofs.vit_rowDenseW_grad_bridge", env, trials=16, seed=3, draws=3)
    assert first.status == "pass"
    assert first.stats["programs_compiled"] == 3 and first.stats["programs_loaded"] == 0
    assert len(list(store_dir.glob("*.bin"))) == 3
    clear_program_cache()  # as in a fresh process: only the files remain
    again = check("Proofs.vit_rowDenseW_grad_bridge", env, trials=16, seed=3, draws=3)
    assert again.stats["programs_compiled"] == 0 and again.stats["programs_loaded"] == 3
    assert (again.status, again.max_abs_err, again.dims, again.trial) == (
        first.status,
        first.max_abs_err,
        first.dims,
        first.trial,
    )


def test_repro_from_stored_program_matches_compiled(store_dir, env):
    dims = {"N": 2, "D": 3}
    compiled = repro("Proofs.pdiv_rowLN_beta", env, seed=1, dims=dims, trial=5)
    clear_program_cache()
    loaded = repro("Proofs.pdiv_rowLN_beta", env, seed=1, dims=dims, trial=5)
    assert loaded.result.stats["programs_loaded"] == 1
    assert (loaded.lhs, loaded.rhs, loaded.inputs) == (compiled.lhs, compiled.rhs, compiled.inputs)


def test_treat_corrupt_stored_program_as_miss(store_dir, env):
    check("Proofs.sum_fin_prod", env, trials=8, seed=0, draws=1)
    (path,) = store_dir.glob("*.bin")
    path.write_bytes(b"not a program")
    clear_program_cache()
    result = check("Proofs.sum_fin_prod", env, trials=8, seed=0, draws=1)
    assert result.status == "pass"
    assert result.stats["programs_compiled"] == 1 and result.stats["programs_loaded"] == 0


def test_store_nothing_for_checker_defined_outside_project(store_dir):
    registry = Registry()

    @registry.register("Test.double", dims=("n",), inputs={"x": real("n")})
    def double(dims, dtype):
        return lambda x: (2 * x["x"], x["x"] + x["x"])

    assert store.checker_identity(double) is None
    env = Environment.from_declarations([], registry=registry, derive=None)
    assert check("Test.double", env, trials=4, draws=2).status == "pass"
    assert not list(store_dir.glob("*.bin"))


def test_identity_of_project_checkers(env):
    registered = env.resolve("Proofs.sum_fin_prod")
    assert store.checker_identity(registered) == f"registered|{registered!r}"


def test_program_key_changes_with_every_ingredient():
    spec = {"x": InputSpec.real((3,))}
    base = store.program_key("id", {"n": 3}, "float64", 64, spec, {})
    variants = [
        store.program_key("id2", {"n": 3}, "float64", 64, spec, {}),
        store.program_key("id", {"n": 4}, "float64", 64, spec, {}),
        store.program_key("id", {"n": 3}, "float32", 64, spec, {}),
        store.program_key("id", {"n": 3}, "float64", 32, spec, {}),
        store.program_key("id", {"n": 3}, "float64", 64, {"x": InputSpec.real((4,))}, {}),
        store.program_key("id", {"n": 3}, "float64", 64, spec, {"o": 1}),
    ]
    assert len({base, *variants}) == 1 + len(variants)
    assert store.source_hash() in base and store.platform_key() in base


_JAX_SERVED = """
import json, os, sys
import jax.monitoring
from checkers import Environment, check
from checkers.runtime import program_store as store
from checkers.harness import programs as ev
env = Environment.from_declarations([], derive=None)
args = dict(trials=8, seed=0, dims={"N": 2, "D": 3}, draws=1)
check("Proofs.pdiv_rowLN_beta", env, **args)
filed = sorted(os.listdir(store.directory()))
for name in filed:
    os.unlink(os.path.join(store.directory(), name))
ev.clear_program_cache()
hits = []
jax.monitoring.register_event_listener(
    lambda event, **kw: hits.append(event) if event.endswith("cache_hits") else None
)
if sys.argv[1] == "file-anyway":  # what the harness must never do
    def finish(checker, batch, lowered, options, trace_s, store_key, relower=None):
        compiled = lowered.compile(compiler_options=options or None)
        store.save(store_key, compiled)
        return ev.Program(checker, batch, compiled, 0.0, store_key=store_key)
    ev.finish_compile = finish
result = check("Proofs.pdiv_rowLN_beta", env, **args)
print(json.dumps([len(filed), len(hits), result.status, result.stats["programs_compiled"]]))
"""

_USE = """
import json
from checkers import Environment, check
r = check("Proofs.pdiv_rowLN_beta", Environment.from_declarations([], derive=None),
          trials=8, seed=0, dims={"N": 2, "D": 3}, draws=1)
print(json.dumps([r.status, r.stats["programs_loaded"], r.stats["programs_compiled"]]))
"""


def _run(code: str, cache: Path, *args: str) -> list:
    environ = dict(os.environ, PROOFBRIDGE_JAX_CACHE_DIR=str(cache))
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=environ
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_skip_filing_program_served_by_jax_cache(tmp_path):
    # filed once, file removed, compiled again: JAX's cache serves it, the store files nothing
    assert _run(_JAX_SERVED, tmp_path, "harness") == [1, 1, "pass", 1]
    assert not list((tmp_path / store.SUBDIRECTORY).glob("*.bin"))


def test_rebuild_stored_program_that_fails_to_run(tmp_path):
    # re-filing what JAX's cache served gives a program a new process cannot run
    assert _run(_JAX_SERVED, tmp_path, "file-anyway") == [1, 1, "pass", 1]
    assert len(list((tmp_path / store.SUBDIRECTORY).glob("*.bin"))) == 1
    status, loaded, compiled = _run(_USE, tmp_path)
    assert (status, loaded, compiled) == ("pass", 1, 1)  # loaded, failed to run, rebuilt
    assert not list((tmp_path / store.SUBDIRECTORY).glob("*.bin"))  # the bad file is gone


def test_fresh_process_loads_programs_from_cache_dir(tmp_path):
    code = (
        "import json\n"
        "from checkers import Environment, check\n"
        "r = check('Proofs.pdiv_rowLN_beta', Environment.from_declarations([], derive=None),"
        " trials=8, seed=2, draws=2)\n"
        "print(json.dumps([r.status, r.max_abs_err, r.stats['programs_compiled'],"
        " r.stats['programs_loaded']]))\n"
    )
    environ = dict(os.environ, PROOFBRIDGE_JAX_CACHE_DIR=str(tmp_path / "cache"))
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), environ.get("PYTHONPATH")]))
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=environ
        )
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    (s1, err1, compiled1, loaded1), (s2, err2, compiled2, loaded2) = runs
    assert (s1, compiled1, loaded1) == ("pass", 2, 0)
    assert (s2, compiled2, loaded2) == ("pass", 0, 2)
    assert err1 == err2
    assert len(list((tmp_path / "cache" / store.SUBDIRECTORY).glob("*.bin"))) == 2


def test_clauses_of_one_theorem_file_programs_of_their_own(store_dir):
    # the clauses share the theorem's version, inputs and dims; only the clause itself
    # tells their programs apart, and a false clause is never served its true sibling's
    decl = Declaration(
        name="Proofs.two_clauses",
        kind="theorem",
        module="Test",
        binders="(x : ℝ)",
        statement="x * 0 = 0 ∧ x + 1 = x",
        namespace="Proofs",
    )
    env = Environment.from_declarations([decl], registry=Registry())
    for _ in range(2):  # compiled and filed, then loaded as in a fresh process
        clear_program_cache()
        result = check("Proofs.two_clauses", env, trials=8, seed=0, draws=1)
        assert result.status == "fail" and "clause 2 of 2" in result.reason
    assert len(list(store_dir.glob("*.bin"))) == 2


def test_a_stored_program_compares_at_the_tolerance_its_trace_decided(store_dir, tmp_path):
    # integer sides are compared exactly; a fresh checker running the stored program (not
    # traced for it) still compares so: where programs are compiled, the derivation's dry
    # run traces the sides and decides the tolerance (the compiled store keeps no facts)
    from theorem_index import read_paths

    source = tmp_path / "Big.lean"
    source.write_text(
        "theorem big_off_by_one : (10 ^ 12 : ℤ) + 1 = 10 ^ 12 := by\n  sorry\n", encoding="utf-8"
    )
    decls = [d for doc in read_paths([str(source)]).documents for d in doc.declarations]
    first = check("big_off_by_one", Environment.from_declarations(decls), trials=8, draws=1)
    clear_program_cache()
    again = check("big_off_by_one", Environment.from_declarations(decls), trials=8, draws=1)
    assert again.stats["programs_loaded"] == 1
    assert [(r.status, r.atol, r.rtol) for r in (first, again)] == [("fail", 0.0, 0.0)] * 2
