"""Packs of registered checkers, found through the entry point group `proofbridge.checkers`.

A distribution declares a module whose import registers its checkers (with
`checkers.pack.register` or `register_prose`):

    [project.entry-points."proofbridge.checkers"]
    team = "team_pack.registered"

`load_checker_packs` imports every such module once, in the order of (distribution,
entry point name); a module that fails to import is a `RegistrationError` naming the
entry point and its distribution, so that a broken pack is never silently missing.
"""

from __future__ import annotations

import importlib
from importlib import metadata

from checkers.registry.registrations import RegistrationError
from checkers.runtime.program_store import add_pack_package

__all__ = ["CHECKERS_GROUP", "distribution", "installed", "load_checker_packs"]

CHECKERS_GROUP = "proofbridge.checkers"


def distribution(ep: metadata.EntryPoint) -> str:
    """The name of the distribution that declares `ep`."""
    dist = getattr(ep, "dist", None)
    return dist.name if dist is not None else "(unknown distribution)"


def installed(group: str) -> list[metadata.EntryPoint]:
    """The entry points of `group`, by (distribution, name, value), each once (an entry
    point declared twice, as an editable install and its source tree can, once)."""
    seen: dict[tuple[str, str, str], metadata.EntryPoint] = {}
    for ep in metadata.entry_points(group=group):
        seen.setdefault((distribution(ep), ep.name, ep.value), ep)
    return [seen[k] for k in sorted(seen)]


def load_checker_packs(group: str = CHECKERS_GROUP) -> tuple[str, ...]:
    """Import every installed checker pack of `group`; the modules imported, in order."""
    loaded = []
    for ep in installed(group):
        module = ep.value.partition(":")[0].strip()
        try:
            importlib.import_module(module)
        except Exception as e:
            raise RegistrationError(
                f"the checker pack {ep.name!r} ({ep.value}) of the distribution "
                f"{distribution(ep)} failed to load: {type(e).__name__}: {e}"
            ) from e
        add_pack_package(module.partition(".")[0])
        loaded.append(module)
    return tuple(loaded)
