"""A checker's dims draws evaluated and judged, and its single trials evaluated again.

`Session` is one checker at one seed, trial count and dtype; it implements
`shrink.Probe`. It evaluates trials in batches (batches.py); here each dims draw's
trials are evaluated, confirmed and judged into a `DrawOutcome`, and single trials are
evaluated again for counterexamples, `repro` and shrinking.

A float64 trial that fails, or whose sides are not finite, counts only once the
same program evaluated exactly at its inputs confirms it (checkers/harness/confirming.py):
one that holds there was a float artefact, counted (`DrawOutcome.unstable_trials`)
and replaced by a fresh trial numbered after the last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from checkers.core import REAL, InputSpec, locate_nonfinite
from checkers.harness.batches import Batches, round_to
from checkers.harness.confirming import Rows, closed_decision, settle
from checkers.harness.interpreted import trace_trial
from checkers.harness.programs import batch_size
from checkers.harness.refill import refill
from checkers.harness.reporting import explain, format_dims
from checkers.harness.shrink import Failure
from checkers.harness.verdict import representable
from checkers.tolerance import numpy_dtype


@dataclass
class DrawOutcome:
    """What one dims draw's trials came to: counts, the worst trial, the times spent."""

    dims: dict[str, int]
    evaluated: int = 0
    vacuous: str | None = None
    vacuous_trials: int = 0  # trials where the checker's per-trial hypotheses failed
    rescaled_trials: int = 0  # trials drawn again at scale 1: not finite at their stress scale
    refilled_trials: int = 0  # fresh trials drawn for vacuous ones (refill.py)
    premise_failed: bool = False  # vacuous: those hypotheses held in none of the trials
    max_abs: float = 0.0
    max_rel: float = 0.0
    worst_ratio: float = 0.0
    worst_trial: int | None = None
    worst_index: tuple[int, ...] | None = None
    failing_trials: int = 0
    tied_trials: int = 0  # an inequality's sides agree within the tolerance
    undecided_trials: int = 0  # ... of a strict one, in a trial that underflowed
    unstable_trials: int = 0  # failed in float64, not at high precision: left out, replaced
    branching_trials: int = 0  # of those, stopped at a branch no precision decided
    confirmed_trial: int | None = None  # a counterexample the exact evaluation confirmed
    exact: Any = None  # that evaluation (checkers.confirm.Exact)
    decided: Any = None  # a closed statement decided exactly to hold (confirming.py)
    unconfirmed: str = ""  # why the failing trials stand unconfirmed ("" when none do)
    examined: int = 0  # trials evaluated exactly
    confirm_s: float = 0.0  # seconds evaluating them and drawing their replacements
    nonfinite: str | None = None
    nonfinite_trial: int | None = None
    nonfinite_index: tuple[int, ...] | None = None
    compile_s: float = 0.0
    load_s: float = 0.0
    compile_wait_s: float = 0.0
    run_s: float = 0.0
    sample_s: float = 0.0

    def stats(self) -> dict[str, Any]:
        return {
            "dims": dict(self.dims),
            "trials": self.evaluated,
            "failing_trials": self.failing_trials,
            "max_abs_err": self.max_abs,
            "compile_s": round(self.compile_s, 6),
            "load_s": round(self.load_s, 6),
            "compile_wait_s": round(self.compile_wait_s, 6),
            "run_s": round(self.run_s, 6),
            "sample_s": round(self.sample_s, 6),
            **({"vacuous_trials": self.vacuous_trials} if self.vacuous_trials else {}),
            **({"rescaled_trials": self.rescaled_trials} if self.rescaled_trials else {}),
            **({"refilled_trials": self.refilled_trials} if self.refilled_trials else {}),
            **({"tied_trials": self.tied_trials} if self.tied_trials else {}),
            **({"undecided_trials": self.undecided_trials} if self.undecided_trials else {}),
            **({"unstable_trials": self.unstable_trials} if self.unstable_trials else {}),
            **({"branching_trials": self.branching_trials} if self.branching_trials else {}),
            **(
                {"examined_trials": self.examined, "confirm_s": round(self.confirm_s, 6)}
                if self.examined
                else {}
            ),
            **({"vacuous": self.vacuous} if self.vacuous else {}),
            **({"nonfinite": self.nonfinite} if self.nonfinite else {}),
        }


