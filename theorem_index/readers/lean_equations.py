"""A definition's body as equation text: `name args = body`, one per alternative.

The body keeps its lines and their relative indentation, because Lean's
layout is part of its meaning: a `let` line without `;`, the statements of
a `do` block, `match` alternatives. The least indented line is moved to
column 2; a body that starts on the line of its `:=` (or `=>`) stays there.
Structure-instance fields written one per line get the `,` that the layout
stands for. A body that is more than an atom or an application is
parenthesised, so that `f x = a ≥ b` cannot read as `(f x = a) ≥ b`.

A pattern-matching definition gives one equation per alternative (and per
or-pattern): `name args pats = rhs`, the patterns in argument position
(compound ones parenthesised), `| a, b => …` as two arguments. A nested
`match` (or `fun |`) owns the bars that follow it until a bar on a new line
stands left of its first alternative, as Lean's column rule says.

Works on the lexer's two views, as `lean_decl` does: structure is read from
`scan` (comments and literal insides blanked), text is taken from `code`.
"""

from __future__ import annotations

import re

from theorem_index.readers.signature import CLOSERS, NAME, OPENERS, normalize

INDENT = 2
_BRACKETS_OR_LINE = re.compile(r"[(\[{⦃⟨⟦⟪]|[)\]}⦄⟩⟧⟫]|\n")
_FIELD = re.compile(rf"{NAME}[ \t]*:=(?!=)")
_STRING = re.compile(r'"[^"]*"')
# At bracket depth 0, anything else than words, literals and projections
# makes a body more than an application.
_DEPTH0 = re.compile(r"[(\[{⦃⟨⟦⟪]|[)\]}⦄⟩⟧⟫]|[^\w\s'.!?«»\"]|(?<![\w'.!?])[^\W\d][\w'!?]*")
_KEYWORDS = frozenset(
    """fun λ do by if then else let have haveI letI show from match with nomatch nofun
    calc at in suffices open return for unless mut try catch""".split()
)
_ALT_TOKENS = re.compile(
    r"[(\[{⦃⟨⟦⟪]|[)\]}⦄⟩⟧⟫]|=>|(?<![\w'.!?])(?:match|fun)(?![\w'!?])|(?<![|<])\|(?![|>])"
)
_ATOM = re.compile(r"[\w'.!?«»]+|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.[^']*)'")


def is_application(scan: str, start: int, stop: int) -> bool:
    """Whether `scan[start:stop]` is an atom or an application of atoms and
    bracket groups (a term that binds tighter than any infix operator)."""
    depth = 0
    for m in _DEPTH0.finditer(scan, start, stop):
        token = m.group()
        if token in OPENERS:
            depth += 1
        elif token in CLOSERS:
            depth -= 1
        elif depth == 0 and (not (token[0].isalnum() or token[0] == "_") or token in _KEYWORDS):
            return False
    return True


def equation(lhs: str, scan: str, code: str, start: int, stop: int) -> str | None:
    """`lhs = body` for the body `code[start:stop]`, or None when it is empty."""
    inline, lines = layout(scan, code, start, stop)
    if not lines:
        return None
    wrap = not is_application(scan, start, stop)
    opener, closer = ("(", ")") if wrap else ("", "")
    if len(lines) == 1:
        return f"{lhs} = {opener}{lines[0].strip()}{closer}"
    body = "\n".join(lines) + closer
    if inline:
        return f"{lhs} = {opener}{body}"
    return f"{lhs} ={' (' if wrap else ''}\n{body}"


