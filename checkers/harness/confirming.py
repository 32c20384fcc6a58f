"""A draw's failing trials confirmed before they count: a `fail` means the statement is false.

Some float64 failures are artefacts, not counterexamples: `Real.log (x ^ y) = y *
Real.log x` fails at x = 3, y = -746 because `3 ^ -746` underflows to 0 and
`Real.log 0 = 0`; `sigmoid a = sigmoid b → a = b` fails where both saturate at
1.0; a strict inequality fails where its sides tie within rounding. Each trial
of a float64 draw that fails, or whose sides are not finite, is therefore
evaluated again at the same inputs with arbitrary-precision intervals
(checkers/confirm), the worst first (non-finite ones before failing ones, then
by how far they fail):

- confirmed (the hypotheses held and the relation fails, exactly): the draw
  fails, with this trial as its counterexample; nothing more is examined.
- holds, or undecided at the highest precision: the trial was an artefact (or
  one float64 cannot decide). It is no evidence either way: it is left out,
  counted (`unstable`), and replaced by a fresh trial numbered after the last,
  drawn from the seed like any other (so `trial_values` and `repro` reproduce
  it). A trial whose sides were not finite and which is undecided stays an error.
- unconfirmable (a primitive without an exact rule): nothing more is examined;
  the float64 verdict stands and the reason says the counterexample is
  unconfirmed.

A closed statement (no dimensions, no inputs: every trial is the same) whose checker
decides it exactly (`decide_exactly`: checkers/exact/terms.py, in exact
arithmetic where every quantity is rational) is settled by that decision instead, in
`Session.exact`: a confirmed counterexample, or a statement that holds in every trial
(`Settled.decided`), with the exact sides in the reason. One that passed in float64 is
decided so too where that costs at most `PASSING_WORK_LIMIT` bits computed: float64
passes `1e30 + 1 = 1e30` and can pass a sum whose terms cancel.

At most `LIMIT` trials, `BUDGET_S` seconds (checked inside each trial's exact
evaluation too, between its equations) and `ROUNDS` rounds of replacements per
draw: past them the remaining failures stand, unconfirmed (checkers/harness/outcome.py:
a check whose failures are all unconfirmed for want of budget decided nothing, since
every one examined was an artefact). A passing draw
examines nothing and imports nothing (mpmath is loaded with checkers/confirm on
the first failure). Low-precision checks compare a dtype against float64, not
the statement against the reals, and are not confirmed.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from checkers.harness.verdict import representable

LIMIT = 256  # trials examined per draw
BUDGET_S = 10.0  # seconds of examining per draw
ROUNDS = 8  # rounds of replacement trials per draw
OUT_OF_BUDGET = "the examination budget ran out"
# bits an exact decision of a closed statement may compute where float64 passed it (a few
# milliseconds); where float64 failed, exact_numbers.WORK_LIMIT
PASSING_WORK_LIMIT = 1 << 22


@dataclass
class Rows:
    """A draw's evaluated trials: outputs and inputs (a leading axis of rows), whether each
    trial's hypotheses held (None: the checker has none), and each row's trial number."""

    outs: tuple[np.ndarray, ...]
    inputs: dict[str, np.ndarray]
    held: np.ndarray | None
    numbers: np.ndarray

    def __len__(self) -> int:
        return len(self.numbers)

    def keep(self, mask: np.ndarray) -> Rows:
        return Rows(
            tuple(o[mask] for o in self.outs),
            {k: v[mask] for k, v in self.inputs.items()},
            None if self.held is None else self.held[mask],
            self.numbers[mask],
        )

    def extend(self, other: Rows) -> Rows:
        return Rows(
            tuple(np.concatenate([a, b]) for a, b in zip(self.outs, other.outs, strict=True)),
            {k: np.concatenate([v, other.inputs[k]]) for k, v in self.inputs.items()},
            None
            if self.held is None or other.held is None
            else np.concatenate([self.held, other.held]),
            np.concatenate([self.numbers, other.numbers]),
        )

    def row(self, k: int) -> dict[str, np.ndarray]:
        return {n: v[k] for n, v in self.inputs.items()}


@dataclass
class Settled:
    """The rows left as evidence, and what confirming took out of them."""

    rows: Rows
    unstable: int = 0
    # of those, trials whose exact evaluation stopped at a branch no precision decided (a
    # comparison of overlapping intervals, not two sides agreeing to high precision)
    branching: int = 0
    rescaled: int = 0  # of the replacement trials
    confirmed: int | None = None  # the trial number of a confirmed counterexample
    exact: Any = None  # its exact evaluation (checkers.confirm.Exact)
    decided: Any = None  # a closed statement's exact decision that it holds (`closed_decision`)
    unconfirmed: str = ""  # why failing trials stand unconfirmed ("" when none do)
    examined: list[int] = field(default_factory=list)
    seconds: float = 0.0  # spent examining and drawing replacements
    # (finite, verdict) of `rows` where nothing was examined: the draw's judgement reuses
    # them, so that a passing draw judges its trials once
    judged: tuple[np.ndarray, Any] | None = None


def closed_decision(
    checker: Any, dims: Mapping[str, int], specs: Mapping[str, Any], work_limit: int | None = None
) -> Any:
    """The exact decision of a closed statement (no dims, no inputs) where its checker has
    one (`decide_exactly`: `confirmed`, or `holds` in every trial), else None."""
    decide = getattr(checker, "decide_exactly", None)
    if dims or specs or decide is None:
        return None
    return decide(work_limit) if work_limit is not None else decide()


def candidates(session: Any, rows: Rows) -> tuple[list[int], np.ndarray, np.ndarray, Any]:
    """The rows to examine, worst first, which rows' sides are not finite, and which are
    representable and the verdict (verdict.py) they were chosen by."""
    relation = session.relation()
    n = len(rows)
    finite = representable(rows.outs, session.dtype, relation)
    v = session.compare(rows.outs)
    held = np.ones(n, bool) if rows.held is None else rows.held
    failing = ~np.asarray(v.ok).reshape(n, -1).all(axis=1) & finite
    broken = ~finite & held
    ratio = np.asarray(v.ratio, dtype=np.float64).reshape(n, -1).max(axis=1, initial=0.0)
    order = sorted(np.flatnonzero(failing | broken), key=lambda k: (not broken[k], -ratio[k]))
    return [int(k) for k in order], broken, finite, v


def settle(
    session: Any,
    specs: Mapping[str, Any],
    dims: Mapping[str, int],
    progs: Any,
    rows: Rows,
    size: int,
) -> Settled:
    """Confirm the failing trials of a draw's `rows` (see the module)."""
    out = Settled(rows)
    order, broken, finite, v = candidates(session, rows)
    if not order and session.dtype == "float64" and len(rows.numbers):
        # a closed statement that passed in float64 is decided exactly where that is cheap:
        # float64 passes `1e30 + 1 = 1e30`, or a binomial tail summed with cancellation
        decided = closed_decision(session.checker, dims, specs, PASSING_WORK_LIMIT)
        if decided is not None and decided.holds:
            out.decided = decided
            return out
        if decided is not None:
            out.confirmed, out.exact = int(rows.numbers[0]), decided
            return out
    if not order or session.dtype != "float64":
        out.judged = (finite, v)
        return out
    start = time.perf_counter()
    try:
        _examine(session, specs, dims, progs, size, out, order, broken, start)
    finally:
        out.seconds = time.perf_counter() - start
    return out


