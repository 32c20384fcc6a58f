"""The doc-gen4 JSON reader: module data files, the index, malformed data."""

from __future__ import annotations

import json
from pathlib import Path

from theorem_index.model import IngestError, SourceLocation
from theorem_index.readers import read_bytes, read_paths

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "json" / "declaration-data-Examples.Json.bmp"

HEADER = (
    '<div class="decl_header"><span class="decl_kind">theorem</span>'
    '<span class="decl_name"> <a href="./A.html#A.t">A.t</a> </span>'
    '<span class="decl_args"><span class="fn">(x : <a href="./R.html#Real">ℝ</a>)</span></span>'
    '<span class="decl_args"> :</span><div class="decl_type">x / 0 = 0</div></div>'
)


def _data(*decls: object, name: str = "A") -> bytes:
    return json.dumps({"name": name, "declarations": list(decls), "instances": []}).encode()


def _entry(name: str = "A.t", header: str = HEADER) -> dict[str, object]:
    info = {
        "name": name,
        "kind": "theorem",
        "doc": "Total division.",
        "docLink": f"./A.html#{name}",
        "sourceLink": "https://example.org/A.lean#L3-L5",
        "line": 3,
    }
    return {"info": info, "header": header}


def test_read_example_data_gives_every_declaration() -> None:
    doc = read_paths([EXAMPLE]).documents[0]
    assert doc.errors == []
    assert doc.format == "docgen-json"
    assert doc.module == "Examples.Json"
    assert [(d.kind, d.name) for d in doc.declarations] == [
        ("theorem", "Examples.finProd_sum_pairs"),
        ("theorem", "Examples.bnMean_const"),
        ("theorem", "Examples.log_zero_real"),
        ("def", "Examples.meanOf"),
        ("theorem", "Examples.nat_sub_add_self"),
    ]
    mean = doc.declarations[3]
    assert mean.binders == "{n : ℕ} (x : Vec n)"
    assert mean.statement == "ℝ"
    assert mean.modifiers == ("noncomputable",)
    assert ("Vec", "Proofs.Vec") in mean.links


def test_read_data_reads_header_doc_and_source_link() -> None:
    doc = read_bytes("declaration-data-A.bmp", _data(_entry()))
    (decl,) = doc.declarations
    assert (decl.name, decl.kind, decl.module) == ("A.t", "theorem", "A")
    assert decl.binders == "(x : ℝ)"
    assert decl.statement == "x / 0 = 0"
    assert decl.docstring == "Total division."
    assert decl.links == (("ℝ", "Real"),)
    assert decl.location == SourceLocation("https://example.org/A.lean", 3, 5)
    assert decl.statement_line == 1


def test_read_index_data_contributes_no_declarations() -> None:
    index = {"declarations": {"A.t": {"kind": "theorem", "docLink": "./A.html#A.t"}}}
    doc = read_bytes("declarations/declaration-data.bmp", json.dumps(index).encode())
    assert doc.errors == [] and doc.declarations == []


def test_read_invalid_json_reports_line_and_column() -> None:
    doc = read_bytes("declaration-data-A.bmp", b'{"name": "A",\n "declarations": [,]}')
    assert doc.errors == [
        IngestError("declaration-data-A.bmp", 2, 19, "invalid JSON: Expecting value")
    ]


def test_read_json_of_another_shape_reports_it() -> None:
    doc = read_bytes("other.json", b'{"declarations": 3}')
    assert doc.errors == [
        IngestError(
            "other.json",
            1,
            1,
            'doc-gen4 JSON data: expected an object with "name" and "declarations"',
        )
    ]


def test_read_data_with_broken_entries_keeps_the_good_ones() -> None:
    no_type = HEADER.replace('<div class="decl_type">x / 0 = 0</div>', "")
    data = _data(_entry("A.good"), {"header": HEADER}, _entry("A.cut", header=no_type))
    doc = read_bytes("declaration-data-A.bmp", data)
    assert [d.name for d in doc.declarations] == ["A.good"]
    cut_column = data.decode().index('"A.cut"') + 1
    assert doc.errors == [
        IngestError(
            "declaration-data-A.bmp", None, None, 'doc-gen4 JSON data: declaration 2 has no "info"'
        ),
        IngestError(
            "declaration-data-A.bmp",
            1,
            cut_column,
            "doc-gen4 JSON data: the header of A.cut has no decl_type",
        ),
    ]
