"""How a printed term fits the context it is printed in.

Each node is printed with its children, giving (text, precedence, right)
where `right` is the lowest level at which the term's right edge was parsed
(a trailing `fun` body is open at level 0, a `∑` body at 67, an atom is
closed). A node is parenthesised when its precedence is below what the
context asks for, or when whatever follows it in the context could attach to
its open right edge.

The printer of each node class is in `_NODE`, which `printer.py` fills.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .precedence import INF
from .syntax import Term

# `follow` values: what comes after a term in its context.
#   None -> a closing bracket, a comma, or the end
#   KEYWORD -> a keyword such as `then`, `else`, `with`, `:` or `;` (only `by` blocks run on)
#   ALT -> the next `| alternative` (a nested `match` would take it)
KEYWORD = -1
ALT = -2
_BY_RIGHT = -3  # a one-line `by`/`do` block runs to the next closing bracket or comma
_MATCH_RIGHT = -2

_Printed = tuple[str, int, int]

_NODE: dict[type, Callable[[Any], _Printed]] = {}


def _fmt(t: Term, min_prec: int, follow: int | None = None) -> tuple[str, int]:
    """`t` printed for a context that parses at `min_prec`; returns (text, right edge)."""
    text, prec, right = _NODE[type(t)](t)
    if prec < min_prec or (follow is not None and follow >= right):
        return f"({text})", INF
    return text, right


def fmt(t: Term, min_prec: int = 0, follow: int | None = None) -> str:
    return _fmt(t, min_prec, follow)[0]
