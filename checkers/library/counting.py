"""Mathlib's counting functions of ℕ: `Nat.choose`, `Nat.factorial`, `Nat.descFactorial`.

They are computed exactly, with Python integers, from arguments known outside the
trace (dimensions, numerals, the elements of a finite set such as `Finset.Icc k N`);
a traced argument is refused. A value that fits int64 is an ordinary ℕ. Larger ones
(`Nat.choose 10112 5000` has 3,000 digits) can only be used as real numbers: they are
held as their logarithms (values.py, `log`), computed from the exact integers, so that
`(N.choose j : ℝ) * q ^ j * (1 - q) ^ (N - j)` is computed in log space, with the
relative error of exponentiating a logarithm (|log x| units of roundoff); any ℕ
arithmetic on them is refused (values.py, `as_array`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from checkers.language.axes import union_axes
from checkers.language.coercion import coerce
from checkers.language.errors import EvalError
from checkers.language.values import Arr, Builtin

if TYPE_CHECKING:
    from checkers.evaluator.evaluate import Evaluator

INT64_MAX = 2**63 - 1


def _host(ev: Evaluator, x: Any, what: str) -> Arr:
    v = coerce(ev._arr(x, what), "nat", ev.ctx)
    if not (v.is_static or isinstance(v.data, np.ndarray | np.generic)) or v.log:
        raise EvalError(f"{what} of a natural number computed in the trace")
    return v


def _descending(n: int, k: int) -> int:
    """`Nat.descFactorial n k = n (n - 1) ⋯ (n - k + 1)` (0 once a factor is 0)."""
    return math.perm(n, k) if k <= n else 0


def _choose(n: int, k: int) -> int:
    return math.comb(n, k)


def _factorial(n: int) -> int:
    return math.factorial(n)


def _all(f: Callable[..., int], points: list[tuple[int, ...]]) -> list[int]:
    """f at every point; `Nat.choose n k` along consecutive k by the recurrence
    C(n, k + 1) = C(n, k) · (n − k) / (k + 1) (exact), as a finset's elements come."""
    if f is not _choose:
        return [f(*p) for p in points]
    out: list[int] = []
    prev: tuple[int, int, int] | None = None  # (n, k, C(n, k))
    for n, k in points:
        if prev is not None and prev[0] == n and prev[1] + 1 == k and k <= n:
            c = prev[2] * (n - prev[1]) // k
        else:
            c = math.comb(n, k)
        out.append(c)
        prev = (n, k, c)
    return out


def nat_values(values: list[int], axes: Any, shape: tuple[int, ...]) -> Arr:
    """Exact naturals as a ℕ array: int64 when every one fits, else their logarithms."""
    if all(v <= INT64_MAX for v in values):
        data = np.asarray(values, dtype=np.int64).reshape(shape)
        return Arr(data if shape else int(values[0]), "nat", axes)
    logs = np.asarray([math.log(v) if v else -math.inf for v in values]).reshape(shape)
    return Arr(logs, "nat", axes, log=True)


def _counting(name: str, arity: int, f: Callable[..., int]) -> Builtin:
    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        vals = [_host(ev, a, name) for a in args]
        axes = union_axes(*vals)
        if any(v.dom for v in vals):
            raise EvalError(f"{name} of a function")
        arrays = []
        for v in vals:
            d = np.asarray(v.data, dtype=np.int64)
            order = [axes.index(a) for a in v.axes]
            if order != sorted(order):
                d = np.transpose(d, np.argsort(order))
            present = set(v.axes)
            arrays.append(d.reshape([a.size if a in present else 1 for a in axes]))
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        flat = [np.broadcast_to(a, shape).ravel() for a in arrays]
        points = [tuple(int(x) for x in point) for point in zip(*flat, strict=True)]
        return nat_values(_all(f, points), axes, tuple(shape))

    return Builtin(name, arity, fn, ("nat",) * arity, implicit=0)


COUNTING: tuple[Builtin, ...] = (
    _counting("Nat.choose", 2, _choose),
    _counting("Nat.descFactorial", 2, _descending),
    _counting("Nat.factorial", 1, _factorial),
)
