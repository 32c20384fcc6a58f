"""Proof status: each reader's reading of whether a proof is complete, a project's own
stand-ins for `sorry`, and what a proof rests on through other proofs."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from theorem_index.model import PROVED, UNKNOWN, UNPROVED, Declaration
from theorem_index.proofs import ProofRecord, resting, with_markers
from theorem_index.readers import read_bytes, read_paths

SOURCE = """
namespace P

/-- mentions sorry in its docstring, proved -/
theorem base (x : Nat) : x + 0 = x := by simp

theorem wrong (x : Nat) : x * 2 = x := by
  sorry

theorem admitted (x : Nat) : x - x = 0 := by admit

theorem in_comment (x : Nat) : x * 1 = x := by
  -- sorry was here
  simp /- and sorry here -/

theorem in_string : "sorry" = "sorry" := rfl

theorem with_macro (x : Nat) : 0 + x = x := sorry_proof

theorem term_mode (x : Nat) : x = x := sorry

def partial_def (n : Nat) : Nat := n
decreasing_by sorry

theorem uses (x : Nat) : x * 2 = x := by exact wrong x

axiom assumed (x : Nat) : x = x + 0

theorem by_axiom (x : Nat) : x = x + 0 := sorryAx _
end P
"""


def _read(text: str = SOURCE) -> dict[str, Declaration]:
    doc = read_bytes("P.lean", text.encode())
    assert doc.errors == []
    return {d.name: d for d in doc.declarations}


def test_lean_source_reads_sorry_and_admit_in_the_proof_only() -> None:
    decls = _read()
    proof = {name.removeprefix("P."): d.proof for name, d in decls.items()}
    assert proof == {
        "base": PROVED,
        "wrong": UNPROVED,
        "admitted": UNPROVED,
        "in_comment": PROVED,
        "in_string": PROVED,
        "with_macro": PROVED,  # a macro is a setting (with_markers), not Lean's own word
        "term_mode": UNPROVED,
        "partial_def": UNPROVED,  # `decreasing_by sorry` leaves it incomplete too
        "uses": PROVED,
        "assumed": UNPROVED,  # no proof at all: what rests on it is not fully proved
        "by_axiom": UNPROVED,  # sorryAx, the term `sorry` elaborates to
    }
    assert decls["P.wrong"].sorried and not decls["P.base"].sorried
    assert "wrong" in decls["P.uses"].proof_uses
    assert "sorry_proof" in decls["P.with_macro"].proof_uses


def test_a_declared_macro_makes_a_proof_unproved() -> None:
    decls = _read()
    assert with_markers(decls["P.with_macro"], {"sorry_proof"}).proof == UNPROVED
    assert with_markers(decls["P.base"], {"sorry_proof"}).proof == PROVED
    # a qualified stand-in (`Proofs.sorry_proof`) is found by its last component too
    qualified = replace(decls["P.base"], proof_uses=("Tactic.sorry_proof",))
    assert with_markers(qualified, {"sorry_proof"}).proof == UNPROVED
    # nothing turns an unknown proof into a known one
    unknown = replace(decls["P.base"], proof=UNKNOWN, proof_uses=("sorry_proof",))
    assert with_markers(unknown, {"sorry_proof"}).proof == UNKNOWN


def test_docgen_html_mark_and_json_field() -> None:
    html = b"""<html><body><main>
