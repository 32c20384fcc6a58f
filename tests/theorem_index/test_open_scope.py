"""`open` directives: how Lean source records them and how names resolve through them."""

from __future__ import annotations

from pathlib import Path

from theorem_index.lean import KnownNames, analyse_declaration
from theorem_index.lean.open_scope import open_scope
from theorem_index.model import Declaration
from theorem_index.opens import OpenDirective
from theorem_index.readers import read_bytes, read_paths


def _opens(text: str) -> dict[str, tuple[str, ...]]:
    doc = read_bytes("Src/Mod.lean", text.encode())
    assert doc.errors == []
    return {d.name: d.opens for d in doc.declarations}


def _known(*names: str) -> KnownNames:
    return KnownNames(names, builtins=False)


def _resolved(statement: str, opens: tuple[str, ...], known: KnownNames, name: str = "Q.t"):  # type: ignore[no-untyped-def]
    decl = Declaration(
        name=name,
        kind="theorem",
        module="M",
        binders="",
        statement=statement,
        namespace=name.rpartition(".")[0],
        opens=opens,
    )
    return analyse_declaration(decl, known)


# --- what the reader records ------------------------------------------------------


def test_read_open_records_the_namespace_it_was_issued_in() -> None:
    opens = _opens(
        "open Top\nnamespace Proofs\nnamespace Inner\nopen A B.C\ntheorem t : True := trivial\n"
        "end Inner\ntheorem u : True := trivial\nend Proofs\n"
    )
    assert opens["Proofs.Inner.t"] == ("Top", "Proofs.Inner::A", "Proofs.Inner::B.C")
    assert opens["Proofs.u"] == ("Top",)


def test_read_open_forms_only_hiding_renaming_and_scoped() -> None:
    opens = _opens(
        "namespace P\nopen A (f g)\nopen B hiding h\nopen C renaming f → f', g -> g'\n"
        "open scoped BigOperators Real\ntheorem t : True := trivial\nend P\n"
    )
    assert opens["P.t"] == ("P::A (f g)", "P::B hiding h", "P::C renaming f → f', g → g'")


def test_read_open_in_records_its_namespace_for_the_next_declaration_only() -> None:
    opens = _opens(
        "namespace P\nopen X in\ntheorem a : True := trivial\ntheorem b : True := trivial\n"
        "open Y in theorem c : True := trivial\nend P\n"
    )
    assert opens == {"P.a": ("P::X",), "P.b": (), "P.c": ("P::Y",)}


def test_open_directive_text_round_trips() -> None:
    for d in (
        OpenDirective("X"),
        OpenDirective("X", "A.B"),
        OpenDirective("X", "A", only=("f", "g")),
        OpenDirective("X", "", hiding=("f",)),
        OpenDirective("X", "A", renaming=(("f", "g"), ("h", "k"))),
    ):
        assert OpenDirective.parse(d.text()) == d


# --- which namespaces they open ----------------------------------------------------


def test_known_names_have_every_prefix_as_a_namespace() -> None:
    known = _known("A.B.c")
    assert known.is_namespace("A") and known.is_namespace("A.B")
    assert not known.is_namespace("A.B.c") and not known.is_namespace("B")


def test_open_resolves_relative_to_the_enclosing_namespaces_innermost_first() -> None:
    known = _known("A.B.X.f", "A.X.f", "X.f", "A.Y.g")
    scope = open_scope(["A.B::X", "A.B::Y"], known)
    assert scope.namespaces == (("A.B.X", frozenset()), ("A.Y", frozenset()))


def test_open_resolves_relative_to_the_namespaces_opened_before_it() -> None:
    known = _known("Proofs.R.Zb2", "Proofs.S.w")
    scope = open_scope(["Proofs", "R", "S"], known)
    assert [ns for ns, _ in scope.namespaces] == ["Proofs", "Proofs.R", "Proofs.S"]


def test_open_of_a_namespace_nobody_declared_opens_it_as_written() -> None:
    scope = open_scope(["P::Filter"], _known("P.f"))
    assert scope.namespaces == (("Filter", frozenset()),)


# --- names through them --------------------------------------------------------------


