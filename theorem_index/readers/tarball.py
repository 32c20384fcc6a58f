"""The members of an uploaded `.tar.gz`, safely.

Only regular files come out; links, devices and folders are passed over.
A member whose path is absolute or climbs out of the archive (`..`) is
refused, as is one larger than the per-member limit (checked before its
data is read), too many members, or too many bytes unpacked in all. A
refusal stops the iteration with `UnsafeArchive`, whose message names the
member: an archive that tries any of this is not read further.
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterator
from pathlib import PurePosixPath

MAX_MEMBER_BYTES = 50 * 2**20
MAX_MEMBERS = 100_000
MAX_TOTAL_BYTES = 512 * 2**20


class UnsafeArchive(ValueError):
    """The archive holds something that must not be unpacked."""


def _safe_name(name: str) -> str:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or name.startswith(("/", "\\")):
        raise UnsafeArchive(f"unsafe path in archive: {name}")
    parts = [p for p in path.parts if p not in ("", ".")]
    if not parts or ":" in parts[0]:
        raise UnsafeArchive(f"unsafe path in archive: {name}")
    return "/".join(parts)


def iter_tar_gz(
    data: bytes,
    *,
    max_member_bytes: int = MAX_MEMBER_BYTES,
    max_members: int = MAX_MEMBERS,
    max_total_bytes: int = MAX_TOTAL_BYTES,
) -> Iterator[tuple[str, bytes]]:
    """(path, bytes) of every regular file in the archive, in archive order."""
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:gz")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise UnsafeArchive(f"not a readable .tar.gz archive: {exc}") from exc
    with archive:
        count = 0
        total = 0
        while True:
            try:
                member = archive.next()
            except (tarfile.TarError, OSError, EOFError) as exc:
                raise UnsafeArchive(f"not a readable .tar.gz archive: {exc}") from exc
            if member is None:
                return
            count += 1
            if count > max_members:
                raise UnsafeArchive(f"too many members in archive (limit {max_members})")
            if not member.isreg():
                continue
            name = _safe_name(member.name)
            if member.size > max_member_bytes:
                raise UnsafeArchive(
                    f"archive member too large: {name}: {member.size} bytes "
                    f"(limit {max_member_bytes})"
                )
            total += member.size
            if total > max_total_bytes:
                raise UnsafeArchive(f"archive too large unpacked (limit {max_total_bytes} bytes)")
            handle = archive.extractfile(member)
            if handle is None:
                continue
            yield name, handle.read()
