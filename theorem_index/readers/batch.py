"""Reading many inputs at once: paths, folders and uploaded bytes.

`read_paths` walks folders (sorted, so the result is deterministic), checks
each file's size before reading it, dispatches it by `detect_format`, and
keeps the first occurrence of every declaration name: a later one is
dropped with an error naming where the first came from.

Inside a folder, only files that can be documents are read (`.lean`,
`.html`, `.htm`, `.xhtml`, `.bmp`, `.txt`, and doc-gen4's `api-docs.db`, which gives
proof status only), and hidden entries (`.git`, `.lake`) are skipped; a file named
explicitly is always read. A Lean file's
module is its path below the nearest Lake package (a folder holding
`lakefile.lean`, `lakefile.toml` or `lean-toolchain`) inside the folder
given, else below the folder given.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from theorem_index.model import Document, IngestError
from theorem_index.readers import errors, sniff, storable
from theorem_index.readers.docgen_db import DATABASE_NAME, read_proof_marks
from theorem_index.readers.docgen_html import read_html_page
from theorem_index.readers.docgen_json import read_json_data
from theorem_index.readers.lean_source import read_lean_source
from theorem_index.readers.text_page import read_text_page

MAX_FILE_BYTES = 50 * 2**20
FOLDER_EXTENSIONS = frozenset({".lean", ".html", ".htm", ".xhtml", ".bmp", ".txt"})
LAKE_MARKERS = ("lakefile.lean", "lakefile.toml", "lean-toolchain")
_READERS = {
    sniff.HTML: read_html_page,
    sniff.JSON: read_json_data,
    sniff.TEXT: read_text_page,
    sniff.LEAN: read_lean_source,
}


@dataclass
class Batch:
    """What a set of inputs gave: documents, batch-level errors and the file count."""

    documents: list[Document] = field(default_factory=list)
    errors: list[IngestError] = field(default_factory=list)
    files: int = 0
    # doc-gen4's database: name -> whether it uses `sorry` (docgen_db), for ingestion to
    # apply to the declarations it has
    proof_marks: dict[str, bool] = field(default_factory=dict)

    def all_errors(self) -> list[IngestError]:
        """Batch-level errors followed by every document's own."""
        return [*self.errors, *(e for d in self.documents for e in d.errors)]


def _stem(rel: str) -> str:
    name = PurePosixPath(rel.replace("\\", "/")).name
    return name.rsplit(".", 1)[0] if "." in name else name


def read_bytes(
    name: str, data: bytes, *, rel: str | None = None, max_file_bytes: int | None = None
) -> Document:
    """Read one document from bytes (an upload, a tar.gz member).

    `name` is what errors call the file; `rel` (default: `name`) is its path
    below the root it came from, which names the module of HTML pages and
    Lean files (`Proofs/Foo.html` -> `Proofs.Foo`).
    """
    name = storable.visible(name)
    rel = name if rel is None else storable.visible(rel)
    if max_file_bytes is not None and len(data) > max_file_bytes:
        return _failed(name, None, errors.too_large(len(data), max_file_bytes))
    text, problem = sniff.decode(name, data)
    if text is None:
        assert problem is not None
        return Document(name, "unknown", "", errors=[problem])
    form = sniff.detect_format(rel, data[: sniff.HEAD_BYTES])
    if form is None:
        return _failed(name, None, errors.UNKNOWN_FORMAT)
    if form == sniff.TEXT:
        doc = read_text_page(name, text, _stem(rel))
    else:
        doc = _READERS[form](name, text, rel)
    if problem is not None:
        doc.errors.insert(0, problem)
    return storable.admit(doc, text)


def _failed(name: str, form: str | None, message: str) -> Document:
    return Document(name, form or "unknown", "", errors=[IngestError(name, None, None, message)])


