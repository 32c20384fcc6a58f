"""Bad input gives a precise error and never stops the good declarations around it."""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theorem_index.model import IngestError
from theorem_index.readers import MAX_NAME_LENGTH, read_bytes, read_paths
from theorem_index.readers.storable import first_unstorable

GOOD = "theorem Examples.good (x : ℕ) : x + 0 = x\n\nKept.\n"
UNKNOWN = (
    "unknown format: expected a doc-gen4 HTML page, doc-gen4 JSON data, "
    "a plain-text doc page or Lean source (.lean)"
)


def _write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def test_read_binary_file_reports_it_and_keeps_the_other_files(tmp_path: Path) -> None:
    binary = _write(tmp_path / "a.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    good = _write(tmp_path / "b.txt", GOOD)
    batch = read_paths([binary, good])
    assert batch.documents[0].errors == [
        IngestError(str(binary), None, None, "binary file: not a text, HTML, JSON or Lean document")
    ]
    assert [d.name for d in batch.documents[1].declarations] == ["Examples.good"]


def test_read_invalid_utf8_names_offset_line_and_column(tmp_path: Path) -> None:
    bad = _write(tmp_path / "a.txt", "Titlé #\n\nab".encode() + b"\xff rest\n")
    doc = read_paths([bad]).documents[0]
    assert doc.errors == [
        IngestError(str(bad), 3, 3, "invalid UTF-8: byte 0xff at offset 12 (line 3, column 3)"),
        IngestError(
            str(bad),
            3,
            3,
            "module doc of a is not stored: its text holds invalid UTF-8 (byte 0xff)",
        ),
    ]
    assert doc.declarations == []


def test_read_file_over_the_limit_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.txt"
    with big.open("wb") as handle:
        handle.truncate(100 * 2**20)  # sparse: 100 MB on paper, nothing in memory
    good = _write(tmp_path / "good.txt", GOOD)

    def refuse(self: Path) -> bytes:
        if self.name == "big.txt":
            raise AssertionError("the oversized file was read")
        return b"" + Path.read_text(self, encoding="utf-8").encode()

    monkeypatch.setattr(Path, "read_bytes", refuse)
    batch = read_paths([big, good])
    assert batch.documents[0].errors == [
        IngestError(str(big), None, None, "file too large: 104857600 bytes (limit 52428800)")
    ]
    assert [d.name for d in batch.documents[1].declarations] == ["Examples.good"]


def test_read_bytes_over_the_limit_is_refused() -> None:
    doc = read_bytes("up.txt", GOOD.encode(), max_file_bytes=10)
    assert doc.errors == [
        IngestError("up.txt", None, None, f"file too large: {len(GOOD.encode())} bytes (limit 10)")
    ]


def test_read_unknown_format_reports_what_is_expected(tmp_path: Path) -> None:
    csv = _write(tmp_path / "table.csv", "a,b,c\n1,2,3\n")
    doc = read_paths([csv]).documents[0]
    assert doc.errors == [IngestError(str(csv), None, None, UNKNOWN)]
    assert read_bytes("upload", b"just some words\n").errors == [
        IngestError("upload", None, None, UNKNOWN)
    ]


def test_read_duplicate_names_keeps_the_first_and_reports_the_later(tmp_path: Path) -> None:
    first = _write(tmp_path / "a.txt", "Title #\n\n" + GOOD)
    second = _write(tmp_path / "b.txt", GOOD + "\ntheorem Examples.other : True\n")
    batch = read_paths([tmp_path])
    assert [d.name for d in batch.documents[0].declarations] == ["Examples.good"]
    assert [d.name for d in batch.documents[1].declarations] == ["Examples.other"]
    assert batch.errors == [
        IngestError(
            str(second),
            1,
            None,
            f"duplicate declaration Examples.good: already read from {first}:3",
        )
    ]


def test_read_duplicate_names_across_forms_are_reported(tmp_path: Path) -> None:
    _write(
        tmp_path / "A.lean",
        "namespace Examples\n\ntheorem good : True := trivial\n\nend Examples\n",
    )
    text = _write(tmp_path / "B.txt", GOOD)
    batch = read_paths([tmp_path])
    assert [e.message for e in batch.errors] == [
        f"duplicate declaration Examples.good: already read from {tmp_path / 'A.lean'}:3"
    ]
    assert batch.errors[0].file == str(text)


def test_read_missing_path_is_a_batch_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.txt"
    good = _write(tmp_path / "good.txt", GOOD)
    batch = read_paths([missing, good])
    assert batch.errors == [
        IngestError(str(missing), None, None, f"no such file or directory: {missing}")
    ]
    assert batch.files == 1
    assert [d.name for d in batch.documents[0].declarations] == ["Examples.good"]


_TOKENS = [
    "theorem A.t ",
    "def ",
    "namespace A\n",
    "end A\n",
    "variable {n : ℕ} ",
    "(",
    ")",
    "{",
    "}",
    "⦃",
    ":",
    " := ",
    "by ",
    "\n",
    "  | ",
    " => ",
    "/-",
    "-/",
    "/--",
    "--",
    '"',
    "'",
    "@[simp] ",
    "open X in\n",
    "where ",
    "let ",
    "Equations\n",
    "• ",
    " #\n",
    '<div class="decl" id="A.t">',
    "</div>",
    '<div class="decl_type">',
    "<main>",
    '{"name": "A", "declarations": [',
    "]}",
    '{"info": {"name": "A.t"}}',
    "«",
    "»",
    "\x00",
    "\\ud800",
    "\\u0000",
    "\u202e",
    "\x1b",
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_TOKENS), max_size=40),
    st.sampled_from(["a.lean", "a.txt", "a.html", "declaration-data-A.bmp", "upload"]),
)
def test_read_bytes_never_raises_on_any_input(tokens: list[str], name: str) -> None:
    doc = read_bytes(name, "".join(tokens).encode())
    assert all(e.file == name for e in doc.errors)
    assert all(e.line is None or e.line >= 1 for e in doc.errors)
    assert all(e.column is None or e.column >= 1 for e in doc.errors)
    stored = [*doc.declarations, *doc.module_docs, *doc.errors]
    assert all(first_unstorable(repr_text) < 0 for r in stored for repr_text in _texts(r))
    assert all(len(d.name) <= MAX_NAME_LENGTH for d in doc.declarations)


