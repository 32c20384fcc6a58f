"""`IsUnit a` (Mathlib/Algebra/Group/Units/Defs.lean: `∃ u : Mˣ, ↑u = a`), decided for the
modelled types by what their units are:

- ℝ, ℝ≥0 and ℂ (fields): `a ≠ 0` (`isUnit_iff_ne_zero`);
- ℤ: `a = 1 ∨ a = -1` (`Int.isUnit_iff`);
- ℕ: `a = 1` (`Nat.isUnit_iff`);
- a square matrix over them: its determinant is a unit (`Matrix.isUnit_iff_isUnit_det`,
  Mathlib/LinearAlgebra/Matrix/NonsingularInverse.lean).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from checkers.language import arith as A
from checkers.language.coercion import settle
from checkers.language.errors import EvalError
from checkers.language.values import Arr, Builtin

if TYPE_CHECKING:
    from checkers.evaluator.evaluate import Evaluator

__all__ = ["DECIDED_PREDICATES", "UNITS"]

_FIELDS = ("real", "nnreal", "complex")


def _is_unit(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
    x = ev._arr(args[0], "IsUnit")
    if len(x.dom) == 2:  # a matrix: a unit exactly where its determinant is
        x = ev._arr(ev.apply(ev.constant("Matrix.det"), [x]), "IsUnit")
    if x.dom:
        raise EvalError(f"IsUnit of a {x.describe()}")
    x = settle(x)  # a numeral nothing types is ℕ (Lean's default)
    if x.kind in _FIELDS:
        return A.compare("≠", x, Arr(np.float64(0.0), "real"), ev.ctx)
    if x.kind == "int":
        one = Arr(np.int64(1), "int")
        return A.logic(
            "∨",
            A.compare("=", x, one, ev.ctx),
            A.compare("=", x, Arr(np.int64(-1), "int"), ev.ctx),
        )
    if x.kind == "nat":
        return A.compare("=", x, Arr(np.int64(1), "nat"), ev.ctx)
    raise EvalError(f"IsUnit of a {x.describe()}")


UNITS: tuple[Builtin, ...] = (Builtin("IsUnit", 1, _is_unit, implicit=2),)
# the predicates above, which decide a truth value: a clause or a hypothesis that is one
# is evaluated, as a relation is
DECIDED_PREDICATES = frozenset(b.name for b in UNITS)
