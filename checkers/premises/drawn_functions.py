"""Binders that are functions between real arrays (`f : ℝ → ℝ`, `g : Vec m → Vec n`),
drawn from one smooth family: x ↦ c ⊙ sin(A x + b) + d, entrywise on the flattened
arrays, with A, b, c, d drawn per trial in [-1, 1).

A statement about every such function is then tested on these functions only: smooth,
bounded by |c| + |d| ≤ 2, of small frequency. The result says so (an assumption of the
check). A curried function of several real arguments (`f : ℝ → ℝ → ℝ`) is drawn from the
same family, its arguments joined into one x. A function binder of any other shape
(`Fin` domains, values that are not real) stays unsampleable, saying why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from checkers.core import InputSpec
from checkers.language.axes import expand, union_axes
from checkers.language.coercion import coerce
from checkers.language.errors import EvalError, NotSupported
from checkers.language.types import TFin, TFun, TReal, Ty, fin_domains
from checkers.language.values import Arr, Builtin, Sz
from checkers.lazyjax import jnp

if TYPE_CHECKING:
    from checkers.evaluator.evaluate import Evaluator

__all__ = ["COVERS", "function_specs", "function_value"]

COVERS = (
    "x ↦ c ⊙ sin(A x + b) + d with A, b, c, d drawn in [-1, 1) (smooth functions of this "
    "one family)"
)
_PARAMS = ("A", "b", "c", "d")


def _shape(ty: Ty, what: str) -> tuple[Sz, ...]:
    doms, elem = fin_domains(ty)
    if not isinstance(elem, TReal) or any(d is None for d in doms):
        raise NotSupported(f"{what}: only functions between real numbers or arrays are drawn")
    return doms


def _sides(name: str, ty: Ty) -> tuple[list[tuple[Sz, ...]], tuple[Sz, ...]]:
    """The shapes of a drawn function's arguments (several where it is curried:
    `ℝ → ℝ → ℝ`) and of its value."""
    if not isinstance(ty, TFun):
        raise NotSupported(f"the binder {name} is not a function")
    ins = [_shape(ty.dom, f"the binder {name}")]
    cod = ty.cod
    while isinstance(cod, TFun) and not isinstance(cod.dom, TFin):
        ins.append(_shape(cod.dom, f"the binder {name}"))
        cod = cod.cod
    return ins, _shape(cod, f"the binder {name}")


def function_specs(name: str, ty: Ty) -> dict[str, InputSpec]:
    """The inputs of one drawn function (`f.A`, `f.b`, `f.c`, `f.d`), or NotSupported."""
    ins, outs = _sides(name, ty)
    n_in = sum(math.prod(d.n for d in shape) for shape in ins)
    n_out = math.prod(d.n for d in outs)
    shapes = {"A": (n_out, n_in), "b": (n_out,), "c": (n_out,), "d": (n_out,)}
    return {f"{name}.{p}": InputSpec.real(shapes[p], distribution="unit") for p in _PARAMS}


def function_value(name: str, ty: Ty, inputs: Mapping[str, Any], dtype: Any) -> Builtin:
    """The drawn function: x ↦ c ⊙ sin(A x + b) + d, x every argument flattened and
    joined (a curried function takes them one after another)."""
    ins, outs = _sides(name, ty)
    A, b, c, d = (2.0 * jnp.asarray(inputs[f"{name}.{p}"], dtype) - 1.0 for p in _PARAMS)
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
            flats.append(jnp.reshape(data, data.shape[: len(axes)] + (-1,)))
        lead = jnp.broadcast_shapes(*(f.shape[:-1] for f in flats))
        flat = jnp.concatenate([jnp.broadcast_to(f, lead + f.shape[-1:]) for f in flats], -1)
        y = c * jnp.sin(jnp.einsum("...j,ij->...i", flat, A) + b) + d
        out = y.reshape(lead + tuple(s.n for s in outs))
        return Arr(out, "real", axes, outs)

    return Builtin(name, len(ins), apply, ("real",) * len(ins), implicit=0)
