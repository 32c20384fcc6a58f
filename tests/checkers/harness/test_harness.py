"""The harness: results, reproducibility, repro, failures and shrinking, errors, dtype modes."""

from __future__ import annotations

import re
import time

import jax.numpy as jnp
import numpy as np
import pytest
from contract_support import CONTRACT_RESULT_KEYS

from checkers import CheckResult, Counterexample, Environment, Registry, check, repro, run_checker
from checkers.core import DimConstraint, InputSpec, Unevaluable, Unsupported
from checkers.registry.registrations import fin, real
from checkers.tolerance import TOLERANCES
from theorem_index.model import Declaration


def _env(registry: Registry) -> Environment:
    return Environment.from_declarations([], registry=registry, derive=None)


def _stable(result: CheckResult) -> dict:
    """A result's JSON without the timings."""
    data = result.to_json()
    data.pop("duration_s")
    data.pop("stats")
    return data


@pytest.fixture(scope="module")
def faulty() -> Environment:
    """Deliberately wrong and broken checkers under test-only names, in their own registry."""
    registry = Registry()

    # Σ_r X r i * dY r j against the same sum with rows from index 2 on dropped:
    # wrong exactly when N ≥ 3, whatever a and c are.
    @registry.register(
        "Test.drops_rows",
        dims=("N", "a", "c"),
        inputs={"X": real("N", "a"), "dY": real("N", "c"), "i": fin("a"), "j": fin("c")},
    )
    def drops_rows(dims, dtype):
        keep = np.arange(dims["N"]) < 2

        def sides(x):
            terms = x["X"][:, x["i"]] * x["dY"][:, x["j"]]
            return jnp.sum(terms), jnp.sum(jnp.where(keep, terms, 0))

        return sides

    def locate_log(dims, inputs):
        return "`Real.log x`" if (np.asarray(inputs["x"]) <= 0).any() else None

    # log of a possibly negative number, computed with IEEE log instead of Lean's.
    @registry.register("Test.ieee_log", dims=("n",), inputs={"x": real("n")}, locate=locate_log)
    def ieee_log(dims, dtype):
        return lambda v: (jnp.sum(v["x"]) * 0, jnp.sum(jnp.log(v["x"])) * 0)

    @registry.register("Test.raises", dims=("n",), inputs={"x": real("n")})
    def raises(dims, dtype):
        raise RuntimeError("cannot build")

    @registry.register("Test.raises_from_3", dims=("n",), inputs={"x": real("n")})
    def raises_from_3(dims, dtype):
        if dims["n"] >= 3:
            raise RuntimeError(f"cannot build at {dims['n']}")
        return lambda v: (jnp.sum(v["x"]), jnp.sum(v["x"]))

    @registry.register("Test.beyond_from_3", dims=("n",), inputs={"x": real("n")})
    def beyond_from_3(dims, dtype):
        if dims["n"] >= 3:
            raise Unevaluable(f"unfolds too deep at {dims['n']}")
        return lambda v: (jnp.sum(v["x"]), jnp.sum(v["x"]))

    @registry.register("Test.shapes", dims=("n",), inputs={"x": real("n")})
    def shapes(dims, dtype):
        return lambda v: (v["x"], jnp.sum(v["x"]))

    @registry.register("Test.fin_range", dims=("n",), inputs={"x": real("n"), "i": fin("n")})
    def fin_range(dims, dtype):
        return lambda v: (v["x"][v["i"]], v["x"][v["i"]])

    @registry.register(
        "Test.constrained",
        dims=("W", "P"),
        inputs={"x": real("W")},
        constraints=(DimConstraint("W", ">=", "P"),),
    )
    def constrained(dims, dtype):
        # (x_0 + ... ) against itself plus a term that is wrong once P ≥ 2
        return lambda v: (jnp.sum(v["x"]), jnp.sum(v["x"]) + (dims["P"] >= 2) * v["x"][0])

    return _env(registry)


# --- the three seed checkers -----------------------------------------------------

SEED_CHECKERS = [
    "Proofs.sum_fin_prod",
    "Proofs.vit_rowDenseW_grad_bridge",
    "Proofs.pdiv_rowLN_beta",
]


@pytest.fixture(scope="module")
def seeds() -> Environment:
    return Environment.from_declarations([], derive=None)


