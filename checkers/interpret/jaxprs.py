"""Evaluating a jaxpr with the NumPy rules (rules.py): flattened once, then run.

`interpretable` says whether every equation has a rule (sub-jaxprs of nested
`jit`s and custom derivatives are inlined); `Interpreted` is a checker
program's jaxpr, vmapped over a batch of trials, as a Program's `fn`. Every
value a rule returns is checked against the shape the jaxpr declares and cast
to its dtype, so a rule that goes wrong raises rather than answers.

Memory: each value is dropped after the last equation that reads it, as XLA
frees a buffer. What XLA fuses away NumPy computes whole (a chain of gathers
picking `T (c i) (h i) (w i)` one index at a time first builds a `[i, h, w]`
array), so a batch whose values would take more than `BATCH_BYTES` at once is
run a group of trials at a time. Each trial is computed on its own either way,
so the results are the same.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from checkers.interpret.batching import ADAPTERS, lane_by_lane
from checkers.interpret.rules import RULES, InterpretError
from checkers.lazyjax import jcore

_CALLS = {
    "jit": "jaxpr",
    "pjit": "jaxpr",
    "closed_call": "call_jaxpr",
    "custom_jvp_call": "call_jaxpr",
    "custom_vjp_call": "call_jaxpr",
    "remat": "jaxpr",
    "checkpoint": "jaxpr",
}

# the most bytes the values computed for one batch may take at once (estimated from the
# jaxpr's shapes); a larger batch is run in groups of trials
BATCH_BYTES = 32 * 2**20


# --- jaxprs ------------------------------------------------------------------------------


def _body(eqn: Any) -> tuple[Any, Sequence[Any]]:
    """(jaxpr, consts) of a call-like equation."""
    inner = eqn.params[_CALLS[eqn.primitive.name]]
    if isinstance(inner, jcore.ClosedJaxpr):
        return inner.jaxpr, inner.consts
    if isinstance(inner, jcore.Jaxpr):
        return inner, ()
    raise InterpretError(f"{eqn.primitive.name}: its body is not a jaxpr")


def interpretable(jaxpr: Any) -> str | None:
    """None when every equation (in every sub-jaxpr) has a rule, else why not."""
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in _CALLS:
            try:
                inner, _ = _body(eqn)
            except (InterpretError, KeyError):
                return f"{name} without a readable body"
            why = interpretable(inner)
            if why is not None:
                return why
        elif name not in RULES:
            return f"no NumPy rule for the primitive {name}"
        if any(getattr(v.aval, "shape", None) is None for v in eqn.outvars):
            return f"{name} returns a value that is not an array"
    return None


def largest_value(jaxpr: Any) -> int:
    """The most elements any equation (in any sub-jaxpr) returns: what evaluating it equation
    by equation holds at once, where XLA would fuse."""
    most = 0
    for eqn in jaxpr.eqns:
        if eqn.primitive.name in _CALLS:
            try:
                inner, _ = _body(eqn)
            except (InterpretError, KeyError):
                continue
            most = max(most, largest_value(inner))
        for v in eqn.outvars:
            shape = getattr(v.aval, "shape", None) or ()
            most = max(most, math.prod(shape))
    return most


def evaluate(jaxpr: Any, consts: Sequence[Any], args: Sequence[Any]) -> list[np.ndarray]:
    """The outputs of `jaxpr` at `args` (NumPy arrays), equation by equation."""
    with np.errstate(all="ignore"):
        return Steps(jcore.ClosedJaxpr(jaxpr, list(consts))).run([np.asarray(x) for x in args])


@dataclass(frozen=True)
class _Step:
    name: str
    rule: Callable[..., Any]
    params: dict[str, Any]
    ins: tuple[int, ...]
    outs: tuple[int, ...]
    multiple: bool
    shapes: tuple[tuple[int, ...], ...]  # of the operands, for one trial


class Steps:
    """A jaxpr flattened into numbered slots (sub-jaxprs inlined, literals and constants
    filled in once, each rule bound to its parameters), run without looking anything up."""

    def __init__(self, closed: Any) -> None:
        self.fixed: dict[int, np.ndarray] = {}  # slot -> constant or literal value
        self.steps: list[_Step] = []
        self.checks: dict[int, tuple[tuple[int, ...], np.dtype]] = {}
        self._count = 0
        consts = [self._constant(np.asarray(c)) for c in closed.consts]
        self.inputs = [self._slot() for _ in closed.jaxpr.invars]
        self.outputs = self._inline(closed.jaxpr, consts, self.inputs)
        self.drop, self.trial_bytes = self._lifetimes()

    def _lifetimes(self) -> tuple[list[tuple[int, ...]], int]:
        """The computed values to drop after each step (the last one that reads them, or
        the one that made them when none does), and the most bytes the computed values
        of one trial take at once."""
        kept = set(self.outputs) | set(self.inputs) | set(self.fixed)
        last: dict[int, int] = {}
        for k, step in enumerate(self.steps):
            for o in step.outs:
                last[o] = k
            for i in step.ins:
                last[i] = k
        drop: list[list[int]] = [[] for _ in self.steps]
        for slot, k in last.items():
            if slot not in kept:
                drop[k].append(slot)

        def size(slot: int) -> int:
            shape, dtype = self.checks[slot]
            return math.prod(shape) * dtype.itemsize

        live = peak = 0
        for step, gone in zip(self.steps, drop, strict=True):
            live += sum(size(o) for o in step.outs)
            peak = max(peak, live)
            live -= sum(size(o) for o in gone)
        return [tuple(d) for d in drop], peak

    def _slot(self) -> int:
        self._count += 1
        return self._count - 1

    def _constant(self, value: np.ndarray) -> int:
        slot = self._slot()
        self.fixed[slot] = value
        return slot

    def _inline(self, jaxpr: Any, consts: Sequence[int], args: Sequence[int]) -> list[int]:
        where: dict[Any, int] = dict(zip(jaxpr.constvars, consts, strict=True))
        where.update(zip(jaxpr.invars, args, strict=True))

        def slot_of(v: Any) -> int:
            if isinstance(v, jcore.Literal):
                aval: Any = v.aval
                return self._constant(np.asarray(v.val, dtype=aval.dtype))
            return where[v]

        for eqn in jaxpr.eqns:
            name = eqn.primitive.name
            ins = [slot_of(v) for v in eqn.invars]
            if name in _CALLS:
                inner, inner_consts = _body(eqn)
                if len(ins) > len(inner.invars):  # custom_jvp/vjp calls pass their consts first
                    ins = ins[len(ins) - len(inner.invars) :]
                const_slots = [self._constant(np.asarray(c)) for c in inner_consts]
                outs = self._inline(inner, const_slots, ins)
            else:
                rule = RULES.get(name)
                if rule is None:
                    raise InterpretError(f"no NumPy rule for the primitive {name}")
                params = dict(eqn.params)
                outs = [self._slot() for _ in eqn.outvars]
                self.steps.append(
                    _Step(
                        name,
                        rule,
                        params,
                        tuple(ins),
                        tuple(outs),
                        eqn.primitive.multiple_results,
                        tuple(tuple(getattr(v.aval, "shape", ())) for v in eqn.invars),
                    )
                )
                for v, o in zip(eqn.outvars, outs, strict=True):
                    self.checks[o] = (tuple(v.aval.shape), np.dtype(v.aval.dtype))
            if len(outs) != len(eqn.outvars):
                raise InterpretError(
                    f"{name} has {len(outs)} results, the jaxpr says {len(eqn.outvars)}"
                )
            for v, o in zip(eqn.outvars, outs, strict=True):
                if not isinstance(v, jcore.DropVar):
                    where[v] = o
        return [slot_of(v) for v in jaxpr.outvars]

    def run(
        self,
        args: Sequence[np.ndarray],
        batch: int | None = None,
        batched_args: Sequence[bool] | None = None,
    ) -> list[np.ndarray]:
        """The outputs at `args`. With `batch`, the args named in `batched_args` (all, by
        default) have a leading axis of that many trials, and so has every output
        (batching.py); the others are the same in every trial. A batch whose values
        would take more than `BATCH_BYTES` is run in groups of trials."""
        flags = [True] * len(args) if batched_args is None else list(batched_args)
        group = max(1, BATCH_BYTES // max(1, self.trial_bytes))
        if batch is None or batch <= group:
            return self._run(args, batch, flags)
        parts = [
            self._run(
                [x[start : start + group] if f else x for x, f in zip(args, flags, strict=True)],
                min(group, batch - start),
                flags,
            )
            for start in range(0, batch, group)
        ]
        return [np.concatenate(outs) for outs in zip(*parts, strict=True)]

    def _run(self, args: Sequence[np.ndarray], batch: int | None, flags: list[bool]) -> list[Any]:
        vals: list[Any] = [None] * self._count
        batched = [False] * self._count
        for slot, value in self.fixed.items():
            vals[slot] = value
        for slot, x, flag in zip(self.inputs, args, flags, strict=True):
            vals[slot] = x
            batched[slot] = batch is not None and flag
        checks = self.checks
        for step, gone in zip(self.steps, self.drop, strict=True):
            xs = [vals[i] for i in step.ins]
            flags = [batched[i] for i in step.ins]
            lead: tuple[int, ...] = ()
            if batch is not None and any(flags):
                lead = (batch,)
                adapter = ADAPTERS.get(step.name)
                if adapter is None:
                    got = lane_by_lane(
                        step.rule, step.params, xs, flags, list(step.shapes), batch, step.multiple
                    )
                else:
                    got = adapter(step.rule, step.params, xs, flags, list(step.shapes), batch)
            else:
                got = step.rule(*xs, **step.params)
            results = got if step.multiple else (got,)
            if len(results) != len(step.outs):
                raise InterpretError(
                    f"{step.name} gave {len(results)} results, expected {len(step.outs)}"
                )
            for o, x in zip(step.outs, results, strict=True):
                shape, dtype = checks[o]
                if not isinstance(x, np.ndarray) or x.dtype != dtype:
                    x = np.asarray(x, dtype=dtype)
                if x.shape != lead + shape:
                    raise InterpretError(
                        f"{step.name} gave shape {x.shape}, the jaxpr says {lead + shape}"
                    )
                vals[o] = x
                batched[o] = bool(lead)
            for o in gone:
                vals[o] = None
        outs = []
        for o in self.outputs:
            x = vals[o]
            if batch is not None and not batched[o]:  # the same in every trial
                x = np.broadcast_to(x, (batch, *np.shape(x)))
            outs.append(x)
        return outs


class Interpreted:
    """A checker program: the jaxpr of one trial's function, run by NumPy on a batch of
    trials at once (batching.py). It is a Program's `fn`, called with the batch's inputs
    by name and the lane numbers."""

    def __init__(self, closed: Any, names: Sequence[str]) -> None:
        self.steps = Steps(closed)
        # the order in which the trial function's (inputs, lane) were flattened: by name
        self.names = tuple(names)
        if len(self.steps.inputs) != len(self.names) + 1:
            raise InterpretError("the jaxpr does not take one array per input and a lane")

    def __call__(self, inputs: Mapping[str, Any], lanes: np.ndarray) -> tuple[np.ndarray, ...]:
        args = [np.asarray(inputs[n]) for n in self.names]
        args.append(np.asarray(lanes, np.int64))
        with np.errstate(all="ignore"):
            return tuple(self.steps.run(args, batch=len(lanes)))
