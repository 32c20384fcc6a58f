"""NumPy rules for the JAX primitives a checker program uses, with XLA's semantics.

Elementwise operations, shapes and reductions are here; gathers, scatters and
contractions in indexing.py. `RULES` maps a primitive's name to its rule, which
takes the equation's operands (NumPy arrays) and its parameters as keywords.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from checkers.interpret.indexing import dot_general, gather, iota, scatter_add

Rule = Callable[..., Any]


class InterpretError(Exception):
    """The jaxpr uses something this package does not evaluate, or a rule went wrong."""


# --- elementwise -----------------------------------------------------------------------


def _is_int(x: np.ndarray) -> bool:
    return np.issubdtype(x.dtype, np.integer)


def _div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if not _is_int(x):
        return np.true_divide(x, y)
    zero = y == 0
    safe = np.where(zero, 1, y)
    q = np.abs(x) // np.abs(safe)  # truncation toward zero, as XLA divides integers
    q = np.where((x < 0) != (safe < 0), -q, q)
    return np.where(zero, np.asarray(-1, x.dtype), q)


def _rem(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if not _is_int(x):
        return np.fmod(x, y)
    zero = y == 0
    r = np.fmod(x, np.where(zero, 1, y))  # the sign of the dividend, as XLA
    return np.where(zero, x, r)


def _logical(op_bool: Rule, op_int: Rule) -> Rule:
    def rule(*xs: np.ndarray) -> np.ndarray:
        return op_bool(*xs) if xs[0].dtype == np.bool_ else op_int(*xs)

    return rule


def _sign(x: np.ndarray) -> np.ndarray:
    if not np.issubdtype(x.dtype, np.floating):
        return np.sign(x)
    return np.where(x == 0, x, np.sign(x))  # the sign of a zero is kept, as XLA keeps it


def _logistic(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


# `lax.RoundingMethod.TO_NEAREST_EVEN`'s value (AWAY_FROM_ZERO is 0): rules compare the
# parameter as an integer, so a stored program (stored.py) runs without JAX
TO_NEAREST_EVEN = 1


def _round(x: np.ndarray, *, rounding_method: Any) -> np.ndarray:
    if int(rounding_method) == TO_NEAREST_EVEN:
        return np.round(x)
    return np.sign(x) * np.floor(np.abs(x) + 0.5)  # half away from zero


def _integer_pow(x: np.ndarray, *, y: int) -> np.ndarray:
    if y >= 0:
        return np.power(x, y)
    return np.power(np.true_divide(1, x) if not _is_int(x) else x, -y)


def _pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.power(x, y)


def _clamp(lo: np.ndarray, x: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return np.minimum(np.maximum(x, lo), hi)


def _convert(x: np.ndarray, *, new_dtype: Any, **_: Any) -> np.ndarray:
    target = np.dtype(new_dtype)
    if target == np.bool_:
        return x != 0
    if np.issubdtype(target, np.integer) and np.issubdtype(x.dtype, np.floating):
        info = np.iinfo(target)
        t = np.trunc(np.where(np.isnan(x), 0, x))
        return np.clip(t, info.min, info.max).astype(target)
    return x.astype(target)


def _select_n(which: np.ndarray, *cases: np.ndarray) -> np.ndarray:
    if len(cases) == 1:
        return np.broadcast_to(cases[0], np.broadcast_shapes(which.shape, cases[0].shape))
    if which.dtype == np.bool_:
        return np.where(which, cases[1], cases[0])
    return np.choose(which.astype(np.int64), cases)


def _complex(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    """`lax.complex`: the complex dtype whose parts have re's float dtype."""
    re, im = np.asarray(re), np.asarray(im)
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), np.result_type(re, np.complex64))
    out.real, out.imag = re, im
    return out


_UNARY: dict[str, Rule] = {
    "neg": np.negative,
    "real": np.real,
    "imag": np.imag,
    "conj": np.conjugate,
    "abs": np.abs,
    "sign": _sign,
    "exp": np.exp,
    "exp2": np.exp2,
    "log": np.log,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "cbrt": np.cbrt,
    "tanh": np.tanh,
    "logistic": _logistic,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "floor": np.floor,
    "ceil": np.ceil,
    "is_finite": np.isfinite,
    "square": np.square,
    "not": _logical(np.logical_not, np.invert),
    "stop_gradient": lambda x: x,
    "copy": lambda x: np.array(x),
    "copy_p": lambda x: np.array(x),
    "optimization_barrier": lambda *xs: xs,
}