@pytest.mark.parametrize("name", SEED_CHECKERS)
def test_pass_seed_checker_float64(seeds, name):
    result = check(name, seeds, trials=64, seed=0)
    assert result.status == "pass", result.reason
    assert (result.checker, result.trials, result.dtype) == ("registered", 64, "float64")
    tol = TOLERANCES["float64"]
    assert (
        (result.atol, result.rtol)
        == (tol.atol, tol.rtol)
        == (1e-10 * 2.2250738585072014e-308, 1e-10)
    )
    assert len(result.draws) == 4
    assert len({tuple(sorted(d.items())) for d in result.draws}) == 4
    assert result.dims in result.draws
    # inputs are drawn up to scale 1e3, so only the relative error says how close they are
    assert result.max_rel_err is not None and result.max_rel_err <= 1e-12
    assert result.device in ("cpu", "gpu")
    assert [d["trials"] for d in result.stats["per_draw"]] == [64] * 4
    assert result.reason == (
        "64 trials at each of 4 dims draws agree within atol=2.22507e-318, rtol=1e-10"
    )
    assert (result.vacuous_trials, result.tied_trials) == (0, 0)


@pytest.mark.parametrize("name", SEED_CHECKERS)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_pass_seed_checker_low_precision(seeds, name, dtype):
    result = check(name, seeds, trials=64, seed=3, dtype=dtype)
    assert result.status == "pass", result.reason
    assert result.dtype == dtype
    assert (result.atol, result.rtol) == {
        "float32": (1e-4 * 1.1754943508222875e-38, 1e-4),
        "bfloat16": (1e-1 * 1.1754943508222875e-38, 1e-1),
    }[dtype]


def test_measure_low_precision_error(seeds):
    f32 = check("Proofs.sum_fin_prod", seeds, seed=1, dtype="float32")
    bf16 = check("Proofs.sum_fin_prod", seeds, seed=1, dtype="bfloat16")
    assert f32.status == bf16.status == "pass"
    # rounding is really happening, and bfloat16 rounds much more coarsely than float32
    assert 0 < f32.max_abs_err < 1e-5
    assert bf16.max_abs_err > 100 * f32.max_abs_err


def test_check_pinned_dims(seeds):
    result = check("Proofs.vit_rowDenseW_grad_bridge", seeds, trials=16, dims={"N": 2, "c": 3})
    assert result.status == "pass"
    assert all(d["N"] == 2 and d["c"] == 3 for d in result.draws)
    assert len({d["a"] for d in result.draws}) == 4


def test_check_all_dims_pinned_one_draw(seeds):
    result = check("Proofs.pdiv_rowLN_beta", seeds, trials=8, dims={"N": 3, "D": 2}, draws=4)
    assert result.draws == [{"N": 3, "D": 2}]
    assert result.dims == {"N": 3, "D": 2}


# --- reproducibility -------------------------------------------------------------


def test_check_same_seed_identical_result(seeds):
    a = check("Proofs.vit_rowDenseW_grad_bridge", seeds, seed=11, dtype="float32")
    b = check("Proofs.vit_rowDenseW_grad_bridge", seeds, seed=11, dtype="float32")
    assert _stable(a) == _stable(b)
    c = check("Proofs.vit_rowDenseW_grad_bridge", seeds, seed=12, dtype="float32")
    assert c.draws != a.draws or c.max_abs_err != a.max_abs_err


def test_check_same_seed_identical_error(faulty):
    a = check("Test.ieee_log", faulty, seed=5)
    b = check("Test.ieee_log", faulty, seed=5)
    assert a.status == "error"
    assert _stable(a) == _stable(b)


def test_repro_returns_recorded_trial(faulty):
    result = check("Test.drops_rows", faulty, seed=2, shrink=False)
    assert result.status == "fail"
    ce = result.counterexample
    assert ce is not None and not ce.shrunk
    replay = repro("Test.drops_rows", faulty, seed=2, dims=result.dims, trial=result.trial)
    assert replay.trial == result.trial and replay.dims == result.dims
    assert replay.inputs == ce.inputs
    assert (replay.lhs, replay.rhs) == (ce.lhs, ce.rhs)
    assert replay.lhs != replay.rhs
    assert replay.result.status == "fail"
    # a replay never shrinks, and says so without contradicting a stored shrunk example
    assert replay.result.reason.endswith(
        f"trial {result.trial}: the failing trial as drawn (a replay does not shrink)"
    ), replay.result.reason


