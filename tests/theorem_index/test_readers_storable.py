"""What a reader hands on is storable text: no NUL, no surrogate, names within the limit.

Each case mixes one bad declaration with good ones: the bad one is left out with an error
naming the file, line and column; every good one is kept.
"""

from __future__ import annotations

import json

import pytest

from theorem_index.model import IngestError, SourceLocation
from theorem_index.readers import MAX_NAME_LENGTH, read_bytes

NUL_TEXT = "a NUL character (U+0000), which cannot be stored"
SURROGATE_TEXT = "a lone surrogate (U+D800), which is not Unicode text"
HEADER = (
    '<div class="decl_header"><span class="decl_kind">theorem</span>'
    '<span class="decl_name"> <a href="#">{name}</a> </span>'
    '<span class="decl_args"> :</span><div class="decl_type">1 + 1 = 2</div></div>'
)


def _json(*entries: tuple[str, str], module: str = "A") -> str:
    decls = [
        {
            "info": {"name": name, "kind": "theorem", "doc": doc, "line": 1},
            "header": HEADER.format(name="x"),
        }
        for name, doc in entries
    ]
    return json.dumps({"name": module, "declarations": decls}, indent=1)


def _at(text: str, needle: str) -> tuple[int, int]:
    """1-based line and column of the first `needle` in `text`."""
    offset = text.index(needle)
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _names(data: bytes, file: str) -> tuple[list[str], list[IngestError]]:
    doc = read_bytes(file, data)
    return [d.name for d in doc.declarations], doc.errors


@pytest.mark.parametrize(
    ("doc", "escape", "problem"),
    [("lone \ud800 here", "\\ud800", SURROGATE_TEXT), ("nul \x00 here", "\\u0000", NUL_TEXT)],
    ids=["surrogate", "nul"],
)
def test_read_json_doc_with_unstorable_character_leaves_out_that_declaration(
    doc: str, escape: str, problem: str
) -> None:
    text = _json(("A.good1", "fine"), ("A.bad", doc), ("A.good2", "fine"))
    names, errors = _names(text.encode(), "declaration-data-A.bmp")
    assert names == ["A.good1", "A.good2"]
    line, column = _at(text, escape)
    message = f"declaration A.bad is not stored: its docstring holds {problem}"
    assert errors == [IngestError("declaration-data-A.bmp", line, column, message)]


@pytest.mark.parametrize(
    ("name", "shown", "problem"),
    [("A.b\x00d", "A.b\\u0000d", NUL_TEXT), ("A.b\ud800d", "A.b\\ud800d", SURROGATE_TEXT)],
    ids=["nul", "surrogate"],
)
def test_read_json_name_with_unstorable_character_leaves_out_that_declaration(
    name: str, shown: str, problem: str
) -> None:
    text = _json(("A.good", "fine"), (name, "doc"))
    names, errors = _names(text.encode(), "declaration-data-A.bmp")
    assert names == ["A.good"]
    line, column = _at(text, json.dumps(name))
    message = f"declaration {shown} is not stored: its name holds {problem}"
    assert errors == [IngestError("declaration-data-A.bmp", line, column, message)]


def test_read_json_module_name_with_nul_stores_nothing_of_that_file() -> None:
    text = _json(("A.good", "fine"), module="A\x00")
    doc = read_bytes("declaration-data-A.bmp", text.encode())
    assert (doc.declarations, doc.module_docs) == ([], [])
    message = f"nothing of module A\\u0000 is stored: its name holds {NUL_TEXT}"
    assert doc.errors == [IngestError("declaration-data-A.bmp", None, None, message)]


def test_read_lean_with_stray_nul_leaves_out_only_the_declaration_holding_it() -> None:
    text = "theorem bad : 1 = 1\x00 := rfl\n\ntheorem good : 2 = 2 := rfl\n"
    names, errors = _names(text.encode(), "A.lean")
    assert names == ["good"]
    message = f"declaration bad is not stored: its statement holds {NUL_TEXT}"
    assert errors == [IngestError("A.lean", 1, 20, message)]


def test_read_lean_with_invalid_utf8_leaves_out_only_the_declaration_holding_it() -> None:
    data = b"theorem good1 : 1 = 1 := rfl\n\ntheorem bad : x\xff = x := rfl\n\n"
    data += b"theorem good2 : 2 = 2 := rfl\n"
    names, errors = _names(data, "A.lean")
    assert names == ["good1", "good2"]
    assert errors == [
        IngestError("A.lean", 3, 16, "invalid UTF-8: byte 0xff at offset 45 (line 3, column 16)"),
        IngestError(
            "A.lean",
            3,
            16,
            "declaration bad is not stored: its statement holds invalid UTF-8 (byte 0xff)",
        ),
    ]


