"""Mathlib's complex numbers and their functions, computed from real and imaginary parts.

Each function is Mathlib's definition (the file that states it is named at each one),
written with the real operations of its parts, so that a checker program on ℂ holds
only real primitives and the few that build and take apart complex values: the exact
re-evaluation of a failing trial (checkers/confirm) then evaluates it as it evaluates
a real one. Lean's totality carries over: `z / 0 = 0`, `Complex.log 0 = 0`,
`0 ^ w = 0` for w ≠ 0 and `0 ^ 0 = 1`, `arg 0 = 0`, and `arg x = π` on the negative
real axis (never -π: a float64 -0.0 imaginary part is still 0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from checkers.language.coercion import coerce, complex_dtype
from checkers.language.complex import (
    argument,
    build,
    cpow,
    divide,
    exponential,
    logarithm,
    modulus,
    parts,
)
from checkers.language.errors import EvalError
from checkers.language.measure import note_operands
from checkers.language.values import Arr, Builtin, TypeValue, as_array
from checkers.lazyjax import jnp

# a function of ℂ by its parts: (re, im) of the argument -> (re, im) of the value
Parts = Callable[[Any, Any], tuple[Any, Any]]

if TYPE_CHECKING:
    from checkers.evaluator.evaluate import Evaluator


def _z(ev: Evaluator, x: Any, what: str) -> Arr:
    return coerce(ev._arr(x, what), "complex", ev.ctx)


def _complex1(name: str, f: Parts, periodic: bool = False) -> Builtin:
    """A function ℂ → ℂ given by its parts: (re, im) of the argument -> (re, im)."""

    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        z = _z(ev, args[0], name)
        re, im = parts(as_array(z))
        if periodic:
            note_operands(ev.ctx, re)  # reduced modulo 2π, as Real.sin's argument is
        a, b = f(re, im)
        return z.with_(data=build(a, b), iota=None)

    return Builtin(name, 1, fn, ("complex",), implicit=0)


def _real_of(name: str, f: Callable[[Any, Any], Any]) -> Builtin:
    """A function ℂ → ℝ given by the parts of its argument."""

    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        z = _z(ev, args[0], name)
        re, im = parts(as_array(z))
        return Arr(f(re, im), "real", z.axes, z.dom)

    return Builtin(name, 1, fn, ("complex",), implicit=0)


def _sin(re: Any, im: Any) -> tuple[Any, Any]:
    # Mathlib/Analysis/SpecialFunctions/Trigonometric (`Complex.sin_add_mul_I`)
    return jnp.sin(re) * jnp.cosh(im), jnp.cos(re) * jnp.sinh(im)


def _cos(re: Any, im: Any) -> tuple[Any, Any]:
    return jnp.cos(re) * jnp.cosh(im), -jnp.sin(re) * jnp.sinh(im)


def _sinh(re: Any, im: Any) -> tuple[Any, Any]:
    return jnp.sinh(re) * jnp.cos(im), jnp.cosh(re) * jnp.sin(im)


def _cosh(re: Any, im: Any) -> tuple[Any, Any]:
    return jnp.cosh(re) * jnp.cos(im), jnp.sinh(re) * jnp.sin(im)


def _quotient(f: Parts, g: Parts) -> Parts:
    """`tan z = sin z / cos z`, `tanh z = sinh z / cosh z` (Lean's `/`: 0 where cos z = 0)."""

    def q(re: Any, im: Any) -> tuple[Any, Any]:
        a, b = f(re, im)
        c, d = g(re, im)
        return divide(a, b, c, d)

    return q


def _conj(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    z = _z(ev, args[-1], "conj")
    re, im = parts(as_array(z))
    return z.with_(data=build(re, -im), iota=None)


def _star_ring_end(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`starRingEnd R x`: the conjugate in ℂ; the identity on ℝ (its star is trivial)."""
    ring, x = args
    if isinstance(ring, TypeValue) and ring.text in ("ℂ", "Complex"):
        return _conj(ev, (x,))
    if isinstance(ring, TypeValue) and ring.text in ("ℝ", "Real"):
        return coerce(ev._arr(x, "starRingEnd"), "real", ev.ctx)
    raise EvalError("starRingEnd of a ring other than ℂ or ℝ")


def _i(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`Complex.I = ⟨0, 1⟩` (Mathlib/Data/Complex/Basic.lean)."""
    return Arr(jnp.asarray(1j, complex_dtype(ev.ctx.dtype)), "complex")


def _of_real(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`Complex.ofReal r = ⟨r, 0⟩` (the coercion ℝ → ℂ)."""
    return coerce(coerce(ev._arr(args[0], "Complex.ofReal"), "real", ev.ctx), "complex", ev.ctx)


def _mk(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`Complex.mk re im` (`⟨re, im⟩ : ℂ`)."""
    re = coerce(ev._arr(args[0], "Complex.mk"), "real", ev.ctx)
    im = coerce(ev._arr(args[1], "Complex.mk"), "real", ev.ctx)
    from checkers.language.arith import arith

    # re + im * I, laid out over both operands' axes by the evaluator's own arithmetic
    return arith("+", re, arith("*", im, _i(ev, ()), ev.ctx), ev.ctx)


def _cpow(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return cpow(ev._arr(args[0], "Complex.cpow"), ev._arr(args[1], "Complex.cpow"), ev.ctx)


COMPLEX: tuple[Builtin, ...] = (
    # Mathlib/Data/Complex/Basic.lean: the structure, its parts, I, the coercion
    _real_of("Complex.re", lambda re, im: re),
    _real_of("Complex.im", lambda re, im: im),
    Builtin("Complex.I", 0, _i, implicit=0),
    Builtin("Complex.ofReal", 1, _of_real, ("real",), implicit=0),
    Builtin("Complex.ofReal'", 1, _of_real, ("real",), implicit=0),
    Builtin("Complex.mk", 2, _mk, ("real", "real"), implicit=0),
    _real_of("Complex.normSq", lambda re, im: re * re + im * im),
    # Mathlib/Analysis/Complex/Basic.lean (`Complex.norm_def`); `Complex.abs` is its old name
    _real_of("Complex.abs", modulus),
    # Mathlib/Analysis/SpecialFunctions/Complex/Arg.lean and Log.lean
    _real_of("Complex.arg", argument),
    _complex1("Complex.log", logarithm),
    # Mathlib/Analysis/SpecialFunctions/Exponential.lean, Trigonometric/Basic.lean
    _complex1("Complex.exp", exponential, periodic=True),
    _complex1("Complex.sin", _sin, periodic=True),
    _complex1("Complex.cos", _cos, periodic=True),
    _complex1("Complex.tan", _quotient(_sin, _cos), periodic=True),
    _complex1("Complex.sinh", _sinh, periodic=True),
    _complex1("Complex.cosh", _cosh, periodic=True),
    _complex1("Complex.tanh", _quotient(_sinh, _cosh), periodic=True),
    # Mathlib/Analysis/SpecialFunctions/Pow/Complex.lean
    Builtin("Complex.cpow", 2, _cpow, ("complex", "complex"), implicit=0),
    # Mathlib/Algebra/Star/Basic.lean; `conj` is the scoped notation `ComplexConjugate.conj`
    Builtin("starRingEnd", 2, _star_ring_end, implicit=0),
    Builtin("conj", 1, _conj, ("complex",), implicit=0),
    Builtin("Complex.conj", 1, _conj, ("complex",), implicit=0),
    Builtin("Complex", 0, lambda ev, args: TypeValue("ℂ"), implicit=0),
    Builtin("ℂ", 0, lambda ev, args: TypeValue("ℂ"), implicit=0),
)
