"""The records a check produces: results, counterexamples, replays and checker descriptions.

All are frozen dataclasses with `to_json()` (plain JSON values only: a float
that is NaN or infinite is written as the string "NaN", "Infinity" or
"-Infinity") and `from_json()`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

STATUSES = ("pass", "fail", "error", "unsupported")
CHECKER_KINDS = ("registered", "derived", "none")


def _number_to_json(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")
    return x


def values_to_json(value: Any) -> Any:
    """Nested lists of numbers with non-finite floats spelled as strings."""
    if isinstance(value, list | tuple):
        return [values_to_json(v) for v in value]
    return _number_to_json(value)


def values_from_json(value: Any) -> Any:
    if isinstance(value, list):
        return [values_from_json(v) for v in value]
    if value == "NaN":
        return math.nan
    if value == "Infinity":
        return math.inf
    if value == "-Infinity":
        return -math.inf
    return value


def _optional_float(value: Any) -> float | None:
    if value is None:
        return None
    value = values_from_json(value)
    return float(value)


@dataclass(frozen=True)
class Counterexample:
    """A failing (or erroring) trial: enough to replay it and to show it.

    `inputs`, `lhs` and `rhs` are nested lists in the values' shapes; a 0-d
    value is a one-element list. When `shrunk` is true the inputs may have been
    simplified after sampling, so `repro(..., counterexample=ce)` replays them
    rather than the sampled trial; `note` says what was shrunk.
    """

    dims: dict[str, int]
    seed: int
    trial: int
    inputs: dict[str, list[Any]]
    lhs: list[Any]
    rhs: list[Any]
    shrunk: bool = False
    note: str = ""
    worst_index: list[int] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "dims": dict(self.dims),
            "seed": self.seed,
            "trial": self.trial,
            "inputs": {k: values_to_json(v) for k, v in self.inputs.items()},
            "lhs": values_to_json(self.lhs),
            "rhs": values_to_json(self.rhs),
            "shrunk": self.shrunk,
            "note": self.note,
            "worst_index": None if self.worst_index is None else list(self.worst_index),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Counterexample:
        worst = data.get("worst_index")
        return cls(
            dims={str(k): int(v) for k, v in data["dims"].items()},
            seed=int(data["seed"]),
            trial=int(data["trial"]),
            inputs={str(k): values_from_json(v) for k, v in data["inputs"].items()},
            lhs=values_from_json(data["lhs"]),
            rhs=values_from_json(data["rhs"]),
            shrunk=bool(data.get("shrunk", False)),
            note=str(data.get("note", "")),
            worst_index=None if worst is None else [int(i) for i in worst],
        )


@dataclass(frozen=True)
class CheckResult:
    """One theorem checked once: CONTRACT.md's `check --json` element, and more.

    On a failure `dims`, `trial` and `worst_index` point at the (shrunk)
    counterexample; `max_abs_err` and `max_rel_err` are maxima over every draw.
    `max_rel_err` is |lhs - rhs| / |reference| over the entries whose reference
    is non-zero (for an inequality: the amount by which it is violated). Error
    values are None when nothing was compared. `vacuous_trials` counts the trials
    in which a hypothesis failed (the statement held vacuously); `tied_trials`
    the trials of an inequality whose sides agree within the tolerance (a tie
    fails `<` and `>`, and holds `≤` and `≥`; see checkers/tolerance.py);
    `unstable_trials` the trials that failed in float64 but not when evaluated
    exactly at the same inputs (float artefacts: no evidence, replaced by fresh
    trials; see checkers/harness/confirming.py).
    """

    name: str
    status: str
    checker: str
    reason: str = ""
    trials: int = 0
    seed: int = 0
    dtype: str = "float64"
    dims: dict[str, int] = field(default_factory=dict)
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    atol: float | None = None
    rtol: float | None = None
    duration_s: float = 0.0
    device: str = "cpu"
    worst_index: list[int] | None = None
    trial: int | None = None
    vacuous_trials: int = 0
    tied_trials: int = 0
    unstable_trials: int = 0
    draws: list[dict[str, int]] = field(default_factory=list)
    assumptions: tuple[str, ...] = ()
    dependencies: tuple[str, ...] = ()
    counterexample: Counterexample | None = None
    version: str = ""
    # Timings and per-draw detail: {"compile_s", "run_s", "sample_s", "shrink_s", "per_draw": [...]}
    stats: dict[str, Any] = field(default_factory=dict)
    # trials drawn again at scale 1 because float64 overflowed at their stress scale
    rescaled_trials: int = 0
    # a whole check's rows, one per family of nodes (checkers.registry.prose): plain JSON
    parts: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}, got {self.status!r}")
        if self.checker not in CHECKER_KINDS:
            raise ValueError(
                f"checker must be one of {', '.join(CHECKER_KINDS)}, got {self.checker!r}"
            )

    @property
    def ok(self) -> bool:
        """Nothing failed or errored (unsupported counts as not failed)."""
        return self.status in ("pass", "unsupported")

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "checker": self.checker,
            "reason": self.reason,
            "trials": self.trials,
            "seed": self.seed,
            "dtype": self.dtype,
            "dims": dict(self.dims),
            "max_abs_err": _number_to_json(self.max_abs_err),
            "max_rel_err": _number_to_json(self.max_rel_err),
            "atol": self.atol,
            "rtol": self.rtol,
            "duration_s": self.duration_s,
            "device": self.device,
            "worst_index": None if self.worst_index is None else list(self.worst_index),
            "trial": self.trial,
            "vacuous_trials": self.vacuous_trials,
            "tied_trials": self.tied_trials,
            "unstable_trials": self.unstable_trials,
            "draws": [dict(d) for d in self.draws],
            "assumptions": list(self.assumptions),
            "dependencies": list(self.dependencies),
            "counterexample": None
            if self.counterexample is None
            else self.counterexample.to_json(),
            "version": self.version,
            "stats": self.stats,
            "rescaled_trials": self.rescaled_trials,
            "parts": [dict(p) for p in self.parts],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckResult:
        ce = data.get("counterexample")
        worst = data.get("worst_index")
        trial = data.get("trial")
        return cls(
            name=str(data["name"]),
            status=str(data["status"]),
            checker=str(data["checker"]),
            reason=str(data.get("reason", "")),
            trials=int(data.get("trials", 0)),
            seed=int(data.get("seed", 0)),
            dtype=str(data.get("dtype", "float64")),
            dims={str(k): int(v) for k, v in (data.get("dims") or {}).items()},
            max_abs_err=_optional_float(data.get("max_abs_err")),
            max_rel_err=_optional_float(data.get("max_rel_err")),
            atol=_optional_float(data.get("atol")),
            rtol=_optional_float(data.get("rtol")),
            duration_s=float(data.get("duration_s", 0.0)),
            device=str(data.get("device", "cpu")),
            worst_index=None if worst is None else [int(i) for i in worst],
            trial=None if trial is None else int(trial),
            vacuous_trials=int(data.get("vacuous_trials") or 0),
            tied_trials=int(data.get("tied_trials") or 0),
            unstable_trials=int(data.get("unstable_trials") or 0),
            draws=[{str(k): int(v) for k, v in d.items()} for d in data.get("draws", [])],
            assumptions=tuple(data.get("assumptions", ())),
            dependencies=tuple(data.get("dependencies", ())),
            counterexample=None if ce is None else Counterexample.from_json(ce),
            version=str(data.get("version", "")),
            stats=dict(data.get("stats") or {}),
            rescaled_trials=int(data.get("rescaled_trials") or 0),
            parts=[dict(p) for p in data.get("parts") or ()],
        )


@dataclass(frozen=True)
class Repro:
    """One replayed trial: the check at those dims, and that trial's inputs and sides.

    `lhs`/`rhs` are the values in the check's dtype (nested lists, 0-d as one
    element); `lhs_exact`/`rhs_exact` the same trial evaluated exactly (decimal
    strings, or an interval's endpoints where they differ in the shown digits), and
    `exact` what that evaluation says (checkers/confirm: confirmed, holds,
    undecided or unconfirmable, and at how many bits).
    """

    result: CheckResult
    inputs: dict[str, list[Any]]
    lhs: list[Any]
    rhs: list[Any]
    trial: int | None = None
    dims: dict[str, int] = field(default_factory=dict)
    # low-precision modes: the float64 values of both sides from the same rounded inputs
    lhs_reference: list[Any] | None = None
    rhs_reference: list[Any] | None = None
    error: str = ""  # why no trial could be replayed (inputs, lhs and rhs are then empty)
    lhs_exact: list[Any] | None = None
    rhs_exact: list[Any] | None = None
    exact: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "result": self.result.to_json(),
            "trial": self.trial,
            "dims": dict(self.dims),
            "inputs": {k: values_to_json(v) for k, v in self.inputs.items()},
            "lhs": values_to_json(self.lhs),
            "rhs": values_to_json(self.rhs),
            "lhs_reference": values_to_json(self.lhs_reference),
            "rhs_reference": values_to_json(self.rhs_reference),
            "error": self.error,
            "lhs_exact": self.lhs_exact,
            "rhs_exact": self.rhs_exact,
            "exact": self.exact,
        }


@dataclass(frozen=True)
class CheckerInfo:
    """Which checker a theorem gets, without computing anything.

    Where a checker is registered under the theorem's name, `statement` is the
    Lean text it was written for, `statement_matches` whether that is the
    statement ingested (None: nothing ingested under the name) and
    `statement_difference` where the two first differ.
    """

    kind: str  # 'registered' | 'derived' | 'unsupported'
    reason: str
    dependencies: tuple[str, ...] = ()
    version: str = ""
    assumptions: tuple[str, ...] = ()
    dim_names: tuple[str, ...] = ()
    statement: str = ""
    statement_matches: bool | None = None
    statement_difference: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "dependencies": list(self.dependencies),
            "version": self.version,
            "assumptions": list(self.assumptions),
            "dim_names": list(self.dim_names),
            "statement": self.statement,
            "statement_matches": self.statement_matches,
            "statement_difference": self.statement_difference,
        }
