"""Binders that are integers or lists of numbers, drawn.

    c : ℤ                  -- an `int` input in -10..10
    xs : List ℤ            -- a dimension «xs.length» (from 0) and an input `xs` of that shape
    rows : List (List ℤ)   -- «rows.length» ≤ 3, «rows[k].length», inputs `rows[k]`

An integer binder is drawn in `INT_RANGE`, a signed range around 0, as a ℕ binder
is drawn from 0 up: Lean's edge cases (0, negatives, `Int.toNat` of a negative)
are met. ℕ elements are drawn in 0..10, ℤ elements in `INT_RANGE`, ℝ elements as
real inputs are.

A list's length is its structure (a `Lst` has a constant length, lists.py), so
one program cannot hold lists of different lengths across its trials: the
length is a dimension the harness draws with the others, from 0 (the checker's
`dim_lows`), and each dims draw has its own lengths; within a draw the elements
vary per trial. A list of lists is ragged: its length is at most `RAGGED_MAX`,
and each element has a length of its own («rows[0].length», …; those past the
list's length are drawn but unused).

Hypotheses that fix a length are met by construction: `xs.length = n` (n a
dimension, a literal or another list's length) makes n the list's length, with
no dimension of its own; `∀ r ∈ rows, r.length = n` makes every element n long
(`rows` is then one input of shape (length, n)). They still hold in every trial
(binders.py evaluates them). Other relations of lengths (`0 < xs.length`) are
relations between dimensions; hypotheses on the elements (`∀ c ∈ cs, 0 ≤ c`)
are evaluated per trial, and where one fails the trial holds vacuously
(premises.py). The result says how each list and integer was drawn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from checkers.core import DimConstraint, InputSpec
from checkers.language.errors import NotSupported
from checkers.language.types import (
    INT_NAMES,
    LIST_NAMES,
    NAT_NAMES,
    REAL_NAMES,
    TInt,
    TList,
    TNat,
    TReal,
    Ty,
    const_name,
    head_and_args,
)
from checkers.language.values import Arr, Lst
from checkers.lazyjax import jnp
from theorem_index.lean import print_term
from theorem_index.lean import syntax as S

__all__ = [
    "INT_RANGE",
    "RAGGED_MAX",
    "ListShape",
    "Lists",
    "element_spec",
    "int_note",
    "int_value",
    "list_note",
    "list_specs",
    "list_value",
]

INT_RANGE = (-10, 10)
NAT_ELEMENTS = (0, 10)
RAGGED_MAX = 3  # the longest list of lists whose elements have lengths of their own

Length = str | int  # a dimension, or a literal


@dataclass(frozen=True)
class ListShape:
    """How one list is drawn: its length, and its elements' kind ('nat', 'int', 'real') or,
    for a list of lists, each element's shape (`inner`: one for all, or one per position)."""

    length: Length
    kind: str
    inner: ListShape | tuple[ListShape, ...] | None = None


def _element_kind(ty: S.Term) -> str | None:
    name = const_name(ty) if isinstance(ty, S.Const | S.Ident) else None
    if name in NAT_NAMES:
        return "nat"
    if name in INT_NAMES:
        return "int"
    if name in REAL_NAMES:
        return "real"
    return None


def _strip(t: S.Term) -> S.Term:
    while isinstance(t, S.Paren):
        t = t.term
    return t


def _list_arg(ty: S.Term) -> S.Term | None:
    h, args = head_and_args(_strip(ty))
    return _strip(args[0]) if const_name(h) in LIST_NAMES and len(args) == 1 else None


def own_length(name: str) -> str:
    """The dimension of a list binder's own length (a quoted identifier: no binder's name)."""
    return f"«{name}.length»"


