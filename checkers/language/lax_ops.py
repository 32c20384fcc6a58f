"""The evaluator's most frequent array operations, bound as JAX primitives directly.

Tracing a statement costs the evaluator's own work plus JAX's for each operation; a
`jax.numpy` function adds its own argument checks, dtype promotion and broadcasting to
the primitive it binds: `jnp.where(c, x, 0.0)` traces in about five times the time of
the `select_n` it stages, `x * y` in three times that of `mul`. Where the operands
already agree (arrays of JAX, one floating dtype, neither weakly typed, shapes that
broadcast), these functions stage the same primitives, and so compute the same values,
without that work; anything else (host constants, integers, weak types) goes through
`jax.numpy` as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from checkers.lazyjax import jax, jnp, lax

# the functions of lax and of jnp for each operator, by name (JAX loads on first use)
_BINARY = {"+": "add", "-": "sub", "*": "mul", "/": "div"}
_NUMPY = {"+": "add", "-": "subtract", "*": "multiply", "/": "true_divide"}


def _float_array(x: Any) -> bool:
    """A JAX array (or tracer) of a floating dtype that is not weakly typed."""
    if not isinstance(x, jax.Array):
        return False
    aval = getattr(x, "aval", None)
    return (
        aval is not None
        and not getattr(aval, "weak_type", True)
        and jnp.issubdtype(x.dtype, jnp.floating)
    )


def _shape(*xs: Any) -> tuple[int, ...] | None:
    """The shape the operands broadcast to, where they have one rank (else None)."""
    shapes = [tuple(x.shape) for x in xs]
    rank = len(shapes[0])
    if any(len(s) != rank for s in shapes):
        return None
    out = []
    for dims in zip(*shapes, strict=True):
        big = max(dims)
        if any(d not in (1, big) for d in dims):
            return None
        out.append(big)
    return tuple(out)


def _to(x: Any, shape: tuple[int, ...]) -> Any:
    if tuple(x.shape) == shape:
        return x
    if isinstance(x, np.ndarray):
        return np.broadcast_to(x, shape)  # a host constant stays one
    return lax.broadcast_in_dim(x, shape, tuple(range(len(shape))))


def _condition(c: Any) -> Any | None:
    """A boolean condition as an array (of JAX, or NumPy for a host constant), else None."""
    if isinstance(c, np.ndarray | np.generic | bool):
        c = np.asarray(c)
    elif not isinstance(c, jax.Array):
        return None
    return c if c.dtype == np.bool_ else None


def filled(shape: tuple[int, ...], value: float, dtype: Any) -> Any:
    """`lax.full(shape, value, dtype)` as one broadcast of a constant (`lax.full` also
    stages the conversion of the number to the dtype)."""
    const = np.asarray(value, dtype)
    return lax.broadcast_in_dim(const, shape, ()) if shape else const


def binary(op: str, x: Any, y: Any) -> Any:
    """`x op y` for op in + - * / (IEEE division: the caller guards zeros)."""
    if _float_array(x) and _float_array(y) and x.dtype == y.dtype:
        shape = _shape(x, y)
        if shape is not None:
            return getattr(lax, _BINARY[op])(_to(x, shape), _to(y, shape))
    return getattr(jnp, _NUMPY[op])(x, y)


def where(c: Any, x: Any, y: Any) -> Any:
    """`jnp.where(c, x, y)`."""
    if (
        _float_array(x)
        and _float_array(y)
        and x.dtype == y.dtype
        and isinstance(c, jax.Array)
        and c.dtype == np.bool_
    ):
        shape = _shape(c, x, y)
        if shape is not None:
            return lax.select(_to(c, shape), _to(x, shape), _to(y, shape))
    return jnp.where(c, x, y)


def where_scalar(c: Any, x: Any, value: float, *, scalar_first: bool = False) -> Any:
    """`jnp.where(c, x, value)` (or `jnp.where(c, value, x)` with `scalar_first`) for a
    Python number `value` taking x's floating dtype."""
    cond = _condition(c)
    if _float_array(x) and cond is not None:
        c = cond
        shape = _shape(c, x)
        if shape is not None:
            const = filled(shape, value, x.dtype)
            x, c = _to(x, shape), _to(c, shape)
            return lax.select(c, const, x) if scalar_first else lax.select(c, x, const)
    return jnp.where(c, value, x) if scalar_first else jnp.where(c, x, value)


def sqrt(x: Any) -> Any:
    return lax.sqrt(x) if _float_array(x) else jnp.sqrt(x)


def compare_scalar(op: str, x: Any, value: float) -> Any:
    """`x == value` / `x > value` for a floating array x and a Python number."""
    if _float_array(x):
        const = filled(tuple(x.shape), value, x.dtype)
        return lax.eq(x, const) if op == "==" else lax.gt(x, const)
    return x == value if op == "==" else x > value
