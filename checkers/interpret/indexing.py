"""NumPy rules for contractions, gathers and scatters, with XLA's semantics.

A gather reads, for every batch position of its indices, a window of the operand
whose start is clamped inside it (unless the mode fills out-of-bounds windows
with `fill_value`); a scatter-add drops windows that fall outside the operand
(or clamps them, in clip mode). Batching dimensions (from vmap) pair operand
dims with index dims, position by position.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np


def iota(*, dtype: Any, shape: Sequence[int], dimension: int, **_: Any) -> np.ndarray:
    line = np.arange(shape[dimension], dtype=np.dtype(dtype))
    view = [1] * len(shape)
    view[dimension] = shape[dimension]
    return np.broadcast_to(line.reshape(view), tuple(shape))


def dot_general(
    lhs: np.ndarray,
    rhs: np.ndarray,
    *,
    dimension_numbers: Any,
    preferred_element_type: Any,
    **_: Any,
) -> np.ndarray:
    (lc, rc), (lb, rb) = dimension_numbers
    letters = iter(string.ascii_letters)
    left = [next(letters) for _ in range(lhs.ndim)]
    right = [""] * rhs.ndim
    for a, b in zip((*lc, *lb), (*rc, *rb), strict=True):
        right[b] = left[a]
    right = [r or next(letters) for r in right]
    out = [left[a] for a in lb]
    out += [left[a] for a in range(lhs.ndim) if a not in lc and a not in lb]
    out += [right[b] for b in range(rhs.ndim) if b not in rc and b not in rb]
    spec = f"{''.join(left)},{''.join(right)}->{''.join(out)}"
    dtype = (
        np.result_type(lhs, rhs)
        if preferred_element_type is None
        else np.dtype(preferred_element_type)
    )
    return np.einsum(spec, lhs.astype(dtype), rhs.astype(dtype))


def _index_starts(
    operand_shape: Sequence[int],
    indices: np.ndarray,
    start_map: Sequence[int],
    operand_batching: Sequence[int],
    indices_batching: Sequence[int],
    sizes: Sequence[int],
    clamp: bool,
) -> tuple[list[np.ndarray], np.ndarray]:
    """For every batch position of `indices`, the start of its window along each operand
    dimension, and whether that batch position's whole window lies inside the operand."""
    batch_shape = indices.shape[:-1]
    starts: list[np.ndarray] = []
    for d in range(len(operand_shape)):
        if d in start_map:
            s = indices[..., list(start_map).index(d)].astype(np.int64)
        elif d in operand_batching:
            axis = indices_batching[list(operand_batching).index(d)]
            s = iota(dtype=np.int64, shape=batch_shape, dimension=axis)
        else:
            s = np.zeros(batch_shape, np.int64)
        starts.append(s)
    inside = np.ones(batch_shape, bool)
    for d, n in enumerate(operand_shape):
        inside &= (starts[d] >= 0) & (starts[d] <= n - sizes[d])
        if clamp:
            starts[d] = np.clip(starts[d], 0, n - sizes[d])
    return starts, inside


def _offsets(d: int, nb: int, window: Sequence[int], sizes: Sequence[int]) -> np.ndarray:
    """The offsets along operand dimension d (a window dimension) within a window, shaped
    to broadcast against (batch dims, window dims)."""
    view = [1] * (nb + len(window))
    view[nb + list(window).index(d)] = sizes[d]
    return np.arange(sizes[d], dtype=np.int64).reshape(view)


def _grid(
    starts: Sequence[np.ndarray], nb: int, window: Sequence[int], sizes: Sequence[int]
) -> tuple[np.ndarray, ...]:
    """For every batch position and every offset in the window, the operand index along
    each dimension (batch dims first, then the window dims in order), broadcast to one
    shape (for boolean selection)."""
    grid: list[np.ndarray] = []
    for d, start in enumerate(starts):
        g = start.reshape(start.shape + (1,) * len(window))
        if d in window:
            g = g + _offsets(d, nb, window, sizes)
        grid.append(g)
    full = np.broadcast_shapes(*(g.shape for g in grid))
    return tuple(np.broadcast_to(g, full) for g in grid)


