"""Declarations by name, each read when first asked for.

Checking a few theorems of a large corpus reads few of its declarations: the theorems,
the definitions their statements reach, the constructors and structure fields. An
environment over `LazyDeclarations` knows every name from the start (name resolution
needs them all) and reads a declaration's record on first use, through `fetch`; the
records that the constructor index reads come from `structure`, in one read.

Iterating the values (`values`, `items`: the whole corpus, as coverage does) reads every
record not yet read, at once. A name whose record is gone by the time it is read (removed
meanwhile) is absent.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from theorem_index.model import Declaration

__all__ = ["DeclarationsUnavailable", "LazyDeclarations", "structure_candidate"]


class DeclarationsUnavailable(RuntimeError):
    """Reading declarations failed (the database went away, say). The environment keeps
    the first such failure (`LazyDeclarations.failure`): whoever runs checks in it must
    not record what a check concluded without the declarations it could not read."""


# Records read one name at a time before the rest are read at once: past this many, a
# caller is walking the corpus and one read is cheaper than thousands.
SINGLE_READS = 256


def structure_candidate(decl: Declaration) -> bool:
    """Whether the constructor index may need `decl`: a constructor, or a definition whose
    binders name `self` (a structure's field as the reader lists it)."""
    return decl.kind == "ctor" or (decl.kind == "def" and "(self : " in decl.binders)


class LazyDeclarations(Mapping[str, Declaration]):
    """`names` in order; `fetch(names)` gives the records of those names (None: of every
    name) and `structure()` those of every `structure_candidate`, in the same order."""

    def __init__(
        self,
        names: Iterable[str],
        fetch: Callable[[Sequence[str] | None], Iterable[Declaration]],
        structure: Callable[[], Iterable[Declaration]],
    ) -> None:
        self._order = list(dict.fromkeys(names))
        self._names = frozenset(self._order)
        self._fetch = fetch
        self._structure = structure
        self._read: dict[str, Declaration | None] = {}
        self._complete = False
        self._singles = 0
        self._lock = threading.Lock()
        self.failure: BaseException | None = None

    def _reading(self, read: Callable[[], Iterable[Declaration]]) -> list[Declaration]:
        try:
            return list(read())
        except Exception as exc:
            if self.failure is None:
                self.failure = exc
            raise DeclarationsUnavailable(f"reading the declarations failed: {exc}") from exc

    def _take(self, records: Iterable[Declaration], asked: Iterable[str]) -> None:
        got = {d.name: d for d in records if d.name in self._names}
        for name in asked:
            self._read.setdefault(name, got.get(name))
        for name, decl in got.items():
            self._read.setdefault(name, decl)

    def _read_all(self) -> None:
        with self._lock:
            if not self._complete:
                self._take(self._reading(lambda: self._fetch(None)), self._order)
                self._complete = True

    def __getitem__(self, name: str) -> Declaration:
        if name not in self._names:
            raise KeyError(name)
        if name not in self._read:
            if self._singles >= SINGLE_READS:
                self._read_all()
            else:
                with self._lock:
                    if name not in self._read:
                        self._singles += 1
                        self._take(self._reading(lambda: self._fetch([name])), [name])
        decl = self._read[name]
        if decl is None:
            raise KeyError(name)
        return decl

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def values(self) -> Any:
        self._read_all()
        return [d for n in self._order if (d := self._read.get(n)) is not None]

    def items(self) -> Any:
        self._read_all()
        return [(n, d) for n in self._order if (d := self._read.get(n)) is not None]

    def structure_candidates(self) -> list[Declaration]:
        """Every declaration `structure_candidate` holds for, in the names' order."""
        if self._complete:
            return [d for d in self.values() if structure_candidate(d)]
        records = [d for d in self._reading(self._structure) if d.name in self._names]
        with self._lock:
            self._take(records, ())
        return [d for d in records if structure_candidate(d)]
