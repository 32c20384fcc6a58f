"""The verdict on a batch of trials: the relation judged entry by entry, and what a pass
rests on.

`run`'s outputs per trial are the sides ((lhs, rhs), or in a low-precision mode
(lhs, rhs, lhs_ref, rhs_ref)) followed by the trial's scale, whether it
underflowed, and whether its hypotheses held (programs.lower). `judge` compares
them by the checker's relation (checkers/tolerance.py): in a low-precision
mode each side in the dtype against the other side's float64 reference. A
trial whose hypotheses failed (vacuous) holds and ties nowhere; a tie of a
strict inequality fails, unless the trial underflowed: then it is undecided and
left out of the evidence. `pass_notes` says, in a passing result's reason, how
many trials were vacuous, undecided or tied, and calls the pass weak when more
than a quarter of its trials decided nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from checkers.tolerance import Tolerance, compare


class Verdict(NamedTuple):
    """Elementwise over (trials, *shape)."""

    abs_err: np.ndarray
    rel_err: np.ndarray
    ratio: np.ndarray
    ok: np.ndarray
    tied: np.ndarray
    undecided: np.ndarray


def split_outputs(
    outs: Sequence[np.ndarray],
) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray, np.ndarray]:
    """(sides, scale, underflow, held) of a run's outputs (per trial: the last three)."""
    sides = tuple(outs[:-3])
    return sides, outs[-3], outs[-2] > 0.5, outs[-1] > 0.5


def judge(outs: Sequence[np.ndarray], dtype: str, tol: Tolerance, relation: str) -> Verdict:
    sides, scale, under, held = split_outputs(outs)
    lead = (-1,) + (1,) * (np.ndim(sides[0]) - 1)
    scale = np.reshape(scale, lead)
    with np.errstate(invalid="ignore", over="ignore"):
        if dtype == "float64":
            pairs = [(sides[0], sides[1])]
        else:  # each side in the dtype against the other's float64 reference
            pairs = [(sides[0], sides[3]), (sides[2], sides[1])]
        cs = [compare(a, b, tol, relation=relation, scale=scale) for a, b in pairs]
    live = np.reshape(held, lead)
    tied = np.logical_or.reduce([c.tied for c in cs]) & live
    undecided = tied & np.reshape(under, lead) & (relation in ("<", ">"))
    ok = np.logical_and.reduce([c.ok for c in cs]) | ~live | undecided
    zero = np.zeros_like(cs[0].abs_err)
    return Verdict(
        np.where(live, np.maximum.reduce([c.abs_err for c in cs]), zero),
        np.where(live, np.maximum.reduce([c.rel_err for c in cs]), zero),
        np.where(live & ~undecided, np.maximum.reduce([c.ratio for c in cs]), zero),
        ok,
        tied,
        undecided,
    )


def pass_notes(total: int, vacuous: int, undecided: int, tied: int) -> str:
    """What makes a pass weaker than it looks, as '; '-led clauses of its reason.

    `tied` counts every tied trial, the undecided ones among them.
    """
    notes = []
    if vacuous:
        notes.append(f"{vacuous} of {total} trials vacuous (a hypothesis failed)")
    if undecided:
        notes.append(
            f"{undecided} of {total} trials undecided (the sides tie after a value underflowed)"
        )
    if notes and 4 * (vacuous + undecided) > total:  # over a quarter of the trials say nothing
        notes[0] = "weak: " + notes[0]
    if tied - undecided:
        notes.append(
            f"{tied - undecided} of {total} trials tie (the sides agree within the tolerance)"
        )
    return "".join("; " + n for n in notes)
