"""Coverage reports kept on disk, so that asking again costs a file read, not an analysis.

Deciding which theorems get a checker imports the whole derivation and analyses every
statement: about 0.2 s on the example pages and seconds on a corpus of thousands. The
answer depends on nothing but the declarations, the code that decides, and the module
filter, so each report is filed under a key made of:

- the database (its URL) and its declarations' fingerprint (`declarations_fingerprint`:
  any ingestion, revision or removal changes it);
- the code: a hash of every source file of `app`, `checkers` and `theorem_index`, and,
  for the checker modules the settings name and the installed vocabulary packs, which
  live outside the project, each module's file, size and modification time with its
  distribution's version;
- the module filter.

Anything else gets a new key, and a file under an old key is simply never read again (the
store keeps the newest `KEEP` files). A report that cannot be read back (truncated,
written by another version) counts as absent. The files live in `<data_dir>/coverage`;
`PROOFBRIDGE_COVERAGE_STORE=0` turns the store off.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from app.schemas import CoverageOut

__all__ = ["KEEP", "CoverageStore", "code_identity"]

KEEP = 64
VARIABLE = "PROOFBRIDGE_COVERAGE_STORE"
FORMAT = 1
_ROOT = Path(__file__).resolve().parents[3]
_PACKAGES = ("app", "checkers", "theorem_index")
# the entry point groups of packs: checkers.library.plugins.GROUP, checkers.registry.packs
_PACK_GROUPS = ("proofbridge.vocabulary", "proofbridge.checkers")


@functools.cache
def _sources_hash() -> str:
    h = hashlib.sha256()
    for package in _PACKAGES:
        for path in sorted((_ROOT / package).rglob("*.py")):
            h.update(str(path.relative_to(_ROOT)).encode())
            h.update(b"\0")
            h.update(path.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


def _module_stamp(module: str) -> str:
    """Where `module` is and when it last changed, without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    origin = spec.origin if spec is not None else None
    if not origin or not os.path.exists(origin):
        return f"{module}: not found"
    stat = os.stat(origin)
    stamp = f"{module}: {origin} {stat.st_size} {stat.st_mtime_ns}"
    places = spec.submodule_search_locations if spec is not None else None
    if places:  # a package: every module under it (a pack registers checkers in several)
        h = hashlib.sha256()
        for place in places:
            for path in sorted(Path(place).rglob("*.py")):
                st = path.stat()
                h.update(f"{path} {st.st_size} {st.st_mtime_ns}\0".encode())
        stamp += f" tree {h.hexdigest()[:16]}"
    return stamp


def _outside(module: str) -> bool:
    return module.split(".", 1)[0] not in _PACKAGES


def code_identity(checker_modules: Iterable[str]) -> str:
    """The code that decides coverage: the project's sources, and the modules outside it."""
    parts = [f"format={FORMAT}", f"sources={_sources_hash()}"]
    parts += [_module_stamp(m) for m in sorted(set(checker_modules)) if _outside(m)]
    # the installed packs: their vocabulary and their registered checkers decide it too
    for group in _PACK_GROUPS:
        for ep in sorted(metadata.entry_points(group=group), key=lambda e: e.name):
            module = ep.value.split(":", 1)[0]
            if not _outside(module):
                continue
            version = ep.dist.version if ep.dist is not None else "?"
            parts.append(f"{group} {ep.name}={ep.value} {version} {_module_stamp(module)}")
    return "\n".join(parts)


class CoverageStore:
    """The reports of one database, read by the code of `checker_modules`, kept under
    `directory` (None: nothing is kept): `load(key)`, `save(key, report)`, with
    `key(fingerprint, module)`."""

    def __init__(
        self, directory: Path | None, database_url: str, checker_modules: Iterable[str] = ()
    ) -> None:
        off = os.environ.get(VARIABLE, "").strip().lower() in ("0", "false", "no", "off")
        self.directory = None if off else directory
        self.database_url = database_url
        self.checker_modules = tuple(checker_modules)

    @classmethod
    def for_settings(cls, settings: Any) -> CoverageStore:
        return cls(settings.data_dir / "coverage", settings.database_url, settings.checker_modules)

    @functools.cached_property
    def code(self) -> str:
        return code_identity(self.checker_modules)

    def key(self, fingerprint: tuple[Any, ...], module: str | None) -> str:
        text = "\n".join((self.database_url, repr(fingerprint), self.code, repr(module)))
        return hashlib.sha256(text.encode()).hexdigest()

    def _path(self, key: str) -> Path | None:
        return None if self.directory is None else self.directory / f"{key}.json"

    def load(self, key: str) -> CoverageOut | None:
        path = self._path(key)
        if path is None:
            return None
        try:
            return CoverageOut.model_validate_json(path.read_bytes())
        except (OSError, ValueError, ValidationError):
            return None

    def save(self, key: str, report: CoverageOut) -> None:
        path = self._path(key)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            tmp.write_text(json.dumps(report.model_dump(mode="json")), encoding="utf-8")
            os.replace(tmp, path)
            self._prune(path.parent)
        except OSError:
            return  # a store that cannot be written is a store that is not used

    @staticmethod
    def _prune(directory: Path) -> None:
        files = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
        for old in files[:-KEEP]:
            old.unlink(missing_ok=True)