def test_repro_seed_checker_trial(seeds):
    replay = repro(
        "Proofs.vit_rowDenseW_grad_bridge", seeds, seed=4, dims={"N": 2, "a": 3, "c": 4}, trial=5
    )
    again = repro(
        "Proofs.vit_rowDenseW_grad_bridge", seeds, seed=4, dims={"N": 2, "a": 3, "c": 4}, trial=5
    )
    assert (replay.inputs, replay.lhs, replay.rhs) == (again.inputs, again.lhs, again.rhs)
    assert _stable(replay.result) == _stable(again.result)
    x = np.array(replay.inputs["X"])
    dy = np.array(replay.inputs["dy"]).reshape(2, 4)
    i, j = replay.inputs["i"][0], replay.inputs["j"][0]
    assert np.array(replay.inputs["W"]).shape == (3, 4)
    # trial 5 of 64 enumerates (i, j) = divmod(5, c)
    assert (i, j) == (1, 1)
    np.testing.assert_allclose(replay.lhs, [x[:, i] @ dy[:, j]], rtol=1e-14)
    np.testing.assert_allclose(replay.rhs, replay.lhs, rtol=1e-12, atol=1e-12)


# --- failures and shrinking --------------------------------------------------------


def test_fail_wrong_checker_shrunk_to_minimal_dims(faulty):
    result = check("Test.drops_rows", faulty, seed=0)
    assert result.status == "fail"
    assert result.dims == {"N": 3, "a": 1, "c": 1}
    ce = result.counterexample
    assert ce is not None and ce.shrunk
    assert ce.dims == {"N": 3, "a": 1, "c": 1}
    assert ce.inputs == {
        "X": [[1.0], [1.0], [1.0]],
        "dY": [[1.0], [1.0], [1.0]],
        "i": [0],
        "j": [0],
    }
    assert (ce.lhs, ce.rhs) == ([3.0], [2.0])
    # which dims the failing draw had depends on the seed's values; what it says is the same
    assert re.match(r"shrunk (N|a|c) \d+→\d+", ce.note), ce.note
    for part in ("X → ones", "dY → ones"):
        assert part in ce.note
    assert "counterexample at N=3, a=1, c=1" in result.reason
    # the sampled trial at the shrunk dims fails too, and repro replays the simplified inputs
    assert (
        repro("Test.drops_rows", faulty, seed=0, dims=ce.dims, trial=ce.trial).result.status
        == "fail"
    )
    replay = repro("Test.drops_rows", faulty, seed=0, dims={}, counterexample=ce)
    assert (replay.lhs, replay.rhs, replay.inputs) == ([3.0], [2.0], ce.inputs)


def test_fail_smaller_dims_pass(faulty):
    for dims in ({"N": 2, "a": 1, "c": 1}, {"N": 1, "a": 1, "c": 1}):
        assert check("Test.drops_rows", faulty, dims=dims, trials=16).status == "pass"


def test_shrink_respects_pins_and_constraints(faulty):
    result = check("Test.constrained", faulty, seed=0)
    assert result.status == "fail"
    assert result.dims == {"W": 2, "P": 2}
    pinned = check("Test.drops_rows", faulty, seed=0, dims={"a": 4})
    assert pinned.status == "fail" and pinned.dims["a"] == 4


def test_fail_counterexample_json_round_trip(faulty):
    ce = check("Test.drops_rows", faulty, seed=0).counterexample
    assert ce is not None
    assert Counterexample.from_json(ce.to_json()) == ce


# --- errors --------------------------------------------------------------------------


def test_error_nan_names_subterm(faulty):
    result = check("Test.ieee_log", faulty, seed=0)
    assert result.status == "error"
    assert result.reason.startswith(f"non-finite value at dims n={result.dims['n']}, trial ")
    assert result.reason.endswith("rhs is NaN; subterm `Real.log x`")
    ce = result.counterexample
    assert ce is not None and ce.trial == result.trial and np.isnan(ce.rhs[0])
    assert ce.to_json()["rhs"] == ["NaN"]
    assert any(v <= 0 for v in np.ravel(ce.inputs["x"]))


