"""JAX set-up: float64 on, the persistent compilation cache when configured, device detection,
the bound on JAX's cache of traced jaxprs."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import weakref
from pathlib import Path
from typing import Any

import jax
import numpy as np
import pytest

from checkers import Environment, check, device_kind
from checkers.runtime import jaxsetup
from checkers.runtime.jaxsetup import bound_trace_cache, release_abandoned_traces, trace_cache
from theorem_index.model import Declaration

REPO = Path(__file__).resolve().parents[3]


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "PROOFBRIDGE_JAX_CACHE_DIR"}
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), environ.get("PYTHONPATH")]))
    environ.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ)


def _theorem(binders: str, statement: str) -> Declaration:
    """The theorem Proofs.t of these binders and statement."""
    return Declaration(
        name="Proofs.t",
        kind="theorem",
        module="Proofs.Test",
        binders=binders,
        statement=statement,
    )


def test_enable_float64_on_import():
    assert jax.config.jax_enable_x64


@pytest.mark.parametrize("jax_first", [False, True], ids=["checkers-first", "jax-first"])
def test_jax_is_configured_whoever_imports_it_first(jax_first: bool) -> None:
    # importing checkers imports no JAX; JAX, whenever and however it is imported, is
    # configured before its first array
    code = (
        ("import jax\n" if jax_first else "")
        + "import sys, checkers\n"
        + "loaded = 'jax' in sys.modules\n"
        + "import jax.numpy as jnp, jax\n"
        + "print(loaded, jnp.asarray(1.0).dtype, jax.config.jax_traceback_filtering)\n"
    )
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(jax_first), "float64", "off"]


def test_a_stand_in_answers_with_jaxs_own_objects() -> None:
    from checkers.lazyjax import jnp as stand_in
    from checkers.lazyjax import lax as lax_stand_in

    assert stand_in.add is jax.numpy.add and stand_in.float64 is jax.numpy.float64
    assert lax_stand_in.add is jax.lax.add


def test_coverage_of_statements_imports_no_jax() -> None:
    code = (
        "import sys\n"
        "from checkers import Environment\n"
        "from checkers.analysis.coverage import coverage\n"
        "from theorem_index.model import Declaration\n"
        "t = Declaration(name='Proofs.t', kind='theorem', module='Proofs.Test',"
        " binders='(x : ℝ)', statement='Real.sqrt (x ^ 2) = |x|')\n"
        "u = Declaration(name='Proofs.u', kind='theorem', module='Proofs.Test',"
        " binders='(x : ℝ)', statement='mystery x = x')\n"
        "report = coverage(Environment.from_declarations([t, u]))\n"
        "print(report.theorems, report.checked, report.unsupported, 'jax' in sys.modules)\n"
    )
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "1", "1", "False"]


def test_an_error_raised_while_tracing_reaches_the_caller_unfiltered():
    # JAX would otherwise walk every frame of the evaluator's recursion to hide its own
    class Refusal(Exception):
        pass

    def deep(x, n):
        if n == 0:
            raise Refusal("no semantics for: f")
        return deep(x + 1, n - 1)

    assert jax.config.jax_traceback_filtering == "off"
    try:
        jax.make_jaxpr(lambda x: deep(x, 50))(1.0)
    except Refusal as e:
        assert str(e) == "no semantics for: f"
        files = []
        tb = e.__traceback__
        while tb is not None:
            files.append(tb.tb_frame.f_code.co_filename)
            tb = tb.tb_next
        assert any("jax" in f and "_src" in f for f in files)  # JAX's frames were kept
        assert e.__cause__ is None  # no unfiltered copy attached
    else:
        raise AssertionError("the refusal did not propagate")


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


def test_find_jax_trace_cache():
    # the cache the harness bounds; a JAX that moves it would let it grow again
    assert trace_cache() is not None


# a jitted function that lives as long as the process, as jnp's own do, and that nothing
# else calls: each argument shape it is called at adds one jaxpr to the cache
_double = jax.jit(lambda x: x * 2)


def _trace_at_shapes(n: int) -> None:
    for k in range(1, n + 1):
        _double(np.ones(k))


def test_bound_trace_cache_empties_it_past_the_limit():
    cache = trace_cache()
    cache.cache_clear()
    _trace_at_shapes(5)
    held = cache.cache_info().currsize
    assert held >= 5
    assert bound_trace_cache(held) is False and cache.cache_info().currsize == held
    assert bound_trace_cache(held - 1) is True and cache.cache_info().currsize == 0


def test_check_leaves_trace_cache_bounded(monkeypatch):
    monkeypatch.setattr(jaxsetup, "MAX_TRACED_JAXPRS", 3)
    _trace_at_shapes(8)
    env = Environment.from_declarations(
        [_theorem("(n : ℕ) (x : Fin n → ℝ)", "∑ i, x i * 2 = 2 * ∑ i, x i")]
    )
    result = check("Proofs.t", env, trials=8)
    assert result.status == "pass", result.reason
    assert trace_cache().cache_info().currsize <= 3


def test_check_results_same_with_and_without_emptying_trace_cache(monkeypatch):
    decl = _theorem(
        "(n : ℕ) (x y : Fin n → ℝ)", "∑ i, (x i + y i) * x i = ∑ i, x i * x i + ∑ i, y i * x i"
    )

    def results() -> list[dict]:
        out = []
        for seed in (0, 1, 0):
            r = check("Proofs.t", Environment.from_declarations([decl]), trials=8, seed=seed)
            out.append({k: v for k, v in r.to_json().items() if k not in ("duration_s", "stats")})
        return out

    monkeypatch.setattr(jaxsetup, "MAX_TRACED_JAXPRS", 10**9)
    kept = results()
    monkeypatch.setattr(jaxsetup, "MAX_TRACED_JAXPRS", 0)
    emptied = results()
    assert kept == emptied and kept[0]["status"] == "pass"


def _abandoned_trace() -> weakref.ref[Any]:
    """Trace a function that makes a constant and then raises, as the evaluator does when
    it refuses a statement; a weak reference to that constant's tracer."""
    seen: list[weakref.ref[Any]] = []

    def refused(x: Any) -> Any:
        x + np.arange(1000.0)  # a constant of the trace
        seen.append(weakref.ref(x))  # held by the trace, as every tracer of it is
        raise ValueError("no semantics for: f")

    with pytest.raises(ValueError):
        jax.make_jaxpr(refused)(jax.ShapeDtypeStruct((1000,), np.float64))
    return seen[0]


def test_a_trace_an_exception_ended_is_released():
    tracer = _abandoned_trace()
    gc.collect()
    assert tracer() is not None  # JAX's finalizer for the constant keeps the whole trace
    assert release_abandoned_traces() >= 1
    gc.collect()
    assert tracer() is None
    assert release_abandoned_traces() == 0


def test_every_check_and_derivation_releases_abandoned_traces():
    env = Environment.from_declarations([_theorem("(x : ℝ)", "x + 1 = 1 + x")])
    tracer = _abandoned_trace()
    env.resolve("Proofs.t")
    gc.collect()
    assert tracer() is None
    tracer = _abandoned_trace()
    assert check("Proofs.t", env, trials=8).status == "pass"
    gc.collect()
    assert tracer() is None
