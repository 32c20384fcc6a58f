"""The values of a checker program evaluated exactly: NumPy object arrays whose elements
are `Interval`s (floats), Python integers (integers: exact, never wrapping, as Lean's
ℕ and ℤ) and True, False or None (booleans; None is undecided), and the two ways an
exact evaluation stops short (`Unconfirmable`, `Undecided`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from checkers.confirm.complex import CInterval
from checkers.confirm.intervals import Interval, constant, point

Rule = Callable[..., Any]


class Unconfirmable(Exception):
    """The program uses something the exact rules do not evaluate."""


class Undecided(Exception):
    """An integer or boolean the exact evaluation cannot pin down (its interval holds
    values that convert differently)."""


# --------------------------------------------------------------------------


def kind(dtype: Any) -> str:
    """'f', 'i', 'b' or 'c' (complex: confirm/complex.py): how values of a jaxpr dtype are
    held."""
    d = np.dtype(dtype)
    if d == np.bool_:
        return "b"
    if np.issubdtype(d, np.integer):
        return "i"
    if np.issubdtype(d, np.floating):
        return "f"
    if np.issubdtype(d, np.complexfloating):
        return "c"
    raise Unconfirmable(f"values of dtype {d}")


def exact(value: Any, *, literal: bool) -> np.ndarray:
    """A NumPy value as exact elements: an input's floats are points, a literal's or a
    constant's are `intervals.constant` (widened when not exactly decimal)."""
    arr = np.asarray(value)
    k = kind(arr.dtype)
    out = np.empty(arr.shape, dtype=object)
    flat = arr.reshape(-1).tolist()
    if k == "f":
        make = constant if literal else point
        items: list[Any] = [make(float(x)) for x in flat]
    elif k == "c":
        make = constant if literal else point
        items = [CInterval(make(float(x.real)), make(float(x.imag))) for x in flat]
    elif k == "i":
        items = [int(x) for x in flat]
    else:
        items = [bool(x) for x in flat]
    out.reshape(-1)[:] = items if items else []
    return out


def settle(value: Any, dtype: Any, shape: Sequence[int], name: str) -> np.ndarray:
    """A rule's result as the jaxpr declares it (shape, and elements of its kind)."""
    arr = np.array(value, dtype=object)  # a copy: broadcasts and slices are views
    if arr.shape != tuple(shape):
        raise Unconfirmable(f"{name} gave shape {arr.shape}, the jaxpr says {tuple(shape)}")
    k = kind(dtype)
    flat = arr.reshape(-1)
    for j, x in enumerate(flat):
        flat[j] = _element(x, k, name)
    return arr


def _element(x: Any, k: str, name: str) -> Any:
    if k == "c":
        if isinstance(x, CInterval):
            return x
        if isinstance(x, complex | np.complexfloating):
            return CInterval(constant(float(x.real)), constant(float(x.imag)))
        return CInterval(_element(x, "f", name), point(0))
    if k == "f":
        if isinstance(x, Interval):
            return x
        if x is None:
            return Interval(point(0).lo, point(1).hi)
        if isinstance(x, bool | int | np.integer | np.bool_):
            return point(int(x))
        if isinstance(x, float | np.floating):
            return constant(float(x))
    elif k == "i":
        if isinstance(x, bool | np.bool_):
            return int(x)
        if isinstance(x, int | np.integer):
            return int(x)
    elif x is None or isinstance(x, bool):
        return x
    elif isinstance(x, np.bool_):
        return bool(x)
    raise Unconfirmable(f"{name} gave {type(x).__name__} where the jaxpr says kind {k}")


def mapped(f: Rule, *xs: Any) -> np.ndarray:
    arrays = [np.asarray(x, dtype=object) for x in xs]
    return np.asarray(np.frompyfunc(f, len(arrays), 1)(*arrays), dtype=object)


def is_float(x: Any) -> bool:
    return isinstance(x, Interval)
