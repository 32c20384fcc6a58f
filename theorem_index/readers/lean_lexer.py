"""Lean 4 source, lexically: where comments, doc comments and literals are.

`mask` returns two copies of the source, of the same length and with the
same line breaks, so offsets and positions stay valid in both:

- `code`: comments blanked out (spaces), literals kept — the text that
  binders, statements and equations are taken from;
- `scan`: comments and the insides of string and character literals
  blanked — what the structural scanner reads, so that `"-- :="` or
  `'('` never looks like syntax.

Block comments nest (`/- /- -/ -/`); `/-- … -/` is a doc comment and
`/-! … -/` a module doc, both returned with their offsets.

A `«quoted»` name part is an atom: quotes, comment markers and brackets in it
mean nothing, and in `scan` every character of it that could look like syntax
is `_`. A string literal left open is reported and ends before the next line
that starts a declaration, a doc comment or a scope command at column 0, and
then no string of the file crosses such a line (`mask`), so that one stray
quote never takes the rest of the file with it (a block comment left open
comments out the rest of the file, as in Lean).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from theorem_index.readers import errors
from theorem_index.readers.errors import LineIndex, ReadError

_SPECIAL = re.compile(r"/-|--|\"|'|«")
_GUILLEMETS = re.compile(r"«[^»\n]*»")
_NOT_NAME_CHAR = re.compile(r"[^\w'!?]")
# where scanning resumes after an unterminated string literal
_COMMAND_LINE = re.compile(
    r"^(?:@\[|/--|/-!|(?:(?:private|protected|noncomputable|partial|unsafe|nonrec)[ \t]+)*"
    r"(?:theorem|lemma|def|abbrev|instance|structure|inductive|class|axiom|opaque|example"
    r"|namespace|section|end|open|variable|universe|import|set_option)(?![\w'!?]))",
    re.M,
)
_COMMENT_EDGE = re.compile(r"/-|-/")
_STRING_TAIL = re.compile(r'(?:[^"\\]|\\.)*"', re.S)
_CHAR = re.compile(r"'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^'\\\n])'")
_IDENT_CHAR = re.compile(r"[\w'!?.]")


@dataclass(frozen=True)
class DocComment:
    start: int
    end: int
    module_doc: bool
    body: str


@dataclass
class Masked:
    code: str
    scan: str
    docs: list[DocComment]
    errors: list[ReadError]


def blank(region: str) -> str:
    """Spaces in place of every character but line breaks."""
    if "\n" not in region:
        return " " * len(region)
    return "\n".join(" " * len(part) for part in region.split("\n"))


def _comment_end(text: str, start: int) -> int:
    """End offset (past `-/`) of the block comment opening at `start`, or -1."""
    depth = 1
    pos = start + 2
    search = _COMMENT_EDGE.search
    while True:
        m = search(text, pos)
        if m is None:
            return -1
        if m.group() == "/-":
            depth += 1
            pos = m.end()
        else:
            depth -= 1
            pos = m.end()
            if depth == 0:
                return pos


def _raw_string_end(text: str, quote: int) -> int:
    """For `r"…"` / `r#"…"#` whose `"` is at `quote`: the end offset, or -1."""
    hashes = 0
    while text[quote - 1 - hashes] == "#":
        hashes += 1
    close = '"' + "#" * hashes
    end = text.find(close, quote + 1)
    return -1 if end < 0 else end + len(close)


def _raw_prefix(text: str, quote: int) -> bool:
    i = quote - 1
    while i >= 0 and text[i] == "#":
        i -= 1
    return i >= 0 and text[i] == "r" and (i == 0 or not _IDENT_CHAR.match(text[i - 1]))


def _recovery(text: str, start: int) -> int:
    """Where an unterminated string literal opened at `start` is taken to end: the
    start of the next line that opens a command, else the end of the text."""
    eol = text.find("\n", start)
    if eol < 0:
        return len(text)
    m = _COMMAND_LINE.search(text, eol + 1)
    return len(text) if m is None else m.start()


def mask(text: str) -> Masked:
    """Split `text` into code and scan views; see the module docstring.

    A file with a string literal left open has a stray quote somewhere, and every string
    after it may be paired wrongly: such a file is read again with no string crossing a
    line that starts a command, so that the error is reported where the stray quote is
    and the declarations after it are read as they are written."""
    masked = _mask(text, strings_cross_commands=True)
    if any(p.message.startswith("unterminated string") for p in masked.errors):
        masked = _mask(text, strings_cross_commands=False)
    return masked


def _mask(text: str, *, strings_cross_commands: bool) -> Masked:
    code: list[str] = []
    scan: list[str] = []
    docs: list[DocComment] = []
    problems: list[ReadError] = []
    index: LineIndex | None = None
    last = 0
    pos = 0
    length = len(text)
    search = _SPECIAL.search
    while pos < length:
        m = search(text, pos)
        if m is None:
            break
        start = m.start()
        token = m.group()
        if token == "--":
            eol = text.find("\n", start)
            end = length if eol < 0 else eol
            piece = text[last:start]
            code.append(piece)
            scan.append(piece)
            gap = " " * (end - start)
            code.append(gap)
            scan.append(gap)
            last = pos = end
            continue
        if token == "/-":
            end = _comment_end(text, start)
            if end < 0:
                index = index or LineIndex(text)
                line, col = index.line_col(start)
                problems.append(ReadError(errors.unterminated_comment(line, col), start))
                end = length  # as in Lean: the rest of the file is commented out
            marker = text[start + 2 : start + 3]
            if marker in ("-", "!") and end - start >= 5:
                docs.append(DocComment(start, end, marker == "!", text[start + 3 : end - 2]))
            piece = text[last:start]
            gap = blank(text[start:end])
            code.append(piece)
            code.append(gap)
            scan.append(piece)
            scan.append(gap)
            last = pos = end
            continue
        if token == '"':
            if _raw_prefix(text, start):
                end = _raw_string_end(text, start)
            else:
                tail = _STRING_TAIL.match(text, start + 1)
                end = tail.end() if tail else -1
            if end > 0 and not strings_cross_commands and _recovery(text, start) < end:
                end = -1
            if end < 0:
                index = index or LineIndex(text)
                line, col = index.line_col(start)
                problems.append(ReadError(errors.unterminated_string(line, col), start))
                end = _recovery(text, start)
                scan.append(text[last : start + 1])
                scan.append(blank(text[start + 1 : end]))
                code.append(text[last:end])
                last = pos = end
                continue
            scan.append(text[last : start + 1])
            scan.append(blank(text[start + 1 : end - 1]))
            scan.append(text[end - 1 : end] if end > start + 1 else "")
            code.append(text[last:end])
            last = pos = end
            continue
        if token == "«":
            atom = _GUILLEMETS.match(text, start)
            if atom is None:
                pos = start + 1
                continue
            end = atom.end()
            scan.append(text[last:start])
            scan.append("«" + _NOT_NAME_CHAR.sub("_", text[start + 1 : end - 1]) + "»")
            code.append(text[last:end])
            last = pos = end
            continue
        # a quote: a character literal unless it ends an identifier (x', f'')
        if start > 0 and _IDENT_CHAR.match(text[start - 1]):
            pos = start + 1
            continue
        char = _CHAR.match(text, start)
        if char is None:
            pos = start + 1
            continue
        end = char.end()
        scan.append(text[last : start + 1])
        scan.append(" " * (end - start - 2))
        scan.append("'")
        code.append(text[last:end])
        last = pos = end
    code.append(text[last:])
    scan.append(text[last:])
    return Masked("".join(code), "".join(scan), docs, problems)


def doc_text(body: str) -> str:
    """A doc comment's body, with common indentation removed and ends trimmed."""
    lines = body.strip("\n").split("\n")
    first = lines[0].strip()
    rest = lines[1:]
    indents = [len(x) - len(x.lstrip()) for x in rest if x.strip()]
    cut = min(indents) if indents else 0
    out = [first] + [x[cut:].rstrip() for x in rest]
    return "\n".join(out).strip()