_BINARY: dict[str, Rule] = {
    "complex": _complex,
    "add": np.add,
    "add_any": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": _div,
    "rem": _rem,
    "max": np.maximum,
    "min": np.minimum,
    "pow": _pow,
    "atan2": np.arctan2,
    "nextafter": np.nextafter,
    "and": _logical(np.logical_and, np.bitwise_and),
    "or": _logical(np.logical_or, np.bitwise_or),
    "xor": _logical(np.logical_xor, np.bitwise_xor),
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


# --- shapes ----------------------------------------------------------------------------


def _broadcast_in_dim(
    x: np.ndarray,
    *dyn: np.ndarray,
    shape: Sequence[int],
    broadcast_dimensions: Sequence[int],
    **_: Any,
) -> np.ndarray:
    if dyn:
        raise InterpretError("broadcast_in_dim with dynamic shapes")
    expanded = [1] * len(shape)
    for src, dst in enumerate(broadcast_dimensions):
        expanded[dst] = x.shape[src]
    return np.broadcast_to(x.reshape(expanded), tuple(shape))


def _reshape(
    x: np.ndarray, *dyn: np.ndarray, new_sizes: Sequence[int], dimensions: Any, **_: Any
) -> np.ndarray:
    if dyn or dimensions is not None:
        raise InterpretError("reshape with dynamic shapes or a dimension order")
    return np.reshape(x, tuple(new_sizes))


def _slice(
    x: np.ndarray, *, start_indices: Sequence[int], limit_indices: Sequence[int], strides: Any
) -> np.ndarray:
    steps = strides or (1,) * x.ndim
    return x[
        tuple(slice(a, b, s) for a, b, s in zip(start_indices, limit_indices, steps, strict=True))
    ]


def _clamped_starts(x: np.ndarray, starts: Sequence[np.ndarray], sizes: Sequence[int]) -> list[int]:
    return [int(min(max(int(s), 0), n - k)) for s, n, k in zip(starts, x.shape, sizes, strict=True)]


def _dynamic_slice(x: np.ndarray, *starts: np.ndarray, slice_sizes: Sequence[int]) -> np.ndarray:
    at = _clamped_starts(x, starts, slice_sizes)
    return x[tuple(slice(a, a + k) for a, k in zip(at, slice_sizes, strict=True))]


def _dynamic_update_slice(x: np.ndarray, update: np.ndarray, *starts: np.ndarray) -> np.ndarray:
    at = _clamped_starts(x, starts, update.shape)
    out = np.array(x)
    out[tuple(slice(a, a + k) for a, k in zip(at, update.shape, strict=True))] = update
    return out


def _pad(
    x: np.ndarray, fill: np.ndarray, *, padding_config: Sequence[tuple[int, int, int]]
) -> np.ndarray:
    out = x
    for axis, (lo, hi, interior) in enumerate(padding_config):
        if interior:
            n = out.shape[axis]
            shape = list(out.shape)
            shape[axis] = n + (n - 1) * interior if n else 0
            spaced = np.full(shape, fill, out.dtype)
            index = [slice(None)] * out.ndim
            index[axis] = slice(None, None, interior + 1)
            spaced[tuple(index)] = out
            out = spaced
        for amount, at_end in ((lo, False), (hi, True)):
            if amount > 0:
                shape = list(out.shape)
                shape[axis] = amount
                block = np.full(shape, fill, out.dtype)
                out = np.concatenate([out, block] if at_end else [block, out], axis=axis)
            elif amount < 0:
                index = [slice(None)] * out.ndim
                index[axis] = slice(None, amount) if at_end else slice(-amount, None)
                out = out[tuple(index)]
    return out


def _concatenate(*xs: np.ndarray, dimension: int) -> np.ndarray:
    return np.concatenate(xs, axis=dimension)


def _split(x: np.ndarray, *, sizes: Sequence[int], axis: int) -> list[np.ndarray]:
    cuts = list(itertools.accumulate(sizes))[:-1]
    return list(np.split(x, cuts, axis=axis))


def _rev(x: np.ndarray, *, dimensions: Sequence[int]) -> np.ndarray:
    return np.flip(x, axis=tuple(dimensions)) if dimensions else x


# --- reductions --------------------------------------------------------------------------


def _identity(op: str, dtype: np.dtype) -> Any:
    if op == "max":
        return (
            -np.inf
            if np.issubdtype(dtype, np.floating)
            else (False if dtype == np.bool_ else np.iinfo(dtype).min)
        )
    if dtype == np.bool_:
        return True
    return np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).max


