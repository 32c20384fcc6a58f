"""Evaluating a checker: batches of trials, comparisons, single trials.

Programs come from `programs`: each (checker, dims, dtype, batch size) is
compiled once and cached, and stored on disk where a cache directory is set.
Inputs are sampled in numpy and compared in numpy: nothing else is compiled. A
low-precision mode runs two programs on the same inputs, rounded to the dtype:
the dtype's and the float64 reference (which a float64 check of the same dims
has usually compiled already).

`Session.prepare` traces the programs of every dims draw of a check one after
another, so that XLA compiles the earlier ones in worker threads while the
later ones are traced, and inputs are drawn while a program compiles.

Overflow at a stressed scale. Over ℝ nothing overflows, but a trial drawn at
scale 10 or 1e3 (sampling.py) can make float64 overflow on both sides of a
true statement (`Real.exp` of a large input). A trial at a scale other than 1
whose sides are not all finite is therefore drawn again, same trial number,
and counted (`DrawOutcome.rescaled_trials`): a trial at 1e3 first at
`FALLBACK_SCALE` (10), where a softmax or a sigmoid still saturates and float64
holds the sides (a statement false only where attention saturates fails only
there), and, if that overflows too, at scale 1; any other at scale 1. The rule
depends only on the trial's own inputs, so `trial_values` (repro,
counterexamples) re-draws exactly the trials the check re-drew. Non-finite sides
at scale 1 remain an error naming the subterm.

A float64 trial that fails, or whose sides are not finite, counts only once the
same program evaluated exactly at its inputs confirms it (checkers/harness/confirming.py):
one that holds there was a float artefact, counted (`DrawOutcome.unstable_trials`)
and replaced by a fresh trial numbered after the last.

`Session` is one checker at one seed, trial count and dtype; it implements
`shrink.Probe`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from checkers.core import REAL, InputSpec, Unevaluable, locate_nonfinite
from checkers.harness.confirming import Rows, closed_decision, settle
from checkers.harness.interpreted import trace_trial
from checkers.harness.programs import (
    PendingCompile,
    Program,
    ProgramKey,
    batch_size,
    recompile,
    trace_program,
)
from checkers.harness.shrink import Failure
from checkers.harness.trials import BeyondChecker, CheckerFault
from checkers.harness.verdict import Verdict, judge, representable, split_outputs, strict_ties
from checkers.inputs.regimes import regimes
from checkers.inputs.sampling import draw_key, fin_plan, sample_batch, trial_scales
from checkers.tolerance import RELATIONS, Tolerance, numpy_dtype

# a trial lost at a larger stress scale is drawn again here first (see the module)
FALLBACK_SCALE = 10.0


def explain(e: BaseException) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    text = text if len(text) <= 400 else text[:400] + "…"
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def format_dims(dims: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in dims.items()) or "no dims"


@contextmanager
def _building(dims: Mapping[str, int]) -> Iterator[None]:
    """Anything but a CheckerFault raised while building a program becomes one, naming dims."""
    try:
        yield
    except CheckerFault:
        raise
    except Unevaluable as e:
        raise BeyondChecker(
            f"the statement cannot be evaluated at dims {format_dims(dims)}: {explain(e)}"
        ) from e
    except Exception as e:
        raise CheckerFault(
            f"building the JAX program failed at dims {format_dims(dims)}: {explain(e)}"
        ) from e


def to_list(value: Any) -> list[Any]:
    arr = np.asarray(value)
    if arr.dtype.kind not in "biu":
        arr = arr.astype(np.float64)
    out = arr.tolist()
    return out if isinstance(out, list) else [out]


def round_to(
    dtype: str, specs: Mapping[str, InputSpec], batch: Mapping[str, Any]
) -> dict[str, Any]:
    """Real inputs rounded to `dtype` (and held as float64): the values a low-precision run uses."""
    if dtype == "float64":
        return dict(batch)
    target = numpy_dtype(dtype)
    return {
        k: (np.asarray(v).astype(target).astype(np.float64) if specs[k].kind == REAL else v)
        for k, v in batch.items()
    }


# --- one session: a checker at one seed, trial count and dtype ---------------


@dataclass
class DrawOutcome:
    dims: dict[str, int]
    evaluated: int = 0
    vacuous: str | None = None
    vacuous_trials: int = 0  # trials where the checker's per-trial hypotheses failed
    rescaled_trials: int = 0  # trials drawn again at scale 1: not finite at their stress scale
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
            **({"tied_trials": self.tied_trials} if self.tied_trials else {}),
            **({"undecided_trials": self.undecided_trials} if self.undecided_trials else {}),
            **({"unstable_trials": self.unstable_trials} if self.unstable_trials else {}),
            **(
                {"examined_trials": self.examined, "confirm_s": round(self.confirm_s, 6)}
                if self.examined
                else {}
            ),
            **({"vacuous": self.vacuous} if self.vacuous else {}),
            **({"nonfinite": self.nonfinite} if self.nonfinite else {}),
        }


@dataclass
class Session:
    checker: Any
    trials: int
    seed: int
    dtype: str
    tol: Tolerance
    compiled: int = 0
    loaded: int = 0
    interpreted: int = 0
    held: np.ndarray | None = None  # per trial of the last `run`: its hypotheses held
    totals: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(
            ("compile_s", "trace_s", "xla_s", "load_s", "compile_wait_s", "run_s", "sample_s"),
            0.0,
        )
    )
    _started: set[ProgramKey] = field(default_factory=set)
    _counted: set[ProgramKey] = field(default_factory=set)
    _traces: dict[tuple[tuple[str, int], ...], Any] = field(default_factory=dict)

    # inputs and programs

    def specs(self, dims: Mapping[str, int]) -> dict[str, InputSpec]:
        try:
            specs = self.checker.input_specs(dict(dims))
        except Exception as e:
            raise CheckerFault(
                f"input_specs failed at dims {format_dims(dims)}: {explain(e)}"
            ) from e
        if not isinstance(specs, Mapping) or not all(
            isinstance(s, InputSpec) for s in specs.values()
        ):
            raise CheckerFault(f"input_specs must return a dict of InputSpec, got {specs!r}")
        return dict(specs)

    def programs(
        self, dims: Mapping[str, int], specs: Mapping[str, InputSpec]
    ) -> tuple[Program, ...]:
        """The program in the session's dtype, then (low precision) the float64 reference."""
        return tuple(self._program(dims, specs, d) for d in self._dtypes())

    def _dtypes(self) -> tuple[str, ...]:
        return (self.dtype,) if self.dtype == "float64" else (self.dtype, "float64")

    def _key(
        self, dims: Mapping[str, int], specs: Mapping[str, InputSpec], dtype: str
    ) -> ProgramKey:
        return (
            id(self.checker),
            getattr(self.checker, "version", ""),
            tuple(sorted(dims.items())),
            dtype,
            batch_size(specs, self.trials),
            tuple(specs.items()),
        )

    def _start(
        self, dims: Mapping[str, int], specs: Mapping[str, InputSpec], dtype: str
    ) -> Program | Future[Program]:
        """The program for one draw, from wherever it is; one that must be compiled is
        compiled in the background."""
        got = self._trace(dims, specs, dtype)
        return self._submit(got) if isinstance(got, PendingCompile) else got

    def _submit(self, pending: PendingCompile) -> Future[Program]:
        """Hand a traced program to XLA in the background, as one this session started."""
        self._started.add(pending.key)
        return pending.submit()

    def _trace(
        self, dims: Mapping[str, int], specs: Mapping[str, InputSpec], dtype: str
    ) -> Program | Future[Program] | PendingCompile:
        """The program for one draw, from wherever it is, or traced and lowered here
        and still to be compiled."""
        key = self._key(dims, specs, dtype)
        batch = key[4]
        with _building(dims):
            started = trace_program(key, self.checker, dict(dims), dtype, specs, batch)
        if isinstance(started, Future):
            self._started.add(key)
        elif isinstance(started, Program):
            if started.source == "store" and key not in self._counted:
                self._counted.add(key)
                self.loaded += 1
                self.totals["load_s"] += started.compile_s
            elif started.source == "interpreted" and key not in self._counted:
                self._counted.add(key)
                self.interpreted += 1
                self.totals["trace_s"] += started.trace_s
        return started

    def prepare(
        self, draws: Sequence[Mapping[str, int]]
    ) -> tuple[dict[str, int], CheckerFault] | None:
        """Trace the programs of every dims draw, the largest draw first, each compiled in
        the background as soon as it is traced (`run_draw` waits for its own), so that
        the compilations overlap the tracing of the other draws.

        A draw that cannot be built decides the check: the first such draw in order,
        and why, is returned (BeyondChecker: the statement cannot be evaluated there,
        so the check is unsupported; another fault: error). The largest draws are
        traced first because they are the ones the evaluator's limits refuse; from the
        first refusal on nothing more is compiled and the compilations still queued are
        cancelled, so that deciding `unsupported` compiles nothing.
        """
        faults: dict[int, CheckerFault] = {}
        specs: dict[int, dict[str, InputSpec]] = {}
        for k, dims in enumerate(draws):
            try:
                specs[k] = self.specs(dims)
            except CheckerFault as e:
                faults[k] = e
        largest_first = sorted(specs, key=lambda k: -sum(s.size for s in specs[k].values()))
        submitted: list[Future[Program]] = []
        for k in largest_first:
            if any(s.empty for s in specs[k].values()):
                continue  # no trial at all: run_draw says so
            if faults and k > min(faults):
                continue  # a draw before it decides the check
            try:
                for dtype in self._dtypes():
                    got = self._trace(draws[k], specs[k], dtype)
                    if isinstance(got, PendingCompile) and not faults:
                        submitted.append(self._submit(got))
            except CheckerFault as e:
                faults[k] = e
                for future in submitted:
                    future.cancel()
        if faults:
            first = min(faults)
            return dict(draws[first]), faults[first]
        return None

    def _program(
        self, dims: Mapping[str, int], specs: Mapping[str, InputSpec], dtype: str
    ) -> Program:
        started = self._start(dims, specs, dtype)
        key = self._key(dims, specs, dtype)
        if isinstance(started, Program):
            prog = started
        else:
            start = time.perf_counter()
            try:
                with _building(dims):
                    prog = started.result()
            finally:
                self.totals["compile_wait_s"] += time.perf_counter() - start
        if key in self._started and key not in self._counted:
            # compiled for this session (perhaps finished before it was asked for)
            self._counted.add(key)
            self._count_compiled(prog)
        return prog

    def _count_compiled(self, prog: Program) -> None:
        self.compiled += 1
        self.totals["compile_s"] += prog.compile_s
        self.totals["trace_s"] += prog.trace_s
        self.totals["xla_s"] += prog.xla_s

    def run(
        self, progs: Sequence[Program], batch: Mapping[str, np.ndarray]
    ) -> tuple[np.ndarray, ...]:
        """(lhs, rhs) in float64 mode, (lhs, rhs, lhs_ref, rhs_ref) in a low-precision mode,
        followed by three per-trial measures: scale, underflow and held (`split`)."""
        start = time.perf_counter()
        try:
            results = [prog(batch) for prog in progs]
        except Exception as e:
            stored = [p for p in progs if p.source == "store"]
            if not stored:
                raise CheckerFault(f"running the JAX program failed: {explain(e)}") from e
            for prog in stored:  # a stored program that cannot run: build it afresh, once
                self._rebuild(prog)
            try:
                results = [prog(batch) for prog in progs]
            except Exception as e2:
                raise CheckerFault(f"running the JAX program failed: {explain(e2)}") from e2
        self.totals["run_s"] += time.perf_counter() - start
        # every program returns (lhs, rhs, scale, underflow, held) (programs.lower); the
        # hypotheses are those of the reference program (the last)
        self.held = results[-1][4] > 0.5
        scale = np.maximum.reduce([r[2] for r in results])
        under = np.maximum.reduce([r[3] for r in results])
        return (*(o for r in results for o in r[:2]), scale, under, results[-1][4])

    def _rebuild(self, prog: Program) -> None:
        """Replace a stored program's executable by a fresh compilation (and re-file it)."""
        assert prog.origin is not None
        with _building(prog.origin[0]):
            fresh = recompile(prog)
        prog.fn, prog.source = fresh.fn, "compiled"
        self._count_compiled(fresh)

    def sample(
        self,
        specs: Mapping[str, InputSpec],
        dims: Mapping[str, int],
        trials: range,
        scale_as: np.ndarray | None = None,
        plain: np.ndarray | None = None,
    ) -> dict[str, np.ndarray]:
        start = time.perf_counter()
        plan = fin_plan(specs, self.trials)
        base = draw_key(self.checker.name, self.seed, dims)
        try:
            drawn = sample_batch(
                specs, plan, base, trials, self.dtype, scale_as=scale_as, plain=plain
            )
            batch = round_to(self.dtype, specs, drawn)
        except Exception as e:
            raise CheckerFault(
                f"sampling inputs failed at dims {format_dims(dims)}: {explain(e)}"
            ) from e
        self.totals["sample_s"] += time.perf_counter() - start
        return batch

    def evaluate_batch(
        self,
        specs: Mapping[str, InputSpec],
        dims: Mapping[str, int],
        progs: Sequence[Program],
        trials: range,
        drawn: dict[str, np.ndarray] | None = None,
    ) -> tuple[dict[str, np.ndarray], tuple[np.ndarray, ...], np.ndarray | None, np.ndarray]:
        """(inputs, outputs, hypotheses held or None, re-drawn) for one batch of trials
        (`drawn`: its inputs, already sampled): a trial at a stressed scale whose sides are
        not all finite is drawn again at a smaller one (see the module); `re-drawn` marks
        them."""
        batch = self.sample(specs, dims, trials) if drawn is None else drawn
        outs = self.run(progs, batch)
        held = self.held
        plain = None
        if held is not None:
            # a boundary value that leaves a hypothesis unmet (`ez < |z i|` with z i = 0)
            # made the trial vacuous: drawn again without boundary values (regimes.py)
            vacuous = regimes(np.asarray(trials), self.dtype).boundary & ~np.asarray(held)
            if vacuous.any():
                plain = vacuous
                batch = self.sample(specs, dims, trials, plain=plain)
                outs = self.run(progs, batch)
                held = self.held
        scales = trial_scales(specs, fin_plan(specs, self.trials), trials, self.dtype)
        redo = (scales != 1.0) & self._lost(outs)
        if redo.any():
            # float64 cannot represent the trial at its stress scale: its sides overflow, or
            # a strict inequality's sides tie (absorbed: 1 + e^-50 is 1)
            at = np.where(redo, np.where(scales > FALLBACK_SCALE, FALLBACK_SCALE, 1.0), np.nan)
            batch = self.sample(specs, dims, trials, scale_as=at, plain=plain)
            outs = self.run(progs, batch)
            held = self.held
            again = redo & (at != 1.0) & self._lost(outs)
            if again.any():
                at = np.where(again, 1.0, at)
                batch = self.sample(specs, dims, trials, scale_as=at, plain=plain)
                outs = self.run(progs, batch)
                held = self.held
        return batch, outs, held, redo

    def _lost(self, outs: Sequence[np.ndarray]) -> np.ndarray:
        """Per trial: float64 cannot represent its sides (overflow, or a strict tie)."""
        rel = self.relation()
        return ~representable(outs, self.dtype, rel) | strict_ties(outs, self.dtype, self.tol, rel)

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

    # comparison

    def shown(self, outs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        return outs[0], outs[1]

    split = staticmethod(split_outputs)

    def relation(self) -> str:
        rel = getattr(self.checker, "relation", "=")
        if rel not in RELATIONS:
            raise CheckerFault(f"the checker's relation must be one of {RELATIONS}, got {rel!r}")
        return str(rel)

    def compare(self, outs: Sequence[np.ndarray]) -> Verdict:
        """Every entry of every trial judged (verdict.py), arrays over (trials, *shape)."""
        return judge(outs, self.dtype, self.tol, self.relation())

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

    # draws

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
        settled = settle(
            self, specs, dims, progs, Rows(outs, joined, holds, np.arange(self.trials)), size
        )
        rows, outs = settled.rows, settled.rows.outs
        self._judge(draw, dims, rows, settled)
        for k in ("compile_s", "load_s", "compile_wait_s", "run_s", "sample_s"):
            setattr(draw, k, self.totals[k] - before[k])
        return draw

    def _judge(self, draw: DrawOutcome, dims: Mapping[str, int], rows: Rows, settled: Any) -> None:
        """The draw's verdict on the trials left as evidence (`rows`, after confirming)."""
        outs = rows.outs
        draw.unstable_trials = settled.unstable
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
