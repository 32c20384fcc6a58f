"""Prose declarations from module docs: the paragraph of the first mention, once a batch."""

from __future__ import annotations

from theorem_index.model import Declaration, Document, ModuleDoc, SourceLocation
from theorem_index.prose_claims import add_prose_declarations, paragraph_hash
from theorem_index.readers.prose import mentions

INTRO = "Overview of the bridge."
CLAIM = "The lemma net_grad_ok says every node\nis the gradient; see also other_name."
TEXT = f"{INTRO}\n\n{CLAIM}"


def _doc(file: str, text: str = TEXT, decls: tuple[Declaration, ...] = ()) -> Document:
    doc = ModuleDoc("M", text, (), mentions(text), SourceLocation(file, 4, 7))
    return Document(file, "text", "M", list(decls), [doc], [])


def test_add_prose_declaration_with_its_paragraph_and_line() -> None:
    (out,) = add_prose_declarations([_doc("a.txt")], {"Demo.net_grad_ok": "net_grad_ok"})
    (decl,) = out.declarations
    assert (decl.name, decl.kind, decl.module, decl.namespace) == (
        "Demo.net_grad_ok",
        "prose",
        "M",
        "Demo",
    )
    assert (decl.binders, decl.statement) == ("", CLAIM)
    assert decl.location == SourceLocation("a.txt", 6, 6)  # after the intro and a blank line


def test_skip_formally_declared_unmentioned_and_repeated_names() -> None:
    formal = Declaration("Demo.net_grad_ok", "theorem", "M", "", "1 = 1")
    claims = {"Demo.net_grad_ok": "net_grad_ok", "Demo.absent_name": "absent_name"}
    first, second = add_prose_declarations([_doc("a.txt", decls=(formal,)), _doc("b.txt")], claims)
    assert [d.kind for d in first.declarations] == ["theorem"]
    assert [(d.name, d.location.file) for d in second.declarations if d.location] == [
        ("Demo.net_grad_ok", "b.txt")
    ]
    again = add_prose_declarations([_doc("b.txt"), _doc("c.txt")], claims)
    assert [len(d.declarations) for d in again] == [1, 0]


def test_hash_paragraph_ignoring_layout_only() -> None:
    assert paragraph_hash("a  b\nc") == paragraph_hash(" a b c ")
    assert paragraph_hash("a b c") != paragraph_hash("a b d")
