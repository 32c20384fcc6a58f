"""The plain-text page reader: the seed pages, headers, docstrings, equations, errors."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from theorem_index.model import IngestError
from theorem_index.readers import read_bytes, read_paths
from theorem_index.readers.prose import mentions
from theorem_index.readers.text_page import read_text_page

DATA = Path(__file__).parent / "data" / "readers"


def _page(text: str, name: str = "Examples.Page.txt"):
    return read_bytes(name, text.encode())


def test_read_seed_page_gives_24_theorems_and_8_definitions(seed_page: Path) -> None:
    doc = read_paths([seed_page]).documents[0]
    assert doc.errors == []
    assert doc.format == "text"
    assert doc.module == "004_6d8c43833ffb9c10"
    kinds = Counter(d.kind for d in doc.declarations)
    assert kinds == {"theorem": 24, "def": 8}
    assert len({d.name for d in doc.declarations}) == 32
    assert all(d.name.startswith("Proofs.") and d.namespace == "Proofs" for d in doc.declarations)


def test_read_seed_page_keeps_equations_and_the_unrendered_one(seed_page: Path) -> None:
    doc = read_paths([seed_page]).documents[0]
    defs = {d.name: d for d in doc.declarations if d.kind == "def"}
    rendered = [eq for d in defs.values() for eq in d.equations]
    assert len(rendered) == 7
    assert defs["Proofs.rowDense_weight_grad"].equations == (
        "Proofs.rowDense_weight_grad X dY i j = ∑ r : Fin N, X r i * dY r j",
    )
    assert [n for n, d in defs.items() if not d.equations_rendered] == ["Proofs.patchRead"]
    assert defs["Proofs.patchRead"].equations == ()
    assert defs["Proofs.rowDense_weight_grad"].modifiers == ("noncomputable",)


def test_read_seed_page_splits_binders_from_statement(seed_page: Path) -> None:
    doc = read_paths([seed_page]).documents[0]
    decl = next(d for d in doc.declarations if d.name == "Proofs.sum_fin_prod")
    assert decl.binders == "{M : Type u_1} [AddCommMonoid M] (m n : ℕ) (f : Fin (m * n) → M)"
    assert decl.statement == (
        "∑ idx : Fin (m * n), f idx = ∑ r : Fin m, ∑ k : Fin n, f (finProdFinEquiv (r, k))"
    )
    assert decl.docstring == (
        "Sum over a flat product index = double sum over the factors (row-major)."
    )
    line = seed_page.read_text(encoding="utf-8").split("\n")[decl.statement_line - 1]
    assert line[decl.statement_column - 1 :].startswith("∑ idx : Fin (m * n)")
    assert decl.location is not None and decl.location.line_start == decl.statement_line


def test_read_seed_page_has_one_module_doc_before_the_first_declaration(seed_page: Path) -> None:
    doc = read_paths([seed_page]).documents[0]
    assert len(doc.module_docs) == 1
    mod = doc.module_docs[0]
    assert mod.text.startswith("Closing the ViT render")
    assert "vit_render_rowdense" in mod.mentions
    assert mod.location is not None and mod.location.line_start == 1


def test_read_module_doc_seed_gives_headings_and_mentions(seeds_dir: Path) -> None:
    doc = read_paths([seeds_dir / "000_2c54023b98619e38.txt"]).documents[0]
    assert doc.errors == [] and doc.declarations == []
    (mod,) = doc.module_docs
    assert mod.headings == (
        "ViT-Tiny — every parameter gradient node IS the loss's derivative in that parameter",
        "The block forward, read after each node",
        "Differentiability",
    )
    for name in (
        "vit_net_tiedGB",
        "vitNetB",
        "vit_net_lossGrad",
        "HasGradAt.param_batchMapIdx_through",
        "vitNetB_eq_vitForwardKV",
        "Mat.unflatten_flatten",
    ):
        assert name in mod.mentions
    assert mod.mentions.index("vit_net_tiedGB") < mod.mentions.index("vitNetB")
    assert "ConvNeXtParamGrad.lean" not in mod.mentions
    assert len(set(mod.mentions)) == len(mod.mentions)


def test_mentions_follow_the_documented_rule() -> None:
    text = "See foo_bar, e.g. vitNetB's use, Mat.flatten, X_(r,i), vit_factor_* and `rfl`."
    assert mentions(text) == ("foo_bar", "vitNetB", "Mat.flatten", "rfl")


def test_read_text_page_takes_module_from_module_line() -> None:
    doc = _page("Title #\n\nmodule: Examples.Named\n\ntheorem Examples.t (x : ℕ) : x = x\n")
    assert doc.module == "Examples.Named"
    assert doc.declarations[0].module == "Examples.Named"
    assert "module:" not in doc.module_docs[0].text


def test_read_text_page_splits_docstring_paragraphs() -> None:
    doc = _page(
        "theorem A.t (x : ℕ) : x = x\n\nFirst line\ncontinued.\n\nSecond paragraph.\n\n"
        "theorem A.u : True\n"
    )
    first, second = doc.declarations
    assert first.docstring == "First line\ncontinued.\n\nSecond paragraph."
    assert second.docstring is None
    assert second.binders == ""
    assert second.statement == "True"


def test_read_text_page_starts_module_doc_at_heading_after_declarations() -> None:
    doc = _page(
        "noncomputable def A.f (n : ℕ) : ℕ\n\nDoc.\n\nEquations\n\n• A.f n = n + 1\n\n"
        "Second part #\n\nProse about A.f_spec.\n\ntheorem A.g : True\n"
    )
    assert [d.name for d in doc.declarations] == ["A.f", "A.g"]
    assert doc.declarations[0].equations == ("A.f n = n + 1",)
    assert doc.declarations[0].docstring == "Doc."
    assert [m.headings for m in doc.module_docs] == [("Second part",)]
    assert doc.module_docs[0].mentions == ("A.f_spec",)


def test_read_text_page_recognises_other_kinds_and_modifiers() -> None:
    doc = _page(
        "structure A.S (n : ℕ) extends A.Base n : Type\n\n"
        "instance A.instS {n : ℕ} : Inhabited (A.S n)\n\n"
        "private lemma A.l ⦃x : ℕ⦄ : x = x\n\n"
        "abbrev A.V (n : ℕ) : Type\n"
    )
    got = [(d.kind, d.name, d.binders, d.statement, d.modifiers) for d in doc.declarations]
    assert got == [
        ("structure", "A.S", "(n : ℕ) extends A.Base n", "Type", ()),
        ("instance", "A.instS", "{n : ℕ}", "Inhabited (A.S n)", ()),
        ("theorem", "A.l", "⦃x : ℕ⦄", "x = x", ("private",)),
        ("abbrev", "A.V", "(n : ℕ)", "Type", ()),
    ]


def test_read_text_page_ignores_prose_that_starts_with_a_keyword() -> None:
    doc = _page("Title #\n\ninstance resolution is slow, theorem provers are fast.\n")
    assert doc.declarations == [] and doc.errors == []


def test_read_declarations_cut_in_half_reports_each_and_keeps_the_others() -> None:
    path = DATA / "cut_in_half.txt"
    doc = read_paths([path]).documents[0]
    assert [d.name for d in doc.declarations] == ["Examples.good_one", "Examples.good_two"]
    file = str(path)
    assert doc.errors == [
        IngestError(file, 9, 59, "expected ')' to close '(' opened at line 9, column 39"),
        IngestError(
            file,
            11,
            42,
            "expected a binder or ' : ' after the name Examples.no_colon, "
            "found the end of the line",
        ),
        IngestError(file, 13, 58, "expected ')' to close '(' opened at line 13, column 52"),
        IngestError(
            file, 15, 37, "expected ')' to close '(' opened at line 15, column 31, found '}'"
        ),
    ]
    good_two = doc.declarations[1]
    assert good_two.equations == ("Examples.good_two n = n + 0",)
    assert good_two.docstring == "Also kept."
    assert good_two.location is not None
    assert (good_two.location.line_start, good_two.location.line_end) == (17, 23)


def test_read_header_with_empty_statement_reports_it() -> None:
    doc = read_text_page("p.txt", "theorem A.t (x : ℕ) : \n", "p")
    assert doc.errors == [
        IngestError("p.txt", 1, 23, "expected a statement after ' : ' in the header of A.t")
    ]


def test_read_header_with_stray_word_reports_it() -> None:
    doc = read_text_page("p.txt", "theorem A.t (x : ℕ) y : x = y\n", "p")
    assert doc.errors == [
        IngestError("p.txt", 1, 21, "expected a binder or ' : ' after the name A.t, found 'y'")
    ]


def test_read_text_page_with_crlf_lines_matches_lf() -> None:
    text = "T #\n\ntheorem A.t (x : ℕ) : x = x\n\nDoc.\n\nInstances For\n\n• A.inst\n"
    lf = _page(text)
    crlf = _page(text.replace("\n", "\r\n"))
    assert crlf.errors == [] and lf.errors == []
    assert [(d.name, d.statement, d.docstring) for d in crlf.declarations] == [
        (d.name, d.statement, d.docstring) for d in lf.declarations
    ]
    assert lf.declarations[0].docstring == "Doc."
