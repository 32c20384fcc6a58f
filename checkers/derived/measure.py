"""What one trial's evaluation tells the comparison besides the two sides.

A `Meter` rides on the evaluation context (`Ctx.meter`) and collects, per
trial:

- the *scale*: the largest magnitude of an operand of an additive operation
  (`+`, `-`, the terms of a `∑`, and the terms a library function such as a
  matrix product or a mean sums internally). Floating-point addition is exact
  up to a relative error of the *operands*, not of the result: terms ~1 that
  cancel leave an error ~1e-16 however small the result is. Products,
  quotients and the elementary functions are accurate relative to their own
  result, so they add nothing here. The comparison (checkers/tolerance.py)
  allows an error of rtol × max(|lhs|, |rhs|, scale).
- *underflow*: whether a product, quotient, power or exponential of non-zero
  values came out zero or subnormal (below the dtype's smallest normal number),
  so a strict inequality that then ties is undecided rather than false
  (`0 < Real.exp (-x)` at x = 800).

Both branches of an `if` are evaluated, so their operands count too; that
only ever widens the tolerance by rtol times a magnitude the statement
computes. Non-finite operands are left out (the sides then are non-finite,
which the harness reports on its own). Inside a JAX transformation of the
evaluator itself (the derivative of a function value) the meter is paused: the
values there belong to another trace.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax


def _is_float(x: Any) -> bool:
    return hasattr(x, "dtype") and jnp.issubdtype(x.dtype, jnp.floating)


def _host(*xs: Any) -> bool:
    """Every operand is a NumPy constant: measure it with NumPy, no JAX operation."""
    return all(isinstance(x, np.ndarray | np.generic) for x in xs)


def magnitude(x: Any) -> Any:
    """The largest finite |x| over all of x's entries (0 when there are none), as float64."""
    if _host(x):
        h = np.asarray(x)
        if h.size == 0:
            return np.zeros((), np.float64)
        a = np.abs(h.astype(np.float64))
        return np.max(np.where(np.isfinite(a), a, 0.0))
    # lax, not jnp: the measures are a large part of a traced program, and jnp's
    # functions would each add a nested jit to trace
    t = jnp.asarray(x)
    if t.size == 0:
        return jnp.zeros((), jnp.float64)
    m = lax.abs(lax.convert_element_type(t, jnp.float64))
    finite = lax.select(lax.is_finite(m), m, lax.full_like(m, 0.0))
    return lax.reduce_max(finite, tuple(range(finite.ndim))) if finite.ndim else finite


class Meter:
    def __init__(self, *, underflow: bool = True) -> None:
        self._scales: list[Any] = []
        self._underflows: list[Any] = []
        self._paused = 0
        # whether to watch for underflow at all: it only ever decides a strict
        # inequality whose sides tie (verdict.py), so a checker of =, ≤ or ≥ need not
        self.watch_underflow = underflow

    @property
    def active(self) -> bool:
        return self._paused == 0

    @contextmanager
    def paused(self) -> Iterator[None]:
        self._paused += 1
        try:
            yield
        finally:
            self._paused -= 1

    def operands(self, *xs: Any) -> None:
        """Record the operands of an addition (or the terms of a sum)."""
        if not self.active:
            return
        for x in xs:
            if _is_float(x):
                self._scales.append(magnitude(x))

    def term_bound(self, *factors: Any) -> None:
        """Record the product of the factors' magnitudes: a bound on the terms of a
        sum of their products (a matrix product, a contraction)."""
        if not self.active:
            return
        floats = [f for f in factors if _is_float(f)]
        if not floats:
            return
        xp = np if _host(*floats) else jnp
        bound = xp.ones((), xp.float64)
        for f in floats:
            bound = bound * magnitude(f)
        self._scales.append(xp.where(xp.isfinite(bound), bound, 0.0))

    def result(self, inputs: tuple[Any, ...], out: Any) -> None:
        """Record a result that underflowed although none of `inputs` is zero."""
        if not self.active or not self.watch_underflow or not _is_float(out):
            return
        xp = np if _host(out, *inputs) else jnp
        tiny = float(jnp.finfo(out.dtype).tiny)
        nonzero = xp.ones(xp.shape(out), bool)
        for x in inputs:
            nonzero = nonzero & (xp.asarray(x) != 0)
        self._underflows.append(xp.any(nonzero & (xp.abs(out) < tiny)))

    def scale(self) -> Any:
        """The per-trial scale: the largest recorded magnitude (float64, 0 when none)."""
        if not self._scales:
            return jnp.zeros((), jnp.float64)
        return jnp.max(jnp.stack(self._scales))

    def underflow(self) -> Any:
        if not self._underflows:
            return jnp.zeros((), bool)
        return jnp.any(jnp.stack(self._underflows))


def note_operands(ctx: Any, *xs: Any) -> None:
    meter = getattr(ctx, "meter", None)
    if meter is not None:
        meter.operands(*xs)


def note_terms(ctx: Any, *factors: Any) -> None:
    meter = getattr(ctx, "meter", None)
    if meter is not None:
        meter.term_bound(*factors)


def note_result(ctx: Any, inputs: tuple[Any, ...], out: Any) -> None:
    meter = getattr(ctx, "meter", None)
    if meter is not None:
        meter.result(inputs, out)


@contextmanager
def paused(ctx: Any) -> Iterator[None]:
    meter = getattr(ctx, "meter", None)
    if meter is None:
        yield
        return
    with meter.paused():
        yield
