"""Vacuous trials replaced: a check's trials are evidence where its hypotheses held.

A trial whose hypotheses fail (`hε : 0 < ε` drawn negative, `|xt - x| ≤ ea` where the
draws are far apart) says nothing about the statement: it holds vacuously. Where many
do (`sdpaBackV_close`: 47 of 64), a check of 16 trials rests on a handful, and a false
statement that fails in one trial of twenty is passed. So a draw in which some trials
were vacuous, and not all, draws fresh ones (numbered after the last, from the seed like
any other, each evaluated in its fixed batch, so `repro` reproduces it) until as many
trials held as were asked for, or `FACTOR` times as many trials were drawn: at a hold
rate p, about `1 / p` times the trials, in whole batches (a batch costs the same whole or
not). A draw in which at least `ENOUGH` of the trials
held is left as it is: the few it lacks would cost a batch each, and a pass is called
weak only under that share (verdict.py). The vacuous ones stay in the draw's rows and its
count (`vacuous_trials`, out of every trial drawn), so the result still says how often
the hypotheses failed. A draw whose every trial was vacuous is not refilled: its
hypotheses may hold nowhere at those dims, and the check says so (evaluation.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from checkers.harness.confirming import Rows, replacements

FACTOR = 4  # trials drawn per draw at most, as a multiple of the trials asked for
ENOUGH = 0.75  # the share of the trials asked for that must hold for a draw to be left as is
ROUNDS = 3  # rounds of fresh trials at most


def refill(
    session: Any,
    specs: Mapping[str, Any],
    dims: Mapping[str, int],
    progs: Any,
    rows: Rows,
    size: int,
) -> tuple[Rows, int]:
    """`rows` with fresh trials added until `session.trials` of them held (see the module),
    and how many of the fresh ones were re-drawn at a smaller scale."""
    wanted = session.trials
    cap = FACTOR * wanted
    rescaled = 0
    for k in range(ROUNDS):
        assert rows.held is not None
        held = int(np.count_nonzero(rows.held))
        # a draw is refilled only where under `ENOUGH` held; then until `wanted` held
        enough = held >= (wanted if k else ENOUGH * wanted)
        if held == 0 or enough or len(rows) >= cap:
            break
        first = int(rows.numbers.max()) + 1
        # as many fresh trials as the hold rate says are needed, in whole batches (a batch
        # costs the same whole or not), within the cap
        need = math.ceil((wanted - held) / (held / len(rows)))
        end = min(-(-(first + need) // size) * size, first + cap - len(rows))
        fresh, redo = replacements(session, specs, dims, progs, first, end - first, size)
        rescaled += redo
        rows = rows.extend(fresh)
    return rows, rescaled
