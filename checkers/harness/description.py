"""Which checker a theorem gets, and for which statement: `describe`, which computes nothing."""

from __future__ import annotations

from typing import Any

from checkers.core import Unsupported
from checkers.harness.crosscheck import SET_ASIDE
from checkers.registry.binding import StatementMismatch
from checkers.registry.environment import Environment
from checkers.result import CheckerInfo

__all__ = ["describe"]


def describe(name: str, env: Environment, *, prefer: str = "registered") -> CheckerInfo:
    """Which checker a theorem gets; computes nothing.

    For a theorem with a registered checker, `statement` is the statement that
    checker was written for and `statement_matches` whether it is the one
    ingested (None when nothing is ingested under the name).
    """
    target = env.resolve(name, prefer=prefer)
    binding = env.binding(name) if prefer == "registered" else None
    bound: dict[str, Any] = {}
    if binding is not None:
        bound = {
            "statement": binding.registered,
            "statement_matches": binding.matches,
            "statement_difference": binding.difference,
        }
    if isinstance(target, StatementMismatch):
        return CheckerInfo(kind="registered", reason=f"{SET_ASIDE}: {target.reason}", **bound)
    if isinstance(target, Unsupported):
        return CheckerInfo(kind="unsupported", reason=target.reason, **bound)
    kind = getattr(target, "kind", "derived")
    reason = str(getattr(target, "description", "") or f"{kind} checker")
    if binding is not None and kind != "registered":
        reason = f"{SET_ASIDE}: {binding.explain()}; this one is the {reason}"
    elif binding is not None and binding.matches and not hasattr(target, "paragraph_sha256"):
        reason += "; cross-checked against the derived checker"  # prose has no derived twin
    return CheckerInfo(
        kind=kind if kind in ("registered", "derived") else "derived",
        reason=reason,
        dependencies=tuple(getattr(target, "dependencies", ()) or ()),
        version=str(getattr(target, "version", "")),
        assumptions=tuple(getattr(target, "assumptions", ()) or ()),
        dim_names=tuple(target.dim_names),
        **bound,
    )