def _reduction(kind: str) -> Rule:
    def rule(x: np.ndarray, *, axes: Sequence[int], **_: Any) -> np.ndarray:
        axis = tuple(axes)
        if kind == "sum":
            return np.sum(x, axis=axis, dtype=x.dtype)
        if kind == "prod":
            return np.prod(x, axis=axis, dtype=x.dtype)
        if kind == "and":
            return (
                np.all(x, axis=axis) if x.dtype == np.bool_ else np.bitwise_and.reduce(x, axis=axis)
            )
        if kind == "or":
            return (
                np.any(x, axis=axis) if x.dtype == np.bool_ else np.bitwise_or.reduce(x, axis=axis)
            )
        op = np.max if kind == "max" else np.min
        return op(x, axis=axis, initial=_identity(kind, x.dtype))

    return rule


def _arg(kind: str) -> Rule:
    def rule(x: np.ndarray, *, axes: Sequence[int], index_dtype: Any) -> np.ndarray:
        (axis,) = axes
        if np.issubdtype(x.dtype, np.floating):  # XLA picks the first NaN, as a maximum
            nan = np.isnan(x)
            pick = np.argmax(nan, axis=axis)
            plain = (np.argmax if kind == "max" else np.argmin)(np.where(nan, 0, x), axis=axis)
            out = np.where(np.any(nan, axis=axis), pick, plain)
        else:
            out = (np.argmax if kind == "max" else np.argmin)(x, axis=axis)
        return out.astype(np.dtype(index_dtype))

    return rule


def _cumulative(kind: str) -> Rule:
    ufunc = {"cumsum": np.add, "cumprod": np.multiply, "cummax": np.maximum, "cummin": np.minimum}[
        kind
    ]

    def rule(x: np.ndarray, *, axis: int, reverse: bool) -> np.ndarray:
        if reverse:
            return np.flip(ufunc.accumulate(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
        return ufunc.accumulate(x, axis=axis, dtype=x.dtype)

    return rule


def _stack(*xs: np.ndarray, axis: int) -> np.ndarray:
    return np.stack(xs, axis=axis)


def _squeeze(x: np.ndarray, *, dimensions: Sequence[int]) -> np.ndarray:
    return np.squeeze(x, axis=tuple(dimensions)) if dimensions else x


def _expand_dims(x: np.ndarray, *, dimensions: Sequence[int]) -> np.ndarray:
    return np.expand_dims(x, tuple(dimensions))


def _transpose(x: np.ndarray, *, permutation: Sequence[int]) -> np.ndarray:
    return np.transpose(x, tuple(permutation))


def _positional(f: Rule) -> Rule:
    """An elementwise rule: the operands only (the equation's parameters are sharding)."""

    def rule(*xs: np.ndarray, **_: Any) -> Any:
        return f(*xs)

    return rule


RULES: dict[str, Rule] = {
    **{name: _positional(f) for name, f in {**_UNARY, **_BINARY}.items()},
    "round": _round,
    "integer_pow": _integer_pow,
    "clamp": lambda lo, x, hi, **_: _clamp(lo, x, hi),
    "convert_element_type": _convert,
    "select_n": lambda which, *cases, **_: _select_n(which, *cases),
    "broadcast_in_dim": _broadcast_in_dim,
    "reshape": _reshape,
    "iota": iota,
    "slice": _slice,
    "dynamic_slice": _dynamic_slice,
    "dynamic_update_slice": lambda x, u, *s, **_: _dynamic_update_slice(x, u, *s),
    "pad": _pad,
    "concatenate": _concatenate,
    "split": _split,
    "rev": _rev,
    "squeeze": _squeeze,
    "expand_dims": _expand_dims,
    "transpose": _transpose,
    "stack": _stack,
    "reduce_sum": _reduction("sum"),
    "reduce_prod": _reduction("prod"),
    "reduce_max": _reduction("max"),
    "reduce_min": _reduction("min"),
    "reduce_and": _reduction("and"),
    "reduce_or": _reduction("or"),
    "argmax": _arg("max"),
    "argmin": _arg("min"),
    "cumsum": _cumulative("cumsum"),
    "cumprod": _cumulative("cumprod"),
    "cummax": _cumulative("cummax"),
    "cummin": _cumulative("cummin"),
    "dot_general": dot_general,
    "gather": gather,
    "scatter-add": scatter_add,
}

# primitives whose body is a sub-jaxpr, evaluated in place: param holding the ClosedJaxpr

# rules that act entry by entry (with NumPy broadcasting): batching.py runs them on a batch
ELEMENTWISE = frozenset(
    {*_UNARY, *_BINARY, "round", "integer_pow", "clamp", "convert_element_type", "select_n"}
    - {"optimization_barrier"}
)
