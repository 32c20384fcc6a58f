"""The Lean source reader: scopes, variables, comments, definitions, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from theorem_index.model import IngestError
from theorem_index.readers import read_bytes, read_paths
from theorem_index.readers.lean_lexer import mask

DATA = Path(__file__).parent / "data" / "readers"


def _decls(path: Path):
    doc = read_paths([path]).documents[0]
    return doc, {d.name: d for d in doc.declarations}


def _source(text: str, name: str = "Src/Mod.lean"):
    return read_bytes(name, text.encode())


def test_read_scopes_fixture_names_every_declaration() -> None:
    doc, _ = _decls(DATA / "Scopes.lean")
    assert doc.errors == []
    assert doc.module == "Scopes"
    assert [d.name for d in doc.declarations] == [
        "Outer.top",
        "Outer.Inner.uses_both",
        "Outer.Inner.own_binder",
        "Outer.sum_zero",
        "Outer.halve",
        "Outer.fib",
        "Outer.twice",
        "Outer.sum_range_id",
        "Outer.instInhabitedMat",
        "Outer.Pair",
        "Outer.Pair.fst",
        "Outer.Pair.snd",
        "Outer.Color",
        "Outer.Color.red",
        "Outer.Color.green",
        "rootLevel",
        "Outer.label",
        "Outer.char_paren",
        "after_end",
    ]


def test_read_variables_join_the_declarations_that_use_them() -> None:
    _, decls = _decls(DATA / "Scopes.lean")
    assert decls["Outer.top"].binders == "{N a : ℕ} (X : Mat N a) [Fact (0 < N)]"
    assert decls["Outer.Inner.uses_both"].binders == (
        "{N a c : ℕ} (X : Mat N a) [Fact (0 < N)] (W : Mat a c) (i : Fin a) (j : Fin c)"
    )
    assert decls["Outer.Inner.own_binder"].binders == "(X : ℕ)"
    assert decls["Outer.sum_zero"].binders == "{M : Type*} [AddCommMonoid M] (n : ℕ)"
    assert decls["after_end"].binders == ""


def test_read_multiline_signature_as_one_line_with_its_position() -> None:
    _, decls = _decls(DATA / "Scopes.lean")
    decl = decls["Outer.Inner.uses_both"]
    assert decl.statement == "X 0 i * W i j = X 0 i * W i j"
    assert (decl.statement_line, decl.statement_column) == (22, 5)
    assert decl.location is not None
    assert (decl.location.line_start, decl.location.line_end) == (21, 24)


def test_read_doc_comments_attributes_modifiers_and_opens() -> None:
    _, decls = _decls(DATA / "Scopes.lean")
    top = decls["Outer.top"]
    assert top.docstring == (
        "Uses `X`, hence `N` and `a`, and the instance on `N`;\n`c` is not mentioned."
    )
    assert top.location is not None and top.location.line_start == 13
    assert top.opens == ("Real",)
    lemma = decls["Outer.sum_zero"]
    assert lemma.kind == "theorem"
    assert lemma.attributes == ("simp", "norm_cast")
    assert lemma.modifiers == ("protected",)
    # `open scoped BigOperators` turns on notation only; `open Finset in` is issued
    # inside namespace Outer, which Lean searches first
    assert lemma.opens == ("Real",)
    assert decls["Outer.sum_range_id"].opens == ("Real", "Outer::Finset")
    assert decls["Outer.halve"].modifiers == ("private", "noncomputable")


def test_read_definitions_keep_term_bodies_and_alternatives_as_equations() -> None:
    _, decls = _decls(DATA / "Scopes.lean")
    assert decls["Outer.halve"].equations == ("Outer.halve x = (x / 2)",)
    assert decls["Outer.fib"].equations == (
        "Outer.fib 0 = 0",
        "Outer.fib 1 = 1",
        "Outer.fib (n + 2) = (fib n + fib (n + 1))",
    )
    assert decls["Outer.fib"].statement == "ℕ → ℕ"
    assert decls["Outer.twice"].equations == ()
    assert decls["Outer.label"].equations == (
        'Outer.label = "theorem not_a_decl : False -- not a comment"',
    )


def test_read_comments_and_literals_never_count_as_syntax() -> None:
    _, decls = _decls(DATA / "Scopes.lean")
    assert "Outer.Inner.fake" not in decls and "Outer.not_a_decl" not in decls
    assert decls["Outer.char_paren"].statement == "'(' = '('"


def test_read_other_kinds_and_skip_examples() -> None:
    _, decls = _decls(DATA / "Scopes.lean")
    assert decls["Outer.Pair"].kind == "structure"
    assert decls["Outer.Pair"].binders == "(α : Type)"
    assert decls["Outer.Color"].kind == "inductive"
    assert decls["Outer.Color"].statement == "Type"
    inst = decls["Outer.instInhabitedMat"]
    assert (inst.kind, inst.statement) == ("instance", "Inhabited (Mat N a)")
    assert all(d.kind != "example" for d in decls.values())


def test_read_module_doc_headings_and_mentions() -> None:
    doc, _ = _decls(DATA / "Scopes.lean")
    (mod,) = doc.module_docs
    assert mod.headings == ("Scopes and variables",)
    assert mod.mentions == ("Outer.Inner.uses_both", "Outer.top")


def test_read_broken_source_reports_each_problem_and_keeps_the_rest() -> None:
    path = DATA / "Broken.lean"
    doc, decls = _decls(path)
    assert list(decls) == ["Broken.good_one", "Broken.good_two"]
    file = str(path)
    assert doc.errors == [
        IngestError(file, 6, 10, "expected ')' to close '(' opened at line 5, column 28"),
        IngestError(
            file,
            8,
            30,
            "expected a binder or ' : ' after the name Broken.no_statement, found ':='",
        ),
        IngestError(file, 10, 5, "expected a name after 'def'"),
        IngestError(
            file, 14, 1, "'end Wrong' does not close the innermost scope: expected 'end Broken'"
        ),
        IngestError(
            file, 16, 1, "unterminated comment: '/-' opened at line 16, column 1 is never closed"
        ),
    ]


def test_read_end_without_scope_reports_it() -> None:
    doc = _source("theorem t : True := trivial\nend Foo\n")
    assert doc.errors == [
        IngestError(
            "Src/Mod.lean", 2, 1, "'end Foo' closes nothing: no namespace or section is open"
        )
    ]


def test_read_unterminated_string_reports_where_it_opened() -> None:
    doc = _source('theorem t : True := trivial\ndef s : String := "never closed\n')
    assert [d.name for d in doc.declarations][0] == "t"
    assert (
        IngestError(
            "Src/Mod.lean", 2, 19, "unterminated string literal opened at line 2, column 19"
        )
        in doc.errors
    )


def test_read_lean_module_name_from_the_path_below_the_root(tmp_path: Path) -> None:
    src = tmp_path / "pkg" / "LeanMlir" / "Proofs" / "Foo.lean"
    src.parent.mkdir(parents=True)
    src.write_text("theorem t : True := trivial\n", encoding="utf-8")
    assert read_paths([tmp_path / "pkg"]).documents[0].module == "LeanMlir.Proofs.Foo"
    (tmp_path / "pkg" / "lean-toolchain").write_text("leanprover/lean4:v4.22.0\n")
    assert read_paths([tmp_path]).documents[0].module == "LeanMlir.Proofs.Foo"


def test_read_let_statement_keeps_layout_as_semicolons() -> None:
    doc = _source("theorem t (x : ℕ) :\n    let y := x + 1\n    y = x + 1 := rfl\n")
    assert doc.declarations[0].statement == "let y := x + 1; y = x + 1"


def test_read_open_in_applies_to_the_next_declaration_only() -> None:
    doc = _source("open Foo in\ntheorem a : True := trivial\ntheorem b : True := trivial\n")
    assert [d.opens for d in doc.declarations] == [("Foo",), ()]


def test_mask_keeps_offsets_and_blanks_comments() -> None:
    text = 'def x := "a -- b" -- c\n/- d /- e -/ f -/ y'
    masked = mask(text)
    assert len(masked.code) == len(masked.scan) == len(text)
    assert masked.code == 'def x := "a -- b"     \n                  y'
    assert masked.scan == 'def x := "      "     \n                  y'


@pytest.mark.slow
def test_read_real_lean_corpus_without_crashing(upstream_tree: Path) -> None:
    batch = read_paths([upstream_tree])
    decls = [d for doc in batch.documents for d in doc.declarations]
    assert len(decls) > 10_000
    assert all(e.message.startswith("duplicate declaration") for e in batch.all_errors())
