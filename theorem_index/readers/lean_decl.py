"""One Lean declaration command: name, binder groups, statement, equations.

Works on the lexer's two views: structure is read from `scan` (comments and
literal insides blanked), text is taken from `code` at the same offsets.
The proof after the top-level `:=` is skipped; a definition whose body is a
term keeps `name args = body` as its equation, and a pattern-matching
definition (its alternatives on their own lines or on the header's) keeps one
`name args pats = rhs` per alternative; `lean_equations` writes them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from theorem_index.readers import errors
from theorem_index.readers.errors import LineIndex, ReadError
from theorem_index.readers.lean_equations import (
    alternative_equations,
    equation,
    where_equation,
)
from theorem_index.readers.signature import CLOSERS, NAME, OPENERS, close_group, normalize

_NAME_RE = re.compile(NAME)
_WORD = re.compile(r"[^\W\d][\w'!?]*")
_SPACE = re.compile(r"\s*")
# Tokens that matter at bracket depth 0 while reading a header or a body.
_TOKENS = re.compile(
    r"[()\[\]{}⦃⦄⟨⟩⟦⟧⟪⟫]|:=|(?<![\w'.!?])(?:where|deriving|termination_by|"
    r"decreasing_by|let|have|haveI|letI)(?![\w'!?])|(?:\n[ \t]*|(?<=[ \t]))\|(?=[ \t])"
)
_BODY_STOP_RE = re.compile(
    r"(?<![\w'.!?])(?:where|deriving|termination_by|decreasing_by)(?![\w'!?])"
)
_WHERE_STOP_RE = re.compile(r"(?<![\w'.!?])(?:deriving|termination_by|decreasing_by)(?![\w'!?])")
_OPEN_RE = re.compile(r"[(\[{⦃⟨⟦⟪]")
_CLOSE_RE = re.compile(r"[)\]}⦄⟩⟧⟫]")
_LET_RE = re.compile(r"(?<![\w'.!?])(?:let|have)(?![\w'!?])")
_LAYOUT = re.compile(r"[()\[\]{}⦃⦄⟨⟩⟦⟧⟪⟫]|:=|\n[ \t]*(?=\S)|(?<![\w'.!?])(?:let|have)(?![\w'!?])")
_NESTED = re.compile(r"[(\[{⦃⟨⟦⟪]")
_EQUATION_KINDS = frozenset({"def", "abbrev"})
KEYWORDS = frozenset(
    "where extends deriving with fun match by at in from then else if do have let show".split()
)


@dataclass(frozen=True)
class BinderGroup:
    """`(x y : T)`, `{n : ℕ}`, `[inst : C α]`, `[C α]` or a bare `x`."""

    text: str
    opener: str  # one of ( { [ ⦃, or "" for a bare name
    names: tuple[str, ...]
    type: str

    def only(self, names: tuple[str, ...]) -> BinderGroup:
        """The group with only `names` kept (for variables a declaration uses)."""
        if names == self.names or not self.opener or not self.type:
            return self
        text = f"{self.opener}{' '.join(names)} : {self.type}{OPENERS[self.opener]}"
        return BinderGroup(text, self.opener, names, self.type)


@dataclass(frozen=True)
class ParsedDecl:
    kind: str
    name: str | None  # None: an anonymous instance
    binders: tuple[BinderGroup, ...]
    statement: str
    statement_start: int  # offset, or -1 when there is no statement
    body_start: int  # where the header ends: `:=`, `where`, `|`, …
    end: int


def parse_group(text: str) -> BinderGroup:
    """Split one bracket group's text into its names and type."""
    opener = text[0] if text and text[0] in OPENERS else ""
    inner = text[1:-1] if opener else text
    if opener == "{" and inner.startswith("{") and inner.endswith("}"):
        inner = inner[1:-1]
    colon = _top_colon(inner)
    if colon < 0:
        if opener == "[":
            return BinderGroup(normalize(text), opener, (), normalize(inner))
        return BinderGroup(normalize(text), opener, tuple(inner.split()), "")
    head, tail = inner[:colon], inner[colon + 1 :]
    default = _top_colon(tail, assign=True)
    if default >= 0:
        tail = tail[:default]
    return BinderGroup(normalize(text), opener, tuple(head.split()), normalize(tail))