def test_read_text_page_with_nul_in_a_docstring_keeps_the_other_declarations() -> None:
    text = "theorem T.bad : 1 = 1\n\nA doc with \x00 in it.\n\ntheorem T.good : 2 = 2\n"
    names, errors = _names(text.encode(), "T.txt")
    assert names == ["T.good"]
    message = f"declaration T.bad is not stored: its docstring holds {NUL_TEXT}"
    assert errors == [IngestError("T.txt", 3, 12, message)]


def test_read_html_with_invalid_utf8_reports_it_and_keeps_the_declarations() -> None:
    page = (
        "<!DOCTYPE html><html><head><title>A</title></head><body><main>\n"
        '<div class="decl" id="A.t"><div class="theorem">'
        + HEADER.format(name="A.t")
        + "<p>d\xffoc</p></div></div>\n</main></body></html>\n"
    )
    data = page.encode().replace("\xff".encode(), b"\xff")
    doc = read_bytes("A.html", data)
    assert [d.name for d in doc.declarations] == ["A.t"]
    line, column = _at(page, "\xff")
    offset = data.index(b"\xff")
    message = f"invalid UTF-8: byte 0xff at offset {offset} (line {line}, column {column})"
    assert doc.errors == [IngestError("A.html", line, column, message)]


@pytest.mark.parametrize("form", ["lean", "json"])
def test_read_name_over_the_limit_leaves_out_that_declaration(form: str) -> None:
    at_limit = "n" * MAX_NAME_LENGTH
    over = "o" * (MAX_NAME_LENGTH + 1)
    if form == "lean":
        file = "A.lean"
        text = "".join(f"theorem {n} : 1 = 1 := rfl\n\n" for n in (at_limit, over, "good"))
    else:
        file = "declaration-data-A.bmp"
        text = _json((at_limit, "d"), (over, "d"), ("good", "d"))
    names, errors = _names(text.encode(), file)
    assert names == [at_limit, "good"]
    line, column = (3, 1) if form == "lean" else _at(text, json.dumps(over))
    message = (
        f"declaration {'o' * 80}… is not stored: its name is {MAX_NAME_LENGTH + 1} "
        f"characters long (the limit is {MAX_NAME_LENGTH})"
    )
    assert errors == [IngestError(file, line, column, message)]


def test_read_guillemet_name_holding_a_quote_keeps_the_rest_of_the_file() -> None:
    text = (
        'theorem «a"b» : 1 + 1 = 2 := rfl\n\n'
        "theorem «c--d(» (x : Nat) : x = x := rfl\n\n"
        "theorem after : 2 + 2 = 4 := rfl\n"
    )
    doc = read_bytes("A.lean", text.encode())
    assert doc.errors == []
    assert [(d.name, d.binders, d.statement) for d in doc.declarations] == [
        ('«a"b»', "", "1 + 1 = 2"),
        ("«c--d(»", "(x : Nat)", "x = x"),
        ("after", "", "2 + 2 = 4"),
    ]


def test_read_unclosed_guillemet_is_reported_and_loses_nothing_after_it() -> None:
    text = (
        "theorem «abc : 1 = 1 := rfl\n\n"
        "theorem after : 2 = 2 := rfl\n\n"
        'theorem quoted : "a" = "«" := rfl\n'
    )
    doc = read_bytes("A.lean", text.encode())
    assert [(d.name, d.statement) for d in doc.declarations] == [
        ("after", "2 = 2"),
        ("quoted", '"a" = "«"'),
    ]
    assert doc.errors == [IngestError("A.lean", 1, 9, "expected a name after 'theorem'")]


def test_read_stray_quote_loses_no_later_declaration_holding_strings() -> None:
    text = (
        'theorem broken : "abc = 1 := rfl\n\n'
        'theorem after : s = "x" := rfl\n\n'
        "theorem last : 1 = 1 := rfl\n"
    )
    doc = read_bytes("A.lean", text.encode())
    assert [(d.name, d.statement) for d in doc.declarations][1:] == [
        ("after", 's = "x"'),
        ("last", "1 = 1"),
    ]
    message = "unterminated string literal opened at line 1, column 18"
    assert doc.errors == [IngestError("A.lean", 1, 18, message)]


def test_read_string_across_a_command_line_when_every_string_is_closed() -> None:
    text = 'def s : String := "one\ntheorem inside"\n\ntheorem ok : 1 = 1 := rfl\n'
    doc = read_bytes("A.lean", text.encode())
    assert doc.errors == []
    assert [(d.name, d.equations) for d in doc.declarations] == [
        ("s", ('s = "one\ntheorem inside"',)),
        ("ok", ()),
    ]


