"""One trial's jaxpr run on a whole batch: each rule applied with a leading batch axis.

JAX traces a checker for one trial, which is about half the cost of tracing it
vmapped; the batch is then carried here, value by value. A value computed from
no input is not batched (it is the same in every trial). An equation with a
batched operand is evaluated on the batch at once where its rule only needs its
parameters moved past the batch axis (elementwise operations, shapes,
reductions, contractions), and one trial at a time otherwise (gathers, scatters,
dynamic slices): either way it is what `jax.vmap` means, each trial evaluated on
its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from checkers.interpret.rules import ELEMENTWISE

Rule = Callable[..., Any]
Adapter = Callable[[Rule, dict[str, Any], list[Any], list[bool], list[tuple[int, ...]], int], Any]


def _up(dims: Sequence[int]) -> tuple[int, ...]:
    return tuple(d + 1 for d in dims)


def _whole(x: Any, batched: bool, shape: tuple[int, ...], size: int) -> np.ndarray:
    """`x` with the batch axis, repeated across it when it has none."""
    return x if batched else np.broadcast_to(x, (size, *shape))


def lane_by_lane(
    rule: Rule,
    params: dict[str, Any],
    xs: list[Any],
    flags: list[bool],
    shapes: list[tuple[int, ...]],
    size: int,
    multiple: bool = False,
) -> Any:
    outs = [
        rule(*(x[k] if f else x for x, f in zip(xs, flags, strict=True)), **params)
        for k in range(size)
    ]
    if multiple:
        return [np.stack([o[i] for o in outs]) for i in range(len(outs[0]))]
    return np.stack(outs)


def _elementwise(
    rule: Rule,
    params: dict[str, Any],
    xs: list[Any],
    flags: list[bool],
    shapes: list[tuple[int, ...]],
    size: int,
) -> Any:
    rank = max((len(s) for s in shapes), default=0)
    aligned = [
        x.reshape((size,) + (1,) * (rank - len(s)) + s) if f else x
        for x, f, s in zip(xs, flags, shapes, strict=True)
    ]
    return rule(*aligned, **params)


def _params(**changes: Callable[[Any, int], Any]) -> Adapter:
    """The rule on the batch, with the named parameters moved past the batch axis."""

    def adapt(
        rule: Rule,
        params: dict[str, Any],
        xs: list[Any],
        flags: list[bool],
        shapes: list[tuple[int, ...]],
        size: int,
    ) -> Any:
        moved = dict(params)
        for key, change in changes.items():
            if moved.get(key) is not None:
                moved[key] = change(moved[key], size)
        whole = [_whole(x, f, s, size) for x, f, s in zip(xs, flags, shapes, strict=True)]
        return rule(*whole, **moved)

    return adapt


def _pad(
    rule: Rule,
    params: dict[str, Any],
    xs: list[Any],
    flags: list[bool],
    shapes: list[tuple[int, ...]],
    size: int,
) -> Any:
    if flags[1]:  # the padding value differs by trial
        return lane_by_lane(rule, params, xs, flags, shapes, size)
    config = ((0, 0, 0), *params["padding_config"])
    return rule(xs[0], xs[1], padding_config=config)


def _dot_general(
    rule: Rule,
    params: dict[str, Any],
    xs: list[Any],
    flags: list[bool],
    shapes: list[tuple[int, ...]],
    size: int,
) -> Any:
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    lhs, rhs = xs
    if flags[0] and flags[1]:
        numbers = ((_up(lc), _up(rc)), ((0, *_up(lb)), (0, *_up(rb))))
        return rule(lhs, rhs, **{**params, "dimension_numbers": numbers})
    if flags[0]:  # the batch axis is lhs's first free dimension: after the batch dims
        numbers = ((_up(lc), rc), (_up(lb), rb))
        out = rule(lhs, rhs, **{**params, "dimension_numbers": numbers})
        return np.moveaxis(out, len(lb), 0)
    numbers = ((lc, _up(rc)), (lb, _up(rb)))  # rhs's first free dimension, after lhs's free ones
    out = rule(lhs, rhs, **{**params, "dimension_numbers": numbers})
    free_lhs = len(shapes[0]) - len(lc) - len(lb)
    return np.moveaxis(out, len(lb) + free_lhs, 0)


def _gather(
    rule: Rule,
    params: dict[str, Any],
    xs: list[Any],
    flags: list[bool],
    shapes: list[tuple[int, ...]],
    size: int,
) -> Any:
    """The batch axis as a gather batching dimension of the operand and the indices
    (or, with the operand the same in every trial, one more batch dimension of the
    indices); either way the output's batch dimension comes first."""
    operand, indices = xs
    dn = params["dimension_numbers"]
    if flags[0]:
        if not flags[1]:
            indices = np.broadcast_to(indices, (size, *indices.shape))
        numbers = type(dn)(
            offset_dims=_up(dn.offset_dims),
            collapsed_slice_dims=_up(dn.collapsed_slice_dims),
            start_index_map=_up(dn.start_index_map),
            operand_batching_dims=(0, *_up(dn.operand_batching_dims)),
            start_indices_batching_dims=(0, *_up(dn.start_indices_batching_dims)),
        )
        sizes = (1, *params["slice_sizes"])
        return rule(
            operand, indices, **{**params, "dimension_numbers": numbers, "slice_sizes": sizes}
        )
    numbers = type(dn)(
        offset_dims=_up(dn.offset_dims),
        collapsed_slice_dims=dn.collapsed_slice_dims,
        start_index_map=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=_up(dn.start_indices_batching_dims),
    )
    return rule(operand, indices, **{**params, "dimension_numbers": numbers})


ADAPTERS: dict[str, Adapter] = {
    "gather": _gather,
    **dict.fromkeys(ELEMENTWISE, _elementwise),
    "broadcast_in_dim": _params(
        shape=lambda s, n: (n, *s), broadcast_dimensions=lambda d, n: (0, *_up(d))
    ),
    "reshape": _params(new_sizes=lambda s, n: (n, *s)),
    "transpose": _params(permutation=lambda p, n: (0, *_up(p))),
    "squeeze": _params(dimensions=lambda d, n: _up(d)),
    "expand_dims": _params(dimensions=lambda d, n: _up(d)),
    "rev": _params(dimensions=lambda d, n: _up(d)),
    "slice": _params(
        start_indices=lambda s, n: (0, *s),
        limit_indices=lambda s, n: (n, *s),
        strides=lambda s, n: (1, *s),
    ),
    "concatenate": _params(dimension=lambda d, n: d + 1),
    "stack": _params(axis=lambda d, n: d + 1),
    "split": _params(axis=lambda d, n: d + 1),
    **{
        name: _params(axes=lambda a, n: _up(a))
        for name in (
            "reduce_sum",
            "reduce_prod",
            "reduce_max",
            "reduce_min",
            "reduce_and",
            "reduce_or",
            "argmax",
            "argmin",
        )
    },
    **{
        name: _params(axis=lambda d, n: d + 1) for name in ("cumsum", "cumprod", "cummax", "cummin")
    },
    "pad": _pad,
    "dot_general": _dot_general,
}
