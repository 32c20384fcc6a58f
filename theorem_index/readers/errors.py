"""Every message the readers can report, and offset -> (line, column) in one place.

The wording is part of the ingestion report that users and tests read, so each
message is built here and nowhere else. Lines and columns are 1-based; columns
count characters (code points), not bytes.
"""

from __future__ import annotations

from bisect import bisect_right

from theorem_index.model import IngestError

BINARY = "binary file: not a text, HTML, JSON or Lean document"
UNKNOWN_FORMAT = (
    "unknown format: expected a doc-gen4 HTML page, doc-gen4 JSON data, "
    "a plain-text doc page or Lean source (.lean)"
)
JSON_SHAPE = 'doc-gen4 JSON data: expected an object with "name" and "declarations"'
UNRENDERED_EQUATIONS = "One or more equations did not get rendered due to their size."


def too_large(size: int, limit: int) -> str:
    return f"file too large: {size} bytes (limit {limit})"


def invalid_utf8(byte: int, offset: int, line: int, column: int) -> str:
    return f"invalid UTF-8: byte 0x{byte:02x} at offset {offset} (line {line}, column {column})"


def no_such_path(path: str) -> str:
    return f"no such file or directory: {path}"


def unreadable(reason: str) -> str:
    return f"cannot read file: {reason}"


def duplicate(name: str, file: str, line: int | None) -> str:
    where = file if line is None else f"{file}:{line}"
    return f"duplicate declaration {name}: already read from {where}"


def unclosed(opener: str, closer: str, line: int, column: int, found: str | None = None) -> str:
    tail = f", found '{found}'" if found is not None else ""
    return f"expected '{closer}' to close '{opener}' opened at line {line}, column {column}{tail}"


def unopened(closer: str) -> str:
    return f"unexpected '{closer}': nothing to close"


def expected_colon(name: str, found: str) -> str:
    return f"expected a binder or ' : ' after the name {name}, found {found}"


def expected_statement(name: str) -> str:
    return f"expected a statement after ' : ' in the header of {name}"


def expected_name(kind: str) -> str:
    return f"expected a name after '{kind}'"


def truncated_decl(name: str, line: int, column: int, end_line: int, end_column: int) -> str:
    return (
        f"truncated HTML: declaration {name} opened at line {line}, column {column} "
        f"is not closed (the file ends at line {end_line}, column {end_column})"
    )


def truncated_page(end_line: int, end_column: int) -> str:
    return f"truncated HTML: the file ends at line {end_line}, column {end_column} before </html>"


def invalid_json(reason: str) -> str:
    return f"invalid JSON: {reason}"


def json_missing(index: int, key: str) -> str:
    return f'doc-gen4 JSON data: declaration {index} has no "{key}"'


def json_no_header(name: str) -> str:
    return f"doc-gen4 JSON data: the header of {name} has no decl_type"


def html_no_header(name: str) -> str:
    return f"doc-gen4 HTML: declaration {name} has no decl_header"


def unterminated_comment(line: int, column: int) -> str:
    return f"unterminated comment: '/-' opened at line {line}, column {column} is never closed"


def unterminated_string(line: int, column: int) -> str:
    return f"unterminated string literal opened at line {line}, column {column}"


def end_mismatch(written: str, expected: str) -> str:
    if not expected:
        return f"'{written}' closes nothing: no namespace or section is open"
    return f"'{written}' does not close the innermost scope: expected '{expected}'"


def name_length(length: int, limit: int) -> str:
    return f"is {length} characters long (the limit is {limit})"


def invalid_byte(byte: int) -> str:
    return f"invalid UTF-8 (byte 0x{byte:02x})"


def unstorable_char(code: int) -> str:
    if code == 0:
        return "a NUL character (U+0000), which cannot be stored"
    return f"a lone surrogate (U+{code:04X}), which is not Unicode text"


def not_stored(what: str, field: str, problem: str) -> str:
    return f"{what} is not stored: its {field} holds {problem}"


def name_too_long(what: str, length: int, limit: int) -> str:
    return f"{what} is not stored: its name {name_length(length, limit)}"


def unknown_kind(what: str, kind: str, kinds: tuple[str, ...]) -> str:
    return f"{what} is not stored: its kind '{kind}' is none of {', '.join(kinds)}"


def line_out_of_range(what: str, line: int, limit: int) -> str:
    return (
        f"{what}: its source line {line} is beyond any file ({limit:,} at most); "
        "it is stored without its lines"
    )


def module_not_stored(module: str, problem: str) -> str:
    return f"nothing of module {module} is stored: its name {problem}"


def too_deep(what: str) -> str:
    return (
        f"{what} is nested more than 256 HTML elements deep, "
        "deeper than the HTML parser reads; it is not read"
    )


def json_too_deep(limit: int) -> str:
    return f"invalid JSON: nested more than {limit} levels deep, deeper than the reader reads"


def html_replaced(what: str) -> str:
    return f"{what} is not text: HTML reads it as U+FFFD, the replacement character"


def found_text(token: str | None, end_what: str = "the end of the line") -> str:
    """`'x'` for a token, or the end of the line / declaration when there is none."""
    return end_what if token is None else f"'{token}'"


class LineIndex:
    """Maps character offsets of one text to 1-based (line, column)."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        starts = [0]
        find = text.find
        pos = find("\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = find("\n", pos + 1)
        self._starts = starts

    def line_col(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1

    def line(self, offset: int) -> int:
        return bisect_right(self._starts, offset)

    def line_start(self, line: int) -> int:
        return self._starts[line - 1]


class ReadError(Exception):
    """A problem at one offset of the text being read; becomes an IngestError."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset

    def to_error(self, file: str, index: LineIndex) -> IngestError:
        line, column = index.line_col(self.offset)
        return IngestError(file, line, column, self.message)