def test_resolve_name_through_open_relative_to_namespace() -> None:
    known = _known("Proofs.ResNet34LivePC.Zb2", "Proofs.StableHLO.matMulFlat")
    r = _resolved(
        "Zb2 = matMulFlat",
        ("Proofs::Proofs", "Proofs::ResNet34LivePC", "Proofs::StableHLO"),
        known,
        name="Proofs.Other.t",
    )
    assert r.constants == ("Proofs.ResNet34LivePC.Zb2", "Proofs.StableHLO.matMulFlat")
    assert r.unknown_constants == ()


def test_resolve_plain_name_in_an_enclosing_namespace() -> None:
    known = _known("Proofs.R.Zb2")
    r = _resolved("Zb2 = Zb2", (), known, name="Proofs.R.Deep.t")
    assert r.constants == ("Proofs.R.Zb2",)


def test_resolve_open_only_makes_just_the_named_constants_visible() -> None:
    known = _known("P.f", "P.g")
    r = _resolved("f = g", ("P (f)",), known)
    assert r.constants == ("P.f",)
    assert r.unknown_constants == ("g",)


def test_resolve_open_hiding_leaves_the_hidden_name_out() -> None:
    known = _known("P.f", "P.g")
    r = _resolved("f = g", ("P hiding f",), known)
    assert r.constants == ("P.g",)
    assert r.unknown_constants == ("f",)


def test_resolve_open_renaming_gives_the_new_name_only() -> None:
    known = _known("P.f")
    r = _resolved("f = g", ("P renaming f → g",), known)
    assert r.constants == ("P.f",)
    assert r.unknown_constants == ("f",)


def test_resolve_names_opened_across_files_of_one_batch() -> None:
    lib = read_bytes(
        "Lib.lean",
        b"namespace Proofs\nnamespace R\ndef Zb2 : Vec 2 := fun _ => 0\nend R\nend Proofs\n",
    )
    use = read_bytes(
        "Use.lean",
        b"namespace Proofs\nopen Proofs R\ntheorem z : Zb2 = Zb2 := rfl\nend Proofs\n",
    )
    known = _known(*(d.name for doc in (lib, use) for d in doc.declarations))
    (decl,) = use.declarations
    r = analyse_declaration(decl, known)
    assert r.constants == ("Proofs.R.Zb2",)


# --- the upstream tree ----------------------------------------------------------------

_UPSTREAM_FILES = (
    "Foundation/LinearFaithfulPoC.lean",
    "Foundation/MLP.lean",
    "Codegen/StableHLO.lean",
    "Foundation/ResNet34LivePC.lean",
    "Foundation/ResNet34LiveGeneric.lean",
    "Architectures/ViTChainClose.lean",
    "Float/FloatBridge.lean",
    "Float/FloatComposeBridge.lean",
)


def test_upstream_variables_join_and_opened_names_resolve(upstream_tree: Path) -> None:
    batch = read_paths([upstream_tree / f for f in _UPSTREAM_FILES])
    decls = {d.name: d for doc in batch.documents for d in doc.declarations}
    known = KnownNames(decls)
    poc = decls["Proofs.LinPoC.poc_fwd_faithful"]
    assert poc.binders == "{m n : Nat} (W : Mat m n) (b : Vec n) (x : Vec m)"
    graph = decls["Proofs.StableHLO.fwdGraph"]
    assert graph.binders == poc.binders
    assert graph.equations[0].startswith("Proofs.StableHLO.fwdGraph W b x = ")
    assert analyse_declaration(graph, known).unknown_constants == ()
    for user, used in (
        ("Proofs.liveDownW", "Proofs.ResNet34LivePC.Zb2"),
        ("Proofs.vitCotDP", "Proofs.StableHLO.matMulFlat"),
        ("Proofs.vitCotG", "Proofs.StableHLO.rowDenseBackFlat"),
        ("Proofs.floatClose_flatConv", "Proofs.FloatModel.layerBudget"),
    ):
        analysis = analyse_declaration(decls[user], known)
        assert used in analysis.constants, user
        assert used.rsplit(".", 1)[1] not in analysis.unknown_constants, user
