"""Binders that are functions between real arrays (`f : ℝ → ℝ`, `g : Vec m → Vec n`),
drawn from one smooth family: x ↦ c ⊙ sin(A x + b) + d, entrywise on the flattened
arrays, with A, b, c, d drawn per trial in [-1, 1).

A statement about every such function is then tested on these functions only: smooth,
bounded by |c| + |d| ≤ 2, of small frequency. The result says so (an assumption of the
check), and a function binder of any other shape (several arguments, `Fin` domains,
values that are not real) stays unsampleable, saying why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from checkers.core import InputSpec
from checkers.language.coercion import coerce
from checkers.language.errors import EvalError, NotSupported
from checkers.language.types import TFun, TReal, Ty, fin_domains
from checkers.language.values import Arr, Builtin, Sz, as_array
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


def _sides(name: str, ty: Ty) -> tuple[tuple[Sz, ...], tuple[Sz, ...]]:
    if not isinstance(ty, TFun):
        raise NotSupported(f"the binder {name} is not a function")
    return _shape(ty.dom, f"the binder {name}"), _shape(ty.cod, f"the binder {name}")


def function_specs(name: str, ty: Ty) -> dict[str, InputSpec]:
    """The inputs of one drawn function (`f.A`, `f.b`, `f.c`, `f.d`), or NotSupported."""
    ins, outs = _sides(name, ty)
    n_in, n_out = math.prod(d.n for d in ins), math.prod(d.n for d in outs)
    shapes = {"A": (n_out, n_in), "b": (n_out,), "c": (n_out,), "d": (n_out,)}
    return {f"{name}.{p}": InputSpec.real(shapes[p], distribution="unit") for p in _PARAMS}


def function_value(name: str, ty: Ty, inputs: Mapping[str, Any], dtype: Any) -> Builtin:
    ins, outs = _sides(name, ty)
    A, b, c, d = (2.0 * jnp.asarray(inputs[f"{name}.{p}"], dtype) - 1.0 for p in _PARAMS)
    in_shape = tuple(s.n for s in ins)

    def apply(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        x = coerce(ev._arr(args[0], name), "real", ev.ctx)
        if tuple(s.n for s in x.dom) != in_shape:
            raise EvalError(f"{name} applied to a {x.describe()}, not its domain")
        data = as_array(x, ev.ctx.dtype)
        lead = data.shape[: data.ndim - len(in_shape)]
        flat = data.reshape(lead + (-1,)) if in_shape else data[..., None]
        y = c * jnp.sin(jnp.einsum("...j,ij->...i", flat, A) + b) + d
        out = y.reshape(lead + tuple(s.n for s in outs))
        return Arr(out, "real", x.axes, outs)

    return Builtin(name, 1, apply, ("real",), implicit=0)
