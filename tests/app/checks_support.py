"""A scripted stand-in for the `checkers` facade: the real result records, with outcomes
chosen per theorem, so that the check service can be tested without JAX compiling."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from checkers.result import CheckerInfo, CheckResult, Counterexample, Repro

Outcome = Callable[[str, Mapping[str, Any]], Any]


class ScriptedBackend:
    """The checkers facade's shape, with scripted outcomes per theorem name."""

    Counterexample = Counterexample

    class Environment:
        def __init__(self, names: list[str]) -> None:
            self.names = names

        @classmethod
        def from_declarations(cls, decls: Any) -> ScriptedBackend.Environment:
            return cls([d.name for d in decls])

    def __init__(self, outcomes: dict[str, Outcome] | None = None) -> None:
        self.outcomes = outcomes or {}
        self.dim_names: dict[str, tuple[str, ...]] = {}
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.repros: list[dict[str, Any]] = []

    def check(self, name: str, env: Any, **kwargs: Any) -> Any:
        self.calls.append((name, kwargs))
        assert name in env.names
        outcome = self.outcomes.get(name)
        if outcome is None:
            return CheckResult(
                name=name,
                status="unsupported",
                checker="none",
                reason="no semantics for Proofs.mystery",
                trials=kwargs["trials"],
                seed=kwargs["seed"],
                dtype=kwargs["dtype"],
            )
        return outcome(name, kwargs)

    def describe(self, name: str, env: Any) -> Any:
        # every scripted outcome is drawn over one dimension, n; unscripted ones have none
        if name not in self.outcomes:
            return CheckerInfo(kind="unsupported", reason="no semantics for Proofs.mystery")
        dims = self.dim_names.get(name, ("n",))
        return CheckerInfo(kind="derived", reason="derived from the statement", dim_names=dims)

    def repro(self, name: str, env: Any, **kwargs: Any) -> Any:
        self.repros.append(kwargs)
        result = CheckResult(name=name, status="fail", checker="derived", seed=kwargs["seed"])
        return Repro(result, {"f": [1.0]}, [1.0], [2.0], kwargs.get("trial"), kwargs["dims"])


def passing(deps: tuple[str, ...] = ()) -> Outcome:
    def run(name: str, kw: Mapping[str, Any]) -> Any:
        return CheckResult(
            name=name,
            status="pass",
            checker="derived",
            reason="agree",
            trials=kw["trials"],
            seed=kw["seed"],
            dtype=kw["dtype"],
            dims={"n": 3},
            max_abs_err=1e-16,
            max_rel_err=2e-16,
            atol=1e-12,
            rtol=1e-10,
            duration_s=0.5,
            draws=[{"n": 3}, {"n": 1}],
            dependencies=deps,
        )

    return run


def failing(name: str, kw: Mapping[str, Any]) -> Any:
    ce = Counterexample(
        dims={"n": 2},
        seed=kw["seed"],
        trial=3,
        inputs={"f": [1.0, -2.0]},
        lhs=[0.5],
        rhs=[1.5],
        shrunk=True,
        note="n shrunk from 5 to 2",
    )
    return CheckResult(
        name=name,
        status="fail",
        checker="derived",
        reason="lhs and rhs differ by 1.0 at trial 3",
        trials=kw["trials"],
        seed=kw["seed"],
        dtype=kw["dtype"],
        dims={"n": 2},
        max_abs_err=1.0,
        max_rel_err=math.inf,
        atol=1e-12,
        rtol=1e-10,
        worst_index=[0],
        trial=3,
        counterexample=ce,
    )


def raising(name: str, kw: Mapping[str, Any]) -> Any:
    raise RuntimeError("boom")