def _texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, tuple | list):
        return [t for item in value for t in _texts(item)]
    if is_dataclass(value) and not isinstance(value, type):
        return [t for f in fields(value) for t in _texts(getattr(value, f.name))]
    return []


def _deep_header(name: str, depth: int) -> str:
    statement = '<span class="fn">(' * depth + "x" + ")</span>" * depth + " = x"
    return (
        '<div class="decl_header"><span class="decl_kind">theorem</span>'
        f'<span class="decl_name">{name}</span><span class="decl_args"> :</span>'
        f'<div class="decl_type">{statement}</div></div>'
    )


def _html_decl(name: str, depth: int) -> str:
    header = _deep_header(name, depth)
    return f'<div class="decl" id="{name}"><div class="theorem">{header}</div></div>\n'


def test_read_html_declaration_nested_deeper_than_lxml_reads_loses_nothing_else() -> None:
    page = (
        "<!DOCTYPE html>\n<html><head><title>A</title></head><body><main>\n"
        + _html_decl("A.shallow", 200)
        + _html_decl("A.deep", 300)
        + _html_decl("A.good", 0)
        + "</main></body></html>\n"
    )
    doc = read_bytes("A.html", page.encode())
    assert [(d.name, d.location.line_start if d.location else None) for d in doc.declarations] == [
        ("A.shallow", 3),
        ("A.good", 5),
    ]
    assert doc.declarations[0].statement == "(" * 200 + "x" + ")" * 200 + " = x"
    message = (
        "declaration A.deep is nested more than 256 HTML elements deep, "
        "deeper than the HTML parser reads; it is not read"
    )
    assert doc.errors == [IngestError("A.html", 4, 1, message)]


def test_read_json_header_nested_deeper_than_lxml_reads_is_reported() -> None:
    entries = [
        {"info": {"name": n, "kind": "theorem"}, "header": _deep_header(n, depth)}
        for n, depth in (("A.deep", 300), ("A.good", 0))
    ]
    text = json.dumps({"name": "A", "declarations": entries}, indent=1)
    doc = read_bytes("declaration-data-A.bmp", text.encode())
    assert [d.name for d in doc.declarations] == ["A.good"]
    message = (
        "the header of A.deep is nested more than 256 HTML elements deep, "
        "deeper than the HTML parser reads; it is not read"
    )
    at = text.index('"A.deep"')  # where the declaration is: its name
    line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    assert doc.errors == [IngestError("declaration-data-A.bmp", line, column, message)]


def test_read_json_nested_deeper_than_the_decoder_reads_says_where() -> None:
    text = '{"name": "A", "declarations": [],\n "instances": ' + "[" * 50_000 + "]" * 50_000 + "}"
    doc = read_bytes("declaration-data-A.bmp", text.encode())
    message = "invalid JSON: nested more than 512 levels deep, deeper than the reader reads"
    # `{` opens level 1, so the 511th `[` opens level 513
    assert doc.errors == [IngestError("declaration-data-A.bmp", 2, 15 + 511, message)]


def test_keep_duplicate_names_when_asked(tmp_path: Path) -> None:
    _write(
        tmp_path / "A.lean",
        "namespace Examples\n\ntheorem good : True := trivial\n\nend Examples\n",
    )
    _write(tmp_path / "B.txt", GOOD)
    batch = read_paths([tmp_path], keep_duplicates=True)
    assert batch.errors == []
    names = [[d.name for d in doc.declarations] for doc in batch.documents]
    assert names == [["Examples.good"], ["Examples.good"]]
