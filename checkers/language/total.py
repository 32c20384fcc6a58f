"""Lean's total operations on plain arrays.

ℝ: `x / 0 = 0`, `0⁻¹ = 0`, `Real.sqrt x = 0` for `x ≤ 0`, `Real.log 0 = 0`,
`Real.log (-x) = Real.log x`, Mathlib's `Real.rpow`. ℕ: truncated
subtraction, `a / 0 = 0`, `a % 0 = a`. ℤ: Euclidean division and modulus
(`Int.ediv`, `Int.emod`, the `/` and `%` of Lean 4's `Int`), `a / 0 = 0`,
`a % 0 = a`.

Every partial real operation is guarded with the "double where" pattern, so
that its gradient is finite wherever the value is defined by a guard. The
integer operations run in numpy when both operands are host constants (index
arithmetic on bound variables), so that they stay constants of the program.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from checkers.language import lax_ops as L
from checkers.lazyjax import jnp


def xp_of(*arrays: Any) -> Any:
    """numpy when every operand is a host constant (or a Python number), else jax.numpy."""
    host = (np.ndarray, np.generic, int, float, bool)
    return np if all(isinstance(a, host) for a in arrays) else jnp


# --- ℝ ----------------------------------------------------------------------------


def complex_div(a: Any, b: Any) -> Any:
    """`a / b` in ℂ, 0 where b = 0 (Mathlib's `Complex.instDivInvMonoid`: b⁻¹ = conj b /
    normSq b, and 0⁻¹ = 0)."""
    xp = xp_of(a, b)
    zero = b == 0
    return xp.where(zero, 0, a / xp.where(zero, 1, b))


def real_div(a: Any, b: Any) -> Any:
    xp = xp_of(a, b)  # host constants: IEEE division is the same in NumPy
    if xp is np:
        zero = b == 0
        out = np.where(zero, 0.0, a / np.where(zero, 1.0, b))
        return out.astype(np.result_type(a, b))
    if isinstance(b, np.ndarray | np.generic) and np.issubdtype(b.dtype, np.floating):
        # a constant divisor is guarded on the host: its zeros are known
        zero = np.asarray(b == 0)
        safe = np.where(zero, np.asarray(1.0, b.dtype), b)
    else:
        zero = L.compare_scalar("==", b, 0)
        safe = L.where_scalar(zero, b, 1.0, scalar_first=True)
    return L.where_scalar(zero, L.binary("/", a, safe), 0.0, scalar_first=True)


def real_inv(a: Any) -> Any:
    xp = xp_of(a)
    if xp is np:
        zero = a == 0
        out = np.where(zero, 0.0, 1.0 / np.where(zero, 1.0, a))
        return out.astype(np.asarray(a).dtype)
    zero = L.compare_scalar("==", a, 0)
    inverse = jnp.true_divide(1.0, L.where_scalar(zero, a, 1.0, scalar_first=True))
    return L.where_scalar(zero, inverse, 0.0, scalar_first=True)


def real_sqrt(a: Any) -> Any:
    pos = L.compare_scalar(">", a, 0)
    root = L.sqrt(L.where_scalar(pos, a, 1.0))
    return L.where_scalar(pos, root, 0.0)


def real_log(a: Any) -> Any:
    zero = a == 0
    return jnp.where(zero, 0.0, jnp.log(jnp.abs(jnp.where(zero, 1.0, a))))


def real_rpow(x: Any, y: Any) -> Any:
    """Mathlib's `Real.rpow`: `0 ^ 0 = 1`, `0 ^ y = 0`, and for x < 0
    `x ^ y = exp (log x * y) * cos (y * π)`."""
    zero = x == 0
    safe = jnp.where(zero, 1, x)
    mag = jnp.exp(jnp.log(jnp.abs(safe)) * y)
    val = jnp.where(safe > 0, mag, mag * jnp.cos(y * math.pi))
    return jnp.where(zero, jnp.where(y == 0, 1.0, 0.0).astype(val.dtype), val)


# --- ℕ ----------------------------------------------------------------------------


def nat_sub(a: Any, b: Any) -> Any:
    return xp_of(a, b).maximum(a - b, 0)


def nat_div(a: Any, b: Any) -> Any:
    xp = xp_of(a, b)
    zero = b == 0
    return xp.where(zero, 0, a // xp.where(zero, 1, b))


def nat_mod(a: Any, b: Any) -> Any:
    xp = xp_of(a, b)
    zero = b == 0
    return xp.where(zero, a, a % xp.where(zero, 1, b))


# --- ℤ ----------------------------------------------------------------------------


def int_ediv(a: Any, b: Any) -> Any:
    """Lean's `Int` division (Euclidean; `a / 0 = 0`)."""
    xp = xp_of(a, b)
    zero = b == 0
    sb = xp.where(zero, 1, b)
    q = xp.floor_divide(a, xp.abs(sb)) * xp.sign(sb)
    return xp.where(zero, 0, q)


def int_emod(a: Any, b: Any) -> Any:
    xp = xp_of(a, b)
    zero = b == 0
    return xp.where(zero, a, xp.mod(a, xp.abs(xp.where(zero, 1, b))))


# --- the same on Python ints (constants) ---------------------------------------------


def py_nat(op: str, a: int, b: int) -> int:
    """`a op b` in ℕ."""
    if op == "+":
        return a + b
    if op == "-":
        return max(a - b, 0)
    if op == "*":
        return a * b
    if op == "/":
        return 0 if b == 0 else a // b
    if op == "%":
        return a if b == 0 else a % b
    if op == "^":
        return a**b
    raise ValueError(f"operator {op} on ℕ")


def py_int(op: str, a: int, b: int) -> int:
    """`a op b` in ℤ (Euclidean `/` and `%`)."""
    if op == "/":
        if b == 0:
            return 0
        q = a // abs(b)
        return q if b > 0 else -q
    if op == "%":
        return a if b == 0 else a % abs(b)
    if op == "-":
        return a - b
    return py_nat(op, a, b)


def py_fin(op: str, a: int, b: int, n: int) -> int:
    """`a op b` in `Fin n` (n > 0): `+ - *` wrap mod n; `/` and `%` are those of the values."""
    if op == "+":
        return (a + b) % n
    if op == "-":
        return (a - b) % n
    if op == "*":
        return (a * b) % n
    return py_nat(op, a, b)
