"""What the semantics reads of an environment of ingested declarations: a
`checkers.Environment`, any mapping of names to declarations, or nothing."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from theorem_index.model import Declaration


def lookup_declaration(env: Any, name: str) -> Declaration | None:
    if env is None:
        return None
    getter = getattr(env, "get", None)
    if getter is not None:
        d = getter(name)
        return d if isinstance(d, Declaration) else None
    return None


def env_names(env: Any) -> Iterable[str]:
    if env is None:
        return ()
    names = getattr(env, "names", None)
    if callable(names):
        return list(names())
    return list(env)


def structure_candidates(env: Any) -> list[Declaration]:
    """The declarations that may be constructors or structure fields: the environment's
    own selection where it has one (`Environment.structure_candidates`, which an
    environment reading declarations when first used reads at once), else every one."""
    select = getattr(env, "structure_candidates", None)
    if callable(select):
        return list(select())
    found = (lookup_declaration(env, n) for n in env_names(env))
    return [d for d in found if d is not None]
