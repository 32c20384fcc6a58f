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

In a program NumPy interprets (checkers/harness/interpreted.py), the operands of
additions are measured together: each is flattened and kept, and what is kept is
measured as one array (one |·|, one finiteness test, one maximum) when the scale
is read, or sooner once it holds `PENDING_ELEMENTS` entries a trial or
`PENDING_OPERANDS` operands. A traced statement adds thousands of additions;
measured one by one, each adds five operations to trace and to interpret, more
than the addition itself. The maximum is the same either way (it is exact). In a
program XLA compiles they are measured one by one: the concatenations made XLA take
1.4-2.0 times as long to compile a whole network's programs
(`mobilenetv2FwdGraph_faithful`), and XLA fuses each measure into the operation that
made its operand anyway.

Both branches of an `if` are evaluated, so their operands count too; that
only ever widens the tolerance by rtol times a magnitude the statement
computes. Non-finite operands are left out (the sides then are non-finite,
which the harness reports on its own). Inside a JAX transformation of the
evaluator itself (the derivative of a function value) the meter is paused: the
values there belong to another trace; the derivative's jaxpr is measured instead,
its own additions and those of the differentiation rules (metered.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from checkers.language.lax_ops import filled
from checkers.lazyjax import jnp, lax


def _is_float(x: Any) -> bool:
    return hasattr(x, "dtype") and jnp.issubdtype(x.dtype, jnp.floating)


def _host(*xs: Any) -> bool:
    """Every operand is a NumPy constant: measure it with NumPy, no JAX operation."""
    return all(isinstance(x, np.ndarray | np.generic) for x in xs)


# operands kept for measuring together hold at most this many entries (one trial's)
# before they are measured: the program keeps them alive until then
PENDING_ELEMENTS = 1 << 14
# and are at most this many (each adds one entry to a concatenation)
PENDING_OPERANDS = 64


def magnitude(x: Any) -> Any:
    """The largest finite |x| over all of x's entries (0 when there are none), as float64."""
    if _host(x):
        h = np.asarray(x)
        if h.size == 0:
            return np.zeros((), np.float64)
        a = np.abs(h.astype(np.float64))
        return np.max(np.where(np.isfinite(a), a, 0.0))
    t = jnp.asarray(x)
    if t.size == 0:
        return jnp.zeros((), jnp.float64)
    return _finite_max(_as_float64(t))


def _as_float64(t: Any) -> Any:
    return t if t.dtype == jnp.float64 else lax.convert_element_type(t, jnp.float64)


def _finite_max(t: Any) -> Any:
    # lax, not jnp: the measures are a large part of a traced program, and jnp's
    # functions would each add a nested jit to trace
    m = lax.abs(t)
    finite = lax.select(lax.is_finite(m), m, filled(m.shape, 0.0, m.dtype))
    return lax.reduce_max(finite, tuple(range(finite.ndim))) if finite.ndim else finite


class Meter:
    def __init__(self, *, underflow: bool = True, together: bool = True) -> None:
        self._scales: list[Any] = []
        # traced operands not yet measured (`_measure_pending`), and their entries; with
        # `together` off, each is measured at once
        self._together = together
        self._pending: list[Any] = []
        self._pending_size = 0
        self._underflows: list[Any] = []
        # derivatives taken where their function is not differentiable (kinks.py)
        self._kinks: list[Any] = []
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
            if not _is_float(x):
                continue
            if _host(x):
                self._scales.append(magnitude(x))  # NumPy's, no operation in the program
                continue
            t = jnp.asarray(x)
            if t.size == 0:
                continue
            self._pending.append(t)
            self._pending_size += t.size
            if (
                not self._together
                or self._pending_size >= PENDING_ELEMENTS
                or len(self._pending) >= PENDING_OPERANDS
            ):
                self._measure_pending()

    def _measure_pending(self) -> None:
        """Measure the kept operands as one flat array."""
        if not self._pending:
            return
        pending, self._pending, self._pending_size = self._pending, [], 0
        if len(pending) == 1:
            self._scales.append(magnitude(pending[0]))
            return
        flat = [_as_float64(t if t.ndim == 1 else lax.reshape(t, (t.size,))) for t in pending]
        self._scales.append(_finite_max(lax.concatenate(flat, 0)))

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

    def kink(self, at: Any) -> bool:
        """Record whether a derivative was taken where its function is not
        differentiable (kinks.py); False (nothing recorded) while paused."""
        if not self.active:
            return False
        self._kinks.append(at)
        return True

    def undefined(self) -> Any:
        """Whether the trial took a derivative at a kink: its sides are not Lean's."""
        if not self._kinks:
            return jnp.zeros((), bool)
        return jnp.any(jnp.stack(self._kinks))

    def scale(self) -> Any:
        """The per-trial scale: the largest recorded magnitude (float64, 0 when none)."""
        self._measure_pending()
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