def _walk(root: Path, databases: bool = False) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for filename in sorted(filenames):
            if filename.startswith("."):
                continue
            if os.path.splitext(filename)[1].lower() in FOLDER_EXTENSIONS or (
                databases and filename == DATABASE_NAME
            ):
                yield Path(dirpath) / filename


def _read_marks(batch: Batch, path: Path) -> None:
    marks, problems = read_proof_marks(path)
    batch.proof_marks.update(marks)
    batch.errors.extend(problems)
    batch.files += 1


def _package_root(file: Path, root: Path, packages: dict[Path, bool]) -> Path:
    """The nearest folder from `file` up to `root` that holds a Lake package marker."""
    folder = file.parent
    while folder != root and root in folder.parents:
        if folder not in packages:
            packages[folder] = any((folder / marker).is_file() for marker in LAKE_MARKERS)
        if packages[folder]:
            return folder
        folder = folder.parent
    return root


def _read_file(path: Path, rel: str, max_file_bytes: int) -> Document:
    name = str(path)
    try:
        size = path.stat().st_size
        if size > max_file_bytes:
            return _failed(name, None, errors.too_large(size, max_file_bytes))
        data = path.read_bytes()
    except OSError as exc:
        return _failed(name, None, errors.unreadable(exc.strerror or str(exc)))
    return read_bytes(name, data, rel=rel)


def read_paths(
    paths: Sequence[str | os.PathLike[str]],
    *,
    max_file_bytes: int = MAX_FILE_BYTES,
    keep_duplicates: bool = False,
) -> Batch:
    """Read files and folders (walked recursively, in sorted order). `keep_duplicates`
    keeps every declaration of a name, for a caller that decides which one counts."""
    batch = Batch()
    for given in paths:
        path = Path(given)
        if path.is_dir():
            packages: dict[Path, bool] = {}
            for file in _walk(path, databases=True):
                if file.name == DATABASE_NAME:
                    _read_marks(batch, file)
                    continue
                base = _package_root(file, path, packages) if file.suffix == ".lean" else path
                rel = file.relative_to(base).as_posix()
                batch.documents.append(_read_file(file, rel, max_file_bytes))
                batch.files += 1
        elif path.is_file() and path.suffix == ".db":
            _read_marks(batch, path)
        elif path.is_file():
            batch.documents.append(_read_file(path, path.name, max_file_bytes))
            batch.files += 1
        else:
            batch.errors.append(
                IngestError(str(given), None, None, errors.no_such_path(str(given)))
            )
    if not keep_duplicates:
        drop_duplicates(batch)
    return batch


def read_files_under(
    root: str | os.PathLike[str],
    files: Sequence[str | os.PathLike[str]],
    *,
    max_file_bytes: int = MAX_FILE_BYTES,
) -> Batch:
    """Read some of the files of the folder `root` as `read_paths([root])` reads them (the
    same module names), and only those: what a watcher re-reads when they change."""
    top = Path(root)
    batch = Batch()
    packages: dict[Path, bool] = {}
    for given in files:
        file = Path(given)
        if top.is_file() or file == top:
            rel = file.name
        else:
            base = _package_root(file, top, packages) if file.suffix == ".lean" else top
            rel = file.relative_to(base).as_posix()
        batch.documents.append(_read_file(file, rel, max_file_bytes))
        batch.files += 1
    return batch


def drop_duplicates(batch: Batch) -> None:
    """Keep the first declaration of each name; report every later one."""
    first: dict[str, tuple[str, int | None]] = {}
    for doc in batch.documents:
        kept = []
        for decl in doc.declarations:
            line = decl.statement_line
            if decl.location is not None and decl.location.file == doc.file:
                line = decl.location.line_start
            seen = first.get(decl.name)
            if seen is None:
                first[decl.name] = (doc.file, line)
                kept.append(decl)
                continue
            message = errors.duplicate(decl.name, seen[0], seen[1])
            batch.errors.append(IngestError(doc.file, line, None, message))
        doc.declarations[:] = kept
