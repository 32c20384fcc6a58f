"""A registered checker's result, set against the statement and the derived twin.

`settle(name, env, target, run)` turns the run of the checker `env.resolve`
picked into the theorem's result (see `checkers.registry.binding` for the rule):

- a derived checker standing in for a registered one that was set aside:
  its result, with `reason` saying why the registered checker was set aside;
- a registered checker whose statement matches the ingested one: both it and
  the derived twin run with the same trials, seed, dtype and dims (so both
  draw the same dims and the same inputs); agreement reports the registered
  result with a note; a disagreement (their statuses differ: a pass against a
  fail or an error, or a fail against an error) is an `error` naming both
  verdicts. A twin that cannot check (`unsupported`) leaves the registered
  result standing, with a note saying so.

The twin runs without shrinking: only its verdict is compared, and a
disagreement carries the counterexample of whichever side failed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from checkers.core import Unsupported
from checkers.result import CheckResult

if TYPE_CHECKING:
    from checkers.registry.environment import Environment

__all__ = ["SET_ASIDE", "combine", "settle"]

Run = Callable[[Any, bool], CheckResult]
SET_ASIDE = "registered checker set aside"


def _verdict(r: CheckResult) -> str:
    return f"{r.status} ({r.reason})" if r.reason else r.status


def combine(registered: CheckResult, derived: CheckResult) -> CheckResult:
    """The theorem's result from its registered checker and its derived twin."""
    took = round(registered.duration_s + derived.duration_s, 6)
    stats = {
        **registered.stats,
        "derived_twin": {"status": derived.status, "s": derived.duration_s},
    }
    if registered.status == derived.status:
        note = f"the derived checker agreed ({derived.status})"
        reason = f"{registered.reason}; {note}" if registered.reason else note
        return dataclasses.replace(registered, reason=reason, duration_s=took, stats=stats)
    if derived.status == "unsupported":
        reason = f"{registered.reason}; the derived checker could not check it: {derived.reason}"
        return dataclasses.replace(registered, reason=reason, duration_s=took, stats=stats)
    if registered.status == "unsupported":
        reason = (
            f"the registered checker could not check it ({registered.reason}); {derived.reason}"
        )
        return dataclasses.replace(derived, reason=reason, duration_s=took)
    reason = (
        f"the registered and derived checkers disagree: registered says {_verdict(registered)}; "
        f"derived says {_verdict(derived)}"
    )
    counterexample = registered.counterexample or derived.counterexample
    return dataclasses.replace(
        registered,
        status="error",
        reason=reason,
        counterexample=counterexample,
        duration_s=took,
        stats=stats,
    )


def settle(name: str, env: Environment, target: Any, run: Run, shrink: bool) -> CheckResult:
    """Run `target` (what `env.resolve(name)` picked) and apply the statement rule."""
    binding = env.binding(name)
    if binding is None:
        return run(target, shrink)
    if getattr(target, "kind", "") != "registered":  # the derived checker stands in
        result = run(target, shrink)
        reason = f"{SET_ASIDE}: {binding.explain()}; the derived checker: {result.reason}"
        return dataclasses.replace(result, reason=reason)
    result = run(target, shrink)
    if binding.matches is None:  # nothing ingested: the statement it was written for
        return result
    twin = env.resolve(name, prefer="derived")
    if isinstance(twin, Unsupported):
        note = f"no derived checker to compare with: {twin.reason}"
        return dataclasses.replace(result, reason=f"{result.reason}; {note}")
    return combine(result, run(twin, False))
