"""A checker's trials evaluated in batches: its programs built and run, its inputs drawn,
its sides compared.

Programs come from `programs`: each (checker, dims, dtype, batch size) is
compiled once and cached, and stored on disk where a cache directory is set.
Inputs are sampled in numpy and compared in numpy: nothing else is compiled. A
low-precision mode runs two programs on the same inputs, rounded to the dtype:
the dtype's and the float64 reference (which a float64 check of the same dims
has usually compiled already).

`Batches.prepare` traces the programs of every dims draw of a check one after
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
depends only on the trial's own inputs, so `Session.trial_values` (repro,
counterexamples) re-draws exactly the trials the check re-drew. Non-finite sides
at scale 1 remain an error naming the subterm.

`Batches` is one checker at one seed, trial count and dtype; `Session` (evaluation.py)
adds its draws and its single trials.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from checkers.core import REAL, InputSpec, Unevaluable
from checkers.harness.programs import (
    PendingCompile,
    Program,
    ProgramKey,
    batch_size,
    recompile,
    trace_program,
)
from checkers.harness.reporting import explain, format_dims
from checkers.harness.trials import BeyondChecker, CheckerFault
from checkers.harness.verdict import Verdict, judge, representable, split_outputs, strict_ties
from checkers.inputs.regimes import regimes
from checkers.inputs.sampling import draw_key, fin_plan, sample_batch, trial_scales
from checkers.tolerance import RELATIONS, Tolerance, numpy_dtype

# a trial lost at a larger stress scale is drawn again here first (see the module)
FALLBACK_SCALE = 10.0


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


@dataclass
class Batches:
    """One checker at one seed, trial count and dtype, its trials evaluated in batches."""

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