def _take(
    operand: np.ndarray,
    starts: Sequence[np.ndarray],
    nb: int,
    window: Sequence[int],
    sizes: Sequence[int],
) -> np.ndarray:
    """Every window of the operand (each inside it), as one flat index into it: NumPy
    picks from a flat array by one index much faster than by one per dimension. The
    index is the windows' flat starts (batch-shaped) plus the offsets within a window
    (window-shaped), added once at full size."""
    base = np.zeros(starts[0].shape if starts else (), np.int64)
    within = np.zeros((1,) * (nb + len(window)), np.int64)
    stride = 1
    for d in reversed(range(operand.ndim)):
        base = base + starts[d] * stride
        if d in window:
            within = within + _offsets(d, nb, window, sizes) * stride
        stride *= operand.shape[d]
    flat = base.reshape(base.shape + (1,) * len(window)) + within
    return np.ascontiguousarray(operand).reshape(-1).take(flat)


def _mode(mode: Any) -> str:
    text = str(mode).upper()
    if "FILL" in text:
        return "fill"
    return "clip" if "CLIP" in text else "promise"


def gather(
    operand: np.ndarray,
    indices: np.ndarray,
    *,
    dimension_numbers: Any,
    slice_sizes: Sequence[int],
    mode: Any,
    fill_value: Any,
    **_: Any,
) -> np.ndarray:
    dn = dimension_numbers
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    window = [d for d in range(operand.ndim) if d not in dropped]
    fill = _mode(mode) == "fill"
    starts, inside = _index_starts(
        operand.shape,
        indices,
        dn.start_index_map,
        dn.operand_batching_dims,
        dn.start_indices_batching_dims,
        slice_sizes,
        clamp=True,
    )
    nb = indices.ndim - 1
    if operand.size:
        got = _take(operand, starts, nb, window, slice_sizes) if starts else operand[()]
    else:
        got = np.zeros(indices.shape[:-1] + tuple(slice_sizes[d] for d in window), operand.dtype)
    if fill:
        if fill_value is None:
            if np.issubdtype(operand.dtype, np.floating):
                fill_value = np.nan
            elif operand.dtype == np.bool_:
                fill_value = True
            else:
                info = np.iinfo(operand.dtype)
                fill_value = (
                    info.min if np.issubdtype(operand.dtype, np.signedinteger) else info.max
                )
        got = np.where(
            inside.reshape(inside.shape + (1,) * len(window)),
            got,
            np.asarray(fill_value, operand.dtype),
        )
    # output: window dims at offset_dims, the batch dims in the other positions, in order
    rank = nb + len(window)
    order = [0] * rank
    batch_axes = iter(range(nb))
    for pos in range(rank):
        if pos in dn.offset_dims:
            order[pos] = nb + list(dn.offset_dims).index(pos)
        else:
            order[pos] = next(batch_axes)
    return np.transpose(got, order)


def scatter_add(
    operand: np.ndarray,
    indices: np.ndarray,
    updates: np.ndarray,
    *,
    dimension_numbers: Any,
    mode: Any,
    update_jaxpr: Any = None,
    **_: Any,
) -> np.ndarray:
    dn = dimension_numbers
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window = [d for d in range(operand.ndim) if d not in dropped]
    scatter_axes = [a for a in range(updates.ndim) if a not in dn.update_window_dims]
    ordered = np.transpose(updates, scatter_axes + list(dn.update_window_dims))
    sizes = [1] * operand.ndim
    for d, a in zip(window, dn.update_window_dims, strict=True):
        sizes[d] = updates.shape[a]
    clamp = _mode(mode) == "clip"
    starts, inside = _index_starts(
        operand.shape,
        indices,
        dn.scatter_dims_to_operand_dims,
        dn.operand_batching_dims,
        dn.scatter_indices_batching_dims,
        sizes,
        clamp=clamp,
    )
    grid = _grid(starts, indices.ndim - 1, window, sizes)
    out = np.array(operand)
    if clamp:  # every window was moved inside
        inside = np.ones_like(inside)
    keep = (
        np.broadcast_to(inside.reshape(inside.shape + (1,) * len(window)), grid[0].shape)
        if grid
        else None
    )
    if keep is None:
        return out + ordered
    np.add.at(out, tuple(g[keep] for g in grid), ordered[keep])
    return out