@dataclass
class Lists:
    """The list binders of a theorem and what fixes their lengths, as the binders and
    hypotheses are read (binders.py); `finish` gives the dimensions they add."""

    shapes: dict[str, ListShape] = field(default_factory=dict)
    # an own length a hypothesis equates to a dimension, a literal or another length
    alias: dict[str, Length] = field(default_factory=dict)
    # an own length (or `rows[]`, the elements of rows) -> the hypotheses fixing it
    fixed_by: dict[str, str] = field(default_factory=dict)

    def add(self, name: str, ty: S.Term) -> None:
        """Plan the list binder `name : ty`, or NotSupported for elements not drawn."""
        elem = _list_arg(ty)
        assert elem is not None
        kind = _element_kind(elem)
        if kind is not None:
            self.shapes[name] = ListShape(own_length(name), kind)
            return
        inner = _list_arg(elem)
        kind = _element_kind(inner) if inner is not None else None
        if kind is None:
            raise NotSupported(
                f"the list binder {name} : {print_term(ty)} (only lists of ℕ, ℤ or ℝ, and "
                "lists of those, are drawn)"
            )
        ragged = tuple(ListShape(f"«{name}[{k}].length»", kind) for k in range(RAGGED_MAX))
        self.shapes[name] = ListShape(own_length(name), "list", ragged)

    def resolve(self, length: Length) -> Length:
        seen = set()
        while isinstance(length, str) and length in self.alias and length not in seen:
            seen.add(length)
            length = self.alias[length]
        return length

    def _free(self, length: Length) -> bool:
        return isinstance(length, str) and length.startswith("«") and length not in self.alias

    def length_of(self, t: S.Term) -> Length | None:
        """The length `xs.length` (or `List.length xs`) reads, for a list binder xs."""
        t = _strip(t)
        if isinstance(t, S.Proj) and t.field == "length":
            xs = _strip(t.term)
        else:
            h, args = head_and_args(t)
            if const_name(h) != "List.length" or len(args) != 1:
                return None
            xs = _strip(args[0])
        if isinstance(xs, S.Var | S.Ident) and xs.name in self.shapes:
            return self.resolve(self.shapes[xs.name].length)
        return None

    def equate(self, hyp: str, a: Length, b: Length) -> bool:
        """Make the lengths a and b one (a hypothesis `a = b`), where one of them is a
        list's own length not fixed yet; False where neither is."""
        a, b = self.resolve(a), self.resolve(b)
        if self._free(b) and not self._free(a):
            a, b = b, a
        if not self._free(a) or a == b:
            return a == b
        assert isinstance(a, str)
        self.alias[a] = b
        self._note(a, hyp)
        return True

    def uniform(self, hyp: str, prop: S.Term, length: Any) -> bool:
        """`∀ r ∈ rows, r.length = n`: every element of rows is n long (`length` reads n
        as a dimension or literal, or None)."""
        prop = _strip(prop)
        if not (
            isinstance(prop, S.Quant)
            and prop.q == "∀"
            and prop.bound is not None
            and prop.bound[0] == "∈"
            and len(prop.binders) == 1
            and len(prop.binders[0].names) == 1
        ):
            return False
        rows = _strip(prop.bound[1])
        if not isinstance(rows, S.Var | S.Ident) or rows.name not in self.shapes:
            return False
        shape = self.shapes[rows.name]
        if not isinstance(shape.inner, tuple):
            return False
        body = _strip(prop.body)
        if not (isinstance(body, S.BinOp) and body.op == "="):
            return False
        r = prop.binders[0].names[0]
        for mine, other in ((body.lhs, body.rhs), (body.rhs, body.lhs)):
            m = _strip(mine)
            of = _strip(m.term) if isinstance(m, S.Proj) and m.field == "length" else None
            n = length(other)
            if isinstance(of, S.Var | S.Ident) and of.name == r and n is not None:
                inner = ListShape(self.resolve(n), shape.inner[0].kind)
                self.shapes[rows.name] = dataclasses.replace(shape, inner=inner)
                self._note(f"{rows.name}[]", hyp)
                return True
        return False

    def _note(self, what: str, hyp: str) -> None:
        self.fixed_by[what] = f"{self.fixed_by[what]}, {hyp}" if what in self.fixed_by else hyp

    def finish(self) -> tuple[list[str], list[DimConstraint]]:
        """Every length resolved; (the dimensions of the lists' own lengths, in order, and
        the bound on a ragged list's length)."""
        dims: list[str] = []
        constraints: list[DimConstraint] = []

        def settle(shape: ListShape) -> ListShape:
            length = self.resolve(shape.length)
            if isinstance(length, str) and length.startswith("«") and length not in dims:
                dims.append(length)
            inner = shape.inner
            if isinstance(inner, ListShape):
                inner = settle(inner)
            elif isinstance(inner, tuple):
                if isinstance(length, int) and length > RAGGED_MAX:
                    raise NotSupported(
                        f"a list of lists of length {length} (lists of lists of up to "
                        f"{RAGGED_MAX} elements are drawn)"
                    )
                if isinstance(length, str):
                    constraints.append(DimConstraint(length, "<=", RAGGED_MAX))
                inner = tuple(settle(s) for s in inner)
            return ListShape(length, shape.kind, inner)

        self.shapes = {n: settle(s) for n, s in self.shapes.items()}
        return dims, constraints


