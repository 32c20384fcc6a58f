"""Uploaded files (`POST /ingest`) into a reader batch, like `read_paths` does for folders.

An upload is a set of named files, each a document or a `.tar.gz` archive of documents.

- A file's name is the name the client gave it, as a relative POSIX path
  (`Proofs/Foo.lean` names the module `Proofs.Foo`); an absolute name or one that climbs
  (`..`) is refused with an error for that file only.
- A file larger than the per-file limit is reported without being read.
- The uploaded names form one folder: a Lake package marker among them (`lean-toolchain`)
  sets the module root of the `.lean` files below it, and is not read as a document.
- An archive is recognised by its name (`.tar.gz`, `.tgz`) or by its gzip header. Its
  regular members are read as if the archive were a folder: only document files (`.lean`,
  `.html`, `.htm`, `.xhtml`, `.bmp`, `.txt`), hidden entries skipped, a `.lean` file's
  module taken below the nearest Lake package (a folder with `lakefile.lean`,
  `lakefile.toml` or `lean-toolchain`). Members read before an archive turns out to be
  unreadable or unsafe are kept; the error names the archive.
- As with folders, the first declaration of a name wins and later ones are reported.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import BinaryIO

from theorem_index.model import Document, IngestError
from theorem_index.readers import Batch, UnsafeArchive, iter_tar_gz, read_bytes
from theorem_index.readers.batch import FOLDER_EXTENSIONS, LAKE_MARKERS

__all__ = [
    "ARCHIVE_SUFFIXES",
    "DEFAULT_ARCHIVE_NAME",
    "Upload",
    "UnsafeName",
    "is_archive",
    "read_archive",
    "read_uploads",
    "upload_name",
]

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz")
DEFAULT_ARCHIVE_NAME = "upload.tar.gz"
GZIP_MAGIC = b"\x1f\x8b"


class UnsafeName(ValueError):
    """An uploaded file's name cannot be used as a relative path."""


@dataclass(frozen=True)
class Upload:
    """One uploaded file: the name the client gave it and its (seekable) content."""

    filename: str
    file: BinaryIO


def upload_name(filename: str | None, index: int) -> str:
    """The relative POSIX path an uploaded file is known by (`upload-N` when unnamed)."""
    if not filename or not filename.strip():
        return f"upload-{index}"
    raw = filename.strip().replace("\\", "/")
    path = PurePosixPath(raw)
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        raise UnsafeName(f"unsafe file name in upload: {filename!r} (expected a relative path)")
    parts = [p for p in path.parts if p not in ("", ".")]
    if not parts:
        raise UnsafeName(f"unsafe file name in upload: {filename!r} (expected a relative path)")
    return "/".join(parts)


def is_archive(name: str, head: bytes) -> bool:
    return name.lower().endswith(ARCHIVE_SUFFIXES) or head.startswith(GZIP_MAGIC)


def _size(file: BinaryIO) -> int:
    file.seek(0, os.SEEK_END)
    size = file.tell()
    file.seek(0)
    return size


def _too_large(name: str, size: int, limit: int) -> Document:
    from theorem_index.readers import errors

    message = errors.too_large(size, limit)
    return Document(name, "unknown", "", errors=[IngestError(name, None, None, message)])


def _is_document(path: str) -> bool:
    pure = PurePosixPath(path)
    if any(part.startswith(".") for part in pure.parts):
        return False
    return pure.suffix.lower() in FOLDER_EXTENSIONS


def _package_roots(paths: Iterable[str]) -> set[str]:
    """Folders of the archive that hold a Lake package marker ("" is the archive root)."""
    roots: set[str] = set()
    for path in paths:
        pure = PurePosixPath(path)
        if pure.name in LAKE_MARKERS:
            parent = pure.parent.as_posix()
            roots.add("" if parent == "." else parent)
    return roots


def _relative_to_package(path: str, roots: set[str]) -> str:
    """`path` below the nearest enclosing package root (itself when there is none)."""
    pure = PurePosixPath(path)
    for parent in pure.parents:
        key = "" if parent.as_posix() == "." else parent.as_posix()
        if key in roots:
            return pure.as_posix() if not key else pure.relative_to(key).as_posix()
    return path


def read_archive(name: str, data: bytes, *, max_file_bytes: int) -> Batch:
    """The documents of a `.tar.gz` archive (see the module docstring)."""
    batch = Batch()
    read: list[Document | None] = []
    deferred: list[tuple[int, str, bytes]] = []  # .lean members wait for the package roots
    roots: set[str] = set()
    try:
        for member, content in iter_tar_gz(data):
            roots |= _package_roots([member])
            if not _is_document(member):
                continue
            if member.endswith(".lean"):
                deferred.append((len(read), member, content))
                read.append(None)
            else:
                read.append(read_bytes(member, content, max_file_bytes=max_file_bytes))
    except UnsafeArchive as exc:
        batch.errors.append(IngestError(name, None, None, str(exc)))
    for position, member, content in deferred:
        rel = _relative_to_package(member, roots)
        read[position] = read_bytes(member, content, rel=rel, max_file_bytes=max_file_bytes)
    batch.documents.extend(doc for doc in read if doc is not None)
    batch.files = len(batch.documents)
    if not batch.documents and not batch.errors:
        expected = ", ".join(sorted(FOLDER_EXTENSIONS))
        batch.errors.append(
            IngestError(name, None, None, f"no documents in archive: expected {expected} files")
        )
    return batch


def _merge(into: Batch, other: Batch) -> None:
    into.documents.extend(other.documents)
    into.errors.extend(other.errors)
    into.files += other.files


def _is_marker_only(name: str) -> bool:
    """A Lake package marker that is not itself a document (`lean-toolchain`)."""
    pure = PurePosixPath(name)
    return pure.name in LAKE_MARKERS and pure.suffix.lower() not in FOLDER_EXTENSIONS


def read_uploads(uploads: Iterable[Upload], *, max_file_bytes: int) -> Batch:
    """Read every uploaded file (documents and archives) into one batch. The uploaded
    names are one folder: a Lake package marker among them (`lean-toolchain`) sets the
    module root of the `.lean` files below it, as in an archive."""
    batch = Batch()
    named: list[tuple[str, Upload]] = []
    for index, upload in enumerate(uploads, start=1):
        try:
            named.append((upload_name(upload.filename, index), upload))
        except UnsafeName as exc:
            batch.errors.append(IngestError(upload.filename, None, None, str(exc)))
    roots = _package_roots(name for name, _ in named)
    for name, upload in named:
        if _is_marker_only(name):
            continue
        size = _size(upload.file)
        head = upload.file.read(len(GZIP_MAGIC))
        upload.file.seek(0)
        if is_archive(name, head):
            _merge(batch, read_archive(name, upload.file.read(), max_file_bytes=max_file_bytes))
            continue
        batch.files += 1
        if size > max_file_bytes:
            batch.documents.append(_too_large(name, size, max_file_bytes))
            continue
        rel = _relative_to_package(name, roots) if name.endswith(".lean") else name
        data = upload.file.read()
        batch.documents.append(read_bytes(name, data, rel=rel, max_file_bytes=max_file_bytes))
    return batch  # copies of one name are left to ingestion to report (`ingestion.owners`)
