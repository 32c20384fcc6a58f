"""The doc-gen4 HTML reader: declarations, module docs, module names, truncation."""

from __future__ import annotations

from pathlib import Path

from theorem_index.model import IngestError, SourceLocation
from theorem_index.readers import read_bytes, read_paths

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "html" / "Examples" / "Html.html"
DATA = Path(__file__).parent / "data" / "readers"

DECL = """<div class="decl" id="{name}"><div class="{kind}">
<div class="gh_link"><a href="https://example.org/A.lean#L7-L9">source</a></div>
<div class="decl_header"><span class="decl_kind">{kind_text}</span>
<span class="decl_name"><a class="break_within" href="#{name}">{name}</a></span>
{args}<span class="decl_args"> :</span><div class="decl_type">{type}</div></div>
{doc}</div></div>"""


def _page(body: str, title: str = "A.Page") -> str:
    head = f"<!DOCTYPE html><html><head><title>{title}</title></head>"
    return f"{head}<body><main>\n{body}\n</main></body></html>\n"


def _decl(name: str, **parts: str) -> str:
    values = {"kind": "theorem", "kind_text": "theorem", "args": "", "type": "True", "doc": ""}
    values.update(parts)
    return DECL.format(name=name, **values)


def test_read_example_page_gives_every_declaration() -> None:
    doc = read_paths([EXAMPLE]).documents[0]
    assert doc.errors == []
    assert doc.format == "docgen-html"
    assert doc.module == "Examples.Html"
    assert [(d.kind, d.name) for d in doc.declarations] == [
        ("theorem", "Examples.dense_zero_weight"),
        ("def", "Examples.sumSqH"),
        ("theorem", "Examples.finProd_symm_fst"),
        ("theorem", "Examples.softmax_le_one"),
        ("def", "Examples.lookupTable"),
    ]


def test_read_example_page_rebuilds_binders_statement_and_links() -> None:
    doc = read_paths([EXAMPLE]).documents[0]
    decl = doc.declarations[0]
    assert decl.binders == "{m n : ℕ} (b : Vec n) (x : Vec m)"
    assert decl.statement == "dense (fun (x : Fin m) (x_1 : Fin n) => 0) b x = b"
    assert ("dense", "Proofs.dense") in decl.links
    assert ("Vec", "Proofs.Vec") in decl.links
    assert decl.location == SourceLocation(
        "https://github.com/proofbridge/examples/blob/main/Examples/Html.lean", 12, 15
    )
    assert decl.docstring == (
        "A dense layer whose weight is zero returns its bias: every sum ∑ i, x i * W i j vanishes."
    )


def test_read_example_page_keeps_equations_attributes_and_sorry() -> None:
    decls = {d.name: d for d in read_paths([EXAMPLE]).documents[0].declarations}
    sum_sq = decls["Examples.sumSqH"]
    assert sum_sq.modifiers == ("noncomputable",)
    assert sum_sq.equations == ("Examples.sumSqH x = ∑ i : Fin n, x i * x i",)
    assert sum_sq.docstring == (
        "The sum of squares of a vector.\n\n• zero exactly at the zero vector,\n• never negative."
    )
    assert decls["Examples.finProd_symm_fst"].attributes == ("simp",)
    assert decls["Examples.softmax_le_one"].sorried is True
    assert decls["Examples.dense_zero_weight"].sorried is False
    table = decls["Examples.lookupTable"]
    assert table.equations == () and table.equations_rendered is False


def test_read_example_page_module_doc_has_headings_and_linked_names() -> None:
    (mod,) = read_paths([EXAMPLE]).documents[0].module_docs
    assert mod.headings == ("Dense layers as a doc-gen4 page", "Flat indices")
    assert mod.mentions == (
        "Examples.dense_zero_weight",
        "Examples.sumSqH",
        "Examples.finProd_symm_fst",
        "finProdFinEquiv",
    )
    assert "#" not in mod.text.split("\n")[0]


def test_read_page_without_module_constant_takes_title_then_path() -> None:
    titled = read_bytes("doc/X/Y.html", _page(_decl("A.t"), title="A.Titled").encode())
    assert titled.module == "A.Titled"
    untitled = read_bytes(
        "doc/Proofs/Foo.html",
        _page(_decl("A.t"), title="Some page").encode(),
        rel="Proofs/Foo.html",
    )
    assert untitled.module == "Proofs.Foo"


def test_read_page_joins_implicit_and_explicit_binders_as_displayed() -> None:
    args = (
        '<span class="impl_arg"><span class="decl_args"><span class="fn">{N a c : ℕ}</span>'
        '</span></span><span class="decl_args"><span class="fn">(bb : Vec c)</span></span>'
    )
    doc = read_bytes("p.html", _page(_decl("A.t", args=args, type="bb = bb")).encode())
    assert doc.declarations[0].binders == "{N a c : ℕ} (bb : Vec c)"
    assert doc.declarations[0].statement == "bb = bb"


def test_read_page_declaration_without_header_reports_it() -> None:
    body = '<div class="decl" id="A.bad"><div class="theorem"><p>no header</p></div></div>'
    doc = read_bytes("p.html", _page(_decl("A.good") + body).encode())
    assert [d.name for d in doc.declarations] == ["A.good"]
    assert doc.errors == [
        IngestError("p.html", 7, None, "doc-gen4 HTML: declaration A.bad has no decl_header")
    ]


def test_read_truncated_page_reports_the_cut_declaration_and_keeps_the_rest() -> None:
    path = DATA / "truncated.html"
    doc = read_paths([path]).documents[0]
    assert [d.name for d in doc.declarations] == ["Examples.first", "Examples.second"]
    assert doc.errors == [
        IngestError(
            str(path),
            32,
            3,
            "truncated HTML: declaration Examples.third opened at line 32, column 3 "
            "is not closed (the file ends at line 40, column 117)",
        )
    ]


def test_read_page_cut_after_its_declarations_reports_missing_end() -> None:
    text = _page(_decl("A.t"))
    cut = text[: text.index("</main>")]
    doc = read_bytes("p.html", cut.encode())
    assert [d.name for d in doc.declarations] == ["A.t"]
    lines = cut.rstrip().split("\n")
    end_line, end_col = len(lines), len(lines[-1]) + 1
    assert doc.errors == [
        IngestError(
            "p.html",
            end_line,
            end_col,
            f"truncated HTML: the file ends at line {end_line}, column {end_col} before </html>",
        )
    ]


def test_read_doc_tree_names_modules_by_path(tmp_path: Path) -> None:
    page = tmp_path / "doc" / "Proofs" / "Foo.html"
    page.parent.mkdir(parents=True)
    page.write_text(_page(_decl("Proofs.t"), title="Documentation"), encoding="utf-8")
    (tmp_path / "doc" / "style.css").write_text("main {}", encoding="utf-8")
    batch = read_paths([tmp_path / "doc"])
    assert batch.files == 1
    assert batch.documents[0].module == "Proofs.Foo"
    assert batch.documents[0].declarations[0].module == "Proofs.Foo"


def test_read_page_that_is_not_a_module_page_has_no_module() -> None:
    doc = read_bytes("doc/navbar.html", b"<html><body><nav>links</nav></body></html>")
    assert (doc.module, doc.declarations, doc.module_docs, doc.errors) == ("", [], [], [])
