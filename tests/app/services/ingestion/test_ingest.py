"""The ingestion service on SQLite and PostgreSQL: revisions, removal, parse trees, reports."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from db_support import REPO, batch, count, declaration, definition, document, revisions, theorem
from sqlalchemy import select
from sqlalchemy.orm import Session

from app import models
from app.services.ingestion.ingest import ingest_batch, ingest_paths
from theorem_index.model import Document, IngestError, ModuleDoc


def test_ingest_declarations_when_new(session: Session) -> None:
    doc = document(
        "Proofs/A.lean", [theorem("Proofs.t1"), theorem("Proofs.t2"), definition("Proofs.d")]
    )

    report = ingest_batch(session, batch=batch(doc), commit="abc123")

    assert report.to_json() == {
        "files": 1,
        "declarations": 3,
        "theorems": 2,
        "definitions": 1,
        "new": 3,
        "changed": 0,
        "unchanged": 0,
        "removed": 0,
        "parsed": 3,
        "module_docs": 0,
        "errors": [],
        "warnings": [],
    }
    assert count(session, models.Declaration) == 3
    assert count(session, models.DeclarationRevision) == 3
    rev = revisions(session, "Proofs.t1")[0]
    assert (rev.revision, rev.commit, rev.file, rev.line_start) == (1, "abc123", "Proofs/A.lean", 1)
    source = session.scalars(select(models.Source)).one()
    assert (source.path, source.format, source.module) == ("Proofs/A.lean", "lean", "Proofs.A")


def test_create_nothing_when_reingested_unchanged(session: Session) -> None:
    doc = document("Proofs/A.lean", [theorem("Proofs.t1"), definition("Proofs.d")])
    ingest_batch(session, batch=batch(doc))
    updated = declaration(session, "Proofs.t1").updated_at

    report = ingest_batch(session, batch=batch(doc))

    assert (report.new, report.changed, report.unchanged, report.removed) == (0, 0, 2, 0)
    assert report.parsed == 2
    assert count(session, models.Declaration) == 2
    assert count(session, models.DeclarationRevision) == 2
    session.expire_all()
    assert declaration(session, "Proofs.t1").updated_at == updated


def test_create_revision_when_statement_changed_and_keep_history(session: Session) -> None:
    ingest_batch(
        session, batch=batch(document("Proofs/A.lean", [theorem("Proofs.t1", "1 + 1 = 2")]))
    )

    changed = theorem("Proofs.t1", "1 + 2 = 3")
    report = ingest_batch(session, batch=batch(document("Proofs/A.lean", [changed])), commit="beef")

    assert (report.new, report.changed, report.unchanged) == (0, 1, 0)
    history = revisions(session, "Proofs.t1")
    assert [(r.revision, r.statement, r.commit) for r in history] == [
        (1, "1 + 1 = 2", None),
        (2, "1 + 2 = 3", "beef"),
    ]
    assert history[0].content_hash != history[1].content_hash
    assert declaration(session, "Proofs.t1").current_revision == 2


def test_mark_removed_when_missing_from_its_source_file(session: Session) -> None:
    a = document("Proofs/A.lean", [theorem("Proofs.t1"), theorem("Proofs.t2")])
    b = document("Proofs/B.lean", [theorem("Proofs.t3")], module="Proofs.B")
    ingest_batch(session, batch=batch(a, b))

    report = ingest_batch(session, batch=batch(document("Proofs/A.lean", [theorem("Proofs.t1")])))

    assert report.removed == 1
    gone = declaration(session, "Proofs.t2")
    assert gone.removed and gone.removed_at is not None
    assert not declaration(session, "Proofs.t3").removed  # another file, not re-read
    assert not declaration(session, "Proofs.t1").removed
    assert count(session, models.Declaration) == 3  # never deleted
    assert len(revisions(session, "Proofs.t2")) == 1


def test_keep_declarations_when_source_file_read_with_errors(session: Session) -> None:
    ingest_batch(
        session, batch=batch(document("A.txt", [theorem("Proofs.t1"), theorem("Proofs.t2")]))
    )
    broken = IngestError("A.txt", 7, 3, "expected ')' to close '(' opened at line 7, column 1")

    report = ingest_batch(
        session, batch=batch(document("A.txt", [theorem("Proofs.t1")], errors=[broken]))
    )

    assert report.removed == 0
    assert not declaration(session, "Proofs.t2").removed
    assert report.to_json()["errors"] == [
        {
            "file": "A.txt",
            "line": 7,
            "column": 3,
            "message": "expected ')' to close '(' opened at line 7, column 1",
        }
    ]


def test_restore_declaration_when_it_reappears(session: Session) -> None:
    t2 = theorem("Proofs.t2")
    ingest_batch(session, batch=batch(document("A.lean", [theorem("Proofs.t1"), t2])))
    ingest_batch(session, batch=batch(document("A.lean", [theorem("Proofs.t1")])))
    assert declaration(session, "Proofs.t2").removed

    report = ingest_batch(session, batch=batch(document("A.lean", [theorem("Proofs.t1"), t2])))

    session.expire_all()
    back = declaration(session, "Proofs.t2")
    assert (back.removed, back.removed_at, back.current_revision) == (False, None, 1)
    assert (report.new, report.unchanged, report.removed) == (0, 2, 0)


def test_keep_one_copy_when_declaration_moves_to_another_file(session: Session) -> None:
    ingest_batch(
        session, batch=batch(document("A.lean", [theorem("Proofs.t1"), theorem("Proofs.t2")]))
    )

    t2_in_b = theorem("Proofs.t2", file="B.lean", line=10, module="Proofs.B")
    moved = document("B.lean", [t2_in_b], module="Proofs.B")
    report = ingest_batch(session, batch=batch(document("A.lean", [theorem("Proofs.t1")]), moved))

    assert (report.removed, report.unchanged) == (0, 2)
    t2 = declaration(session, "Proofs.t2")
    assert not t2.removed and t2.module == "Proofs.B"
    rev = revisions(session, "Proofs.t2")
    assert [(r.file, r.line_start, r.module) for r in rev] == [("B.lean", 10, "Proofs.B")]
    # Re-reading A without t2 no longer marks it removed: it lives in B now.
    ingest_batch(session, batch=batch(document("A.lean", [theorem("Proofs.t1")])))
    assert not declaration(session, "Proofs.t2").removed


def test_keep_first_when_batch_has_duplicate_names(session: Session) -> None:
    a = document("A.lean", [theorem("Proofs.t1", "1 = 1")])
    b = document("B.lean", [theorem("Proofs.t1", "2 = 2", file="B.lean", line=4)], module="B")

    report = ingest_batch(session, batch=batch(a, b))

    assert report.declarations == 1
    assert revisions(session, "Proofs.t1")[0].statement == "1 = 1"
    assert report.to_json()["errors"] == []
    assert report.to_json()["warnings"] == [
        {
            "file": "B.lean",
            "line": 4,
            "column": None,
            "message": "duplicate declaration Proofs.t1: it belongs to module Proofs.A "
            "(A.lean:1); this copy is not stored",
        }
    ]


def _two_owners() -> tuple[Document, Document]:
    a = document("A.lean", [theorem("Proofs.t1", "1 = 1"), theorem("Proofs.a")])
    b_t1 = theorem("Proofs.t1", "2 = 2", file="B.txt", line=4, module="B")
    b = document("B.txt", [b_t1, theorem("Proofs.b", file="B.txt", module="B")], module="B")
    return a, b


@pytest.mark.parametrize("order", ["owner first", "owner last"])
def test_keep_owner_whatever_the_order_of_later_batches(session: Session, order: str) -> None:
    a, b = _two_owners()
    ingest_batch(session, batch=batch(a))  # A declares Proofs.t1 first: A owns it

    again = [ingest_batch(session, batch=batch(*((a, b) if order == "owner first" else (b, a))))]
    again.append(ingest_batch(session, batch=batch(b)))
    again.append(ingest_batch(session, batch=batch(b, a)))

    assert [(r.new, r.changed, r.unchanged) for r in again] == [(1, 0, 2), (0, 0, 1), (0, 0, 3)]
    assert [len(r.warnings) for r in again] == [1, 1, 1]
    assert [w.message for w in again[1].warnings] == [
        "duplicate declaration Proofs.t1: it belongs to module Proofs.A (A.lean:1); "
        "this copy is not stored"
    ]
    assert [(r.revision, r.statement) for r in revisions(session, "Proofs.t1")] == [(1, "1 = 1")]
    assert declaration(session, "Proofs.t1").module == "Proofs.A"


@pytest.mark.parametrize("first", ["A", "B"])
def test_report_nothing_new_when_same_inputs_ingested_twice(session: Session, first: str) -> None:
    a, b = _two_owners()
    docs = (a, b) if first == "A" else (b, a)

    ingest_batch(session, batch=batch(*docs))
    twice = ingest_batch(session, batch=batch(*docs))
    swapped = ingest_batch(session, batch=batch(*reversed(docs)))

    assert (twice.new, twice.changed, twice.unchanged, twice.removed) == (0, 0, 3, 0)
    assert (swapped.new, swapped.changed, swapped.unchanged, swapped.removed) == (0, 0, 3, 0)
    assert len(revisions(session, "Proofs.t1")) == 1
    owner = "1 = 1" if first == "A" else "2 = 2"
    assert revisions(session, "Proofs.t1")[0].statement == owner


def test_hand_name_over_when_owner_drops_it(session: Session) -> None:
    a, b = _two_owners()
    ingest_batch(session, batch=batch(a, b))
    a_without = document("A.lean", [theorem("Proofs.a")])

    report = ingest_batch(session, batch=batch(a_without, b))

    assert (report.changed, report.removed, report.warnings) == (1, 0, ())
    assert [r.statement for r in revisions(session, "Proofs.t1")] == ["1 = 1", "2 = 2"]
    assert declaration(session, "Proofs.t1").module == "B"


def test_keep_owner_when_it_is_read_with_errors(session: Session) -> None:
    a, b = _two_owners()
    ingest_batch(session, batch=batch(a))
    broken = IngestError("A.lean", 9, 1, "unterminated comment")
    a_broken = document("A.lean", [theorem("Proofs.a")], errors=[broken])

    report = ingest_batch(session, batch=batch(a_broken, b))

    assert (report.changed, len(report.warnings)) == (0, 1)
    assert [r.statement for r in revisions(session, "Proofs.t1")] == ["1 = 1"]


def test_read_a_file_given_twice_once(session: Session) -> None:
    a, _ = _two_owners()

    report = ingest_batch(session, batch=batch(a, a))

    assert (report.files, report.declarations, report.new) == (1, 2, 2)
    assert (report.errors, report.warnings) == ((), ())


def test_store_parse_tree_and_constants_when_statement_parses(session: Session) -> None:
    decl = theorem(
        "Proofs.sq",
        "Real.sqrt (x * x) = |x|",
        binders="(x : ℝ)",
    )
    ingest_batch(session, batch=batch(document("A.lean", [decl])))

    rev = revisions(session, "Proofs.sq")[0]
    assert rev.parse_error is None
    assert rev.parsed is not None and rev.parsed["statement"]["t"] == "BinOp"
    assert "Real.sqrt" in rev.constants
    assert rev.unknown_constants == []


def test_store_parse_error_with_position_when_statement_broken(session: Session) -> None:
    good = theorem("Proofs.good", "1 + 1 = 2", binders="")
    bad = replace(theorem("Proofs.bad", "(1 + = 2", binders="", line=5), statement_column=20)

    report = ingest_batch(session, batch=batch(document("A.lean", [good, bad])))

    assert (report.declarations, report.parsed, report.new) == (2, 1, 2)
    rev = revisions(session, "Proofs.bad")[0]
    assert rev.parse_error is not None
    assert rev.parse_error["part"] == "statement"
    assert (rev.parse_error["line"], rev.parse_error["file_line"]) == (1, 5)
    [error] = report.errors
    assert (error.file, error.line) == ("A.lean", 5)
    assert error.column == rev.parse_error["file_column"]
    assert error.message.startswith("cannot parse the statement of Proofs.bad: ")
    assert report.exit_code == 0
    # The error is reported again on an unchanged re-ingestion, from the database.
    again = ingest_batch(session, batch=batch(document("A.lean", [good, bad])))
    assert (again.parsed, again.errors) == (1, report.errors)


def test_resolve_again_when_unknown_constant_arrives_later(session: Session) -> None:
    user = theorem("Proofs.uses", "Proofs.helper 1 = 2", binders="")
    ingest_batch(session, batch=batch(document("A.lean", [user])))
    assert revisions(session, "Proofs.uses")[0].unknown_constants == ["Proofs.helper"]

    ingest_batch(
        session, batch=batch(document("B.lean", [definition("Proofs.helper")], module="B"))
    )

    session.expire_all()
    rev = revisions(session, "Proofs.uses")
    assert len(rev) == 1  # same text: resolved again in place, no new revision
    assert rev[0].unknown_constants == []
    assert "Proofs.helper" in rev[0].constants


def test_store_module_docs_with_headings_and_mentions(session: Session) -> None:
    md = ModuleDoc("Proofs.A", "# Title\nSee `Proofs.t1`.", ("Title",), ("Proofs.t1",))
    doc = document("A.lean", [theorem("Proofs.t1")], docs=[md])

    report = ingest_batch(session, batch=batch(doc))
    ingest_batch(session, batch=batch(doc))

    assert report.module_docs == 1
    stored = session.scalars(select(models.ModuleDoc)).all()
    assert [(d.module, d.headings, d.mentions) for d in stored] == [
        ("Proofs.A", ["Title"], ["Proofs.t1"])
    ]


def test_exit_2_when_nothing_ingested_and_errors(session: Session) -> None:
    binary = IngestError(
        "blob.bin", None, None, "binary file: not a text, HTML, JSON or Lean document"
    )

    report = ingest_batch(session, batch=batch(errors=[binary]))

    assert report.exit_code == 2
    assert report.declarations == 0
    assert count(session, models.Declaration) == 0


def test_exit_0_when_good_declarations_beside_bad_input(session: Session) -> None:
    binary = IngestError(
        "blob.bin", None, None, "binary file: not a text, HTML, JSON or Lean document"
    )

    report = ingest_batch(
        session, batch=batch(document("A.lean", [theorem("Proofs.t1")]), errors=[binary])
    )

    assert report.exit_code == 0
    assert (report.new, len(report.errors)) == (1, 1)


def test_ingest_seeds_gives_24_theorems_and_8_definitions(
    session: Session, seeds_dir: Path
) -> None:
    report = ingest_paths(session, paths=[str(seeds_dir)])

    # page 000 states four theorems in prose, which the ViT-Tiny checkers claim
    assert (report.files, report.declarations, report.theorems, report.definitions) == (
        2,
        36,
        28,
        8,
    )
    assert (report.new, report.parsed, report.errors) == (36, 36, ())
    assert report.module_docs >= 1
    again = ingest_paths(session, paths=[str(seeds_dir)])
    assert (again.new, again.changed, again.unchanged, again.removed) == (0, 0, 36, 0)
    rev = revisions(session, "Proofs.pdiv_rowDense_W")[0]
    assert {"Proofs.pdiv", "Proofs.Mat.flatten", "finProdFinEquiv", "Proofs.dense"} <= set(
        rev.constants
    )


@pytest.mark.parametrize("examples_first", [True, False])
def test_reingest_examples_and_seeds_changes_nothing(
    session: Session, seeds_dir: Path, examples_first: bool
) -> None:
    # examples/text and the seed page 004 both declare four Proofs.* names
    paths = [str(REPO / "examples"), str(seeds_dir)]
    order = paths if examples_first else paths[::-1]

    first = ingest_paths(session, paths=order)
    again = [ingest_paths(session, paths=order), ingest_paths(session, paths=order[::-1])]
    again += [ingest_paths(session, paths=[p]) for p in order]

    assert (first.new, first.declarations, len(first.warnings), first.errors) == (61, 61, 4, ())
    assert [(r.new, r.changed) for r in again] == [(0, 0)] * 4
    assert [len(r.warnings) for r in again] == [4, 4, 0, 4]  # the owner alone: none
    rows = session.scalars(select(models.DeclarationRevision.revision)).all()
    assert set(rows) == {1}
    owner = "Examples.Text" if examples_first else "004_6d8c43833ffb9c10"
    assert declaration(session, "Proofs.sum_fin_prod").module == owner


def test_report_missing_path_once(session: Session, tmp_path: Path) -> None:
    missing = tmp_path / "nope"

    report = ingest_paths(session, paths=[str(missing)])

    assert report.exit_code == 2
    assert [str(e) for e in report.errors] == [f"{missing}: no such file or directory"]


@pytest.mark.parametrize("content", [None, "notes.md"])
def test_exit_2_when_folder_has_no_documents(
    session: Session, tmp_path: Path, content: str | None
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    if content:
        (folder / content).write_text("# not a document\n", encoding="utf-8")

    report = ingest_paths(session, paths=[str(folder)])

    assert (report.exit_code, report.files) == (2, 0)
    assert [str(e) for e in report.errors] == [
        f"{folder}: no documents found: looked for doc-gen4 HTML pages (.html, .htm, .xhtml), "
        "doc-gen4 JSON data (.bmp), plain-text doc pages (.txt) and Lean 4 source (.lean)"
    ]


def test_exit_1_when_strict_and_an_error_beside_good_input(session: Session) -> None:
    good = document("A.lean", [theorem("Proofs.t1")])
    binary = IngestError("blob.bin", None, None, "binary file")

    report = ingest_batch(session, batch=batch(good, errors=[binary]))
    clean = ingest_batch(session, batch=batch(good))

    assert (report.exit_code, report.exit_code_strict) == (0, 1)
    assert (clean.exit_code, clean.exit_code_strict) == (0, 0)
