"""Dispatch, folder walks, archives, the shipped examples and the benchmark corpus."""

from __future__ import annotations

import importlib.util
import io
import sys
import tarfile
from collections import Counter
from pathlib import Path

import pytest

from theorem_index.readers import UnsafeArchive, detect_format, iter_tar_gz, read_bytes, read_paths

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
REGISTERED = ("Proofs.sum_fin_prod", "Proofs.vit_rowDenseW_grad_bridge", "Proofs.pdiv_rowLN_beta")


@pytest.mark.parametrize(
    ("name", "head", "expected"),
    [
        ("A/B.lean", b"import Mathlib\n", "lean"),
        ("page.html", b"<!DOCTYPE html><html>", "docgen-html"),
        ("declaration-data-A.bmp", b'{"name": "A", "declarations": []}', "docgen-json"),
        ("picture.bmp", b"BM6\x00\x00\x00", None),
        ("seed.txt", b"Title #\n", "text"),
        ("upload", b"  <html lang='en'>", "docgen-html"),
        ("upload", b'{"name": "A", "declarations": []}', "docgen-json"),
        ("upload", b"Title\n\ntheorem A.t (x : R) : x = x\n", "text"),
        ("upload", b"/-! doc -/\nnamespace A\n", "lean"),
        ("upload", b"a,b,c\n", None),
        ("notes.csv", b"theorem,lemma\n", None),
    ],
)
def test_detect_format_by_name_then_content(name: str, head: bytes, expected: str | None) -> None:
    assert detect_format(name, head) == expected


def _tar(members: list[tarfile.TarInfo | tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                archive.addfile(member)
            else:
                info = tarfile.TarInfo(member[0])
                info.size = len(member[1])
                archive.addfile(info, io.BytesIO(member[1]))
    return buffer.getvalue()


def test_iter_tar_gz_yields_regular_files_and_skips_links() -> None:
    link = tarfile.TarInfo("docs/link.txt")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/passwd"
    folder = tarfile.TarInfo("docs")
    folder.type = tarfile.DIRTYPE
    data = _tar([folder, ("docs/./A.txt", b"theorem A.t : True\n"), link])
    assert list(iter_tar_gz(data)) == [("docs/A.txt", b"theorem A.t : True\n")]


@pytest.mark.parametrize("name", ["../evil.txt", "/etc/evil.txt", "docs/../../evil.txt"])
def test_iter_tar_gz_refuses_paths_outside_the_archive(name: str) -> None:
    with pytest.raises(UnsafeArchive) as caught:
        list(iter_tar_gz(_tar([(name, b"x")])))
    assert str(caught.value) == f"unsafe path in archive: {name}"


def test_iter_tar_gz_refuses_an_oversized_member_before_reading_it() -> None:
    with pytest.raises(UnsafeArchive) as caught:
        list(iter_tar_gz(_tar([("big.txt", b"x" * 11)]), max_member_bytes=10))
    assert str(caught.value) == "archive member too large: big.txt: 11 bytes (limit 10)"


def test_iter_tar_gz_refuses_data_that_is_not_an_archive() -> None:
    with pytest.raises(UnsafeArchive) as caught:
        list(iter_tar_gz(b"not gzip"))
    assert str(caught.value).startswith("not a readable .tar.gz archive: ")


def test_read_archive_members_name_modules_by_their_path() -> None:
    data = _tar([("Proofs/Foo.lean", b"theorem t : True := trivial\n")])
    docs = [read_bytes(name, body) for name, body in iter_tar_gz(data)]
    assert [(d.module, d.declarations[0].name) for d in docs] == [("Proofs.Foo", "t")]


def test_read_folder_walk_is_sorted_and_skips_hidden_and_other_files(tmp_path: Path) -> None:
    for rel in ("b.txt", "a.txt", "sub/c.txt", ".git/d.txt", "script.js", "notes.md"):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"theorem T.{path.stem} : True\n", encoding="utf-8")
    batch = read_paths([tmp_path])
    assert batch.files == 3
    assert [Path(d.file).relative_to(tmp_path).as_posix() for d in batch.documents] == [
        "a.txt",
        "b.txt",
        "sub/c.txt",
    ]
    explicit = read_paths([tmp_path / "notes.md"])
    assert [d.name for d in explicit.documents[0].declarations] == ["T.notes"]


def test_read_examples_gives_four_forms_without_errors_or_duplicates() -> None:
    batch = read_paths([EXAMPLES])
    assert batch.all_errors() == []
    assert batch.files == 4
    forms = {d.format: d.module for d in batch.documents}
    assert forms == {
        "docgen-html": "Examples.Html",
        "docgen-json": "Examples.Json",
        "lean": "Examples.Lean",
        "text": "Examples.Text",
    }
    names = [d.name for doc in batch.documents for d in doc.declarations]
    assert len(names) == len(set(names))
    assert all(n.startswith("Examples.") or n.startswith("Proofs.") for n in names)
    kinds = Counter(d.kind for doc in batch.documents for d in doc.declarations)
    assert kinds["theorem"] >= 16 and kinds["def"] >= 6


def test_read_examples_keeps_the_registered_seed_theorems_verbatim(seed_page: Path) -> None:
    examples = read_paths([EXAMPLES])
    holders = {
        doc.module for doc in examples.documents for d in doc.declarations if d.name in REGISTERED
    }
    assert holders == {"Examples.Text"}
    ours = {d.name: d for doc in examples.documents for d in doc.declarations}
    seeds = {d.name: d for d in read_paths([seed_page]).documents[0].declarations}
    for name in (*REGISTERED, "Proofs.rowDense_weight_grad"):
        assert (ours[name].binders, ours[name].statement) == (
            seeds[name].binders,
            seeds[name].statement,
        )
    assert (
        ours["Proofs.rowDense_weight_grad"].equations
        == seeds["Proofs.rowDense_weight_grad"].equations
    )


def _corpus_module():
    spec = importlib.util.spec_from_file_location("bench_corpus", REPO / "bench" / "corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("form", ["text", "lean"])
def test_generate_corpus_reads_back_every_declaration(tmp_path: Path, form: str) -> None:
    corpus = _corpus_module()
    files = corpus.generate(250, form, tmp_path, seed=3)
    assert len(files) == 3
    batch = read_paths([tmp_path])
    assert batch.all_errors() == []
    decls = [d for doc in batch.documents for d in doc.declarations]
    assert len(decls) == 250
    assert {d.kind for d in decls} == {"theorem", "def"}
    again = tmp_path / "again"
    corpus.generate(250, form, again, seed=3)
    assert [f.read_bytes() for f in files] == [
        (again / f.relative_to(tmp_path)).read_bytes() for f in files
    ]