# --- per dims draw -----------------------------------------------------------------


def _n(length: Length, dims: Mapping[str, int]) -> int:
    return int(dims[length]) if isinstance(length, str) else int(length)


def element_spec(kind: str, shape: tuple[int, ...]) -> InputSpec:
    """How elements of this kind ('real', 'nat', 'int') are drawn, in an array of `shape`."""
    if kind == "real":
        return InputSpec.real(shape)
    lo, hi = NAT_ELEMENTS if kind == "nat" else INT_RANGE
    return InputSpec.integers(lo, hi, shape)


def list_specs(name: str, shape: ListShape, dims: Mapping[str, int]) -> dict[str, InputSpec]:
    """The inputs holding the elements (none for an empty list)."""
    n = _n(shape.length, dims)
    if shape.inner is None:
        return {name: element_spec(shape.kind, (n,))} if n else {}
    if isinstance(shape.inner, ListShape):
        m = _n(shape.inner.length, dims)
        return {name: element_spec(shape.inner.kind, (n, m))} if n * m else {}
    out: dict[str, InputSpec] = {}
    for k in range(n):
        out.update(list_specs(f"{name}[{k}]", shape.inner[k], dims))
    return out


def _elem_type(kind: str) -> Ty:
    return {"nat": TNat(), "int": TInt(), "real": TReal()}[kind]


def _numbers(kind: str, data: Any, n: int, dtype: Any) -> Lst:
    if kind == "real":
        items = tuple(Arr(jnp.asarray(data[k], dtype), "real") for k in range(n))
    else:
        items = tuple(Arr(jnp.asarray(data[k], jnp.int64), kind) for k in range(n))
    return Lst(items, _elem_type(kind))


def list_value(
    name: str, shape: ListShape, dims: Mapping[str, int], inputs: Mapping[str, Any], dtype: Any
) -> Lst:
    """The list of one trial, from its inputs."""
    n = _n(shape.length, dims)
    if shape.inner is None:
        return _numbers(shape.kind, inputs.get(name), n, dtype)
    if isinstance(shape.inner, ListShape):
        m = _n(shape.inner.length, dims)
        data = inputs.get(name)
        kind = shape.inner.kind
        rows = tuple(
            _numbers(kind, data[k] if data is not None else np.zeros((0,)), m, dtype)
            for k in range(n)
        )
        return Lst(rows, TList(_elem_type(kind)))
    rows = tuple(list_value(f"{name}[{k}]", shape.inner[k], dims, inputs, dtype) for k in range(n))
    return Lst(rows, TList(_elem_type(shape.inner[0].kind)))


def int_value(x: Any) -> Arr:
    return Arr(jnp.asarray(x, jnp.int64), "int")


# --- what the result says ------------------------------------------------------------


def _elements(kind: str) -> str:
    if kind == "real":
        return "real elements drawn as real inputs are"
    lo, hi = NAT_ELEMENTS if kind == "nat" else INT_RANGE
    return f"elements in {lo}..{hi}"


def _length_text(length: Length) -> str:
    if isinstance(length, str) and length.startswith("«"):
        return f"length {length} (a dimension drawn from 0)"
    return f"length {length}"


def list_note(name: str, ty: S.Term, shape: ListShape, fixed_by: Mapping[str, str]) -> str:
    head = f"{name} : {print_term(ty)} drawn as lists of {_length_text(shape.length)}"
    if own_length(name) in fixed_by:
        head += f" (hypothesis {fixed_by[own_length(name)]})"
    if shape.inner is None:
        return f"{head} with {_elements(shape.kind)}"
    if isinstance(shape.inner, ListShape):
        inner = f"every element a list of {_length_text(shape.inner.length)}"
        if f"{name}[]" in fixed_by:
            inner += f" (hypothesis {fixed_by[f'{name}[]']})"
        return f"{head}, {inner}, with {_elements(shape.inner.kind)}"
    return (
        f"{head} (at most {RAGGED_MAX}), element k a list of its own length "
        f"«{name}[k].length» (a dimension drawn from 0), with {_elements(shape.inner[0].kind)}"
    )


def int_note(name: str) -> str:
    lo, hi = INT_RANGE
    return f"{name} : ℤ drawn in {lo}..{hi}"