@dataclass
class Session(Batches):
    """One checker at one seed, trial count and dtype: its draws, and its single trials."""

    # a trial evaluated exactly (confirming.py)

    def exact(
        self,
        dims: Mapping[str, int],
        specs: Mapping[str, InputSpec],
        inputs: Mapping[str, Any],
        trial: int,
        deadline: float | None = None,
    ) -> Any:
        """One trial evaluated exactly (checkers.confirm.Exact): the program of one trial,
        traced once per dims, at the trial's inputs; past `deadline` (a perf_counter
        time) it stops, unconfirmable (`timed_out`)."""
        from checkers.confirm import UNCONFIRMABLE, Exact, examine

        # a closed statement's every trial is one: decided in exact arithmetic where it can be
        decided = closed_decision(self.checker, dims, specs)
        if decided is not None:
            return decided
        key = tuple(sorted(dims.items()))
        closed = self._traces.get(key)
        if closed is None:
            try:
                closed = trace_trial(self.checker, dict(dims), specs)
            except Exception as e:
                return Exact(UNCONFIRMABLE, why=f"tracing it failed: {explain(e)}")
            self._traces[key] = closed
        lane = trial % batch_size(specs, self.trials)
        args = [np.asarray(inputs[n]) for n in sorted(specs)] + [np.int64(lane)]
        return examine(closed, args, self.relation(), deadline)

    # draws

    def _nonfinite_reason(
        self,
        dims: Mapping[str, int],
        trial: int,
        outs: Sequence[np.ndarray],
        lane: int,
        inputs: dict[str, np.ndarray],
    ) -> tuple[str, tuple[int, ...]]:
        names = (
            ["lhs", "rhs"]
            if self.dtype == "float64"
            else [
                f"lhs in {self.dtype}",
                f"rhs in {self.dtype}",
                "lhs in float64",
                "rhs in float64",
            ]
        )
        bad_sides = []
        index: tuple[int, ...] = ()
        for name, arr in zip(names, outs, strict=False):
            values = arr[lane]
            bad = ~np.isfinite(values)
            if bad.any():
                where = tuple(int(i) for i in np.argwhere(bad)[0])
                kind = "NaN" if np.isnan(values[where]) else "infinite"
                bad_sides.append(
                    f"{name} is {kind}" + (f" at index {list(where)}" if where else "")
                )
                index = index or where
        low_only = self.dtype != "float64" and all(np.isfinite(o[lane]).all() for o in outs[2:])
        if low_only:
            low = numpy_dtype(self.dtype)
            specs = self.specs(dims)
            inputs = {k: (v.astype(low) if specs[k].kind == REAL else v) for k, v in inputs.items()}
        try:
            located = locate_nonfinite(self.checker, dims, inputs)
            where_text = (
                f"subterm {located}" if located else "the checker could not name the subterm"
            )
        except Exception as e:
            where_text = f"locating the subterm raised {explain(e)}"
        reason = (
            f"non-finite value at dims {format_dims(dims)}, trial {trial}: "
            f"{'; '.join(bad_sides)}; {where_text}"
        )
        return reason, index

    def run_draw(self, dims: dict[str, int]) -> DrawOutcome:
        draw = DrawOutcome(dict(dims))
        before = dict(self.totals)
        specs = self.specs(dims)
        empty = [n for n, s in specs.items() if s.empty]
        if empty:
            draw.vacuous = (
                f"{', '.join(empty)} {'has' if len(empty) == 1 else 'have'} no possible value "
                f"at dims {format_dims(dims)}"
            )
            return draw
        for dtype in self._dtypes():  # compile in the background while the inputs are drawn
            self._start(dims, specs, dtype)
        size = batch_size(specs, self.trials)
        first = self.sample(specs, dims, range(0, size))
        progs = self.programs(dims, specs)
        parts: list[tuple[np.ndarray, ...]] = []
        held: list[np.ndarray] = []
        inputs: list[dict[str, np.ndarray]] = []
        for start in range(0, self.trials, size):
            trials = range(start, start + size)
            drawn = first if start == 0 else None
            batch, outs, lane_held, redo = self.evaluate_batch(specs, dims, progs, trials, drawn)
            keep = min(size, self.trials - start)
            parts.append(tuple(o[:keep] for o in outs))
            inputs.append({k: v[:keep] for k, v in batch.items()})
            draw.rescaled_trials += int(redo[:keep].sum())
            if lane_held is not None:
                held.append(lane_held[:keep])
        outs = tuple(np.concatenate([p[k] for p in parts]) for k in range(len(parts[0])))
        holds = np.concatenate(held) if held else None
        if holds is not None:
            draw.vacuous_trials = int((~holds).sum())
            if not holds.any():
                names = getattr(self.checker, "premises", ()) or ("of the statement",)
                draw.vacuous = (
                    f"the hypothesis {', '.join(f'`{p}`' for p in names)} held in none of "
                    f"the {self.trials} trials at dims {format_dims(dims)}"
                )
                draw.premise_failed = True
                return draw
        joined = {k: np.concatenate([b[k] for b in inputs]) for k in inputs[0]}
        rows = Rows(outs, joined, holds, np.arange(self.trials))
        if holds is not None and not holds.all():
            rows, redrawn = refill(self, specs, dims, progs, rows, size)
            draw.refilled_trials = len(rows) - self.trials
            draw.rescaled_trials += redrawn
        settled = settle(self, specs, dims, progs, rows, size)
        rows, outs = settled.rows, settled.rows.outs
        self._judge(draw, dims, rows, settled)
        for k in ("compile_s", "load_s", "compile_wait_s", "run_s", "sample_s"):
            setattr(draw, k, self.totals[k] - before[k])
        return draw

    def _judge(self, draw: DrawOutcome, dims: Mapping[str, int], rows: Rows, settled: Any) -> None:
        """The draw's verdict on the trials left as evidence (`rows`, after confirming)."""
        outs = rows.outs
        draw.unstable_trials = settled.unstable
        draw.branching_trials = settled.branching
        draw.examined = len(settled.examined)
        draw.confirm_s = settled.seconds
        draw.rescaled_trials += settled.rescaled
        draw.evaluated = len(rows)
        if rows.held is not None:
            draw.vacuous_trials = int((~rows.held).sum())
        if not len(rows):
            draw.worst_trial, draw.worst_index = None, ()
            return
        if settled.decided is not None:  # every trial holds, decided exactly
            draw.decided = settled.decided
            draw.worst_trial, draw.worst_index = int(rows.numbers[0]), ()
            return
        sides = self.split(outs)[0]
        if settled.judged is not None:
            finite, v = settled.judged
        else:
            finite, v = representable(outs, self.dtype, self.relation()), self.compare(outs)
        if not finite.all() and settled.confirmed is None:
            t = int(np.argmin(finite))
            draw.nonfinite, draw.nonfinite_index = self._nonfinite_reason(
                dims, int(rows.numbers[t]), sides, t, rows.row(t)
            )
            draw.nonfinite_trial = int(rows.numbers[t])
        mask = finite.reshape((-1,) + (1,) * (v.abs_err.ndim - 1))
        abs_err = np.where(mask, v.abs_err, 0.0)
        rel_err = np.where(mask, v.rel_err, 0.0)
        ratio = np.where(mask, v.ratio, 0.0)
        ok = v.ok | ~mask
        if abs_err.size:
            draw.max_abs = float(abs_err.max())
            draw.max_rel = float(rel_err.max())
            flat = int(np.argmax(ratio))
            where = np.unravel_index(flat, ratio.shape)
            draw.worst_ratio = float(ratio.reshape(-1)[flat])
            draw.worst_trial = int(rows.numbers[where[0]])
            draw.worst_index = tuple(int(i) for i in where[1:])
            n = len(rows)
            draw.failing_trials = int((~ok.reshape(n, -1).all(axis=1)).sum())
            per_trial = (v.tied & mask).reshape(n, -1).any(axis=1)
            draw.tied_trials = int(per_trial.sum())
            undecided = (v.undecided & mask).reshape(n, -1).any(axis=1)
            draw.undecided_trials = int(undecided.sum())
        else:
            draw.worst_trial, draw.worst_index = int(rows.numbers[0]), ()
        if settled.confirmed is not None:  # the confirmed trial is the counterexample
            k = int(np.flatnonzero(rows.numbers == settled.confirmed)[0])
            draw.confirmed_trial, draw.exact = settled.confirmed, settled.exact
            draw.worst_trial = settled.confirmed
            if finite[k] and ratio[k].size:
                draw.worst_index = tuple(
                    int(i) for i in np.unravel_index(np.argmax(ratio[k]), ratio[k].shape)
                )
                draw.worst_ratio = max(draw.worst_ratio, float(ratio[k].max()))
            else:  # its sides were not finite in float64
                draw.worst_index = ()
                draw.worst_ratio = float("inf")
                draw.failing_trials += 1
            if getattr(settled.exact, "closed", False):  # decides every trial alike
                draw.failing_trials = draw.evaluated
        elif draw.failing_trials:
            draw.unconfirmed = settled.unconfirmed

    # values of single trials (counterexamples, repro, shrinking)

    def trial_values(
        self, dims: Mapping[str, int], trial: int
    ) -> tuple[dict[str, np.ndarray], tuple[np.ndarray, ...]]:
        """A trial's inputs and outputs, from the very batch the check evaluated it in."""
        specs = self.specs(dims)
        progs = self.programs(dims, specs)
        size = progs[0].batch
        start = (trial // size) * size
        batch, outs, _, _ = self.evaluate_batch(specs, dims, progs, range(start, start + size))
        lane = trial - start
        return {k: v[lane] for k, v in batch.items()}, tuple(o[lane] for o in outs)

    def evaluate_inputs(
        self, dims: Mapping[str, int], candidates: Sequence[Mapping[str, Any]]
    ) -> list[tuple[np.ndarray, ...]]:
        """Outputs for explicitly given inputs, in batches of the compiled program."""
        specs = self.specs(dims)
        progs = self.programs(dims, specs)
        size = progs[0].batch
        rows: list[tuple[np.ndarray, ...]] = []
        for start in range(0, len(candidates), size):
            chunk = list(candidates[start : start + size])
            padded = chunk + [chunk[0]] * (size - len(chunk))
            batch = {}
            for n, s in specs.items():
                kind = np.float64 if s.kind == REAL else np.int64
                batch[n] = np.stack([np.asarray(c[n], dtype=kind).reshape(s.shape) for c in padded])
            outs = self.run(progs, round_to(self.dtype, specs, batch))
            rows.extend(tuple(o[i] for o in outs) for i in range(len(chunk)))
        return rows

    def failure(
        self, dims: Mapping[str, int], trial: int, inputs: dict[str, np.ndarray], outs: Any
    ) -> Failure | None:
        if not all(np.isfinite(o).all() for o in outs):
            return None
        v = self.compare([o[None] for o in outs])
        ratio, ok = v.ratio, v.ok
        if ok.all():
            return None
        flat = int(np.argmax(ratio))
        where = np.unravel_index(flat, ratio.shape)
        lhs, rhs = self.shown(outs)
        return Failure(
            dict(dims),
            trial,
            inputs,
            lhs,
            rhs,
            tuple(int(i) for i in where[1:]),
            float(ratio.reshape(-1)[flat]),
        )

    # shrink.Probe

    def failure_at(self, dims: Mapping[str, int]) -> Failure | None:
        draw = self.run_draw(dict(dims))
        if draw.nonfinite or not draw.failing_trials or draw.worst_trial is None:
            return None
        inputs, outs = self.trial_values(dims, draw.worst_trial)
        return self.failure(dims, draw.worst_trial, inputs, outs)

    def failures_with(
        self, dims: Mapping[str, int], candidates: Sequence[dict[str, np.ndarray]], trial: int
    ) -> list[Failure | None]:
        rows = self.evaluate_inputs(dims, candidates)
        return [self.failure(dims, trial, c, o) for c, o in zip(candidates, rows, strict=True)]
