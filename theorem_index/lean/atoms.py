"""The base of the Lean term tree, and its atoms.

`Span` places a node in the text it was parsed from; `Term` is the base class of every
node. The atoms are the nodes without subterms: names, literals, holes, sorts, and the
`by` and `do` blocks kept as text.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Span:
    """Character offsets [start, end) into the text the node was parsed from."""

    start: int
    end: int


NO_SPAN = Span(0, 0)


@dataclass(frozen=True)
class Term:
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


# --- atoms -----------------------------------------------------------------


@dataclass(frozen=True)
class Ident(Term):
    """An identifier as written (possibly dotted: `Mat.flatten`, `n.succ`)."""

    name: str


@dataclass(frozen=True)
class Var(Term):
    """A bound variable (binder, lambda, sum index, let, match pattern)."""

    name: str


@dataclass(frozen=True)
class Const(Term):
    """A constant, by fully qualified name; `written` keeps the source spelling."""

    name: str
    written: str = field(default="", compare=False)


@dataclass(frozen=True)
class Num(Term):
    """A natural-number literal (decimal, `0x`, `0b` or `0o`), its value as text."""

    text: str


@dataclass(frozen=True)
class Decimal(Term):
    """A decimal or scientific literal (`0.044715`, `1e-5`): an exact rational in Lean."""

    text: str


@dataclass(frozen=True)
class Str(Term):
    """A string literal; `value` is the text between the quotes, escapes as written."""

    value: str


@dataclass(frozen=True)
class Hole(Term):
    """`_`, or `?x` (a named hole)."""

    name: str = ""


@dataclass(frozen=True)
class CDot(Term):
    """`·` inside a section `(· + 1)`."""


@dataclass(frozen=True)
class Sort(Term):
    """`Type u`, `Sort u`, `Prop`; `level` is the universe as text ('' when absent)."""

    kind: str
    level: str = ""


@dataclass(frozen=True)
class DotIdent(Term):
    """A leading-dot name `.symm`, resolved against the expected type."""

    name: str


@dataclass(frozen=True)
class By(Term):
    """A tactic block; kept as text, never interpreted."""

    text: str


@dataclass(frozen=True)
class CharLit(Term):
    """A character literal `'a'`; `value` is the text between the quotes, as written."""

    value: str


@dataclass(frozen=True)
class Do(Term):
    """A `do` block; kept as text, never interpreted."""

    text: str
