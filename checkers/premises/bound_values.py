"""Evaluating a planned bound (bounds.py) in numpy, over every trial at once.

A bound term is read with Lean's total arithmetic (`x / 0 = 0`, `Real.sqrt`
of a negative is `0`) in float64, never by evaluating text: constants, real
inputs (bare, or applied to index labels: `W i j`), π, dimensions and ℕ inputs
cast to ℝ, `+ - * /`, `^` by a natural number, `|·|`, `Real.sqrt`,
`Real.exp`, and `∑` over labels (`check_numeric` says whether a term is one).
Values carry the labels of their axes, so `∀ i j, |W i j| ≤ w` gives `|W|` over
(i, j), which `BoundValue` reduces (max for a lower bound, min for
an upper one) to the target's labels. The pairs of inputs a bound subtracts
(`|xt - x| ≤ ea`) travel with it (`Bound.pairs`): the sampler draws them close
together in some trials, where the statement is about their difference.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from checkers.core import Bound
from checkers.language.types import REAL_NAMES, const_name, head_and_args
from checkers.premises.bound_plans import FUNCTIONS
from theorem_index.lean import print_term
from theorem_index.lean import syntax as S

# Named real constants a bound may read (`x ≤ 2 * π`), in float64.
CONSTANTS = {"Real.pi": float(np.pi)}

if TYPE_CHECKING:
    from checkers.premises.bound_plans import BoundPlan


class NotNumeric(Exception):
    """The bound is not a term `numeric` can evaluate."""


def dim_of(t: S.Term, dims: Collection[str]) -> str | None:
    """`(d : ℝ)` or `↑d` for a dimension d."""
    inner = t.term if isinstance(t, S.Typed) else t.arg if isinstance(t, S.Prefix) else None
    if isinstance(t, S.Prefix) and t.op != "↑":
        return None
    if isinstance(t, S.Typed) and const_name(t.type) not in REAL_NAMES:
        return None
    if isinstance(inner, S.Var | S.Ident) and inner.name in dims:
        return inner.name
    return None


def _nat_term(t: S.Term, names: set[str]) -> bool:
    """A natural number `numeric` can evaluate as an exponent: literals, dimensions and ℕ
    inputs under `+` and `*` (no truncating subtraction, no division)."""
    if isinstance(t, S.Num):
        return True
    if isinstance(t, S.Var | S.Ident):
        return t.name in names
    if isinstance(t, S.BinOp) and t.op in ("+", "*"):
        return _nat_term(t.lhs, names) and _nat_term(t.rhs, names)
    return False


def check_numeric(t: S.Term, labels: set[str], reals: set[str], dims: set[str]) -> None:
    """Raise NotNumeric unless `numeric` can evaluate `t`."""
    if isinstance(t, S.Num | S.Decimal):
        return
    if isinstance(t, S.Var | S.Ident):
        if t.name in reals:
            return
        raise NotNumeric(t.name)  # an index on its own is not a real number
    if isinstance(t, S.Typed | S.Prefix) and dim_of(t, dims) is not None:
        return
    if isinstance(t, S.Typed) and const_name(t.type) in REAL_NAMES:
        return check_numeric(t.term, labels, reals, dims)
    if isinstance(t, S.Prefix) and t.op == "-":
        return check_numeric(t.arg, labels, reals, dims)
    if isinstance(t, S.Abs):
        return check_numeric(t.term, labels, reals, dims)
    if isinstance(t, S.BinOp) and t.op in ("+", "-", "*", "/"):
        check_numeric(t.lhs, labels, reals, dims)
        return check_numeric(t.rhs, labels, reals, dims)
    if isinstance(t, S.BinOp) and t.op == "^" and _nat_term(t.rhs, dims):
        return check_numeric(t.lhs, labels, reals, dims)
    if isinstance(t, S.BigOp) and t.op == "∑" and t.domain is None:
        inner = labels | {n for b in t.binders for n in b.names}
        return check_numeric(t.body, inner, reals, dims)
    if isinstance(t, S.Const) and t.name in CONSTANTS:
        return
    head, args = head_and_args(t)
    if const_name(head) in FUNCTIONS and len(args) == 1:
        return check_numeric(args[0], labels, reals, dims)
    if isinstance(head, S.Var | S.Ident) and head.name in reals and args:
        if all(isinstance(a, S.Var | S.Ident) and a.name in labels for a in args):
            return
    raise NotNumeric(type(t).__name__)


@dataclass(frozen=True)
class _Labelled:
    """Values over every trial and some index labels: data (trials, *label sizes)."""

    data: np.ndarray
    labels: tuple[str, ...]


def _align(a: _Labelled, b: _Labelled) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    labels = a.labels + tuple(n for n in b.labels if n not in a.labels)

    def lift(x: _Labelled) -> np.ndarray:
        present = [n for n in labels if n in x.labels]
        data = np.moveaxis(
            x.data, [1 + x.labels.index(n) for n in present], range(1, 1 + len(present))
        )
        shape = list(data.shape[:1])
        it = iter(data.shape[1:])
        for n in labels:
            shape.append(next(it) if n in x.labels else 1)
        return data.reshape(shape)

    return lift(a), lift(b), labels


def numeric(
    t: S.Term, values: Mapping[str, np.ndarray], dims: Mapping[str, int], trials: int
) -> _Labelled:
    """The value of the bound term `t` in every trial, in float64, with Lean's total
    arithmetic; `values` holds the real inputs, each (trials, *shape)."""
    with np.errstate(all="ignore"):
        return _num(t, values, dims, trials, {})


def _num(
    t: S.Term,
    values: Mapping[str, np.ndarray],
    dims: Mapping[str, int],
    trials: int,
    sizes: dict[str, int],
) -> _Labelled:
    def sub(u: S.Term) -> _Labelled:
        return _num(u, values, dims, trials, sizes)

    def scalar(x: float) -> _Labelled:
        return _Labelled(np.full(trials, float(x)), ())

    if isinstance(t, S.Num):
        return scalar(int(t.text, 0))
    if isinstance(t, S.Decimal):
        return scalar(float(t.text))
    d = dim_of(t, dims) if isinstance(t, S.Typed | S.Prefix) else None
    if d is not None:
        return scalar(dims[d])
    if isinstance(t, S.Typed) or isinstance(t, S.Prefix) and t.op == "↑":
        return sub(t.term if isinstance(t, S.Typed) else t.arg)  # ℕ -> ℝ: the same number
    if isinstance(t, S.Prefix) and t.op == "-":
        x = sub(t.arg)
        return _Labelled(-x.data, x.labels)
    if isinstance(t, S.Abs):
        x = sub(t.term)
        return _Labelled(np.abs(x.data), x.labels)
    if isinstance(t, S.BinOp) and t.op in ("+", "-", "*", "/"):
        a, b, labels = _align(sub(t.lhs), sub(t.rhs))
        if t.op == "+":
            return _Labelled(a + b, labels)
        if t.op == "-":
            return _Labelled(a - b, labels)
        if t.op == "*":
            return _Labelled(a * b, labels)
        return _Labelled(np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b)), labels)
    if isinstance(t, S.BinOp) and t.op == "^":
        x = sub(t.lhs)
        n = _nat(t.rhs, values, dims, trials)
        return _Labelled(x.data ** n.reshape(n.shape + (1,) * (x.data.ndim - 1)), x.labels)
    if isinstance(t, S.BigOp):
        names = [n for b in t.binders for n in b.names]
        body = sub(t.body)
        missing = [n for n in names if n not in body.labels]
        if missing:  # a sum whose body does not index anything by the sum's index
            raise NotNumeric(f"the range of {', '.join(missing)}")
        axes = tuple(1 + body.labels.index(n) for n in names)
        return _Labelled(body.data.sum(axis=axes), tuple(n for n in body.labels if n not in names))
    if isinstance(t, S.Const) and t.name in CONSTANTS:
        return scalar(CONSTANTS[t.name])  # rounded: such a bound is not `exact`
    head, args = head_and_args(t)
    fn = const_name(head)
    if fn in FUNCTIONS and len(args) == 1:
        x = sub(args[0])
        out = np.exp(x.data) if fn == "Real.exp" else np.sqrt(np.maximum(x.data, 0.0))
        return _Labelled(out, x.labels)
    name = head.name if isinstance(head, S.Var | S.Ident) else None
    if name is not None and name in values:
        data = np.asarray(values[name], dtype=np.float64)
        labels = tuple(a.name for a in args if isinstance(a, S.Var | S.Ident))
        if len(labels) != len(args) or data.ndim != 1 + len(labels):
            raise NotNumeric(f"{name} applied to {len(args)} indices")
        if len(set(labels)) != len(labels):  # `W i i`: the diagonal
            raise NotNumeric(f"{name} applied to a repeated index")
        return _Labelled(data, labels)
    raise NotNumeric(type(t).__name__)


def _nat(
    t: S.Term, values: Mapping[str, np.ndarray], dims: Mapping[str, int], trials: int
) -> np.ndarray:
    """An exponent in ℕ (a literal, a dimension, an ℕ input, `+`, `*`) in every trial."""
    if isinstance(t, S.Num):
        return np.full(trials, int(t.text, 0), dtype=np.int64)
    if isinstance(t, S.Var | S.Ident) and t.name in dims:
        return np.full(trials, int(dims[t.name]), dtype=np.int64)
    if isinstance(t, S.Var | S.Ident) and t.name in values:
        return np.asarray(values[t.name], dtype=np.int64).reshape(-1)
    if isinstance(t, S.BinOp) and t.op in ("+", "*"):
        a, b = _nat(t.lhs, values, dims, trials), _nat(t.rhs, values, dims, trials)
        return a + b if t.op == "+" else a * b
    raise NotNumeric("an exponent that is not a natural number")


@dataclass(frozen=True)
class BoundValue:
    """A planned bound at given dimensions: values of the inputs it reads -> an array
    that broadcasts to (trials, *the target's shape)."""

    plan: BoundPlan
    dims: tuple[tuple[str, int], ...]

    def __call__(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        trials = next(iter(values.values())).shape[0] if values else 1
        got = numeric(self.plan.expr, values, dict(self.dims), trials)
        extra = [n for n in got.labels if n not in self.plan.labels]
        data, labels = got.data, got.labels
        if extra:
            reduce = np.max if self.plan.side == "lower" else np.min
            data = reduce(data, axis=tuple(1 + labels.index(n) for n in extra))
            labels = tuple(n for n in labels if n not in extra)
        target = _Labelled(np.zeros((trials,) + (1,) * len(self.plan.labels)), self.plan.labels)
        _, out, _ = _align(target, _Labelled(data, labels))
        return out


def to_bound(plan: BoundPlan, dims: Mapping[str, int], rank: int) -> Bound | None:
    """The sampler's bound for an input of `rank` axes (None: it does not apply there)."""
    if len(plan.labels) != rank:
        return None
    value = BoundValue(plan, tuple(sorted((k, int(v)) for k, v in dims.items())))
    names = tuple(sorted(plan.names))
    exact = _exact(plan.expr)
    pairs = tuple(differences(plan.expr, plan.names))
    return Bound(plan.side, plan.strict, names, value, plan.text, plan.hyp, exact, pairs)


def differences(t: S.Term, reals: Collection[str]) -> list[tuple[str, str]]:
    """The pairs of real inputs `t` subtracts one from the other: `a - b`, or `a i j - b i j`
    (the same arguments), anywhere in `t`."""
    out: list[tuple[str, str]] = []

    def operand(u: S.Term) -> tuple[str, str] | None:
        while isinstance(u, S.Paren):
            u = u.term
        head, args = head_and_args(u)
        if isinstance(head, S.Var | S.Ident) and head.name in reals:
            return head.name, " ".join(str(print_term(a)) for a in args)
        return None

    def walk(u: S.Term) -> None:
        if isinstance(u, S.BinOp) and u.op == "-":
            a, b = operand(u.lhs), operand(u.rhs)
            if a is not None and b is not None and a[0] != b[0] and a[1] == b[1]:
                out.append((a[0], b[0]))
        for name in S.node_fields(type(u)):
            value = getattr(u, name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, S.Term):
                    walk(item)

    walk(t)
    return out


def _exact(t: S.Term) -> bool:
    """Whether the bound's value is computed without rounding (so equality meets it)."""
    if isinstance(t, S.Num | S.Var | S.Ident):
        return True
    if isinstance(t, S.Prefix) and t.op == "-" or isinstance(t, S.Abs | S.Typed):
        inner = t.arg if isinstance(t, S.Prefix) else t.term
        return _exact(inner)
    head, args = head_and_args(t)
    return isinstance(head, S.Var | S.Ident) and all(isinstance(a, S.Var | S.Ident) for a in args)
