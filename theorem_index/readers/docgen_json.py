"""doc-gen4 JSON data: `declaration-data-<Module>.bmp` (JSON despite the name).

`{name, declarations: [{info: {name, kind, doc, docLink, sourceLink, line},
header}], instances, imports}`; `header` is the `decl_header` markup, read
with the HTML reader's code. The index `declarations/declaration-data.bmp`
(whose `declarations` is an object of names) lists what the per-module
files hold, so it is recognised and contributes no declarations.
"""

from __future__ import annotations

import json
import re
from typing import Any

from theorem_index.model import (
    PROVED,
    UNKNOWN,
    UNPROVED,
    Declaration,
    Document,
    IngestError,
    SourceLocation,
)
from theorem_index.readers import errors
from theorem_index.readers.errors import LineIndex
from theorem_index.readers.html_parts import parse_html, read_header
from theorem_index.readers.storable import first_unstorable, problem_of, shown_name

_SOURCE_LINES = re.compile(r"#L(\d+)(?:-L(\d+))?$")
_REQUIRED = ("name", "kind")
# nesting beyond this is reported where it starts (the decoder itself fails near 1,000)
_DEPTH = 512
_JSON_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)


def module_from_data_name(rel: str) -> str:
    """`doc-data/declaration-data-Proofs.Foo.bmp` -> `Proofs.Foo`."""
    stem = rel.replace("\\", "/").rsplit("/", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if stem.lower().endswith((".bmp", ".json")) else stem
    return stem.removeprefix("declaration-data-")


def read_json_data(file: str, text: str, rel: str) -> Document:
    """Read one doc-gen4 JSON data file."""
    doc = Document(file, "docgen-json", module_from_data_name(rel))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        doc.errors.append(IngestError(file, exc.lineno, exc.colno, errors.invalid_json(exc.msg)))
        return doc
    except RecursionError:  # the decoder recurses once per level of nesting
        line, column = LineIndex(text).line_col(_too_deep_at(text))
        doc.errors.append(IngestError(file, line, column, errors.json_too_deep(_DEPTH)))
        return doc
    decls = data.get("declarations") if isinstance(data, dict) else None
    if isinstance(decls, dict):
        doc.module = ""
        return doc
    if not isinstance(decls, list) or not isinstance(data.get("name"), str):
        doc.errors.append(IngestError(file, 1, 1, errors.JSON_SHAPE))
        return doc
    doc.module = data["name"]
    index = LineIndex(text)
    cursor = 0
    for number, entry in enumerate(decls, start=1):
        cursor, decl, error = _declaration(file, text, index, cursor, number, entry, doc.module)
        if decl is not None:
            doc.declarations.append(decl)
        if error is not None:
            doc.errors.append(error)
    return doc


def _too_deep_at(text: str) -> int:
    """The offset of the first bracket that opens level `_DEPTH + 1` (0 when none does)."""
    depth = 0
    for m in _JSON_NESTING.finditer(text):
        token = m.group()
        if token in "[{":
            depth += 1
            if depth > _DEPTH:
                return m.start()
        elif token in "]}":
            depth -= 1
    return 0


def _declaration(
    file: str, text: str, index: LineIndex, cursor: int, number: int, entry: Any, module: str
) -> tuple[int, Declaration | None, IngestError | None]:
    info = entry.get("info") if isinstance(entry, dict) else None
    if not isinstance(info, dict):
        return cursor, None, IngestError(file, None, None, errors.json_missing(number, "info"))
    for key in _REQUIRED:
        if not isinstance(info.get(key), str):
            return cursor, None, IngestError(file, None, None, errors.json_missing(number, key))
    name: str = info["name"]
    found = text.find(json.dumps(name, ensure_ascii=False), cursor)
    if found < 0:
        found = text.find(json.dumps(name), cursor)
    cursor = max(cursor, found)
    line, column = index.line_col(found) if found >= 0 else (None, None)
    header_html = entry.get("header")
    if not isinstance(header_html, str):
        return cursor, None, IngestError(file, line, column, errors.json_missing(number, "header"))
    for part, value in (("name", name), ("header", header_html)):
        bad = first_unstorable(value)
        if bad >= 0:  # lxml would cut the header short at the character
            problem = problem_of(value[bad], value[bad] in text)
            message = errors.not_stored(f"declaration {shown_name(name)}", part, problem)
            return cursor, None, IngestError(file, line, column, message)
    header_el, cut = parse_html(header_html, whole=False)
    if cut:
        message = errors.too_deep(f"the header of {shown_name(name)}")
        return cursor, None, IngestError(file, line, column, message)
    if header_el is None:
        return cursor, None, IngestError(file, line, column, errors.json_no_header(name))
    header = read_header(header_el)
    if header.statement is None:
        return cursor, None, IngestError(file, line, column, errors.json_no_header(name))
    words = header.kind_text.split()
    doc = info.get("doc")
    # the `sorried` field where the writer records it, or the header's mark on the name;
    # else the JSON does not say (an older writer marks nothing)
    sorried = info.get("sorried")
    if info["kind"] == "axiom":
        proof = UNPROVED  # no proof at all: what rests on it is not fully proved
    elif isinstance(sorried, bool):
        proof = UNPROVED if sorried else PROVED
    else:
        proof = UNPROVED if header.uses_sorry else UNKNOWN
    return (
        cursor,
        Declaration(
            name=name,
            kind=info["kind"],
            module=module,
            binders=header.binders,
            statement=header.statement,
            docstring=doc.strip() or None if isinstance(doc, str) else None,
            modifiers=tuple(words[:-1]),
            location=_location(info),
            namespace=name.rpartition(".")[0],
            proof=proof,
            links=header.links,
            statement_line=line,
            statement_column=column,
        ),
        None,
    )


def _location(info: dict[str, Any]) -> SourceLocation | None:
    link = info.get("sourceLink")
    line = info.get("line") if isinstance(info.get("line"), int) else None
    if not isinstance(link, str) or not link:
        return None
    lines = _SOURCE_LINES.search(link)
    start = int(lines.group(1)) if lines else line
    end = int(lines.group(2)) if lines and lines.group(2) else start
    return SourceLocation(link.split("#", 1)[0], start, end)
