"""Shrinking a failure: the smallest dimensions, then the simplest inputs, that still fail.

Greedy and per variable, like Hypothesis and Lean's Plausible. First each free
dimension in turn takes the smallest value (from 1 up, or from its own lowest
value: a list's length from 0) at which a full run of
the same trials still fails, repeated until no dimension moves. Then, at those
dimensions, each input of the worst failing trial is replaced by the first of
a few simpler values (zeros, ones, small integers; index 0; the lowest
natural number; integers nearer 0) that keeps the trial failing. The candidates for one input are
evaluated together in one batch of the already compiled program. The report
names every step.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from checkers.core import FIN, INDEX_MAP, INT, NAT, REAL, DimConstraint, InputSpec
from checkers.inputs.sampling import satisfies


@dataclass(frozen=True)
class Failure:
    """One failing trial: its dims, trial number, inputs, shown sides and worst entry."""

    dims: dict[str, int]
    trial: int
    inputs: dict[str, np.ndarray]
    lhs: np.ndarray
    rhs: np.ndarray
    worst_index: tuple[int, ...]
    ratio: float


class Probe(Protocol):
    """What shrinking needs from the harness."""

    def specs(self, dims: Mapping[str, int]) -> dict[str, InputSpec]: ...

    def failure_at(self, dims: Mapping[str, int]) -> Failure | None:
        """Run the usual trials at these dims; the worst failing trial, if any."""
        ...

    def failures_with(
        self, dims: Mapping[str, int], candidates: Sequence[dict[str, np.ndarray]], trial: int
    ) -> list[Failure | None]:
        """Evaluate given inputs at these dims; for each, the failure it shows, if any."""
        ...


@dataclass(frozen=True)
class Shrunk:
    failure: Failure
    steps: tuple[str, ...]
    inputs_simplified: bool
    complete: bool

    @property
    def shrunk(self) -> bool:
        return bool(self.steps)

    @property
    def note(self) -> str:
        if not self.steps:
            text = "not shrunk: no smaller dims or simpler inputs fail"
        else:
            text = "shrunk " + "; ".join(self.steps)
        if not self.complete:
            text += " (stopped at the shrinking time limit)"
        return text


def _simpler(spec: InputSpec, value: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """Simpler values for one input, most preferred first, each different from `value`."""
    options: list[tuple[str, np.ndarray]] = []
    if spec.kind == REAL:
        rounded = np.clip(np.round(value), -3, 3) + 0.0  # + 0.0: no negative zeros
        if spec.constraint == "positive":
            rounded = np.where(rounded <= 0, 1.0, rounded)
        elif spec.constraint == "nonzero":
            rounded = np.where(rounded == 0, 1.0, rounded)
        elif spec.constraint == "nonnegative":
            rounded = np.abs(rounded)
        # each entry's sign: a tiny drawn value (a lopsided trial) keeps its sign at ±1
        signs = np.sign(value) + 0.0
        options = [
            ("zeros", np.zeros(spec.shape)),
            ("ones", np.ones(spec.shape)),
            ("small integers", rounded.astype(np.float64)),
            ("signs", signs),
        ]
        options = [(label, v) for label, v in options if satisfies(v, spec.constraint)]
    elif spec.kind == FIN:
        options = [(str(k), np.asarray(k, dtype=np.int64)) for k in range(int(value))]
    elif spec.kind == NAT:
        options = [(str(k), np.asarray(k, dtype=np.int64)) for k in range(spec.lo, int(value))]
    elif spec.kind == INT:
        options = _simpler_integers(spec, np.asarray(value, dtype=np.int64))
    elif spec.kind == INDEX_MAP:
        options = [("zeros", np.zeros(spec.shape, dtype=np.int64))]
    return [(label, v) for label, v in options if not np.array_equal(v, value)]


def _simpler_integers(spec: InputSpec, value: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """Integers nearer 0 within `lo..hi`: each one nearer than a scalar's value, or an
    array's zeros, ones, minus ones and signs."""
    assert spec.hi is not None
    lo, hi = spec.lo, spec.hi
    if not spec.shape:
        near = sorted(range(lo, hi + 1), key=lambda k: (abs(k), k < 0))
        return [(str(k), np.asarray(k, dtype=np.int64)) for k in near if abs(k) < abs(int(value))]
    options = [
        ("zeros", np.zeros(spec.shape, dtype=np.int64)),
        ("ones", np.ones(spec.shape, dtype=np.int64)),
        ("minus ones", -np.ones(spec.shape, dtype=np.int64)),
        ("signs", np.sign(value).astype(np.int64)),
    ]
    return [(label, v) for label, v in options if v.size == 0 or (lo <= v.min() and v.max() <= hi)]


_INPUT_PASSES = 3


def _dims_steps(before: Mapping[str, int], after: Mapping[str, int]) -> list[str]:
    return [f"{d} {before[d]}→{after[d]}" for d in before if after.get(d, before[d]) != before[d]]


def shrink(
    probe: Probe,
    failure: Failure,
    *,
    free: Sequence[str],
    constraints: Sequence[DimConstraint] = (),
    budget_s: float = 60.0,
    low: int = 1,
    lows: Mapping[str, int] | None = None,
) -> Shrunk:
    """Shrink `failure` (see the module docstring); stops cleanly when `budget_s` runs out."""
    deadline = time.perf_counter() + budget_s
    current = failure
    complete = True

    changed = True
    while changed and complete:
        changed = False
        for d in free:
            for v in range(min(low, (lows or {}).get(d, low)), current.dims[d]):
                if time.perf_counter() > deadline:
                    complete = False
                    break
                candidate = {**current.dims, d: v}
                if not all(c.holds(candidate) for c in constraints):
                    continue
                found = probe.failure_at(candidate)
                if found is not None:
                    current = found
                    changed = True
                    break
            if not complete:
                break
    steps = _dims_steps(failure.dims, current.dims)

    specs = probe.specs(current.dims)
    chosen: dict[str, str] = {}
    for _ in range(_INPUT_PASSES):
        changed = False
        for name, spec in specs.items():
            if time.perf_counter() > deadline:
                complete = False
                break
            options = _simpler(spec, current.inputs[name])
            if not options:
                continue
            candidates = [{**current.inputs, name: v} for _, v in options]
            results = probe.failures_with(current.dims, candidates, current.trial)
            for (label, _), found in zip(options, results, strict=True):
                if found is not None:
                    current = found
                    chosen[name] = label
                    changed = True
                    break
        if not changed or not complete:
            break
    steps += [f"{name} → {label}" for name, label in chosen.items()]
    return Shrunk(current, tuple(steps), bool(chosen), complete)
