"""One trial of a checker program evaluated exactly, and what it says about the statement.

A float64 trial fails for one of two reasons: the statement is false at its
inputs, or float64 lost the value on the way (an intermediate underflowed to 0
and Lean's `Real.log 0 = 0` took over, a sigmoid saturated at 1, a strict
inequality's sides tied within rounding). The program's jaxpr (the function of
one trial, checkers/harness/interpreted.py `trace_trial`) is evaluated again on the
trial's inputs with intervals (intervals.py, rules.py): a plain high-precision
float could not tell sigmoid(822) from sigmoid(1263), an interval can say that
it cannot. The jaxpr already spells Lean's total arithmetic (the guards of
`x / 0`, `Real.log 0`, truncated ℕ subtraction are selects in it), so the exact
evaluation follows Lean's semantics wherever the float one meant to.

`examine` says, at `PRECISIONS` bits in turn (about 60, then 300 digits):

- `confirmed`: the hypotheses certainly held and the relation certainly fails
  (`=`: the sides' intervals are disjoint; `≤`: lhs entirely above rhs; `<`: lhs
  at or above rhs, so that an exact tie fails a strict inequality; `≠`: every
  entry equal): a counterexample.
- `holds`: the relation certainly holds, or the hypotheses certainly failed:
  the float64 verdict was an artefact.
- `undecided`: neither, at the highest precision. Two intervals that overlap
  are equal only where they are one quantity (`Numbered`: the same point, or
  the same computation on the same quantities), so an equation of different
  computations of one irrational number is never shown true, only not false.
- `unconfirmable`: the jaxpr uses a primitive without an exact rule, one
  trial computes more than `WORK_LIMIT` numbers, or the evaluation ran past the
  caller's deadline (`timed_out`: checked between equations, so that no trial
  takes much longer than the examination budget it was given).

Only `confirmed` is evidence against the statement.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np

from checkers.confirm import intervals as iv
from checkers.confirm.intervals import Interval
from checkers.confirm.rules import RULES
from checkers.confirm.values import Unconfirmable, Undecided, exact, kind, settle
from checkers.interpret.jaxprs import _CALLS, _body
from checkers.lazyjax import jcore

PRECISIONS = (200, 1000)  # bits: about 60, then 300 decimal digits
# the most numbers (and multiply-adds of contractions) one trial may compute to be
# evaluated exactly: each is a Python object, some microseconds; a whole network's
# trial is left unconfirmed rather than taking minutes
WORK_LIMIT = 200_000

CONFIRMED, HOLDS, UNDECIDED, UNCONFIRMABLE = "confirmed", "holds", "undecided", "unconfirmable"
OUT_OF_TIME = "the examination budget ran out"

# the perf_counter time past which the evaluation in progress stops (None: no deadline)
_DEADLINE: ContextVar[float | None] = ContextVar("confirm_deadline", default=None)


class _OutOfTime(Exception):
    """The deadline passed between two equations."""


@dataclass(frozen=True)
class Exact:
    """What the exact evaluation of one trial says (see the module)."""

    status: str
    lhs: np.ndarray | None = None  # object arrays of Intervals, as the sides' shapes
    rhs: np.ndarray | None = None
    bits: int = 0
    why: str = ""
    timed_out: bool = False  # unconfirmable because the deadline passed

    @property
    def confirmed(self) -> bool:
        return self.status == CONFIRMED

    def describe(self) -> str:
        """What the evaluation says, in words."""
        if self.status == CONFIRMED:
            return f"confirmed at {self.bits} bits: the statement fails at these inputs"
        if self.status == HOLDS:
            return f"holds at {self.bits} bits (or its hypotheses fail there)"
        if self.status == UNDECIDED:
            why = f" ({self.why})" if self.why else ""
            return f"undecided at {self.bits} bits{why}"
        return f"not evaluated exactly: {self.why}"

    def side_texts(self) -> tuple[list[Any], list[Any]]:
        """Both sides as nested lists of decimal strings (a 0-d side as one element)."""
        return _texts(self.lhs), _texts(self.rhs)

    def summary(self) -> str:
        """`lhs ≈ -820.09, rhs ≈ -819.57 (200 bits)` for scalar sides; else the bits."""
        if self.lhs is None or self.rhs is None:
            return self.why
        if self.lhs.size == 1 and self.rhs.size == 1:
            lhs, rhs = self.lhs.reshape(-1)[0], self.rhs.reshape(-1)[0]
            return f"lhs ≈ {lhs.text(12)}, rhs ≈ {rhs.text(12)} at {self.bits} bits"
        return f"at {self.bits} bits"


def _texts(side: np.ndarray | None) -> list[Any]:
    if side is None:
        return []
    out = np.vectorize(lambda x: x.text(), otypes=[object])(side).tolist()
    return out if isinstance(out, list) else [out]


def run(closed: Any, args: Sequence[Any]) -> list[np.ndarray]:
    """The outputs of a closed jaxpr at `args` (NumPy arrays; floats taken as exact)."""
    consts = [_numbered(exact(c, literal=True), ("const", k)) for k, c in enumerate(closed.consts)]
    ins = [_numbered(exact(a, literal=False), ("in", k)) for k, a in enumerate(args)]
    return [value for value, _ in _run(closed.jaxpr, consts, ins, {})]


# A value and its number: equal numbers are one quantity, so that a quantity computed
# twice is one object, and two sides that are one object are exactly equal, however wide
# their interval. A value known exactly (points, integers, booleans) is numbered by its
# content: `exp x` and `exp y` are one quantity where x = y. Any other is numbered by how
# it was made (the same primitive with the same parameters on the same quantities), a
# literal by its float64 value (two decimals that round to one float64 are taken as one:
# a program's literals that agree to 17 digits are one numeral).
Numbered = tuple[np.ndarray, Any]

_CONTENT_LIMIT = 4096  # elements: a larger value is numbered by how it was made


def _numbered(value: np.ndarray, fallback: Any) -> Numbered:
    if value.size > _CONTENT_LIMIT:
        return value, fallback
    items: list[Any] = []
    for x in value.reshape(-1).tolist():
        if isinstance(x, Interval):
            if not x.is_point:
                return value, fallback
            items.append(("f", x.lo))
        elif x is None:
            return value, fallback
        else:
            items.append((type(x).__name__, x))  # True and 1 are different values here
    return value, ("value", value.shape, tuple(items))


def _run(
    jaxpr: Any,
    consts: Sequence[Numbered],
    args: Sequence[Numbered],
    seen: dict[Any, list[Numbered]],
) -> list[Numbered]:
    env: dict[Any, Numbered] = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))

    def read(v: Any) -> Numbered:
        if isinstance(v, jcore.Literal):
            aval: Any = v.aval
            value = np.asarray(v.val, dtype=aval.dtype)
            fallback = ("literal", str(value.dtype), value.tobytes())
            return _numbered(exact(value, literal=True), fallback)
        return env[v]

    deadline = _DEADLINE.get()
    for eqn in jaxpr.eqns:
        if deadline is not None and time.perf_counter() > deadline:
            raise _OutOfTime
        name = eqn.primitive.name
        ins = [read(v) for v in eqn.invars]
        key: Any = (name, _params_key(eqn.params), tuple(number for _, number in ins))
        outs = seen.get(key)
        if outs is None:
            outs = _apply(eqn, ins, seen, key)
            seen[key] = outs
        for v, o in zip(eqn.outvars, outs, strict=True):
            if not isinstance(v, jcore.DropVar):
                env[v] = o
    return [read(v) for v in jaxpr.outvars]


def _params_key(params: dict[str, Any]) -> Any:
    return tuple(sorted((k, id(v) if k in _JAXPR_PARAMS else repr(v)) for k, v in params.items()))


_JAXPR_PARAMS = frozenset(_CALLS.values()) | {
    "jvp_jaxpr_fun",
    "jvp_jaxpr_thunk",
    "fwd_jaxpr_thunk",
    "bwd",
}


def _apply(
    eqn: Any, ins: list[Numbered], seen: dict[Any, list[Numbered]], key: Any
) -> list[Numbered]:
    name = eqn.primitive.name
    if name in _CALLS:
        inner, inner_consts = _body(eqn)
        if len(ins) > len(inner.invars):  # custom_jvp/vjp calls pass their consts first
            ins = ins[len(ins) - len(inner.invars) :]
        consts = [
            _numbered(exact(c, literal=True), ("const", key, k)) for k, c in enumerate(inner_consts)
        ]
        return _run(inner, consts, ins, seen)
    rule = RULES.get(name)
    if rule is None:
        raise Unconfirmable(f"no exact rule for the primitive {name}")
    out_kind = kind(getattr(eqn.outvars[0].aval, "dtype", None)) if eqn.outvars else "f"
    try:
        got = rule(*(value for value, _ in ins), out_kind=out_kind, **eqn.params)
    except (Undecided, Unconfirmable):
        raise
    except Exception as e:
        raise Unconfirmable(f"{name}: {type(e).__name__}: {e}") from e
    outs = list(got) if eqn.primitive.multiple_results else [got]
    return [
        _numbered(settle(o, v.aval.dtype, v.aval.shape, name), (key, k))
        for k, (v, o) in enumerate(zip(eqn.outvars, outs, strict=True))
    ]


def examine(
    closed: Any, args: Sequence[Any], relation: str, deadline: float | None = None
) -> Exact:
    """The exact verdict on one trial (see the module): `closed` is the jaxpr of one
    trial's (lhs, rhs, scale, underflow, held), `args` its inputs in the jaxpr's order;
    `deadline`: the `time.perf_counter()` past which it stops, unconfirmable."""
    work = _work(closed.jaxpr)
    if work > WORK_LIMIT:
        why = f"one trial computes {work:,} numbers, more than {WORK_LIMIT:,} evaluated exactly"
        return Exact(UNCONFIRMABLE, why=why)
    token = _DEADLINE.set(deadline)
    try:
        return _examine(closed, args, relation)
    except _OutOfTime:
        return Exact(UNCONFIRMABLE, why=OUT_OF_TIME, timed_out=True)
    finally:
        _DEADLINE.reset(token)


def _examine(closed: Any, args: Sequence[Any], relation: str) -> Exact:
    last = Exact(UNDECIDED)
    for bits in PRECISIONS:
        with iv.working(bits):
            try:
                outs = run(closed, args)
            except Unconfirmable as e:
                return Exact(UNCONFIRMABLE, why=str(e))
            except Undecided as e:
                last = Exact(UNDECIDED, bits=bits, why=str(e))
                continue
            lhs, rhs, held = outs[0], outs[1], outs[-1].reshape(-1)[0]
            status = _decide(lhs, rhs, held, relation)
            last = Exact(status, lhs, rhs, bits)
        if status != UNDECIDED:
            return last
    return last


def _work(jaxpr: Any) -> int:
    """The numbers one evaluation computes: each equation's results or operands, whichever
    are more (a reduction reads every operand; sub-jaxprs included), a contraction's
    results times the length it sums over."""
    total = 0
    for eqn in jaxpr.eqns:
        if eqn.primitive.name in _CALLS:
            try:
                total += _work(_body(eqn)[0])
            except Exception:
                continue
            continue
        size = sum(_size(v) for v in eqn.outvars)
        if eqn.primitive.name == "dot_general":
            (contract, _), _ = eqn.params["dimension_numbers"]
            shape = eqn.invars[0].aval.shape
            size *= math.prod(shape[d] for d in contract)
        else:
            size = max(size, sum(_size(v) for v in eqn.invars))
        total += size
    return total


def _size(v: Any) -> int:
    return math.prod(getattr(getattr(v, "aval", None), "shape", ()) or ())


def _decide(lhs: np.ndarray, rhs: np.ndarray, held: Interval, relation: str) -> str:
    premise = iv.less(iv.point(0.5), held, strict=True)  # held is 1.0 or 0.0
    if premise is False:
        return HOLDS  # vacuous at the exact values
    lhs, rhs = np.broadcast_arrays(lhs, rhs)
    pairs = list(zip(lhs.reshape(-1).tolist(), rhs.reshape(-1).tolist(), strict=True))
    verdicts = [_holds(a, b, relation) for a, b in pairs]
    if relation == "≠":  # holds where some entry differs
        if any(v is True for v in verdicts):
            return HOLDS
        fails = bool(verdicts) and all(v is False for v in verdicts)
    else:
        if all(v is True for v in verdicts):
            return HOLDS
        fails = any(v is False for v in verdicts)
    return CONFIRMED if fails and premise is True else UNDECIDED


def _holds(a: Interval, b: Interval, relation: str) -> bool | None:
    if a is b:  # one quantity (see `Numbered`): exactly equal
        return relation in ("=", "≤", "≥")
    if relation == "=":
        return iv.equal(a, b)
    if relation == "≠":
        e = iv.equal(a, b)
        return None if e is None else not e
    if relation in ("≤", "<"):
        return iv.less(a, b, strict=relation == "<")
    return iv.less(b, a, strict=relation == ">")
