"""What text a read document may hand on to be stored, decided once for every reader.

A stored text is Unicode without a NUL character (PostgreSQL's text and JSON types cannot
hold one) and without a surrogate code point (U+D800 to U+DFFF is not text: doc-gen4
JSON can spell a lone one, `"\\ud800"`, and an undecodable byte reaches the readers as
one, U+DC80 to U+DCFF, so that its position is known); a declaration's name, and a
module's, is at most `MAX_NAME_LENGTH` characters, the longest the HTTP API takes as a
path parameter; a declaration's kind is one of `DECL_KINDS`; a source line number fits
the databases' integers (else the declaration is kept without it). Every other
character, control characters included, is kept: the outputs escape what they must.

`admit` applies these rules to one document after its reader: a declaration or module doc
that breaks one is left out with an error giving the file, the line and column of the
offending character (else of the declaration) and what is wrong; everything else in the
file is kept. Error messages and file names are made storable too, their offending
characters written as escapes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import fields, is_dataclass, replace
from typing import Any

from theorem_index.model import DECL_KINDS, Declaration, Document, IngestError, ModuleDoc
from theorem_index.readers import errors
from theorem_index.readers.errors import LineIndex

__all__ = [
    "MAX_NAME_LENGTH",
    "admit",
    "first_unstorable",
    "problem_of",
    "shown_name",
    "visible",
]

MAX_NAME_LENGTH = 1024
MAX_LINE = 2**31 - 1  # the largest integer both databases' INTEGER columns hold
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_SHOWN_NAME = 80
_JSON_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")


def first_unstorable(text: str) -> int:
    """The offset of the first character no database may hold, or -1."""
    m = _UNSTORABLE.search(text)
    return -1 if m is None else m.start()


def visible(text: str) -> str:
    """`text` with the characters no database may hold written as `\\uXXXX` escapes."""
    return _UNSTORABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def problem_of(char: str, raw: bool) -> str:
    """What is wrong with `char`, an unstorable character; `raw` when the file holds it
    as it is (an undecodable byte), not as an escape."""
    if raw and "\udc80" <= char <= "\udcff":
        return errors.invalid_byte(ord(char) - 0xDC00)
    return errors.unstorable_char(ord(char))


def shown_name(name: str) -> str:
    """A name as an error message shows it: storable, and cut after 80 characters."""
    if len(name) > _SHOWN_NAME:
        name = name[:_SHOWN_NAME] + "…"
    return visible(name)


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _strings(item, path)
    elif is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            yield from _strings(getattr(value, f.name), path or f.name)


def _bad_field(record: Declaration | ModuleDoc) -> tuple[str, str, int] | None:
    """(field, its text, offset) of the first unstorable character of `record`."""
    for name, text in _strings(record, ""):
        at = first_unstorable(text)
        if at >= 0:
            return name, text, at
    return None


class _Admission:
    def __init__(self, doc: Document, text: str) -> None:
        self.doc = doc
        self.text = text
        self.index = LineIndex(text)
        self.json = doc.format == "docgen-json"

    def start(self, record: Declaration | ModuleDoc) -> int:
        """The offset in the file where `record` starts, as well as the reader said."""
        loc = record.location
        if loc is not None and loc.file == self.doc.file and loc.line_start:
            return self._offset(loc.line_start, 1)
        if isinstance(record, Declaration) and record.statement_line:
            return self._offset(record.statement_line, record.statement_column or 1)
        return -1

    def _offset(self, line: int, column: int) -> int:
        try:
            return min(self.index.line_start(line) + column - 1, len(self.text))
        except IndexError:
            return -1

    def locate(self, char: str, start: int, stop: int) -> tuple[int, bool]:
        """Where `char` is written in the file between `start` and `stop`: its offset and
        whether it is written raw (else as a JSON escape), or (-1, False)."""
        raw = self.text.find(char, start, stop)
        escape = -1
        if self.json:
            m = re.compile(re.escape(f"\\u{ord(char):04x}"), re.I).search(self.text, start, stop)
            escape = -1 if m is None else m.start()
        if raw >= 0 and (escape < 0 or raw < escape):
            return raw, True
        return escape, False

    def error(self, record: Declaration | ModuleDoc, bounds: tuple[int, int]) -> IngestError:
        what = (
            f"declaration {shown_name(record.name)}"
            if isinstance(record, Declaration)
            else f"module doc of {shown_name(record.module)}"
        )
        start, stop = bounds
        if isinstance(record, Declaration) and not _known_shape(record):
            line, column = self._line_col(start)
            if len(record.name) > MAX_NAME_LENGTH:
                message = errors.name_too_long(what, len(record.name), MAX_NAME_LENGTH)
            else:
                message = errors.unknown_kind(what, shown_name(record.kind), DECL_KINDS)
            return IngestError(self.doc.file, line, column, message)
        found = _bad_field(record)
        assert found is not None
        field, value, at = found
        char = value[at]
        offset, raw = self.locate(char, max(start, 0), stop)
        if offset < 0 and start > 0:
            offset, raw = self.locate(char, 0, start)
        problem = problem_of(char, raw)
        line, column = self._line_col(offset if offset >= 0 else start)
        return IngestError(self.doc.file, line, column, errors.not_stored(what, field, problem))

    def _line_col(self, offset: int) -> tuple[int | None, int | None]:
        return self.index.line_col(offset) if offset >= 0 else (None, None)


def _storable(record: Declaration | ModuleDoc) -> bool:
    if isinstance(record, Declaration) and not _known_shape(record):
        return False
    return _bad_field(record) is None


def _known_shape(decl: Declaration) -> bool:
    """A name within the limit, and one of the kinds a declaration can be."""
    return len(decl.name) <= MAX_NAME_LENGTH and decl.kind in DECL_KINDS


def _may_hold_unstorable(doc: Document, text: str) -> bool:
    """Whether `text` holds, or a JSON escape in it spells, a character no database may
    hold (an HTML page's are replaced by its parser)."""
    if first_unstorable(text) >= 0:
        return True
    return doc.format == "docgen-json" and _JSON_ESCAPE.search(text) is not None


def _storable_error(error: IngestError) -> IngestError:
    if first_unstorable(error.file) < 0 and first_unstorable(error.message) < 0:
        return error
    return replace(error, file=visible(error.file), message=visible(error.message))


def _lines_in_range(decl: Declaration, doc: Document) -> Declaration:
    """`decl` without source line numbers that no database integer holds (a doc-gen4
    source link can say anything), reported."""
    loc = decl.location
    if loc is None:
        return decl
    wrong = [n for n in (loc.line_start, loc.line_end) if n is not None and n > MAX_LINE]
    if not wrong:
        return decl
    line = decl.statement_line
    message = errors.line_out_of_range(f"declaration {shown_name(decl.name)}", wrong[0], MAX_LINE)
    doc.errors.append(IngestError(doc.file, line, decl.statement_column, message))
    return replace(decl, location=replace(loc, line_start=None, line_end=None))


def admit(doc: Document, text: str) -> Document:
    """Leave out of `doc` (read from `text`) what cannot be stored, with an error each.
    The file's name is expected storable already (`visible`)."""
    doc.errors[:] = [_storable_error(e) for e in doc.errors]
    bad = first_unstorable(doc.module)
    if bad >= 0 or len(doc.module) > MAX_NAME_LENGTH:
        problem = (
            f"holds {errors.unstorable_char(ord(doc.module[bad]))}"
            if bad >= 0
            else errors.name_length(len(doc.module), MAX_NAME_LENGTH)
        )
        message = errors.module_not_stored(shown_name(doc.module), problem)
        doc.errors.append(IngestError(doc.file, None, None, message))
        doc.module = ""
        doc.declarations.clear()
        doc.module_docs.clear()
        return doc
    doc.declarations[:] = [_lines_in_range(d, doc) for d in doc.declarations]
    records: list[Declaration | ModuleDoc] = [*doc.declarations, *doc.module_docs]
    if not _may_hold_unstorable(doc, text):  # what a reader gives is taken from `text`
        if all(_known_shape(d) for d in doc.declarations):
            return doc
    elif all(_storable(r) for r in records):
        return doc
    check = _Admission(doc, text)
    starts = sorted({check.start(r) for r in records} | {len(text)})
    for record in records:
        if _storable(record):
            continue
        start = check.start(record)
        stop = next((s for s in starts if s > start), len(text))
        doc.errors.append(check.error(record, (start, stop)))
    doc.declarations[:] = [d for d in doc.declarations if _storable(d)]
    doc.module_docs[:] = [m for m in doc.module_docs if _storable(m)]
    return doc
