"""Values over named axes, brought to one layout.

An `Arr`'s leading axes are the bound index variables it depends on (values.py).
Values are combined over the union of their axes (`union_axes`, in the order they
first appear), each one's data laid out over it with size 1 where the value does
not vary (`expand`). A bound index is abstracted over (`move_axis_to_dom`: the axis
becomes the first domain axis, as `fun i => ..` does) or summed out
(`drop_axis_by_sum`: `∑ i` or `∏ i`, in log space for a value held as its logarithm).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from checkers.language.errors import EvalError
from checkers.language.numerals import Numeral
from checkers.language.total import xp_of
from checkers.language.values import Arr, Axis, Sz, as_array, host_or_array
from checkers.lazyjax import jax, jnp


def union_axes(*vals: Arr) -> tuple[Axis, ...]:
    out: list[Axis] = []
    for v in vals:
        for a in v.axes:
            if a not in out:
                out.append(a)
    return tuple(out)


def expand(x: Arr, axes: tuple[Axis, ...], ndom: int, dtype: Any = None, logs: bool = False) -> Any:
    """x's data laid out over `axes` (size 1 where x does not vary) + ndom own axes;
    with `logs`, the logarithms an array in log space holds (not exponentiated)."""
    d = jnp.asarray(x.data, dtype) if logs and x.log else host_or_array(x, dtype)
    xp = xp_of(d)
    k = len(x.axes)
    if len(x.dom) not in (0, ndom):
        raise EvalError(f"cannot combine a {x.describe()} with a value of {ndom} index arguments")
    order = [axes.index(a) for a in x.axes]
    perm = sorted(range(k), key=lambda p: order[p])
    if perm != list(range(k)):
        d = xp.transpose(d, perm + list(range(k, d.ndim)))
    present = set(x.axes)
    shape = [a.size if a in present else 1 for a in axes]
    if x.dom:
        shape += [s.n for s in x.dom]
    else:
        shape += [1] * ndom
    # a traced reshape to the shape it has is still an operation to trace and run
    return d if tuple(np.shape(d)) == tuple(shape) else xp.reshape(d, shape)


def broadcast_to_axes(x: Arr, axes: tuple[Axis, ...]) -> Arr:
    """x with its data materialised over every axis of `axes` (in that order)."""
    d = expand(x, axes, len(x.dom), logs=True)
    shape = tuple(a.size for a in axes) + tuple(s.n for s in x.dom)
    return x.with_(data=xp_of(d).broadcast_to(d, shape), axes=axes, iota=None, log=x.log)


def move_axis_to_dom(x: Arr, axis: Axis, sz: Sz) -> Arr:
    """Abstract over `axis`: it becomes the first own (domain) axis."""
    if axis not in x.axes:
        x = broadcast_to_axes(x, x.axes + (axis,))
    k = x.axes.index(axis)
    d = jnp.asarray(x.data) if x.log else host_or_array(x)
    rest = tuple(a for a in x.axes if a is not axis)
    n = len(x.axes)
    perm = [i for i in range(n) if i != k] + [k] + list(range(n, d.ndim))
    if perm != list(range(d.ndim)):
        d = xp_of(d).transpose(d, perm)
    return Arr(d, x.kind, axes=rest, dom=(sz,) + x.dom, bound=x.bound, log=x.log)


def drop_axis_by_sum(x: Arr, axis: Axis, prod: bool = False) -> Arr:
    if x.log:
        return _drop_axis_in_logs(x, axis, prod)
    if isinstance(x.data, Numeral):
        return x.with_(data=Numeral.node("prod" if prod else "sum", x.data, value=axis.size))
    if axis not in x.axes:
        if prod:
            return x.with_(data=as_array(x) ** axis.size, iota=None)
        d = x.data
        if isinstance(d, int | Fraction) and not isinstance(d, bool):
            return x.with_(data=d * axis.size, iota=None)
        if axis.size == 0:  # the empty sum is 0, even of an infinite summand
            return x.with_(data=jnp.zeros_like(as_array(x)), iota=None)
        return x.with_(data=as_array(x) * axis.size, iota=None)
    k = x.axes.index(axis)
    d = as_array(x)
    d = jnp.prod(d, axis=k) if prod else jnp.sum(d, axis=k)
    return Arr(d, x.kind, axes=tuple(a for a in x.axes if a is not axis), dom=x.dom, bound=x.bound)


def _drop_axis_in_logs(x: Arr, axis: Axis, prod: bool) -> Arr:
    """∑ (log-sum-exp) or ∏ (a sum of logarithms) over `axis`, staying in log space."""
    if axis.size == 0:  # the empty sum is 0, which has no logarithm
        return drop_axis_by_sum(x.with_(data=jnp.zeros_like(x.data)), axis, prod)
    d = jnp.asarray(x.data)
    if axis not in x.axes:
        d = d * axis.size if prod else d + math.log(axis.size)
        return x.with_(data=d, iota=None, log=True)
    k = x.axes.index(axis)
    d = jnp.sum(d, axis=k) if prod else jax.nn.logsumexp(d, axis=k)
    rest = tuple(a for a in x.axes if a is not axis)
    return Arr(d, x.kind, axes=rest, dom=x.dom, bound=x.bound, log=True)
