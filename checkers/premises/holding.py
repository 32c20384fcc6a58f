"""Hypotheses checked per trial, and the trials where they fail.

Every hypothesis that is not a relation between dimensions (`P ≤ W`) is
evaluated in every trial: the bounds the sampler meets by construction
(`0 < ε`, `∀ i j, |W i j| ≤ w`; bounds.py) as well as the rest (`hij : i ≠ j`).
Where one fails the trial holds vacuously (Lean's implication): both sides are
compared as 0 = 0, so such a trial is no evidence. `premise_fn` gives, per
trial, one bool per such hypothesis; a checker's `build_premise` is their
conjunction, with which the harness can count the vacuous trials of a run.

`probe` samples the inputs of the default dims draws at seed 0 exactly as the
harness does, when the checker is derived. A statement whose hypotheses hold
in none of those trials is unsupported (every check of it would pass
vacuously); otherwise the assumptions say how often each hypothesis held (a
bound only when the sampler did not meet it everywhere). The probe checks the
sampler's bounds in numpy (`bounds_hold`) and compiles only for the others.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from checkers.core import DimConstraint, InputSpec
from checkers.evaluator.evaluate import Evaluator
from checkers.harness.interpreted import evaluate_trials
from checkers.inputs.bounded import bounds_hold
from checkers.inputs.dims import DimsError, draw_dims
from checkers.inputs.sampling import draw_key, fin_plan, sample_batch
from checkers.language.coercion import Ctx
from checkers.language.errors import EvalError, NotSupported
from checkers.language.values import Arr, as_array
from checkers.lazyjax import jnp

if TYPE_CHECKING:
    from checkers.library.semantics import Semantics
    from checkers.premises.binders import Hyp, Plan


class PlannedChecker(Protocol):
    """What this module reads of a derived checker (checkers.statements.checker): its plan
    of binders and hypotheses, and how it draws and binds a trial's inputs."""

    name: str
    plan: Plan
    semantics: Semantics
    premise_notes: tuple[str, ...]

    @property
    def dim_names(self) -> tuple[str, ...]: ...

    @property
    def fixed_dims(self) -> Mapping[str, int]: ...

    @property
    def dim_lows(self) -> Mapping[str, int]: ...

    def dim_constraints(self) -> Sequence[DimConstraint]: ...

    def input_specs(self, dims: Mapping[str, int]) -> dict[str, InputSpec]: ...

    def inputs_env(
        self, dims: Mapping[str, int], inputs: Mapping[str, Any], dtype: Any
    ) -> dict[str, Any]: ...


PROBE_TRIALS = 64
PROBE_DRAWS = 4
PROBE_SEED = 0


def per_trial(checker: PlannedChecker) -> tuple[Hyp, ...]:
    """The hypotheses evaluated in every trial."""
    return tuple(h for h in checker.plan.hyps if h.how in ("mask", "constraint"))


def premise_fn(
    checker: PlannedChecker,
    dims: Mapping[str, int],
    dtype: Any,
    hyps: Sequence[Hyp] | None = None,
) -> Callable[[dict[str, Any]], Any] | None:
    """inputs -> a bool vector, one entry per hypothesis evaluated per trial (or per one
    of `hyps`); None when there is none."""
    hyps = per_trial(checker) if hyps is None else tuple(hyps)
    if not hyps:
        return None
    dims = {k: int(v) for k, v in dims.items()}
    dt = jnp.dtype(dtype)

    def fn(inputs: dict[str, Any]) -> Any:
        ev = Evaluator(checker.semantics, Ctx(dtype=dt, int_dtype=jnp.int64))
        env = checker.inputs_env(dims, inputs, dt)
        held = []
        for h in hyps:
            v = ev.eval(h.prop, env)
            if not (isinstance(v, Arr) and v.kind == "bool") or v.axes or v.dom:
                raise NotSupported(f"the hypothesis {h.text} is not decidable here")
            held.append(jnp.asarray(as_array(v), dtype=bool))
        return jnp.stack(held)

    return fn


