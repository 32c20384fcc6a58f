"""How a clause that is not a relation between numbers is read by a numeric check.

- `A ≠ B` holds in a trial when the sides differ beyond the tolerance
  (checkers/tolerance.py); for arrays (functions) when they differ in some entry,
  as `≠` of functions means. A trial whose sides agree within the tolerance fails
  the check, as a tie fails `<`: the computation cannot tell it from equality,
  though it is no proof that the sides are equal in ℝ (a difference below the
  rounding is not seen).
- `A ↔ B` compares the truth values of both sides at the sampled points: each
  side is evaluated as a decidable proposition (1 where it holds, 0 where not)
  and the two must be equal. It cannot show the equivalence at points that were
  not sampled, nor where a side is true on a set too small to be sampled.

`reading_note` is the line the checker adds to its assumptions, so that a result
says which of these it rests on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from checkers.language.arith import select
from checkers.language.errors import NotSupported
from checkers.language.measure import paused
from checkers.language.values import Arr
from checkers.lazyjax import jnp
from theorem_index.lean import print_term
from theorem_index.lean import syntax as S

__all__ = ["harness_relation", "reading_note", "truth_values"]

_NOTES = {
    "≠": (
        "≠ is checked as: the sides differ beyond the tolerance in every trial (arrays: "
        "in some entry); a trial whose sides agree within the tolerance fails, although "
        "that is no proof that they are equal in ℝ"
    ),
    "↔": (
        "↔ is checked as: both sides have the same truth value at every sampled point; "
        "the equivalence at points that were not sampled is not tested"
    ),
}


def harness_relation(op: str) -> str:
    """The relation the harness compares the two sides by: `↔`'s truth values by `=`."""
    return "=" if op == "↔" else op


def reading_note(op: str) -> str | None:
    return _NOTES.get(op)


def truth_values(ev: Any, rel: S.BinOp, env: Mapping[str, Any]) -> tuple[Arr, Arr]:
    """`A ↔ B`: each side's truth value in this trial, as a real 1 or 0."""
    one = Arr(jnp.ones((), ev.ctx.dtype), "real")
    zero = Arr(jnp.zeros((), ev.ctx.dtype), "real")
    out = []
    for side in (rel.lhs, rel.rhs):
        with paused(ev.ctx):  # a truth value is exact: no terms to measure
            v = ev.eval(side, env)
        if not (isinstance(v, Arr) and v.kind == "bool") or v.dom or v.axes:
            raise NotSupported(
                f"the side {print_term(side)} of ↔ is not a proposition the evaluator can "
                "decide at a sampled point"
            )
        out.append(select(v, one, zero, ev.ctx))
    return out[0], out[1]
