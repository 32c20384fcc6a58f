"""Where a `by` or `do` block ends: the blocks are kept as text, never parsed, so
their end is found on the tokens, following Lean's layout rule."""

from __future__ import annotations

from .cursor import Cursor
from .errors import LeanParseError

_OPENERS = frozenset("( [ { ⟨ ⦃ ![ #[ ⟦ =ᶠ[ ≤ᶠ[".split())
_CLOSERS = frozenset(") ] } ⟩ ⦄ ⟧".split())
# Binders whose own comma follows them, and keywords that end a block.
_BINDERS = frozenset("∀ ∃ ∃! ∑ ∏ Σ Σ' Π ∀ᶠ ∃ᶠ ∫ ⋃ ⋂ ⨆ ⨅".split())
_STOPS = frozenset(("termination_by", "decreasing_by", "where", "deriving"))


def block_end(c: Cursor, first: int, is_do: bool) -> int:
    """Index of the first token after the `by`/`do` block that starts at `first`.

    Lean's layout rule: the block runs from `first` up to (not including) a
    token outside brackets that starts a line left of the column of `first`,
    an unmatched closing bracket, or the end. (Lean checks that column where
    each tactic or `do` element starts; a line that starts further left and
    only continues an operator, `+ y`, ends the block here.)

    Outside brackets the block also stops at a `then`/`else` that no `if` of
    its own opened, at `termination_by`/`decreasing_by`/`where`/`deriving`,
    and at a comma, except the comma of its own `∀ x,`-style binder, of its
    own `match a, b with` and its (or a `fun`'s) `| p, q =>` alternatives or
    `for x in xs, y in ys do`, and, in a `do` block, a comma on one of the
    block's own lines (a line that it starts: tactics and `do` elements are
    never separated by commas, so such a comma belongs to the block).
    """
    k, t, s, e, ws, src = c.k, c.t, c.s, c.e, c.ws, c.src
    col = c.column(first)
    depth = 0
    binders = 0  # own binders still waiting for their comma
    ifs = 0  # own `if`s still waiting for their `else`
    matches = 0  # own `match`es still waiting for `with`
    fors = 0  # own `for`s still waiting for `do`
    alts = False  # after the `with` of an own `match`: `| p, q =>` are its alternatives
    pattern = False  # between such a `|` and its `=>`
    own_line = is_do and c.newline_before(first)
    j = first
    while True:
        kind = k[j]
        if kind == "eof":
            return j
        if not depth and ws[j] and j > first and "\n" in src[e[j - 1] : s[j]]:
            if c.column(j) < col:
                return j
            own_line = is_do
        if kind == "sym":
            tx = t[j]
            if tx in _OPENERS:
                depth += 1
            elif tx in _CLOSERS:
                if depth == 0:
                    return j
                depth -= 1
            elif depth:
                pass
            elif tx == ",":
                if binders:
                    binders -= 1
                elif not (matches or fors or pattern or own_line):
                    return j
            elif tx in _BINDERS:
                binders += 1
            elif tx == "|":
                pattern = alts
            elif tx == "=>":
                pattern = False
        elif kind == "kw" and not depth:
            tx = t[j]
            if tx == "if":
                ifs += 1
            elif tx == "else":
                if not ifs:
                    return j
                ifs -= 1
            elif tx == "then":
                if not ifs:
                    return j
            elif tx == "match":
                matches += 1
            elif tx == "with":
                if matches:
                    matches -= 1
                    alts = True
            elif tx == "fun":
                alts = alts or t[j + 1] == "|"
            elif tx == "for":
                fors += 1
            elif tx == "do":
                if fors:
                    fors -= 1
            elif tx in _STOPS:
                return j
            elif tx in ("forall", "exists"):
                binders += 1
        j += 1


def takes_comma(text: str, is_do: bool) -> bool:
    """Whether the block `by text` / `do text` would run on over a comma written after it
    (it leaves a binder or a `match` of its own open), or `text` does not lex."""
    try:
        c = Cursor(text + " ,")
    except LeanParseError:
        return True
    return c.t[block_end(c, 0, is_do)] != ","