def layout(scan: str, code: str, start: int, stop: int) -> tuple[bool, list[str]]:
    """The non-blank lines of `code[start:stop]`, dedented; and whether the
    first of them continues the line before `start` (then it is not indented).
    A line that starts inside a string literal is kept as it is; a string gap
    (`\\`, a line break and indentation, inside a string) is taken out."""
    line_begin = scan.rfind("\n", 0, start) + 1
    inline = bool(scan[line_begin:start].strip())
    commas = _field_commas(scan, start, stop)
    strings = [
        (m.start(), m.end()) for m in _STRING.finditer(scan, start, stop) if "\n" in m.group()
    ]
    rows: list[tuple[int | None, str]] = []  # (column, text); None: inside a string
    pending: tuple[int | None, str] | None = None  # a line that ended in a string gap
    pos = start
    while pos < stop:
        nl = scan.find("\n", pos, stop)
        end = stop if nl < 0 else nl
        text = _with_commas(code, pos, end, commas)
        column: int | None = len(text) - len(text.lstrip(" \t"))
        if pos == start:
            column = start - line_begin
        elif _inside(strings, pos - 1):
            column = None
        if pending is not None:
            column, text = pending[0], pending[1] + text.lstrip(" \t")
            pending = None
        ends_in_string = _inside(strings, end)
        pos = end + 1
        if ends_in_string and _string_gap(text):
            pending = (column, text[:-1])
        elif column is None:
            rows.append((None, text))
        elif text.strip():
            rows.append((column, text.lstrip(" \t") if ends_in_string else text.strip()))
    if pending is not None:
        rows.append(pending)
    columns = [c for i, (c, _) in enumerate(rows) if c is not None and (i or not inline)]
    least = min(columns, default=0)
    lines = []
    for i, (col, text) in enumerate(rows):
        if col is None or (i == 0 and inline):
            lines.append(text)
        else:
            lines.append(" " * (INDENT + col - least) + text)
    return inline, lines


def _string_gap(text: str) -> bool:
    """Whether `text` ends in an unescaped `\\` (the line break after it is a gap)."""
    run = len(text) - len(text.rstrip("\\"))
    return run % 2 == 1


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    """Whether `offset` falls strictly inside one of the string literals `spans`."""
    return any(s < offset < e - 1 for s, e in spans)


def _with_commas(code: str, pos: int, end: int, commas: list[int]) -> str:
    cuts = [c for c in commas if pos < c <= end]
    if not cuts:
        return code[pos:end]
    pieces, last = [], pos
    for cut in cuts:
        pieces.append(code[last:cut] + ",")
        last = cut
    pieces.append(code[last:end])
    return "".join(pieces)


def _field_commas(scan: str, start: int, stop: int) -> list[int]:
    """Offsets (just past a field's value) where a line break between two
    structure-instance fields stands for `,`."""
    out: list[int] = []
    stack: list[str] = []
    for m in _BRACKETS_OR_LINE.finditer(scan, start, stop):
        token = m.group()
        if token in OPENERS:
            stack.append(token)
        elif token in CLOSERS:
            if stack:
                stack.pop()
        elif stack and stack[-1] == "{":
            nxt = m.end()
            while nxt < stop and scan[nxt] in " \t":
                nxt += 1
            if not _FIELD.match(scan, nxt, stop):
                continue
            before = m.start() - 1
            while before >= start and scan[before].isspace():
                before -= 1
            if before < start or scan[before] in ",{":
                continue
            if scan[max(start, before - 4) : before + 1] == " with":
                continue
            out.append(before + 1)
    return out


def pattern_arg(pattern: str) -> str:
    """A pattern as an argument: parenthesised unless it is one token or one bracket group."""
    if _ATOM.fullmatch(pattern):
        return pattern
    if pattern[:1] in OPENERS and _group_end(pattern, 0) == len(pattern):
        return pattern
    return f"({pattern})"


def _group_end(s: str, pos: int) -> int:
    depth = 0
    for i in range(pos, len(s)):
        if s[i] in OPENERS:
            depth += 1
        elif s[i] in CLOSERS:
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


def alternative_equations(lhs: str, scan: str, code: str, bar: int, stop: int) -> tuple[str, ...]:
    """One equation per alternative (and or-pattern) of `| pats => rhs …`, the
    first bar at `bar`."""
    out: list[str] = []
    for patterns, rhs_start, rhs_stop in _alternatives(scan, bar, stop):
        rhs_start = _skip_space(scan, rhs_start, rhs_stop)
        rhs_stop = rhs_start + len(scan[rhs_start:rhs_stop].rstrip())
        for piece in patterns:
            args = [pattern_arg(p) for p in _split_commas(scan, code, *piece)]
            eq = equation(" ".join([lhs, *args]), scan, code, rhs_start, rhs_stop)
            if eq is not None:
                out.append(eq)
    return tuple(out)