def _top_colon(s: str, assign: bool = False) -> int:
    if _NESTED.search(s) is None:
        pos = s.find(":")
        while pos >= 0:
            is_assign = s[pos + 1 : pos + 2] == "="
            if is_assign == assign and s[pos - 1 : pos] != ":":
                return pos
            pos = s.find(":", pos + 2)
        return -1
    depth = 0
    for i, c in enumerate(s):
        if c in OPENERS:
            depth += 1
        elif c in CLOSERS:
            depth -= 1
        elif c == ":" and depth == 0:
            is_assign = s[i + 1 : i + 2] == "="
            if is_assign == assign and s[i - 1 : i] != ":":
                return i
    return -1


class DeclParser:
    def __init__(self, scan: str, code: str, index: LineIndex) -> None:
        self.scan = scan
        self.code = code
        self.index = index

    def text(self, start: int, stop: int) -> str:
        """Header text (a statement) on one line: whitespace collapsed, and the line
        break that ends a `let`/`have` value (Lean's layout rule) written as `; `."""
        scan = self.scan
        if _LET_RE.search(scan, start, stop) is None:
            return normalize(self.code[start:stop])
        lets: list[tuple[int, int, bool]] = []  # (depth, column, value started)
        depth = 0
        cuts: list[int] = []
        for m in _LAYOUT.finditer(scan, start, stop):
            token = m.group()
            if token[0] in OPENERS:
                depth += 1
            elif token[0] in CLOSERS:
                depth -= 1
                while lets and lets[-1][0] > depth:
                    lets.pop()
            elif token == ":=":
                if lets and lets[-1][0] == depth and not lets[-1][2]:
                    lets[-1] = (depth, lets[-1][1], True)
            elif token[0] == "\n":
                column = len(token) - 1
                while lets and lets[-1][0] == depth and lets[-1][2] and column <= lets[-1][1]:
                    lets.pop()
                    before = m.start() - 1
                    while before > start and scan[before] in " \t":
                        before -= 1
                    if scan[before] != ";":
                        cuts.append(m.start())
            else:
                lets.append((depth, m.start() - (scan.rfind("\n", 0, m.start()) + 1), False))
        pieces, last = [], start
        for cut in sorted(set(cuts)):
            pieces.append(self.code[last:cut].rstrip() + ";")
            last = cut
        pieces.append(self.code[last:stop])
        return normalize(" ".join(pieces))

    def _skip(self, pos: int, end: int) -> int:
        m = _SPACE.match(self.scan, pos)
        return min(m.end() if m else pos, end)

    def parse(self, kind: str, pos: int, end: int, namespace: str = "") -> ParsedDecl:
        """`pos` is just past the kind keyword; `end` ends the command; `namespace`
        only names the declaration in error messages."""
        scan = self.scan
        end = self._trim(pos, end)
        pos = self._skip(pos, end)
        if kind == "class" and scan.startswith("inductive", pos):
            pos = self._skip(pos + len("inductive"), end)
        name: str | None = None
        if kind == "instance" and scan.startswith("(priority", pos):
            pos = self._skip(close_group(scan, pos, end, self.index), end)
        m = _NAME_RE.match(scan, pos, end)
        if m and m.group() not in KEYWORDS:
            name = self.code[m.start() : m.end()]  # `scan` masks the insides of «…»
            pos = self._skip(m.end(), end)
            if scan.startswith(".{", pos):
                pos = self._skip(close_group(scan, pos + 1, end, self.index), end)
        elif kind != "instance":
            raise ReadError(errors.expected_name(kind), pos)
        shown = kind if name is None else f"{namespace}.{name}" if namespace else name
        binders: list[BinderGroup] = []
        while pos < end:
            c = scan[pos]
            if c in OPENERS:
                close = close_group(scan, pos, end, self.index)
                binders.append(parse_group(self.code[pos:close]))
                pos = self._skip(close, end)
                continue
            word = _WORD.match(scan, pos, end)
            if word and word.group() not in KEYWORDS:
                binders.append(BinderGroup(word.group(), "", (word.group(),), ""))
                pos = self._skip(word.end(), end)
                continue
            break
        statement, stmt_start = "", -1
        if scan.startswith("extends", pos):
            stop = self._colon_at_depth0(pos, end)
            if stop < 0:
                stop = self._find_stop(pos, end)[0]
            binders.append(BinderGroup(normalize(self.code[pos:stop]), "", (), ""))
            pos = stop
        if pos < end and scan[pos] == ":" and not scan.startswith(":=", pos):
            stmt_start = self._skip(pos + 1, end)
            stop, _ = self._find_stop(stmt_start, end)
            statement = self.text(stmt_start, stop)
            if not statement:
                raise ReadError(errors.expected_statement(shown), stop)
            pos = stop
        elif kind in ("theorem", "axiom", "instance", "opaque"):
            found = None if pos >= end else normalize(scan[pos : pos + 20]).split(" ")[0]
            what = errors.found_text(found, "the end of the declaration")
            raise ReadError(errors.expected_colon(shown, what), pos)
        return ParsedDecl(kind, name, tuple(binders), statement, stmt_start, pos, end)

    def equations(
        self, parsed: ParsedDecl, name: str, binders: Sequence[BinderGroup]
    ) -> tuple[str, ...]:
        """The equations of a definition named `name` whose binders (the variables
        that joined it, then its own) are `binders`: `name args = body`."""
        if parsed.kind not in _EQUATION_KINDS or parsed.name is None:
            return ()
        return self._equations(name, binders, parsed.body_start, parsed.end)

    def _find_stop(self, pos: int, end: int) -> tuple[int, str]:
        """The first header terminator at depth 0: `:=`, `where`, an alternative `|`, …"""
        scan = self.scan
        stack: list[int] = []
        pending_let = 0
        for m in _TOKENS.finditer(scan, pos, end):
            token = m.group()
            first = token[0]
            if first in OPENERS:
                stack.append(m.start())
                continue
            if first in CLOSERS:
                if not stack:
                    raise ReadError(errors.unopened(first), m.start())
                opened = stack.pop()
                if OPENERS[scan[opened]] != first:
                    line, col = self.index.line_col(opened)
                    opener = scan[opened]
                    raise ReadError(
                        errors.unclosed(opener, OPENERS[opener], line, col, first), m.start()
                    )
                continue
            if stack:
                continue
            if token in ("let", "have", "haveI", "letI"):
                pending_let += 1
            elif token == ":=":
                if pending_let:
                    pending_let -= 1
                else:
                    return m.start(), token
            elif token in ("where", "deriving") or token.lstrip().startswith("|"):
                return m.start(), token.strip()
        if stack:
            opened = stack[-1]
            line, col = self.index.line_col(opened)
            opener = scan[opened]
            raise ReadError(errors.unclosed(opener, OPENERS[opener], line, col), end)
        return self._trim(pos, end), ""

    def _colon_at_depth0(self, pos: int, end: int) -> int:
        depth = 0
        scan = self.scan
        for i in range(pos, end):
            c = scan[i]
            if c in OPENERS:
                depth += 1
            elif c in CLOSERS:
                depth -= 1
            elif c == ":" and depth == 0 and scan[i + 1 : i + 2] != "=":
                return i
            elif depth == 0 and scan.startswith(("where", ":="), i):
                return -1
        return -1

    def _trim(self, pos: int, end: int) -> int:
        return pos + len(self.scan[pos:end].rstrip())

    def _body_end(self, pos: int, end: int) -> int:
        """Where a definition's term body ends: `where`, `termination_by`, … at depth 0."""
        scan = self.scan
        for m in _BODY_STOP_RE.finditer(scan, pos, end):
            opened = len(_OPEN_RE.findall(scan, pos, m.start()))
            closed = len(_CLOSE_RE.findall(scan, pos, m.start()))
            if opened <= closed:
                return self._trim(pos, m.start())
        return self._trim(pos, end)

    def _equations(
        self, name: str, binders: Sequence[BinderGroup], pos: int, end: int
    ) -> tuple[str, ...]:
        scan = self.scan
        args = [n for g in binders if g.opener in ("(", "") for n in g.names]
        lhs = " ".join([name, *args])
        if scan.startswith(":=", pos):
            body = self._skip(pos + 2, end)
            if scan.startswith("by", body) and not scan[body + 2 : body + 3].isalnum():
                return ()
            eq = equation(lhs, scan, self.code, body, self._body_end(body, end))
            return () if eq is None else (eq,)
        bar = self._skip(pos, end)
        if scan.startswith("|", bar):
            return alternative_equations(lhs, scan, self.code, bar, self._body_end(bar, end))
        if scan.startswith("where", bar) and not scan[bar + 5 : bar + 6].isalnum():
            eq = where_equation(lhs, scan, self.code, bar + 5, self._where_end(bar + 5, end))
            return () if eq is None else (eq,)
        return ()

    def _where_end(self, pos: int, end: int) -> int:
        """Where a `where` block of fields ends: `termination_by`, `deriving`, … at depth 0."""
        stop = _WHERE_STOP_RE.search(self.scan, pos, end)
        return self._trim(pos, stop.start() if stop else end)
