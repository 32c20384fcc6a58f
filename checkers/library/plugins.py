"""Vocabulary packs: the semantics of a project's own constants, loaded as plugins.

A pack is a Python entry point in the group `proofbridge.vocabulary`, declared by any
installed distribution (its `pyproject.toml`):

    [project.entry-points."proofbridge.vocabulary"]
    team = "team_vocab.semantics:BUILTINS"

The entry point names a module attribute: an iterable of `Builtin`s, or a callable
taking no argument that returns one. Every installed pack is merged over the
language's own library (Lean core, Mathlib, derivatives); a pack that fails to load,
gives something other than `Builtin`s, or defines a name that another pack (or the
library) defines differently is a `VocabularyError` naming the entry point and its
distribution. The same `Builtin` object reached through two packs is one definition.

    from checkers.library.plugins import load_packs
    [(p.entry_point, p.distribution, len(p.builtins)) for p in load_packs()]

This module imports nothing of the evaluator: a pack imports `checkers.language.values`
(and the helpers it wants) itself, when its entry point is loaded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from checkers.language.values import Builtin
from checkers.registry.packs import distribution, installed
from checkers.runtime.program_store import add_pack_package

__all__ = ["GROUP", "Library", "Pack", "VocabularyError", "build_library", "load_packs"]

GROUP = "proofbridge.vocabulary"


class VocabularyError(RuntimeError):
    """A vocabulary pack cannot be used: it does not load, or it contradicts another."""


@dataclass(frozen=True)
class Pack:
    """One loaded entry point: where it comes from and the constants it defines."""

    entry_point: str  # the entry point's name
    value: str  # what it points at, `module:attribute`
    distribution: str  # the distribution that declares it
    builtins: tuple[Builtin, ...]

    @property
    def origin(self) -> str:
        return (
            f"entry point {self.entry_point!r} ({self.value}) "
            f"of the distribution {self.distribution}"
        )

    def __str__(self) -> str:
        names = ", ".join(sorted(b.name for b in self.builtins))
        return f"{self.origin}: {len(self.builtins)} constants ({names})"


@dataclass(frozen=True)
class Library:
    """The merged library: every constant with its semantics, and the pack of each that
    came from one (absent for the language's own)."""

    builtins: Mapping[str, Builtin]
    origins: Mapping[str, Pack]
    packs: tuple[Pack, ...]


def _load(ep: metadata.EntryPoint) -> Pack:
    dist = distribution(ep)
    where = f"entry point {ep.name!r} ({ep.value}) of the distribution {dist}"
    try:
        obj: Any = ep.load()
        if callable(obj) and not isinstance(obj, Builtin):
            obj = obj()
        items = (obj,) if isinstance(obj, Builtin) else tuple(obj)
    except Exception as e:
        raise VocabularyError(
            f"the vocabulary {where} failed to load: {type(e).__name__}: {e}"
        ) from e
    bad = [x for x in items if not isinstance(x, Builtin)]
    if bad:
        raise VocabularyError(
            f"the vocabulary {where} gave {type(bad[0]).__name__} {bad[0]!r}, not a "
            "checkers.language.values.Builtin"
        )
    # the pack's sources name the programs stored for checks that use its constants
    add_pack_package(ep.value.partition(":")[0].strip().partition(".")[0])
    return Pack(ep.name, ep.value, dist, items)


def load_packs(group: str = GROUP) -> tuple[Pack, ...]:
    """Every installed pack of `group`, by distribution and entry point name (an
    entry point declared twice, as an editable install and its source tree can, once)."""
    return tuple(_load(ep) for ep in installed(group))


def build_library(base: Iterable[Builtin], packs: Iterable[Pack]) -> Library:
    """The language's library `base` with every pack's constants merged in."""
    builtins: dict[str, Builtin] = {}
    for b in base:
        builtins[b.name] = b
    origins: dict[str, Pack] = {}
    packs = tuple(packs)
    for pack in packs:
        own: dict[str, Builtin] = {}
        for b in pack.builtins:
            if b.name in own and own[b.name] is not b:
                raise VocabularyError(f"the vocabulary {pack.origin} defines {b.name} twice")
            own[b.name] = b
        for name, b in own.items():
            had = builtins.get(name)
            if had is not None and had is not b:
                first = origins.get(name)
                where = first.origin if first is not None else "the built-in library"
                raise VocabularyError(
                    f"{name} is defined differently by the vocabulary {pack.origin} and by {where}"
                )
            builtins[name] = b
            origins.setdefault(name, pack)
    return Library(builtins, origins, packs)
