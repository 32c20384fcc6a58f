"""The inputs of hand-written checkers: shapes and bounds written as dimension
expressions (`"N*c"`, `"N+1"`, ints), resolved to an `InputSpec` for each dims draw.

    inputs={"X": real("N", "a"), "i": fin("a"), "k": nat(0, "n"), "f": index_map("m", "n")}
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from checkers.core import FIN, INDEX_MAP, NAT, REAL, InputSpec

__all__ = ["InputTemplate", "Size", "fin", "index_map", "nat", "real"]

Size = int | str


_TERM = re.compile(r"^\s*(?:\d+|[^\W\d][\w'₀-₉]*)\s*$")


def _size_names(expr: Size) -> list[str]:
    """The dimension names in a size: an int, a name, or sums of products (`N*c`, `N+1`)."""
    if isinstance(expr, bool):
        raise ValueError(f"size {expr!r} is not an int or a dimension expression")
    if isinstance(expr, int):
        if expr < 0:
            raise ValueError(f"size {expr!r} is negative")
        return []
    if not isinstance(expr, str):
        raise ValueError(f"size {expr!r} is not an int or a dimension expression")
    names = []
    for term in expr.split("+"):
        for factor in term.split("*"):
            if not _TERM.match(factor):
                raise ValueError(
                    f"size {expr!r} is not a sum of products of dimension names and ints"
                )
            factor = factor.strip()
            if not factor.isdigit():
                names.append(factor)
    return names


def _size_value(expr: Size, dims: Mapping[str, int]) -> int:
    if isinstance(expr, int):
        return expr
    total = 0
    for term in expr.split("+"):
        product = 1
        for factor in term.split("*"):
            factor = factor.strip()
            product *= int(factor) if factor.isdigit() else int(dims[factor])
        total += product
    return total


@dataclass(frozen=True)
class InputTemplate:
    """An input whose sizes are dimension expressions; `resolve(dims)` gives its InputSpec."""

    kind: str
    shape: tuple[Size, ...] = ()
    high: Size | None = None
    lo: Size = 0
    hi: Size | None = None
    constraint: str | None = None
    distribution: str = "normal"

    def sizes(self) -> list[Size]:
        return [*self.shape, *(s for s in (self.high, self.hi) if s is not None), self.lo]

    def names(self) -> list[str]:
        return [n for s in self.sizes() for n in _size_names(s)]

    def resolve(self, dims: Mapping[str, int]) -> InputSpec:
        def v(s: Size | None) -> int | None:
            return None if s is None else _size_value(s, dims)

        return InputSpec(
            self.kind,
            tuple(_size_value(s, dims) for s in self.shape),
            high=v(self.high),
            lo=_size_value(self.lo, dims),
            hi=v(self.hi),
            constraint=self.constraint,
            distribution=self.distribution,
        )

    def __repr__(self) -> str:
        if self.kind == REAL:
            args = [repr(s) for s in self.shape]
            if self.constraint is not None:
                args.append(f"constraint={self.constraint!r}")
            if self.distribution != "normal":
                args.append(f"distribution={self.distribution!r}")
            return f"real({', '.join(args)})"
        if self.kind == FIN:
            return f"fin({self.high!r})"
        if self.kind == NAT:
            return f"nat({self.lo!r}, {self.hi!r})"
        return f"index_map({self.shape[0]!r}, {self.high!r})"


def real(
    *shape: Size, constraint: str | None = None, distribution: str = "normal"
) -> InputTemplate:
    """A real input of the given shape (no sizes: a scalar)."""
    return InputTemplate(REAL, tuple(shape), constraint=constraint, distribution=distribution)


def fin(high: Size) -> InputTemplate:
    """A `Fin high` index."""
    return InputTemplate(FIN, (), high=high)


def nat(lo: Size, hi: Size) -> InputTemplate:
    """A natural number in lo..hi."""
    return InputTemplate(NAT, (), lo=lo, hi=hi)


def index_map(m: Size, high: Size) -> InputTemplate:
    """A map `Fin m → Fin high`, as an int array of shape (m,)."""
    return InputTemplate(INDEX_MAP, (m,), high=high)
