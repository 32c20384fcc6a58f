"""Bracket-aware splitting of a declaration header into binders and statement.

`theorem Proofs.f {N : ℕ} (x : Vec N) : stmt` — the binders are the bracket
groups after the name, the statement is everything after the top-level ` : `.
Scanning bracket depth (not regular expressions) is what lets a header that
was cut in half be reported precisely: the unclosed bracket and where it
opened.
"""

from __future__ import annotations

import re

from theorem_index.readers import errors
from theorem_index.readers.errors import LineIndex, ReadError

OPENERS = {"(": ")", "{": "}", "[": "]", "⦃": "⦄", "⟨": "⟩", "⟦": "⟧", "⟪": "⟫"}
CLOSERS = {v: k for k, v in OPENERS.items()}
_BRACKET = re.compile(r'[()\[\]{}⦃⦄⟨⟩⟦⟧⟪⟫"]')
_STRING_TAIL = re.compile(r'(?:[^"\\\n]|\\.)*"')
_WORD = re.compile(r"\S+")

# A Lean identifier: dotted components, each plain or «quoted».
NAME = r"(?:«[^»\n]*»|[^\W\d][\w'!?]*)(?:\.(?:«[^»\n]*»|[^\W\d][\w'!?]*|\d+))*"


def _scan(s: str, pos: int, end: int, index: LineIndex, stop_at_depth0: bool) -> int:
    """Walk brackets from `pos`; return where depth first returns to 0 (or `end`)."""
    stack: list[int] = []
    search = _BRACKET.search
    while True:
        m = search(s, pos, end)
        if m is None:
            break
        c = m.group()
        i = m.start()
        if c == '"':
            tail = _STRING_TAIL.match(s, i + 1, end)
            if tail is None:
                line, col = index.line_col(i)
                raise ReadError(errors.unterminated_string(line, col), end)
            pos = tail.end()
            continue
        if c in OPENERS:
            stack.append(i)
        else:
            if not stack:
                raise ReadError(errors.unopened(c), i)
            opened = stack.pop()
            opener = s[opened]
            if OPENERS[opener] != c:
                line, col = index.line_col(opened)
                raise ReadError(errors.unclosed(opener, OPENERS[opener], line, col, c), i)
            if not stack and stop_at_depth0:
                return i + 1
        pos = i + 1
    if stack:
        opened = stack[-1]
        opener = s[opened]
        line, col = index.line_col(opened)
        raise ReadError(errors.unclosed(opener, OPENERS[opener], line, col), end)
    return end


def close_group(s: str, pos: int, end: int, index: LineIndex) -> int:
    """`s[pos]` opens a bracket group; return the offset just past its closer."""
    return _scan(s, pos, end, index, stop_at_depth0=True)


def check_balanced(s: str, pos: int, end: int, index: LineIndex) -> None:
    """Raise a ReadError at the first unbalanced bracket of `s[pos:end]`."""
    _scan(s, pos, end, index, stop_at_depth0=False)


def _skip_space(s: str, pos: int, end: int) -> int:
    while pos < end and s[pos].isspace():
        pos += 1
    return pos


def _top_level_colon(s: str, pos: int, end: int, index: LineIndex) -> int:
    """The first ':' (not ':=') at bracket depth 0 from `pos`, or -1."""
    while pos < end:
        c = s[pos]
        if c in OPENERS or c == '"':
            if c == '"':
                tail = _STRING_TAIL.match(s, pos + 1, end)
                pos = tail.end() if tail else end
            else:
                pos = close_group(s, pos, end, index)
            continue
        if c in CLOSERS:
            raise ReadError(errors.unopened(c), pos)
        if c == ":" and s[pos + 1 : pos + 2] != "=":
            return pos
        pos += 1
    return -1


def split_signature(
    s: str, pos: int, end: int, name: str, index: LineIndex, end_what: str = "the end of the line"
) -> tuple[str, int, int]:
    """Split `s[pos:end]` (what follows the name) into binders and statement.

    Returns (binders text, statement start, statement end). Binders are the
    leading bracket groups (and a structure's `extends` clause); the
    statement follows the top-level ` : `. Raises ReadError with the offset
    of the problem.
    """
    start = pos = _skip_space(s, pos, end)
    binders_end = pos
    while True:
        pos = _skip_space(s, pos, end)
        if pos >= end:
            raise ReadError(errors.expected_colon(name, end_what), end)
        c = s[pos]
        if c in OPENERS:
            pos = binders_end = close_group(s, pos, end, index)
            continue
        if c == ":" and s[pos + 1 : pos + 2] != "=":
            break
        if s.startswith("extends", pos) and not s[pos + 7 : pos + 8].isalnum():
            colon = _top_level_colon(s, pos, end, index)
            if colon < 0:
                raise ReadError(errors.expected_colon(name, end_what), end)
            binders_end = len(s[:colon].rstrip())
            pos = colon
            break
        if c in CLOSERS:
            raise ReadError(errors.unopened(c), pos)
        word = _WORD.match(s, pos, end)
        raise ReadError(
            errors.expected_colon(name, errors.found_text(word.group() if word else c)), pos
        )
    stmt_start = _skip_space(s, pos + 1, end)
    stmt_end = end
    while stmt_end > stmt_start and s[stmt_end - 1].isspace():
        stmt_end -= 1
    if stmt_start >= stmt_end:
        raise ReadError(errors.expected_statement(name), end)
    check_balanced(s, stmt_start, stmt_end, index)
    return normalize(s[start:binders_end]), stmt_start, stmt_end


def normalize(text: str) -> str:
    """Collapse every run of whitespace to one space and trim the ends."""
    return " ".join(text.split())


def split_attributes(text: str) -> tuple[str, ...]:
    """`@[simp, reducible]` or `simp, reducible` -> ("simp", "reducible")."""
    body = text.strip()
    if body.startswith("@["):
        body = body[2:]
    elif body.startswith("["):
        body = body[1:]
    if body.endswith("]"):
        body = body[:-1]
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for c in body:
        if c in OPENERS:
            depth += 1
        elif c in CLOSERS:
            depth -= 1
        if c == "," and depth == 0:
            parts.append(normalize("".join(current)))
            current = []
        else:
            current.append(c)
    parts.append(normalize("".join(current)))
    return tuple(p for p in parts if p)