<div class="decl sorried" id="A.s"><div class="theorem">
<div class="decl_header"><span class="decl_kind">theorem</span>
<span class="decl_name"><a href="#A.s">A.s</a></span>
<span class="decl_args"> :</span><div class="decl_type">1 = 1</div></div></div></div>
<div class="decl" id="A.t"><div class="theorem">
<div class="decl_header"><span class="decl_kind">theorem</span>
<span class="decl_name"><a href="#A.t">A.t</a></span>
<span class="decl_args"> :</span><div class="decl_type">2 = 2</div></div></div></div>
<div class="decl" id="A.v"><div class="theorem">
<div class="decl_header"><span class="decl_kind">theorem</span>
<span class="decl_name" title="declaration uses 'sorry'"><a href="#A.v">A.v</a></span>
<span class="decl_args"> :</span><div class="decl_type">3 = 3</div></div></div></div>
</main></body></html>"""
    doc = read_bytes("A.html", html)
    # the div's class, or the title doc-gen4 puts on the name
    assert {d.name: d.proof for d in doc.declarations} == {
        "A.s": UNPROVED,
        "A.t": PROVED,
        "A.v": UNPROVED,
    }

    header = (
        '<div class="decl_header"><span class="decl_kind">theorem</span>'
        '<span class="decl_name"><a href="./A.html#{0}">{0}</a></span>'
        '<span class="decl_args"> :</span><div class="decl_type">1 = 1</div></div>'
    )

    def entry(name: str, marked: bool = False, **extra: object) -> dict[str, object]:
        info = {"name": name, "kind": "theorem", "doc": "", "docLink": "", "sourceLink": ""}
        text = header.format(name)
        if marked:
            text = text.replace('"decl_name"', '"decl_name" title="declaration uses \'sorry\'"')
        return {"info": info | extra, "header": text}

    data = {
        "name": "A",
        "declarations": [
            entry("A.s", sorried=True),
            entry("A.t", sorried=False),
            entry("A.u"),
            entry("A.w", marked=True),
        ],
        "instances": [],
    }
    doc = read_bytes("declaration-data-A.bmp", json.dumps(data).encode())
    assert doc.errors == []
    assert {d.name: d.proof for d in doc.declarations} == {
        "A.s": UNPROVED,
        "A.t": PROVED,
        "A.u": UNKNOWN,  # the JSON does not say: never shown as proved
        "A.w": UNPROVED,  # the header's mark
    }


def test_a_text_page_says_nothing_of_proofs(seed_page: Path) -> None:
    decls = read_paths([seed_page]).documents[0].declarations
    assert decls and all(d.proof == UNKNOWN for d in decls)


def test_resting_follows_proofs_through_namespaces_and_opens() -> None:
    records = [
        ProofRecord("A.lemma", UNPROVED, "A", (), ()),
        ProofRecord("A.middle", PROVED, "A", (), ("lemma", "h", "Nat.succ")),
        ProofRecord("B.top", PROVED, "B", ("A",), ("middle",)),
        ProofRecord("B.other", PROVED, "B", (), ("middle",)),  # `middle` is not A's here
        ProofRecord("C.self", UNPROVED, "C", (), ("self", "A.lemma")),
        ProofRecord("D.loop1", PROVED, "D", (), ("loop2",)),
        ProofRecord("D.loop2", PROVED, "D", (), ("loop1", "A.middle")),
        ProofRecord("E.fine", PROVED, "E", (), ("A.fine2",)),
        ProofRecord("A.fine2", PROVED, "A", (), ()),
    ]
    found = resting(records)
    assert found["A.middle"] == ("A.lemma",)
    assert found["B.top"] == ("A.lemma",)  # through A.middle
    assert "B.other" not in found
    assert found["C.self"] == ("A.lemma",)  # never itself
    assert found["D.loop1"] == ("A.lemma",) and found["D.loop2"] == ("A.lemma",)
    assert "E.fine" not in found and "A.lemma" not in found


def test_resting_handles_chains_deeper_than_the_recursion_limit() -> None:
    n = 5000
    records = [ProofRecord("L0", UNPROVED)]
    records += [ProofRecord(f"L{i}", PROVED, "", (), (f"L{i - 1}",)) for i in range(1, n)]
    found = resting(records)
    assert found[f"L{n - 1}"] == ("L0",)
    assert len(found) == n - 1


def test_upstream_tree_is_read_as_proved(upstream_tree: Path) -> None:
    # the upstream project is proved with no `sorry`, though its docstrings say the word
    decls = [d for doc in read_paths([upstream_tree]).documents for d in doc.declarations]
    assert len(decls) > 10_000
    assert [d.name for d in decls if d.proof != PROVED] == []


def _docgen_db(path: Path, rows: list[tuple[str, int]]) -> Path:
    """A database with doc-gen4's `name_info` table (the columns its schema declares)."""
    import sqlite3

    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE name_info (module_name TEXT NOT NULL, position INTEGER NOT NULL, "
        "kind TEXT, name TEXT NOT NULL, type BLOB NOT NULL, sorried INTEGER NOT NULL, "
        "render INTEGER NOT NULL, PRIMARY KEY (module_name, position))"
    )
    conn.executemany(
        "INSERT INTO name_info VALUES ('A', ?, 'theorem', ?, x'00', ?, 1)",
        [(i, name, sorried) for i, (name, sorried) in enumerate(rows)],
    )
    conn.commit()
    conn.close()
    return path


def test_docgen_database_gives_proof_marks(tmp_path: Path) -> None:
    docs = tmp_path / "doc"
    docs.mkdir()
    _docgen_db(docs / "api-docs.db", [("A.s", 1), ("A.t", 0)])
    (docs / "other.db").write_bytes(b"not read: only api-docs.db is, inside a folder")
    batch = read_paths([docs])
    assert batch.proof_marks == {"A.s": True, "A.t": False}
    assert batch.errors == [] and batch.files == 1
    # named itself, a database of another kind is an error, with the file named
    wrong = tmp_path / "x.db"
    wrong.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    (error,) = read_paths([wrong]).errors
    assert error.file == str(wrong)
    other = tmp_path / "notes.db"
    other.write_text("plain text", encoding="utf-8")
    (error,) = read_paths([other]).errors
    assert "not a SQLite database" in error.message


def test_resting_through_a_cycle_does_not_depend_on_the_order() -> None:
    # A and B use each other (a `mutual` block); A also uses D, unproved
    records = [
        ProofRecord("A", PROVED, "", (), ("B", "D")),
        ProofRecord("B", PROVED, "", (), ("A",)),
        ProofRecord("D", UNPROVED),
    ]
    for order in (records, records[::-1], [records[1], records[2], records[0]]):
        assert resting(order) == {"A": ("D",), "B": ("D",)}