def test_read_unterminated_string_loses_no_later_declaration() -> None:
    text = 'theorem broken : "abc = 1 := rfl\n\n/-- Kept. -/\ntheorem after : 2 + 2 = 4 := rfl\n'
    doc = read_bytes("A.lean", text.encode())
    assert [d.name for d in doc.declarations] == ["broken", "after"]
    assert doc.declarations[1].docstring == "Kept."
    message = "unterminated string literal opened at line 1, column 18"
    assert doc.errors == [IngestError("A.lean", 1, 18, message)]


def test_read_file_name_with_invalid_utf8_is_shown_with_escapes() -> None:
    doc = read_bytes("bad\udcff\x00.lean", b"theorem good : 1 = 1 := rfl\n")
    assert doc.file == "bad\\udcff\\u0000.lean"
    assert [(d.name, d.location.file if d.location else None) for d in doc.declarations] == [
        ("good", "bad\\udcff\\u0000.lean")
    ]
    assert doc.errors == []


def test_read_json_with_invalid_utf8_in_a_header_names_the_byte() -> None:
    text = _json(("A.bad", "d"), ("A.good", "d")).replace("1 + 1 = 2", "1 + \udcff = 2", 1)
    data = text.encode("utf-8", "surrogateescape")
    names, errors = _names(data, "declaration-data-A.bmp")
    assert names == ["A.good"]
    line, column = _at(text, "\udcff")
    offset = data.index(b"\xff")
    message = "declaration A.bad is not stored: its header holds invalid UTF-8 (byte 0xff)"
    assert errors == [
        IngestError(
            "declaration-data-A.bmp",
            line,
            column,
            f"invalid UTF-8: byte 0xff at offset {offset} (line {line}, column {column})",
        ),
        IngestError("declaration-data-A.bmp", *_at(text, '"A.bad"'), message),
    ]


@pytest.mark.parametrize(
    ("written", "what"),
    [
        ("\x00", "a NUL character"),
        ("&#0;", "the character reference &#0;"),
        ("&#xD800;", "the character reference &#xD800;"),
        ("&#1114112;", "the character reference &#1114112;"),
    ],
    ids=["nul", "reference-0", "reference-surrogate", "reference-beyond-unicode"],
)
def test_read_html_reports_what_it_reads_as_the_replacement_character(
    written: str, what: str
) -> None:
    page = (
        "<!DOCTYPE html><html><head><title>A</title></head><body><main>\n"
        '<div class="decl" id="A.t"><div class="theorem">'
        + HEADER.format(name="A.t")
        + f"<p>a{written}b &#65; &#x1F600;</p></div></div>\n</main></body></html>\n"
    )
    doc = read_bytes("A.html", page.encode())
    assert [(d.name, d.docstring) for d in doc.declarations] == [("A.t", "a\ufffdb A 😀")]
    line, column = _at(page, written)
    message = f"{what} is not text: HTML reads it as U+FFFD, the replacement character"
    assert doc.errors == [IngestError("A.html", line, column, message)]


@pytest.mark.parametrize("kind", ["k" * 100, "lemmas", ""], ids=["long", "unknown", "empty"])
def test_read_json_declaration_of_no_known_kind_is_left_out(kind: str) -> None:
    text = json.dumps(
        {
            "name": "A",
            "declarations": [
                {"info": {"name": n, "kind": k}, "header": HEADER.format(name=n)}
                for n, k in (("A.odd", kind), ("A.good", "theorem"))
            ],
        },
        indent=1,
    )
    names, errors = _names(text.encode(), "declaration-data-A.bmp")
    assert names == ["A.good"]
    shown = kind if len(kind) <= 80 else kind[:80] + "…"
    message = (
        f"declaration A.odd is not stored: its kind '{shown}' is none of theorem, def, "
        "axiom, opaque, instance, inductive, structure, class, ctor, abbrev, lemma, "
        "example, prose"
    )
    assert errors == [IngestError("declaration-data-A.bmp", *_at(text, '"A.odd"'), message)]


def test_read_json_source_line_beyond_any_file_is_reported_and_dropped() -> None:
    entries = [
        {
            "info": {"name": n, "kind": "theorem", "sourceLink": f"https://e.org/A.lean#{lines}"},
            "header": HEADER.format(name=n),
        }
        for n, lines in (("A.far", "L99999999999-L99999999999"), ("A.near", "L3-L5"))
    ]
    text = json.dumps({"name": "A", "declarations": entries}, indent=1)
    doc = read_bytes("declaration-data-A.bmp", text.encode())
    assert [(d.name, d.location) for d in doc.declarations] == [
        ("A.far", SourceLocation("https://e.org/A.lean", None, None)),
        ("A.near", SourceLocation("https://e.org/A.lean", 3, 5)),
    ]
    message = (
        "declaration A.far: its source line 99999999999 is beyond any file "
        "(2,147,483,647 at most); it is stored without its lines"
    )
    assert doc.errors == [IngestError("declaration-data-A.bmp", *_at(text, '"A.far"'), message)]