@dataclass(frozen=True)
class Probe:
    """How often the per-trial hypotheses held in the sampled trials."""

    held: tuple[int, ...]  # per hypothesis, over every probed trial
    together: int  # trials where all of them held
    trials: int  # trials probed
    draws: tuple[dict[str, int], ...]


def probe(checker: PlannedChecker) -> Probe | None:
    """Sample trials as the harness does and count where the hypotheses hold."""
    hyps = per_trial(checker)
    if not hyps:
        return None
    try:
        draws = draw_dims(
            checker.name,
            PROBE_SEED,
            checker.dim_names,
            fixed=checker.fixed_dims,
            constraints=tuple(checker.dim_constraints()),
            draws=PROBE_DRAWS,
            lows=checker.dim_lows,
        )
    except DimsError:
        return None  # the harness reports this itself
    held = np.zeros(len(hyps), dtype=np.int64)
    together = 0
    for dims in draws:
        specs = checker.input_specs(dims)
        if any(s.empty for s in specs.values()):
            continue
        batch = sample_batch(
            specs,
            fin_plan(specs, PROBE_TRIALS),
            draw_key(checker.name, PROBE_SEED, dims),
            range(PROBE_TRIALS),
        )
        met = bounds_hold(specs, batch)  # hypothesis -> (trials,), for the sampler's bounds
        compiled = [h for h in hyps if h.name not in met]
        values = np.ones((PROBE_TRIALS, len(hyps)), dtype=bool)
        if compiled:
            fn = premise_fn(checker, dims, np.float64, compiled)
            assert fn is not None
            # (trials, compiled hypotheses); axis_size: a statement without sampled inputs
            # still has PROBE_TRIALS trials
            out = evaluate_trials(fn, batch, PROBE_TRIALS)
            for k, h in enumerate(compiled):
                values[:, hyps.index(h)] = out[:, k]
        for k, h in enumerate(hyps):
            if h.name in met:
                values[:, k] = met[h.name]
        held += values.sum(axis=0)
        together += int(values.all(axis=1).sum())
    probed = PROBE_TRIALS * len(draws)
    return Probe(tuple(int(h) for h in held), together, probed, tuple(draws))


def verdict(hyps: Sequence[Hyp], result: Probe) -> tuple[str | None, tuple[str, ...]]:
    """(why the statement cannot be checked, or None; assumption lines with the counts)."""
    where = (
        f"the {result.trials} trials sampled at seed {PROBE_SEED} over "
        f"{len(result.draws)} dims draw{'s' if len(result.draws) != 1 else ''}"
    )
    if result.together == 0 and result.trials:
        never = [h for h, n in zip(hyps, result.held, strict=True) if n == 0]
        if never:
            names = ", ".join(f"`{h.name} : {h.text}`" for h in never)
            what = "hypothesis" if len(never) == 1 else "hypotheses"
            reason = f"the {what} {names} held in none of {where}"
        else:
            names = ", ".join(f"`{h.name} : {h.text}`" for h in hyps)
            reason = f"the hypotheses {names} never held together in {where}"
        return reason + ": every check would pass vacuously", ()
    lines = tuple(
        f"{h.text} (hypothesis {h.name}) held in {n} of {where}; "
        "trials where it fails hold vacuously"
        for h, n in zip(hyps, result.held, strict=True)
        if h.how != "constraint" or n < result.trials
    )
    return None, lines


def probe_or_refuse(checker: PlannedChecker) -> str | None:
    """Run the probe: the reason to refuse the statement, or None (the checker's
    assumptions then carry the counts)."""
    hyps = per_trial(checker)
    try:
        result = probe(checker)
    except EvalError as e:  # anything else is the machinery breaking: it propagates
        raise NotSupported(f"cannot evaluate the hypotheses: {e}") from e
    if result is None:
        return None
    reason, lines = verdict(hyps, result)
    checker.premise_notes = lines
    return reason
