"""The reductions of a checker program on exact values (rules.py): sums, products,
extremes, arg-extremes, cumulative scans and `dot_general`, element by element on NumPy
object arrays with the elementwise rules given."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from checkers.confirm import complex as cx
from checkers.confirm import intervals as iv
from checkers.confirm.values import Rule, Undecided, mapped


def _along(x: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    """x with `axes` moved last and merged into one."""
    rest = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, rest + list(axes))
    n = math.prod(x.shape[a] for a in axes)
    return moved.reshape(tuple(x.shape[a] for a in rest) + (n,))


def reduction(op: Rule, identity: Callable[[str], Any]) -> Rule:
    def rule(x: np.ndarray, *, axes: Sequence[int], out_kind: str, **_: Any) -> np.ndarray:
        rows = _along(x, tuple(axes))
        out = np.empty(rows.shape[:-1], dtype=object)
        for index in np.ndindex(out.shape):
            items = list(rows[index])
            out[index] = functools.reduce(op, items) if items else identity(out_kind)
        return out

    return rule


def extreme(out_kind: str, top: bool) -> Any:
    if out_kind == "f":
        return iv.point(-math.inf if top else math.inf)
    if out_kind == "b":
        return not top
    info = np.iinfo(np.int64)
    return int(info.min if top else info.max)


def arg_rule(above: Rule, at_least: Rule) -> Rule:
    """argmax (`above` = gt, `at_least` = ge) or argmin (lt, le): the one index every other
    element is decided below (or above), else `Undecided`."""

    def rule(x: np.ndarray, *, axes: Sequence[int], index_dtype: Any, **_: Any) -> np.ndarray:
        rows = _along(x, tuple(axes))
        out = np.empty(rows.shape[:-1], dtype=object)
        for index in np.ndindex(out.shape):
            row = list(rows[index])
            winners = [
                i
                for i in range(len(row))
                if all(above(row[i], row[j]) is True for j in range(i))
                and all(at_least(row[i], row[j]) is True for j in range(i + 1, len(row)))
            ]
            if len(winners) != 1:
                raise Undecided("an argmax or argmin among values that may tie")
            out[index] = winners[0]
        return out

    return rule


def cumulative(op: Rule) -> Rule:
    def rule(x: np.ndarray, *, axis: int, reverse: bool, **_: Any) -> np.ndarray:
        moved = np.moveaxis(x, axis, -1)
        out = np.empty(moved.shape, dtype=object)
        for index in np.ndindex(moved.shape[:-1]):
            row = list(moved[index])
            order = range(len(row) - 1, -1, -1) if reverse else range(len(row))
            acc: Any = None
            for k in order:
                acc = row[k] if acc is None else op(acc, row[k])
                out[index + (k,)] = acc
        return np.moveaxis(out, -1, axis)

    return rule


def dot_general(
    lhs: np.ndarray, rhs: np.ndarray, *, dimension_numbers: Any, out_kind: str, **_: Any
) -> np.ndarray:
    (lc, rc), (lb, rb) = dimension_numbers
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    left = [next(letters) for _ in range(lhs.ndim)]
    right = [""] * rhs.ndim
    for a, b in zip((*lc, *lb), (*rc, *rb), strict=True):
        right[b] = left[a]
    right = [r or next(letters) for r in right]
    out = [left[a] for a in lb]
    out += [left[a] for a in range(lhs.ndim) if a not in lc and a not in lb]
    out += [right[b] for b in range(rhs.ndim) if b not in rc and b not in rb]
    if out_kind == "f":
        lhs, rhs = mapped(iv.lift, lhs), mapped(iv.lift, rhs)
    elif out_kind == "c":
        lhs, rhs = mapped(cx.lift, lhs), mapped(cx.lift, rhs)
    spec = f"{''.join(left)},{''.join(right)}->{''.join(out)}"
    return np.asarray(np.einsum(spec, lhs, rhs), dtype=object)


def zero(out_kind: str) -> Any:
    if out_kind == "c":
        return cx.lift(0)
    return iv.point(0) if out_kind == "f" else 0
