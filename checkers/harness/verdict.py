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
than a quarter of its trials decided nothing, and how many were unstable (float64
artefacts that checkers/harness/confirming.py left out).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from checkers.tolerance import Comparison, Tolerance, compare, overflow_decides


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


def _pairs(sides: Sequence[np.ndarray], dtype: str) -> list[tuple[np.ndarray, np.ndarray]]:
    if dtype == "float64":
        return [(sides[0], sides[1])]
    return [(sides[0], sides[3]), (sides[2], sides[1])]  # each side against the other's ref


def representable(outs: Sequence[np.ndarray], dtype: str, relation: str) -> np.ndarray:
    """Per trial: every value compared is finite, or an inequality is decided by a side
    that overflowed beyond the other (`overflow_decides`)."""
    sides = split_outputs(outs)[0]
    n = np.shape(sides[0])[0]
    ok = np.ones(n, dtype=bool)
    for a, b in _pairs(sides, dtype):
        a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
        fine = np.isfinite(a) & np.isfinite(b)
        if relation != "=":
            low, high = (b, a) if relation in ("≥", ">") else (a, b)
            fine |= overflow_decides(low, high)
            if relation == "≠":
                fine |= overflow_decides(high, low)
        ok &= fine.reshape(n, -1).all(axis=1)
    return ok


def strict_ties(
    outs: Sequence[np.ndarray], dtype: str, tol: Tolerance, relation: str
) -> np.ndarray:
    """Per trial: a strict inequality whose sides tie within the tolerance (all False for
    the other relations)."""
    v = judge(outs, dtype, tol, relation)
    n = np.shape(v.tied)[0]
    if relation not in ("<", ">", "≠"):
        return np.zeros(n, dtype=bool)
    return np.asarray(np.asarray(v.tied, dtype=bool).reshape(n, -1).any(axis=1))


def judge(outs: Sequence[np.ndarray], dtype: str, tol: Tolerance, relation: str) -> Verdict:
    sides, scale, under, held = split_outputs(outs)
    lead = (-1,) + (1,) * (np.ndim(sides[0]) - 1)
    scale = np.reshape(scale, lead)
    with np.errstate(invalid="ignore", over="ignore"):
        pairs = _pairs(sides, dtype)
        cs = [compare(a, b, tol, relation=relation, scale=scale) for a, b in pairs]
    if relation == "≠":
        cs = [_somewhere(c) for c in cs]
    live = np.reshape(held, lead)
    tied = np.logical_or.reduce([c.tied for c in cs]) & live
    undecided = tied & np.reshape(under, lead) & (relation in ("<", ">", "≠"))
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


def _somewhere(c: Comparison) -> Comparison:
    """`A ≠ B` of arrays holds in a trial where some entry differs: every entry of a trial
    takes the trial's verdict (and ties only where the trial fails)."""
    n = np.shape(c.ok)[0] if np.ndim(c.ok) else 1
    shape = np.shape(c.ok)
    held = np.asarray(c.ok).reshape(n, -1).any(axis=1)
    trial = np.broadcast_to(held.reshape((n,) + (1,) * (len(shape) - 1)), shape)
    return dataclasses.replace(
        c,
        ok=trial.copy(),
        tied=np.asarray(c.tied) & ~trial,
        ratio=np.where(trial, 0.0, c.ratio),
        abs_err=np.where(trial, 0.0, c.abs_err),
        rel_err=np.where(trial, 0.0, c.rel_err),
    )


def pass_notes(
    total: int,
    vacuous: int,
    undecided: int,
    tied: int,
    unstable: int = 0,
    *,
    branching: int = 0,
    wanted: int | None = None,
) -> str:
    """What makes a pass weaker than it looks, as '; '-led clauses of its reason.

    `total` counts every trial drawn (vacuous ones were replaced by fresh trials where
    some held: refill.py), `wanted` the trials asked for (`total` when None); `tied`
    counts every tied trial, the undecided ones among them; `unstable` the trials left
    out and replaced (they failed in float64, not exactly), `branching` those of them whose
    exact evaluation stopped at a comparison no precision decided. A pass is weak when under
    three quarters of the trials asked for decided the statement.
    """
    wanted = total if wanted is None else wanted
    notes = []
    if vacuous:
        refilled = "; fresh trials drawn in their place" if total > wanted else ""
        notes.append(f"{vacuous} of {total} trials vacuous (a hypothesis failed{refilled})")
    if undecided:
        notes.append(
            f"{undecided} of {total} trials undecided (the sides tie after a value underflowed)"
        )
    if notes and 4 * (total - vacuous - undecided) < 3 * wanted:  # too few trials say anything
        notes[0] = "weak: " + notes[0]
    if tied - undecided:
        notes.append(
            f"{tied - undecided} of {total} trials tie (the sides agree within the tolerance)"
        )
    if unstable:
        notes.append(
            f"{unstable} trial{'s' if unstable != 1 else ''} unstable (failed in float64 but "
            "no counterexample when evaluated exactly: held, or decided by no precision; "
            "replaced by fresh trials)"
            + (
                f", {branching} of them stopped at a comparison no precision decided"
                if branching
                else ""
            )
        )
    return "".join("; " + n for n in notes)
