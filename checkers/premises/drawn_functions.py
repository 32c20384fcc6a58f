"""Binders that are functions between real arrays (`f : ℝ → ℝ`, `g : Vec m → Vec n`),
drawn from one smooth family: x ↦ c ⊙ sin(A x + b) + d, entrywise on the flattened
arrays, with A, b, c, d drawn per trial in [-1, 1).

A statement about every such function is then tested on these functions only: smooth,
bounded by |c| + |d| ≤ 2, of small frequency. The result says so (an assumption of the
check). A curried function of several real arguments (`f : ℝ → ℝ → ℝ`) is drawn from the
same family, its arguments joined into one x. An argument of ℕ or ℤ (a sequence `u : ℕ →
ℝ`) is its value as a real. A function into ℂ is two of the family, its real and imaginary
parts; a function `f : ℂ → ℂ` is drawn holomorphic, z ↦ c sin(a z + b) + d with a, b, c, d
complex numbers whose parts are drawn in [-1, 1), so that its complex derivative exists
everywhere, as a statement's differentiability hypotheses ask. A function binder of any
other shape (`Fin` domains, values that are not numbers) stays unsampleable, saying why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from checkers.core import InputSpec
from checkers.language.axes import expand, union_axes
from checkers.language.coercion import coerce
from checkers.language.complex import build, parts
from checkers.language.errors import EvalError, NotSupported
from checkers.language.types import (
    COMPLEX_NAMES,
    TComplex,
    TFin,
    TFun,
    TInt,
    TNat,
    TReal,
    Ty,
    const_name,
    fin_domains,
    head_and_args,
)
from checkers.language.values import Arr, Builtin, Sz, as_array
from checkers.lazyjax import jnp
from theorem_index.lean import syntax as S

if TYPE_CHECKING:
    from checkers.evaluator.evaluate import Evaluator

__all__ = ["COVERS", "covers", "function_specs", "function_value", "holomorphic"]

COVERS = (
    "x ↦ c ⊙ sin(A x + b) + d with A, b, c, d drawn in [-1, 1) (smooth functions of this "
    "one family)"
)
HOLOMORPHIC_COVERS = (
    "z ↦ c sin(a z + b) + d with a, b, c, d complex, their parts drawn in [-1, 1) (entire "
    "functions of this one family)"
)
_PARAMS = ("A", "b", "c", "d")
# the imaginary part's family of a function into ℂ; the parts of a holomorphic one's a, b, c, d
_IMAGINARY = ("Ai", "bi", "ci", "di")
_HOLOMORPHIC = ("ar", "ai", "br", "bi", "cr", "ci", "dr", "di")


def _shape(ty: Ty, what: str, argument: bool = False) -> tuple[Sz, ...]:
    if argument and isinstance(ty, TNat | TInt):
        return ()  # a sequence's index, taken as a real
    doms, elem = fin_domains(ty)
    if not isinstance(elem, TReal | TComplex) or any(d is None for d in doms):
        raise NotSupported(f"{what}: only functions between real numbers or arrays are drawn")
    return doms


def holomorphic(ty: Ty) -> bool:
    """Whether the drawn function is `ℂ → ℂ`, drawn from the holomorphic family."""
    return isinstance(ty, TFun) and isinstance(ty.dom, TComplex) and isinstance(ty.cod, TComplex)


def _into_complex(ty: Ty) -> bool:
    cod = ty
    while isinstance(cod, TFun):
        cod = cod.cod
    return isinstance(cod, TComplex)


def covers(binder_type: S.Term) -> str:
    """What the draws of a function binder of this (written) type cover: the result's
    assumption."""
    arrows = []
    t = binder_type
    while isinstance(t, S.Paren):
        t = t.term
    while isinstance(t, S.BinOp) and t.op == "→":
        arrows.append(const_name(head_and_args(t.lhs)[0]))
        t = t.rhs.term if isinstance(t.rhs, S.Paren) else t.rhs
    into_complex = const_name(head_and_args(t)[0]) in COMPLEX_NAMES
    if into_complex and arrows and all(a in COMPLEX_NAMES for a in arrows):
        return HOLOMORPHIC_COVERS
    return COVERS + (", one for each part of its complex values" if into_complex else "")


def _sides(name: str, ty: Ty) -> tuple[list[tuple[Sz, ...]], tuple[Sz, ...]]:
    """The shapes of a drawn function's arguments (several where it is curried:
    `ℝ → ℝ → ℝ`) and of its value."""
    if not isinstance(ty, TFun):
        raise NotSupported(f"the binder {name} is not a function")
    ins = [_shape(ty.dom, f"the binder {name}", argument=True)]
    cod = ty.cod
    while isinstance(cod, TFun) and not isinstance(cod.dom, TFin):
        ins.append(_shape(cod.dom, f"the binder {name}", argument=True))
        cod = cod.cod
    arguments = _arguments(ty)
    if any(isinstance(t, TComplex) for t in arguments) and not holomorphic(ty):
        raise NotSupported(f"the binder {name}: of the functions of ℂ only ℂ → ℂ is drawn")
    return ins, _shape(cod, f"the binder {name}")


def _arguments(ty: Ty) -> list[Ty]:
    out = []
    while isinstance(ty, TFun) and not isinstance(ty.dom, TFin):
        out.append(ty.dom)
        ty = ty.cod
    return out


def function_specs(name: str, ty: Ty) -> dict[str, InputSpec]:
    """The inputs of one drawn function (`f.A`, `f.b`, `f.c`, `f.d`), or NotSupported."""
    ins, outs = _sides(name, ty)
    if holomorphic(ty):
        return {f"{name}.{p}": InputSpec.real((), distribution="unit") for p in _HOLOMORPHIC}
    n_in = sum(math.prod(d.n for d in shape) for shape in ins)
    n_out = math.prod(d.n for d in outs)
    shapes = {"A": (n_out, n_in), "b": (n_out,), "c": (n_out,), "d": (n_out,)}
    params = _PARAMS + (_IMAGINARY if _into_complex(ty) else ())
    return {f"{name}.{p}": InputSpec.real(shapes[p[0]], distribution="unit") for p in params}


def function_value(name: str, ty: Ty, inputs: Mapping[str, Any], dtype: Any) -> Builtin:
    """The drawn function: x ↦ c ⊙ sin(A x + b) + d, x every argument flattened and
    joined (a curried function takes them one after another); into ℂ, one such function for
    each part; `ℂ → ℂ`, the holomorphic z ↦ c sin(a z + b) + d."""
    if holomorphic(ty):
        return _holomorphic_value(name, inputs, dtype)
    ins, outs = _sides(name, ty)
    real = _family(name, _PARAMS, inputs, dtype)
    imaginary = _family(name, _IMAGINARY, inputs, dtype) if _into_complex(ty) else None
    in_shapes = [tuple(s.n for s in shape) for shape in ins]

    def apply(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        xs = [coerce(ev._arr(a, name), "real", ev.ctx) for a in args]
        for x, shape in zip(xs, in_shapes, strict=True):
            if tuple(s.n for s in x.dom) != shape:
                raise EvalError(f"{name} applied to a {x.describe()}, not its domain")
        axes = union_axes(*xs)
        flats = []
        for x, shape in zip(xs, in_shapes, strict=True):
            data = expand(x, axes, len(shape), ev.ctx.dtype)
            flats.append(jnp.reshape(data, data.shape[: len(axes)] + (math.prod(shape),)))
        lead = jnp.broadcast_shapes(*(f.shape[:-1] for f in flats))
        flat = jnp.concatenate([jnp.broadcast_to(f, lead + f.shape[-1:]) for f in flats], -1)
        shape = lead + tuple(s.n for s in outs)
        y = real(flat).reshape(shape)
        if imaginary is None:
            return Arr(y, "real", axes, outs)
        return Arr(build(y, imaginary(flat).reshape(shape)), "complex", axes, outs)

    return Builtin(name, len(ins), apply, (None,) * len(ins), implicit=0)


def _family(name: str, params: tuple[str, ...], inputs: Mapping[str, Any], dtype: Any) -> Any:
    """x ↦ c ⊙ sin(A x + b) + d for one drawn A, b, c, d (x flattened, last axis)."""
    A, b, c, d = (2.0 * jnp.asarray(inputs[f"{name}.{p}"], dtype) - 1.0 for p in params)
    return lambda flat: c * jnp.sin(jnp.einsum("...j,ij->...i", flat, A) + b) + d


def _holomorphic_value(name: str, inputs: Mapping[str, Any], dtype: Any) -> Builtin:
    ar, ai, br, bi, cr, ci, dr, di = (
        2.0 * jnp.asarray(inputs[f"{name}.{p}"], dtype) - 1.0 for p in _HOLOMORPHIC
    )

    def apply(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        z = coerce(ev._arr(args[0], name), "complex", ev.ctx)
        if z.dom:
            raise EvalError(f"{name} applied to a {z.describe()}, not a complex number")
        x, y = parts(as_array(z))
        # w = a z + b, then c sin w + d, by parts
        u, v = ar * x - ai * y + br, ar * y + ai * x + bi
        s_re, s_im = jnp.sin(u) * jnp.cosh(v), jnp.cos(u) * jnp.sinh(v)
        re = cr * s_re - ci * s_im + dr
        im = cr * s_im + ci * s_re + di
        return z.with_(data=build(re, im), iota=None)

    return Builtin(name, 1, apply, ("complex",), implicit=0)
