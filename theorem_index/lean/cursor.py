"""Parser state and helpers shared by the parts of the term parser."""

from __future__ import annotations

import sys

from .errors import LeanParseError
from .lexer import tokenize
from .syntax import Span, Term

MAX_DEPTH = 256
"""Deepest nesting accepted; deeper input is a `LeanParseError`, never a `RecursionError`.

A tree this deep takes a few Python frames per level to parse, print or
resolve; the interpreter's limit is raised once, if needed, to leave room.
"""
if sys.getrecursionlimit() < 16 * MAX_DEPTH:
    sys.setrecursionlimit(16 * MAX_DEPTH)


class Cursor:
    """Tokens of one text, the position in them, and the context flags of the parse."""

    def __init__(self, text: str) -> None:
        self.src = text
        toks = tokenize(text)
        self.k = toks.kinds
        self.t = toks.texts
        self.s = toks.starts
        self.e = toks.ends
        self.ws = toks.ws
        self.i = 0
        self.depth = 0
        self.saw_cdot = False
        self.abs_depth = 0
        self.norm_depth = 0
        self.col_limit = -1

    # --- helpers -------------------------------------------------------------

    def found(self, i: int) -> str:
        return "end of input" if self.k[i] == "eof" else f"'{self.t[i]}'"

    def error(self, msg: str, i: int | None = None) -> LeanParseError:
        return LeanParseError(msg, self.src, self.s[self.i if i is None else i])

    def expected(self, what: str) -> LeanParseError:
        return self.error(f"expected {what}, found {self.found(self.i)}")

    def at(self, text: str) -> bool:
        return self.t[self.i] == text and self.k[self.i] in ("sym", "kw")

    def expect(self, text: str) -> None:
        if self.t[self.i] == text and self.k[self.i] in ("sym", "kw"):
            self.i += 1
        else:
            raise self.expected(f"'{text}'")

    def span(self, start: int) -> Span:
        return Span(start, self.e[self.i - 1])

    def column(self, i: int) -> int:
        pos = self.s[i]
        return pos - (self.src.rfind("\n", 0, pos) + 1)

    def newline_before(self, i: int) -> bool:
        return i > 0 and "\n" in self.src[self.e[i - 1] : self.s[i]]

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"term nested too deeply (more than {MAX_DEPTH} levels)")

    def save(self) -> tuple[bool, int, int, int]:
        saved = (self.saw_cdot, self.abs_depth, self.norm_depth, self.col_limit)
        self.saw_cdot, self.abs_depth, self.norm_depth, self.col_limit = False, 0, 0, -1
        return saved

    def restore(self, saved: tuple[bool, int, int, int]) -> bool:
        had_cdot = self.saw_cdot
        self.saw_cdot, self.abs_depth, self.norm_depth, self.col_limit = saved
        return had_cdot

    # --- provided by the parser ------------------------------------------------

    def expr(self, rbp: int) -> Term:
        raise NotImplementedError

    def paren(self, rbp: int) -> tuple[Term, int]:
        raise NotImplementedError

    def anon(self, rbp: int) -> tuple[Term, int]:
        raise NotImplementedError