def test_error_nan_in_low_precision(faulty):
    result = check("Test.ieee_log", faulty, seed=0, dtype="bfloat16")
    assert result.status == "error"
    assert "rhs in bfloat16 is NaN" in result.reason


def test_error_checker_build_raises(faulty):
    result = check("Test.raises", faulty)
    assert result.status == "error"
    assert result.reason == (
        f"building the JAX program failed at dims n={result.dims['n']}: RuntimeError: cannot build"
    )


def test_unsupported_where_the_checker_cannot_evaluate_some_dims(faulty):
    # a limit of the checker (a recursion past its depth), not a fault: unsupported, saying
    # at which dims, never 'error' and never a pass over the other draws
    result = check("Test.beyond_from_3", faulty, draws=4)
    bad = [d for d in result.draws if d["n"] >= 3]
    assert bad, result.draws
    assert result.status == "unsupported"
    assert result.dims == bad[0]
    assert result.reason == (
        f"the statement cannot be evaluated at dims n={bad[0]['n']}: "
        f"Unevaluable: unfolds too deep at {bad[0]['n']}"
    )


def test_unsupported_is_decided_before_anything_is_compiled(faulty, monkeypatch):
    # every draw is traced before any is compiled: a draw the statement cannot be
    # evaluated at ends the check with nothing compiled for the draws before it
    monkeypatch.setenv("PROOFBRIDGE_INTERPRET", "0")  # the good draws need XLA
    result = check("Test.beyond_from_3", faulty, draws=4, seed=11)
    assert result.status == "unsupported"
    first_bad = next(k for k, d in enumerate(result.draws) if d["n"] >= 3)
    assert first_bad > 0, result.draws  # a draw that compiles comes before it
    assert result.stats["programs_compiled"] == 0
    assert result.stats["compile_s"] == 0.0


def test_error_build_raises_at_first_failing_draw_in_order(faulty):
    # all draws are traced before any runs; the error is still that of the first bad draw
    result = check("Test.raises_from_3", faulty, draws=4)
    bad = [d for d in result.draws if d["n"] >= 3]
    assert result.status == "error" and len(bad) >= 2
    assert result.dims == bad[0]
    assert result.reason.endswith(f"RuntimeError: cannot build at {bad[0]['n']}")