def _examine(
    session: Any,
    specs: Mapping[str, Any],
    dims: Mapping[str, int],
    progs: Any,
    size: int,
    out: Settled,
    order: list[int],
    broken: np.ndarray,
    start: float,
) -> None:
    """`settle`'s rounds: examine, leave out, replace (updates `out`)."""
    following = int(out.rows.numbers.max()) + 1 if len(out.rows) else session.trials
    for _round in range(ROUNDS + 1):
        dropped: list[int] = []
        for k in order:
            if len(out.examined) >= LIMIT or time.perf_counter() - start > BUDGET_S:
                out.unconfirmed = OUT_OF_BUDGET
                break
            trial = int(out.rows.numbers[k])
            out.examined.append(trial)
            got = session.exact(dims, specs, out.rows.row(k), trial, start + BUDGET_S)
            if got.status == "unconfirmable":
                # past the budget inside one trial's exact evaluation, as between two
                out.unconfirmed = OUT_OF_BUDGET if getattr(got, "timed_out", False) else got.why
                break
            if got.confirmed:
                out.confirmed, out.exact = trial, got
                break
            if got.status == "holds" and getattr(got, "closed", False):
                out.decided = got  # every trial is this one: the statement holds
                break
            if got.status == "holds" or not broken[k]:
                dropped.append(k)
                out.branching += int(got.status != "holds" and got.lhs is None)
        if dropped:
            out.unstable += len(dropped)
            mask = np.ones(len(out.rows), bool)
            mask[dropped] = False
            out.rows = out.rows.keep(mask)
        if out.confirmed is not None or out.unconfirmed or not dropped or _round == ROUNDS:
            break
        fresh, rescaled = replacements(session, specs, dims, progs, following, len(dropped), size)
        following += len(dropped)
        out.rescaled += rescaled
        before = len(out.rows)
        out.rows = out.rows.extend(fresh)
        order, broken, _, _ = candidates(session, out.rows)
        order = [k for k in order if k >= before]  # only the fresh trials are new


def replacements(
    session: Any,
    specs: Mapping[str, Any],
    dims: Mapping[str, int],
    progs: Any,
    first: int,
    count: int,
    size: int,
) -> tuple[Rows, int]:
    """`count` fresh trials numbered from `first`, each evaluated in the fixed batch of
    `size` consecutive trials it belongs to, as `Session.trial_values` (repro) evaluates
    it again."""
    parts: list[Rows] = []
    rescaled = 0
    end = first + count
    for start in range(first - first % size, end, size):
        lo, hi = max(first, start) - start, min(end, start + size) - start
        batch, outs, held, redo = session.evaluate_batch(
            specs, dims, progs, range(start, start + size)
        )
        rescaled += int(redo[lo:hi].sum())
        parts.append(
            Rows(
                tuple(o[lo:hi] for o in outs),
                {k: v[lo:hi] for k, v in batch.items()},
                None if held is None else held[lo:hi],
                np.arange(start + lo, start + hi),
            )
        )
    rows = parts[0]
    for p in parts[1:]:
        rows = rows.extend(p)
    return rows, rescaled