def _skip_space(scan: str, pos: int, stop: int) -> int:
    while pos < stop and scan[pos].isspace():
        pos += 1
    return pos


def _alternatives(scan: str, bar: int, stop: int) -> list[tuple[list[tuple[int, int]], int, int]]:
    """(pattern pieces, rhs start, rhs stop) per alternative starting at `bar`."""
    alts: list[tuple[list[tuple[int, int]], int, int]] = []
    nested: list[int | None] = []  # first-alternative columns of nested matches
    patterns: list[tuple[int, int]] = []
    piece = bar + 1
    rhs = -1  # start of the current right-hand side, -1 while reading patterns
    depth = 0
    for m in _ALT_TOKENS.finditer(scan, bar + 1, stop):
        token = m.group()
        if token in OPENERS:
            depth += 1
        elif token in CLOSERS:
            depth -= 1
        elif depth:
            continue
        elif token == "=>":
            if rhs < 0 and not nested:
                patterns.append((piece, m.start()))
                rhs = m.end()
        elif token == "match":
            if rhs >= 0:
                nested.append(None)
        elif token == "fun":
            if rhs >= 0 and scan[_skip_space(scan, m.end(), stop) : m.end() + 64].startswith("|"):
                nested.append(None)
        else:  # a bar
            at = m.start()
            if not (scan[at - 1 : at].isspace() and scan[at + 1 : at + 2].isspace()):
                continue
            line_begin = scan.rfind("\n", 0, at) + 1
            column = at - line_begin
            if not scan[line_begin:at].strip():
                while nested and nested[-1] is not None and column < nested[-1]:
                    nested.pop()
            if nested:
                if nested[-1] is None:
                    nested[-1] = column
                continue
            if rhs < 0:
                patterns.append((piece, at))
            else:
                alts.append((patterns, rhs, at))
                patterns, rhs = [], -1
            piece = m.end()
    if rhs >= 0:
        alts.append((patterns, rhs, stop))
    return alts


def _split_commas(scan: str, code: str, start: int, stop: int) -> list[str]:
    """The comma-separated patterns of `code[start:stop]`, each on one line."""
    parts: list[str] = []
    depth = 0
    last = start
    for i in range(start, stop):
        c = scan[i]
        if c in OPENERS:
            depth += 1
        elif c in CLOSERS:
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(normalize(code[last:i]))
            last = i + 1
    parts.append(normalize(code[last:stop]))
    return [p for p in parts if p]


_WHERE_FIELD = re.compile(rf"(?m)^([ \t]*)({NAME})((?:[ \t]+[\w'!?₀-₉]+)*)[ \t]*:=(?!=)")


def where_equation(lhs: str, scan: str, code: str, start: int, stop: int) -> str | None:
    """`name args = { f := v, … }` for a structure instance written after `where`
    (a field with arguments, `backward x dy := …`, is `backward := fun x dy => …`)
    (`def dense_has_vjp … : HasVJP (dense W b) where backward := …`): one field per line
    at the first field's column; a field whose value is a tactic proof (`by …`) is left
    out, as the proof of a data-free field carries nothing to evaluate."""
    found = list(_WHERE_FIELD.finditer(scan, start, stop))
    if not found:
        return None
    column = len(found[0].group(1))
    heads = [m for m in found if len(m.group(1)) == column]
    fields: list[str] = []
    for k, m in enumerate(heads):
        end = heads[k + 1].start() if k + 1 < len(heads) else stop
        value = m.end()
        while value < end and scan[value].isspace():
            value += 1
        if scan.startswith("by", value) and not scan[value + 2 : value + 3].isalnum():
            continue
        text = equation("_", scan, code, value, end)
        if text is None:
            return None
        body = text[len("_ = ") :].strip()
        args = m.group(3).split()
        fields.append(f"{m.group(2)} := " + (f"(fun {' '.join(args)} => {body})" if args else body))
    if not fields:
        return None
    return f"{lhs} = {{ {', '.join(fields)} }}"
