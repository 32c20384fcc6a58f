"""Dimension draws: which sizes a theorem's dimensions take in each draw of a check.

A check evaluates a statement at a few draws of its dimensions (`draw_dims`): distinct
small values within a draw where possible, distinct draws, each dimension taking as many
different values across the draws as it can, and a draw on the edge of each order
constraint (`i ≤ n` at i = n) where one exists. The draws are a pure function of the
theorem's name, the seed, the pins and the constraints (`streams.seed_words`), so every
draw can be made again on any machine.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from checkers.core import DimConstraint
from checkers.inputs.streams import seed_words

__all__ = ["DimsError", "draw_dims"]


class DimsError(ValueError):
    """No dimensions satisfy the pins and constraints."""


_ENUMERATION_LIMIT = 20_000
_SPREAD_POOL = 2_048


def draw_dims(
    name: str,
    seed: int,
    dim_names: Sequence[str],
    *,
    fixed: Mapping[str, int] | None = None,
    pinned: Mapping[str, int] | None = None,
    constraints: Sequence[DimConstraint] = (),
    draws: int = 4,
    low: int = 1,
    high: int = 5,
    lows: Mapping[str, int] | None = None,
) -> list[dict[str, int]]:
    """Reproducible dims draws: distinct small values per draw, distinct draws.

    Fixed dims (literals of the statement) always win over pins; pinned dims
    keep their value in every draw; the free ones take values in `low..high`
    (from `lows[d]` for a dimension listed there: a list's length starts at 0),
    widened so that all free dims can differ, all different within a draw
    when possible. Returns at most `draws` draws (fewer when fewer exist).
    Raises DimsError when nothing satisfies the constraints.

    A check asks for the same draws up to three times (the derivation's dry run, its
    hypothesis probe, the check): the last `_DRAWS_KEPT` answers are kept, and each
    caller gets dictionaries of its own.
    """
    drawn = _draw_dims(
        name,
        int(seed),
        tuple(dim_names),
        tuple((fixed or {}).items()),  # in their order: the draws' keys keep it
        tuple((pinned or {}).items()),
        tuple(constraints),
        draws,
        low,
        high,
        tuple((lows or {}).items()),
    )
    return [dict(d) for d in drawn]


_DRAWS_KEPT = 64


@functools.lru_cache(maxsize=_DRAWS_KEPT)
def _draw_dims(
    name: str,
    seed: int,
    dim_names: tuple[str, ...],
    fixed_items: tuple[tuple[str, int], ...],
    pinned_items: tuple[tuple[str, int], ...],
    constraints: tuple[DimConstraint, ...],
    draws: int,
    low: int,
    high: int,
    lows_items: tuple[tuple[str, int], ...],
) -> tuple[dict[str, int], ...]:
    fixed = dict(fixed_items)
    lows = dict(lows_items)
    pinned = dict(pinned_items)
    pins = {k: int(v) for k, v in pinned.items() if k in dim_names and k not in fixed}
    free = [d for d in dim_names if d not in fixed and d not in pins]
    top = max(high, low + len(free) - 1)
    start = {d: min(low, int((lows or {}).get(d, low))) for d in free}
    bottom = min(start.values(), default=low)
    rng = np.random.default_rng(list(seed_words("dims", name, int(seed), sorted(pins.items()))))

    def complete(values: Sequence[int]) -> dict[str, int]:
        out = dict(zip(free, (int(v) for v in values), strict=True))
        out.update(pins)
        ordered = {d: out[d] for d in dim_names if d in out}
        ordered.update(fixed)
        return ordered

    def ok(dims: Mapping[str, int]) -> bool:
        return all(dims[d] >= start[d] for d in free) and all(c.holds(dims) for c in constraints)

    ranges = [range(start[d], top + 1) for d in free]
    if math.prod(len(r) for r in ranges) <= _ENUMERATION_LIMIT:
        # the free dims' values, in `free`'s order (each at least its start already); a
        # candidate becomes a draw's dictionary only if it is in the pool
        combos = list(itertools.product(*ranges))
        if constraints:
            combos = [v for v in combos if ok(complete(v))]
        width = len(free)
        distinct = [v for v in combos if len(set(v)) == width]
        repeated = [v for v in combos if len(set(v)) != width]
        shuffled = [distinct[i] for i in rng.permutation(len(distinct))]
        shuffled += [repeated[i] for i in rng.permutation(len(repeated))]
        # the candidates are shuffled, so a prefix is as good a pool as all of them
        pool = [complete(v) for v in shuffled[:_SPREAD_POOL]]
        floors = {d: v for d, v in start.items() if v < low}
        n_distinct = min(len(distinct), len(pool))
        chosen = _spread(pool, free, draws, n_distinct=n_distinct, floors=floors)
        chosen = _on_edges(chosen, (complete(v) for v in shuffled), constraints, draws)
    else:
        chosen = []
        seen: set[tuple[int, ...]] = set()
        for _ in range(1000 * draws):
            values = rng.choice(np.arange(bottom, top + 1), size=len(free), replace=False)
            key = tuple(int(v) for v in values)
            dims = complete(key)
            if key not in seen and ok(dims):
                seen.add(key)
                chosen.append(dims)
                if len(chosen) == draws:
                    break
    if not chosen:
        what = ", ".join(str(c) for c in constraints) or "the constraints"
        where = f"{bottom}..{top}" if free else "the given values"
        given = {**pins, **fixed}
        raise DimsError(
            f"no dimensions in {where} satisfy {what}"
            + (f" with {_format_dims(given)}" if given else "")
        )
    return tuple(chosen)


# how far a constraint's sides are apart at its edge: `a ≤ b` at a = b, `a < b` at a + 1 = b
_EDGE = {"<=": 0, ">=": 0, "<": -1, ">": 1}


def _gap(c: DimConstraint, dims: Mapping[str, int]) -> int:
    def value(side: str | int) -> int:
        return dims[side] if isinstance(side, str) else side

    return value(c.left) - value(c.right)


def _on_edges(
    chosen: list[dict[str, int]],
    candidates: Iterable[dict[str, int]],
    constraints: Sequence[DimConstraint],
    draws: int,
) -> list[dict[str, int]]:
    """The draws with, for each order constraint between dimensions (`i ≤ n`, `k < n`,
    `1 ≤ n`), one draw on its edge (i = n, k + 1 = n, n = 1) where one exists: the
    values a statement most often gets wrong, which draws of distinct values (`_spread`)
    would leave out. A draw that is no constraint's edge makes room for it."""
    edges = [c for c in constraints if c.op in _EDGE]
    if not edges:
        return chosen
    pool = list(candidates)
    out = list(chosen)
    kept: list[int] = []  # the draws that are an edge, kept from here on
    for c in edges:
        at = next((k for k, d in enumerate(out) if _gap(c, d) == _EDGE[c.op]), None)
        if at is not None:
            kept.append(at)
            continue
        found = next((d for d in pool if _gap(c, d) == _EDGE[c.op] and d not in out), None)
        if found is None:
            continue
        if len(out) < draws:
            out.append(found)
            kept.append(len(out) - 1)
            continue
        free = [k for k in range(len(out)) if k not in kept]
        if free:
            out[free[-1]] = found
            kept.append(free[-1])
    return out


def _spread(
    order: Sequence[dict[str, int]],
    free: Sequence[str],
    draws: int,
    *,
    n_distinct: int,
    floors: Mapping[str, int] | None = None,
) -> list[dict[str, int]]:
    """Up to `draws` candidates from `order` (shuffled, the distinct-valued ones first) such
    that each free dimension takes as many different values across the draws as it can:
    every pick is the earliest candidate that keeps distinct values within the draw and
    brings the most values not drawn yet, so no dimension stays at one value by chance. A
    dimension's value in `floors` (a list's length 0: the empty list) counts twice until
    it is drawn, so it is drawn when it can be."""
    chosen: list[dict[str, int]] = []
    taken: set[int] = set()
    seen: dict[str, set[int]] = {d: set() for d in free}
    floors = floors or {}
    while len(chosen) < min(draws, len(order)):
        best, best_key = -1, (-1, -1)
        for i, c in enumerate(order):
            if i in taken:
                continue
            new = sum(c[d] not in seen[d] for d in free)
            new += sum(c[d] == v and v not in seen[d] for d, v in floors.items() if d in c)
            key = (int(i < n_distinct), new)
            if key > best_key:
                best, best_key = i, key
        taken.add(best)
        chosen.append(order[best])
        for d in free:
            seen[d].add(order[best][d])
    return chosen


def _format_dims(dims: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in dims.items())
