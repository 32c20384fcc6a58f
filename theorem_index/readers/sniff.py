"""Which of the four forms a file is, and turning its bytes into text.

`detect_format` looks at the name's extension first and at the first bytes
(`head`) second, so an upload without a telling name is still recognised.
Decoding refuses binary data: NUL bytes in data that is not UTF-8, or that
make a tenth of it (UTF-16 text, a binary format's padding). A stray NUL or
invalid byte in text only costs what holds it: an invalid byte is decoded as
a surrogate (U+DC80 to U+DCFF, Python's `surrogateescape`), so that the
readers keep its position and `storable.admit` leaves out the declaration
that holds it; the first one is reported with its offset, line and column.
"""

from __future__ import annotations

import codecs
import re

from theorem_index.model import IngestError
from theorem_index.readers import errors

HTML = "docgen-html"
JSON = "docgen-json"
TEXT = "text"
LEAN = "lean"
FORMATS = (HTML, JSON, TEXT, LEAN)

HEAD_BYTES = 4096
_BOM = b"\xef\xbb\xbf"
_HTML_EXT = (".html", ".htm", ".xhtml")
_JSON_EXT = (".bmp", ".json")
_TEXT_EXT = (".txt", ".text", ".md")
_HTML_START = re.compile(rb"\s*(?:<!doctype\s+html|<html|<div\s[^>]*class=\"decl)", re.I)
_LEAN_LINE = re.compile(
    rb"^(?:import|namespace|section|open|universe|variable|set_option|theorem|lemma|"
    rb"noncomputable|/-!|/--)[ \t\n]",
    re.M,
)
_TEXT_HEADER = re.compile(
    rb"^(?:(?:noncomputable|private|protected|partial|unsafe) )*"
    rb"(?:theorem|lemma|def|abbrev|instance|structure|inductive|class|axiom|opaque) "
    rb"[^\s()\[\]{}:]+ (?:[({\[\xe2]|: )",
    re.M,
)


def detect_format(name: str, head: bytes) -> str | None:
    """'docgen-html' | 'docgen-json' | 'text' | 'lean', or None when it is none of them."""
    lower = name.lower()
    body = head[3:] if head.startswith(_BOM) else head
    if looks_binary(body, final=False):
        return None
    stripped = body.lstrip()
    if lower.endswith(".lean"):
        return LEAN
    if lower.endswith(_HTML_EXT):
        return HTML
    if lower.endswith(_JSON_EXT):
        return JSON if stripped.startswith((b"{", b"[")) else None
    if lower.endswith(_TEXT_EXT):
        return TEXT
    if _HTML_START.match(body):
        return HTML
    if stripped.startswith(b"{") and b'"declarations"' in body:
        return JSON
    if _TEXT_HEADER.search(body):
        return TEXT
    if _LEAN_LINE.search(body):
        return LEAN
    return None


def looks_binary(data: bytes, *, final: bool = True) -> bool:
    """Whether `data` (all of a file, or its head when not `final`) is not text."""
    nuls = data.count(b"\x00")
    if not nuls:
        return False
    if nuls * 10 >= len(data):
        return True
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=final)
    except UnicodeDecodeError:
        return True
    return False


def decode(file: str, data: bytes) -> tuple[str | None, IngestError | None]:
    """UTF-8 text without a BOM, its undecodable bytes as surrogates, and the error
    naming the first of them; or no text and the error saying why the bytes are not text."""
    if looks_binary(data):
        return None, IngestError(file, None, None, errors.BINARY)
    skip = 3 if data.startswith(_BOM) else 0
    try:
        return data[skip:].decode("utf-8"), None
    except UnicodeDecodeError as exc:
        offset = exc.start + skip
        line = data.count(b"\n", 0, offset) + 1
        line_start = data.rfind(b"\n", 0, offset) + 1
        column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
        message = errors.invalid_utf8(data[offset], offset, line, column)
        text = data[skip:].decode("utf-8", errors="surrogateescape")
        return text, IngestError(file, line, column, message)