def test_compile_only_small_float64_programs_at_level_0():
    from checkers.harness.programs import SMALL_PROGRAM_ELEMENTS, compiler_options
    from checkers.runtime.jaxsetup import device_kind

    small = {"x": InputSpec.real((3, 4))}
    large = {"x": InputSpec.real((SMALL_PROGRAM_ELEMENTS // 64 + 1,))}
    low = {"xla_backend_optimization_level": 0} if device_kind() == "cpu" else {}
    assert compiler_options(small, 64, "float64") == low
    assert compiler_options(small, 64, "float32") == {}
    assert compiler_options(small, 64, "bfloat16") == {}
    assert compiler_options(large, 64, "float64") == {}


def test_error_sides_of_different_shapes(faulty):
    result = check("Test.shapes", faulty)
    assert result.status == "error"
    n = result.dims["n"]
    assert result.reason == f"the two sides have different shapes: lhs ({n},), rhs ()"


def test_error_pinned_dims_violate_constraints(faulty):
    result = check("Test.constrained", faulty, dims={"W": 1, "P": 3})
    assert result.status == "error"
    assert result.reason == "no dimensions in the given values satisfy W ≥ P with W=1, P=3"


def test_pass_vacuous_when_fin_empty(faulty):
    result = check("Test.fin_range", faulty, dims={"n": 0})
    assert result.status == "pass"
    assert result.reason == "vacuously true: i has no possible value at dims n=0"


def test_refuse_bad_arguments(seeds):
    with pytest.raises(ValueError, match="dtype must be one of float64, float32, bfloat16"):
        check("Proofs.sum_fin_prod", seeds, dtype="float16")
    with pytest.raises(ValueError, match="trials must be a positive int"):
        check("Proofs.sum_fin_prod", seeds, trials=0)
    with pytest.raises(ValueError, match="dimension n must be a non-negative int"):
        check("Proofs.sum_fin_prod", seeds, dims={"n": -1})


def test_result_json_has_contract_keys(seeds):
    data = check("Proofs.sum_fin_prod", seeds, trials=8).to_json()
    assert CONTRACT_RESULT_KEYS <= set(data)
    assert CheckResult.from_json(data).to_json() == data


class _Misbehaving:
    name = "Test.misbehaving"
    kind = "derived"
    version = "0"
    fixed_dims: dict[str, int] = {}
    assumptions = ()
    dependencies = ()
    tolerance = None

    @property
    def dim_names(self):
        raise AttributeError("no binders")

    def dim_constraints(self):
        return ()

    def input_specs(self, dims):
        return {}

    def build(self, dims, dtype):
        return lambda v: (0.0, 0.0)


def test_error_when_checker_misbehaves_unexpectedly():
    result = run_checker(_Misbehaving())
    assert (result.status, result.checker) == ("error", "derived")
    assert result.reason == "the check failed unexpectedly: AttributeError: no binders"


def test_check_statement_without_inputs():
    registry = Registry()
    registry.register("Test.closed", inputs={})(
        lambda dims, dtype: lambda v: (jnp.sqrt(jnp.asarray(4.0, dtype)), jnp.asarray(2.0, dtype))
    )
    result = check("Test.closed", _env(registry), trials=8)
    assert result.status == "pass", result.reason
    assert result.draws == [{}]


# --- where the time goes, and replaying a statement without dimensions -----------


def _slow_hook(checker: object, seconds: float):
    def derive(name, env):
        time.sleep(seconds)
        return checker

    return derive


def test_duration_covers_deriving_when_unsupported():
    decl = Declaration(name="Test.y", kind="theorem", module="T", binders="", statement="1 = 1")
    hook = _slow_hook(Unsupported("no semantics for Test.g"), 0.05)
    env = Environment.from_declarations([decl], registry=Registry(), derive=hook)

    result = check("Test.y", env, trials=4)

    assert result.status == "unsupported"
    assert result.duration_s >= 0.05
    assert result.stats == {"derive_s": result.duration_s}


def test_duration_covers_deriving_and_checking_when_checked():
    registry = Registry()
    registry.register("Test.closed", inputs={"x": real()})(
        lambda dims, dtype: lambda v: (v["x"] * 2, v["x"] + v["x"])
    )
    decl = Declaration(
        name="Test.closed", kind="theorem", module="T", binders="", statement="x * 2 = x + x"
    )
    hook = _slow_hook(registry.get("Test.closed"), 0.05)
    env = Environment.from_declarations([decl], registry=Registry(), derive=hook)

    result = check("Test.closed", env, trials=4)

    assert result.status == "pass", result.reason
    derive_s = result.stats["derive_s"]
    assert derive_s >= 0.05
    assert result.duration_s > derive_s  # the checking itself is counted too
    assert env.derive_seconds("Test.closed") == pytest.approx(derive_s, abs=1e-6)


def test_repro_shows_inputs_and_sides_without_dimensions():
    registry = Registry()
    registry.register("Test.closed", inputs={"x": real()})(
        lambda dims, dtype: lambda v: (v["x"] * 2, v["x"] + v["x"])
    )
    env = _env(registry)

    replayed = repro("Test.closed", env, seed=3, dims={}, trial=5, trials=8)

    assert (replayed.result.status, replayed.trial, replayed.dims) == ("pass", 5, {})
    (x,) = replayed.inputs["x"]
    assert replayed.lhs == replayed.rhs == [x * 2]


def test_pin_only_the_dimensions_a_checker_has(faulty):
    # `check --dims` over several theorems hands every checker the same pins
    pinned = check("Test.fin_range", faulty, trials=4, dims={"n": 3, "zz": 5})
    alone = check("Test.fin_range", faulty, trials=4, dims={"n": 3})

    assert pinned.status == "pass", pinned.reason
    assert pinned.draws == alone.draws == [{"n": 3}]


# --- measures a registered checker may return ------------------------------------


@pytest.fixture(scope="module")
def measured() -> Environment:
    registry = Registry()

    # Σ x - Σ x in another order: ~1e-16 where the terms are ~1, not 0
    def cancelling(scale):
        def build(dims, dtype):
            def sides(v):
                x = v["x"]
                diff = jnp.sum(x) - jnp.sum(x[::-1] * 1.0000000000000002)
                if scale:
                    return diff, jnp.zeros((), x.dtype), {"scale": jnp.max(jnp.abs(x))}
                return diff, jnp.zeros((), x.dtype)

            return sides

        return build

    registry.register("Test.cancel_scaled", dims=("n",), inputs={"x": real("n")})(cancelling(True))
    registry.register("Test.cancel_bare", dims=("n",), inputs={"x": real("n")})(cancelling(False))

    @registry.register("Test.bad_measures", dims=("n",), inputs={"x": real("n")})
    def bad_measures(dims, dtype):
        return lambda v: (jnp.sum(v["x"]), jnp.sum(v["x"]), 1.0)

    return _env(registry)


def test_registered_checker_scale_allows_rounding_of_its_terms(measured):
    scaled = check("Test.cancel_scaled", measured, dims={"n": 8}, draws=1)
    assert scaled.status == "pass", scaled.reason
    assert scaled.max_abs_err is not None and scaled.max_abs_err > 0  # rounding is there
    # without the measure the sides alone are the scale: ~1e-16 against 0 is decided
    assert check("Test.cancel_bare", measured, dims={"n": 8}, draws=1).status == "fail"


def test_error_when_measures_are_not_a_mapping(measured):
    result = check("Test.bad_measures", measured, dims={"n": 2}, draws=1)
    assert result.status == "error"
    assert "must return (lhs, rhs) or (lhs, rhs, measures)" in result.reason


# --- statements of several clauses (checkers/statements/conjunction.py) -----------------


def _clauses_env(*decls: Declaration) -> Environment:
    return Environment.from_declarations(decls, registry=Registry())


def _thm(name: str, binders: str, statement: str) -> Declaration:
    return Declaration(
        name=name,
        kind="theorem",
        module="Test",
        binders=binders,
        statement=statement,
        namespace="Proofs",
    )


def test_check_conjunction_clause_by_clause_with_shared_seed_and_dims() -> None:
    env = _clauses_env(
        _thm("Proofs.both", "{n : ℕ} (v : Vec n)", "∑ i, v i = ∑ i, v i ∧ ∀ i, v i ≤ v i + 1")
    )
    r = check("Proofs.both", env, trials=8, seed=3, dims={"n": 2})
    assert r.status == "pass", r.reason
    assert r.draws == [{"n": 2}]
    assert [p["status"] for p in r.parts] == ["pass", "pass"]
    assert [p["relation"] for p in r.parts] == ["=", "≤"]
    assert all(p["nodes"] == 8 for p in r.parts)
    assert _stable(r) == _stable(check("Proofs.both", env, trials=8, seed=3, dims={"n": 2}))


def test_fail_conjunction_with_the_failing_clause_counterexample() -> None:
    env = _clauses_env(_thm("Proofs.one_false", "(x : ℝ)", "x ≤ x ∧ x < x ∧ x = x"))
    r = check("Proofs.one_false", env, trials=8)
    assert r.status == "fail"
    assert r.reason.startswith("clause 2 of 3 (x < x) fails: 8 of 8 trials violate <")
    assert r.counterexample is not None
    assert r.parts[1]["counterexample"] == r.counterexample.to_json()
    assert [p["status"] for p in r.parts] == ["pass", "fail", "pass"]


def test_report_conjunction_whose_clause_decides_nothing_as_unsupported() -> None:
    env = _clauses_env(
        _thm("Proofs.vacuous", "(x : ℝ)", "x = x ∧ (x * x < 0 → x = x + 1)"),
    )
    r = check("Proofs.vacuous", env, trials=8)
    # the second clause's hypothesis never holds: refused when derived, so the whole
    # statement is unsupported, naming the clause
    assert r.status == "unsupported"
    assert "(in clause 2 of 2: x = x + 1)" in r.reason


def test_refuse_pinned_dimension_no_clause_has() -> None:
    env = _clauses_env(_thm("Proofs.both2", "(x : ℝ)", "x = x ∧ x ≤ x"))
    r = check("Proofs.both2", env, trials=4, dims={"q": 2})
    assert r.status == "error"
    assert r.reason == "no dimension q (dimensions: none)"
