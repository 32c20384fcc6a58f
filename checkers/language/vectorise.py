"""Indexing and elementwise calls over named axes.

`index` applies an array-valued function to one index argument; when the
index is a bound variable's own `iota` this is a relabelling of the axis (no
data moves). `call_vectorised` runs a plain-array implementation of a
library function once per point of the named axes, through `jax.vmap`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from checkers.language.axes import union_axes
from checkers.language.coercion import Ctx, coerce
from checkers.language.errors import EvalError, NotSupported
from checkers.language.total import xp_of
from checkers.language.values import Arr, Axis, Sz, as_array, host_or_array
from checkers.lazyjax import jax, jnp, lax


def _transpose_axes(x: Arr, order: Sequence[Axis], logs: bool = False) -> Any:
    d = jnp.asarray(x.data) if logs and x.log else host_or_array(x)
    perm = [x.axes.index(a) for a in order]
    k = len(x.axes)
    if perm != list(range(k)):
        d = xp_of(d).transpose(d, perm + list(range(k, d.ndim)))
    return d


# The most entries one evaluated value may have in one trial (2^22: 32 MiB of float64, 2 GiB
# over a batch of 64 trials; the batch holds every trial's copy at once). A statement
# whose evaluation would build a larger array (an index over one bound variable applied
# to a function of another, e.g. at 100,352 x 100,352; a whole network's rendered graph
# at a large dims draw) is beyond this evaluator, which says so rather than exhaust the
# machine's memory.
MAX_ENTRIES = 2**22


def guard_entries(sizes: Sequence[int], what: str) -> None:
    total = 1
    for n in sizes:
        total *= int(n)
    if total > MAX_ENTRIES:
        raise NotSupported(
            f"{what} would hold {total:.3g} entries per trial, more than the evaluator's "
            f"limit of {MAX_ENTRIES:.3g}"
        )


def index(f: Arr, i: Arr, ctx: Ctx) -> Arr:
    """`f i` for an array-valued function f and an index i."""
    if not f.dom:
        raise EvalError(f"a {f.describe()} applied to an argument")
    d0 = f.dom[0]
    if i.kind == "fin" and i.bound is not None and i.bound.n != d0.n:
        raise EvalError(f"an index in Fin {i.bound.n} used at Fin {d0.n}")
    i = coerce(i, "fin", ctx, d0)
    if i.dom:
        raise EvalError("a function used as an index")
    # an array in log space is indexed as it is: its entries' logarithms are picked
    if i.iota is not None and i.iota not in f.axes and i.iota.size == d0.n:
        return Arr(f.data, f.kind, f.axes + (i.iota,), f.dom[1:], f.bound, log=f.log)
    if i.is_static and not i.axes:
        k = int(i.data)
        d = jnp.asarray(f.data) if f.log else as_array(f)
        d = d[(slice(None),) * len(f.axes) + (k,)]
        return Arr(d, f.kind, f.axes, f.dom[1:], f.bound, log=f.log)
    common = [a for a in f.axes if a in i.axes]
    only_f = [a for a in f.axes if a not in i.axes]
    only_i = [a for a in i.axes if a not in f.axes]
    fd = _transpose_axes(f, common + only_f, logs=True)
    idx = _transpose_axes(i, common + only_i)
    pos = len(only_f)
    guard_entries(
        [a.size for a in common + only_f + only_i] + [d.n for d in f.dom[1:]],
        f"indexing a {f.describe()}",
    )

    data = _take(fd, idx, len(common), pos)
    return Arr(data, f.kind, tuple(common + only_f + only_i), f.dom[1:], f.bound, log=f.log)


def _take(data: Any, idx: Any, batch: int, pos: int) -> Any:
    """`jnp.take(d, i, axis=pos, mode="clip")` mapped over the first `batch` axes of both
    `data` (C…, F…, n, R…) and `idx` (C…, I…), giving (C…, F…, I…, R…): the one gather
    `jax.vmap` of `jnp.take` stages (the same operation, clamped indices included), bound
    directly, which costs a tenth of the trace time."""
    c, f = batch, pos
    i = idx.ndim - c
    r = data.ndim - c - f - 1
    starts: Any
    if isinstance(idx, np.ndarray):  # a host constant (an index's own values) stays one
        starts = idx[..., None]
    else:
        starts = lax.broadcast_in_dim(idx, tuple(idx.shape) + (1,), tuple(range(idx.ndim)))
    numbers = lax.GatherDimensionNumbers(
        offset_dims=tuple(range(c, c + f)) + tuple(range(c + f + i, c + f + i + r)),
        collapsed_slice_dims=(c + f,),
        start_index_map=(c + f,),
        operand_batching_dims=tuple(range(c)),
        start_indices_batching_dims=tuple(range(c)),
    )
    sizes = (1,) * c + tuple(data.shape[c : c + f]) + (1,) + tuple(data.shape[c + f + 1 :])
    return lax.gather(
        data, starts, numbers, sizes, mode=lax.GatherScatterMode.CLIP, fill_value=None
    )


def call_vectorised(
    raw: Callable[..., Any],
    args: Sequence[Arr | int],
    *,
    kind: str,
    dom: tuple[Sz, ...] | None = None,
    bound: Sz | None = None,
) -> Arr:
    """raw(*plain) once per point of the named axes of the array arguments.

    Plain ints in `args` are passed through unchanged (static dimensions).
    The result's own domain defaults to raw's output shape.
    """
    arrs = [a for a in args if isinstance(a, Arr)]
    axes = union_axes(*arrs)
    datas: list[Any] = []
    present: list[list[bool]] = [[] for _ in axes]
    for a in arrs:
        order = [ax for ax in axes if ax in a.axes]
        datas.append(_transpose_axes(a, order))
        for k, ax in enumerate(axes):
            present[k].append(ax in a.axes)
    statics = [a if not isinstance(a, Arr) else None for a in args]

    def plain(*ds: Any) -> Any:
        it = iter(ds)
        full = [next(it) if s is None else s for s in statics]
        return raw(*full)

    f: Callable[..., Any] = plain
    for k in reversed(range(len(axes))):
        f = jax.vmap(f, in_axes=tuple(0 if p else None for p in present[k]))
    data = f(*datas)
    nd = jnp.ndim(data) - len(axes)
    if dom is None:
        dom = tuple(Sz(s) for s in jnp.shape(data)[len(axes) :])
    if len(dom) != nd:
        raise EvalError("internal: result domain does not match the computed shape")
    return Arr(data, kind, axes, dom, bound)
