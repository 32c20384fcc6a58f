"""One trial of a checker's program: the function of one trial's inputs that every
program of the checker (compiled by XLA or interpreted by NumPy) is built from, and the
faults a check reports when building or running it fails.

A program returns, per trial, (lhs, rhs, scale, underflow, held): the sides, the
measures the comparison uses (0 when the checker gives none) and whether the
checker's per-trial hypotheses held (1 when it has none).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from checkers.core import REAL, InputSpec
from checkers.lazyjax import jnp
from checkers.tolerance import numpy_dtype

TRACE_LOCK = threading.RLock()  # one trace at a time: the evaluator's caches are shared


class CheckerFault(Exception):
    """The checker itself broke; the check reports status 'error' with this message."""


class BeyondChecker(CheckerFault):
    """The checker could not evaluate its statement at some dimensions (it raised
    `checkers.core.Unevaluable`): the check reports 'unsupported' with this message."""


def input_dtype(spec: InputSpec) -> Any:
    return jnp.float64 if spec.kind == REAL else jnp.int64


def trial_function(
    checker: Any,
    dims: dict[str, int],
    dtype: str,
    specs: Mapping[str, InputSpec],
    *,
    compiled: bool = False,
) -> Callable[[dict[str, Any], Any], tuple[Any, ...]]:
    """One trial's (lhs, rhs, scale, underflow, held) in `dtype`, from float64 inputs;
    `compiled`: for XLA to compile, not for NumPy to interpret (checkers/harness/interpreted.py)."""
    target = numpy_dtype(dtype)
    # a function may return (lhs, rhs, {"scale": .., "underflow": ..}): the magnitude of
    # the terms the sides were computed from, and whether a value underflowed (see
    # checkers/tolerance.py), and whether a side is not defined at the inputs (a derivative
    # at a kink: the trial is then vacuous); a derived checker gives them through
    # `build_measured`
    build_measured = getattr(checker, "build_measured", None)
    if callable(build_measured):
        fn = build_measured(dict(dims), target, together=not compiled)
    else:
        fn = checker.build(dict(dims), target)
    # optional: whether the checker's per-trial hypotheses hold (a third output, 1.0 or 0.0)
    build_premise = getattr(checker, "build_premise", None)
    holds = build_premise(dict(dims), target) if callable(build_premise) else None
    reals = {n for n, s in specs.items() if s.kind == REAL}

    def one(inputs: dict[str, Any], lane: Any) -> tuple[Any, ...]:
        if dtype != "float64":
            inputs = {k: (v.astype(target) if k in reals else v) for k, v in inputs.items()}
        out = fn(inputs)
        if (
            not isinstance(out, tuple | list)
            or len(out) not in (2, 3)
            or (len(out) == 3 and not isinstance(out[2], Mapping))
        ):
            raise CheckerFault(
                "the checker's function must return (lhs, rhs) or (lhs, rhs, measures), "
                f"got {out!r}"
            )
        sides = (_float64(out[0]), _float64(out[1]))
        extra = out[2] if len(out) == 3 else {}
        scale = _scalar64(extra.get("scale", 0.0))
        under = _scalar64(extra.get("underflow", False))
        held = _scalar64(jnp.ones((), jnp.float64) if holds is None else holds(inputs))
        if "undefined" in extra:  # a side is not defined at these inputs: vacuous
            held = held * (1.0 - _scalar64(extra["undefined"]))
        return (*sides, scale, under, held)

    return one


def _float64(x: Any) -> Any:
    # a traced conversion or reshape to what a value already is is still an operation
    x = jnp.asarray(x)
    return x if x.dtype == jnp.float64 else x.astype(jnp.float64)


def _scalar64(x: Any) -> Any:
    x = _float64(x)
    return x if x.shape == () else x.reshape(())


def same_sides(shapes: list[tuple[int, ...]]) -> None:
    if shapes[0] != shapes[1]:
        raise CheckerFault(f"the two sides have different shapes: lhs {shapes[0]}, rhs {shapes[1]}")
