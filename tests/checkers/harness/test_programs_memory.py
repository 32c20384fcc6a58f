"""Programs whose memory would be large: NumPy does not evaluate what XLA fuses, and a
program whose scratch memory is over the budget runs its batch in parts."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest

from checkers.core import InputSpec
from checkers.harness import interpreted, programs
from checkers.harness.programs import Program


def test_a_program_compiled_for_a_part_runs_the_whole_batch_in_parts() -> None:
    calls: list[int] = []

    def fn(inputs: dict[str, Any], lanes: Any) -> tuple[Any, ...]:
        calls.append(len(lanes))
        return (inputs["x"] * 2, inputs["x"].sum(axis=1))

    x = np.arange(24.0).reshape(8, 3)
    prog = Program(None, 2, fn, 0.0, outer=8)
    doubled, sums = prog({"x": x})
    assert calls == [2, 2, 2, 2]
    np.testing.assert_array_equal(doubled, x * 2)
    np.testing.assert_array_equal(sums, x.sum(axis=1))


def _compiled(temp: int) -> Any:
    return SimpleNamespace(memory_analysis=lambda: SimpleNamespace(temp_size_in_bytes=temp))


def test_the_part_is_the_largest_power_of_two_that_fits_the_budget() -> None:
    budget = programs.TEMP_BUDGET_BYTES
    assert programs._part_batch(_compiled(budget), 64) == 64
    assert programs._part_batch(_compiled(budget * 4), 64) == 16
    assert programs._part_batch(_compiled(budget * 5), 64) == 8
    assert programs._part_batch(_compiled(budget * 1000), 64) == 1
    assert programs._part_batch(SimpleNamespace(), 64) == 64  # no analysis: as compiled


def test_a_part_program_runs_fewer_trials_than_its_whole_batch_directly() -> None:
    # a single trial replayed (repro, shrinking) comes in batches of the part
    prog = Program(None, 2, lambda inputs, lanes: (inputs["x"] + 1,), 0.0, outer=8)
    (out,) = prog({"x": np.zeros((2, 3))})
    assert out.shape == (2, 3)


class _Square:
    """A checker whose one trial makes an n x n value (x xᵀ) from an input of n numbers."""

    def __init__(self, n: int) -> None:
        self.n = n

    def build(self, dims: Any, dtype: Any) -> Any:
        def fn(inputs: dict[str, Any]) -> tuple[Any, Any]:
            x = inputs["x"]
            return jnp.outer(x, x).sum(), jnp.sum(x) ** 2

        return fn


def _interpreted(n: int, batch: int) -> Program | None:
    specs = {"x": InputSpec.real((n,))}
    return programs.interpreted_program(_Square(n), {}, "float64", specs, batch)


def test_the_interpreter_bounds_one_trial_and_runs_a_batch_a_few_trials_at_a_time(
    monkeypatch,
) -> None:
    monkeypatch.setenv(interpreted.INTERPRET_VARIABLE, "1")
    # 512 x 512 a trial, 4.2e6 numbers over 16 trials: interpreted, in groups of trials
    prog = _interpreted(512, 16)
    assert prog is not None and prog.source == "interpreted"
    x = np.random.default_rng(0).normal(size=(16, 512))
    lhs, rhs = prog({"x": x})[:2]
    np.testing.assert_allclose(lhs, x.sum(axis=1) ** 2, rtol=1e-12)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12)
    # one trial's value past 2^21 numbers is left to XLA, which fuses it away
    assert _interpreted(1500, 1) is None
    # and so is a trial whose values at once pass the byte bound
    monkeypatch.setattr(interpreted, "INTERPRET_MAX_TRIAL_BYTES", 512 * 512 * 8 - 1)
    assert _interpreted(512, 1) is None


def test_compilations_run_on_the_threads_set_for_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(programs, "_COMPILE_THREADS", None)
    monkeypatch.setattr(programs, "_POOL", None)
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert programs.compile_workers() == 4  # one per core, at most 4
    first = programs._pool()
    assert first._max_workers == 4
    programs.set_compile_threads(1)
    assert programs.compile_workers() == 1
    second = programs._pool()
    assert second is not first and second._max_workers == 1
    assert first._shutdown  # the old pool takes no more work
    second.shutdown()
    with pytest.raises(ValueError, match="at least 1"):
        programs.set_compile_threads(0)
