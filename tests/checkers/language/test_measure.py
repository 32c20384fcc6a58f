"""The scale a trial is compared at is the same however its operands are measured.

For NumPy's interpreter the meter measures the operands of additions together (one
flat array per group), for XLA one by one; both give the largest finite magnitude of
any operand, and the grouped form traces a fraction of the operations.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from derived_support import environment, theorem

from checkers.harness.interpreted import trace_trial
from checkers.harness.trials import trial_function
from checkers.language import measure
from checkers.language.measure import PENDING_ELEMENTS, PENDING_OPERANDS, Meter

SHAPES = [(), (3,), (2, 4), (0,), (5, 1, 2), (), (7,)]


def _operands(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    xs = [rng.normal(size=s) * 10.0 ** rng.integers(-3, 4) for s in SHAPES]
    xs[2][1, 3] = np.inf  # left out: the sides are non-finite, reported on their own
    xs[4][0, 0, 1] = np.nan
    xs[6][2] = -np.inf
    return xs


def _reference(xs: list[np.ndarray]) -> float:
    a = np.abs(np.concatenate([x.ravel() for x in xs]))
    return float(np.max(a[np.isfinite(a)]))


def _scale_fn(together: bool, dtype=jnp.float64):
    def fn(*xs):
        meter = Meter(underflow=False, together=together)
        meter.operands(*(x.astype(dtype) for x in xs))
        return meter.scale()

    return fn


@pytest.mark.parametrize("together", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scale_is_the_largest_finite_magnitude(together, seed):
    xs = _operands(seed)
    got = float(jax.jit(_scale_fn(together))(*xs))
    assert got == _reference(xs)


def test_low_precision_operands_are_measured_in_float64():
    xs = [np.array([1e30, -3.0]), np.array([[2.5]])]
    together = float(jax.jit(_scale_fn(True, jnp.float32))(*xs))
    alone = float(jax.jit(_scale_fn(False, jnp.float32))(*xs))
    assert together == alone == float(np.float32(1e30))


def _equations(fn, *xs) -> list[str]:
    return [e.primitive.name for e in jax.make_jaxpr(fn)(*xs).jaxpr.eqns]


def test_measured_together_traces_a_fraction_of_the_operations():
    xs = [np.ones((3,))] * 40
    together = _equations(_scale_fn(True), *xs)
    alone = _equations(_scale_fn(False), *xs)
    assert len(alone) >= 5 * len(xs)  # |x|, finite?, zeros, select, max: for each
    assert len(together) < 60
    assert together.count("concatenate") == 1
    assert "concatenate" not in alone


def test_what_waits_to_be_measured_is_bounded():
    # by the number of operands ...
    many = [np.ones(()) for _ in range(2 * PENDING_OPERANDS + 2)]
    assert _equations(_scale_fn(True), *many).count("concatenate") == 3
    # ... and by their entries: a large operand is measured with those before it
    big = [np.ones((3,)), np.ones((PENDING_ELEMENTS,)), np.ones((3,)), np.ones((4,))]
    assert _equations(_scale_fn(True), *big).count("concatenate") == 2


def test_a_host_constant_adds_no_operation():
    def fn(x):
        meter = Meter(together=True)
        meter.operands(np.array([3.0, -np.inf, -4.0]))  # measured by NumPy, not traced
        assert not meter._pending and isinstance(meter._scales[0], np.ndarray | np.generic)
        return x

    assert jax.make_jaxpr(fn)(np.ones(2)).jaxpr.eqns == []
    meter = Meter(together=True)
    meter.operands(np.array([3.0, -np.inf, -4.0]))
    assert float(meter.scale()) == 4.0
    assert measure.magnitude(np.zeros((0,))) == 0.0


def test_programs_for_xla_measure_one_by_one_and_for_numpy_together():
    env = environment(
        theorem(
            "Proofs.sums", "(n : ℕ) (x y : Fin n → ℝ)", "∑ i, (x i + y i) = ∑ i, x i + ∑ i, y i"
        )
    )
    checker = env.resolve("Proofs.sums")
    dims = {"n": 3}
    specs = checker.input_specs(dims)
    abstract = {k: jax.ShapeDtypeStruct(s.shape, jnp.float64) for k, s in specs.items()}
    lane = jax.ShapeDtypeStruct((), jnp.int64)
    interpreted = [e.primitive.name for e in trace_trial(checker, dims, specs).jaxpr.eqns]
    one = trial_function(checker, dims, "float64", specs, compiled=True)
    with jax.disable_jit():
        compiled = [e.primitive.name for e in jax.make_jaxpr(one)(abstract, lane).jaxpr.eqns]
    assert "concatenate" in interpreted
    assert "concatenate" not in compiled
    assert compiled.count("reduce_max") > interpreted.count("reduce_max")
