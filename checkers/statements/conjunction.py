"""A statement of several clauses (`A ∧ B`, a definition unfolded into a conjunction),
checked clause by clause.

Each clause is an ordinary derived checker (propositions.py splits the statement);
`run_whole` runs each through the harness with the same trials, seed, dtype,
pinned dimensions and dims draws, and merges:

- `error` if a clause errs, else `fail` if one fails (that clause's
  counterexample, dims and trial; the reason names the clause), else `pass` if
  every clause passes, else `unsupported` (a clause that decided nothing: every
  trial vacuous, say), with that clause's reason;
- `parts` holds one row per clause: its statement, status, reason, trials,
  failing trials, vacuous and tied trials, errors and its counterexample;
- the vacuous and tied trials, the errors and the timings are summed or maxed
  over the clauses; the assumptions are every clause's, once each.

Each clause samples its inputs from the theorem's name and seed, as a single
check would, so a shared binder takes the same values in every clause.

The same runs a generic statement at each modelled type its type variables take
(instances.py): each part is the statement, or one of its clauses, at one assignment,
and `labels` name the parts (`R := ℤ`, `R := ℤ, clause 1 of 2 (...)`), in the reason
and in `parts`; `notes` say which assignments were not checked and why.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from checkers.core import DimConstraint, Evaluation, InputSpec, ToleranceOverride, Unsupported
from checkers.result import CheckResult

__all__ = ["Conjunction", "at_instances"]


@dataclass(eq=False)
class Conjunction:
    name: str
    clauses: tuple[Any, ...]  # DerivedChecker, one per clause
    texts: tuple[str, ...]
    kind: str = "derived"
    tolerance: ToleranceOverride | None = None
    unfolded: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()  # the parts' names, where they are not clauses
    notes: tuple[str, ...] = ()  # what the result should say besides the parts'
    _version: str = field(default="", init=False)

    @property
    def version(self) -> str:
        if not self._version:
            h = hashlib.sha256()
            for c in self.clauses:
                h.update(str(c.version).encode())
            self._version = f"derived-1:{h.hexdigest()[:12]}"
        return self._version

    @property
    def dim_names(self) -> tuple[str, ...]:
        return _union(d for c in self.clauses for d in c.dim_names)

    @property
    def fixed_dims(self) -> Mapping[str, int]:
        out: dict[str, int] = {}
        for c in self.clauses:
            out.update(c.fixed_dims)
        return out

    @property
    def dim_lows(self) -> Mapping[str, int]:
        out: dict[str, int] = {}
        for c in self.clauses:
            out.update(c.dim_lows)
        return out

    @property
    def assumptions(self) -> tuple[str, ...]:
        return _union((*self.notes, *(a for c in self.clauses for a in c.assumptions)))

    def part_name(self, k: int) -> str:
        """How the result names part `k`: its label, else its clause."""
        if self.labels:
            return self.labels[k]
        return f"clause {k + 1} of {len(self.clauses)} ({self.texts[k]})"

    @property
    def dependencies(self) -> tuple[str, ...]:
        return _union((*self.unfolded, *(d for c in self.clauses for d in c.dependencies)))

    @property
    def description(self) -> str:
        if self.labels:
            shown = "; ".join(self.labels)
            return f"derived checker of {len(self.clauses)} parts, each checked: {shown}"
        shown = "; ".join(f"({k}) {t}" for k, t in enumerate(self.texts, 1))
        return f"derived checker of {len(self.clauses)} clauses, each checked: {shown}"

    def dim_constraints(self) -> Sequence[DimConstraint]:
        return _union(d for c in self.clauses for d in c.dim_constraints())

    def input_specs(self, dims: Mapping[str, int]) -> dict[str, InputSpec]:
        return {}

    def build(self, dims: Mapping[str, int], dtype: Any) -> Evaluation:
        raise TypeError(f"{self.name} is checked clause by clause (run_whole)")

    def run_whole(
        self,
        *,
        trials: int,
        seed: int,
        dtype: str,
        dims: Mapping[str, int],
        draws: int | None = None,
        shrink_failures: bool = True,
    ) -> CheckResult:
        from checkers.harness.check import run_checker  # the harness imports the checkers

        start = time.perf_counter()
        unknown = sorted(set(dims) - set(self.dim_names))
        results = []
        for c in self.clauses:
            pins = {k: v for k, v in dims.items() if k in c.dim_names}
            results.append(
                run_checker(
                    c,
                    trials=trials,
                    seed=seed,
                    dtype=dtype,
                    dims=pins,
                    draws=draws,
                    shrink_failures=shrink_failures,
                )
            )
        merged = merge(self, results, trials, seed, dtype)
        if unknown:
            merged = _replace(
                merged,
                status="error",
                reason=f"no dimension {', '.join(unknown)} (dimensions: "
                f"{', '.join(self.dim_names) or 'none'})",
            )
        return _replace(merged, duration_s=round(time.perf_counter() - start, 6))


def at_instances(name: str, derived: Sequence[tuple[str, Any]], *, unchecked: int = 0) -> Any:
    """One checker of a generic statement from its checker at each assignment of modelled
    types (`R := ℤ`, instances.py): a `Conjunction` of their parts, each named by its
    assignment, or the one checker there is, its assumptions naming where it is checked.
    An assignment that cannot be derived is left out, its reason among the notes; where
    none can be, why the first cannot, named. A derivation that broke (DerivationError)
    is returned, named, for the check to report as an error."""
    from checkers.registry.environment import DerivationError
    from checkers.statements.checker import DerivedChecker
    from theorem_index.lean import print_term

    got = [(label, c) for label, c in derived if not isinstance(c, Unsupported)]
    refused = [(label, c) for label, c in derived if isinstance(c, Unsupported)]
    for label, c in list(got):  # `a₀ = b₀` at ℕ: dimensions no draw can give
        why = _undrawable(c)
        if why is not None:
            got.remove((label, c))
            refused.append((label, Unsupported(why)))
    for label, c in refused:
        if isinstance(c, DerivationError):
            return type(c)(f"at {label}: {c.reason}", c.missing)
    if not got:
        label, c = refused[0]
        return type(c)(f"{c.reason} (at {label})", c.missing)
    notes = [f"checked at {'; '.join(label for label, _ in got)}"]
    notes += [f"not checked at {label}: {c.reason}" for label, c in refused]
    if unchecked:
        notes.append(f"{unchecked} more assignments of modelled types not checked")
    labels: list[str] = []
    parts: list[Any] = []
    texts: list[str] = []
    for label, c in got:
        if isinstance(c, Conjunction):
            labels += [f"{label}, {c.part_name(k)}" for k in range(len(c.clauses))]
            parts += c.clauses
            texts += c.texts
        else:
            labels.append(label)
            parts.append(c)
            texts.append(str(print_term(c.statement)))
    if len(parts) == 1 and isinstance(parts[0], DerivedChecker):
        parts[0].plan.assumptions.extend(notes)
        return parts[0]
    unfolded = _union(u for _, c in got for u in c.unfolded)
    return Conjunction(
        name,
        tuple(parts),
        tuple(texts),
        unfolded=unfolded,
        labels=tuple(labels),
        notes=tuple(notes),
    )


def _undrawable(checker: Any) -> str | None:
    """Why no dims draw meets a checker's (or one of its clauses') dimension constraints
    at the default seed, or None."""
    from checkers.inputs.dims import DimsError, draw_dims

    for c in getattr(checker, "clauses", None) or (checker,):
        try:
            draw_dims(
                c.name,
                0,
                c.dim_names,
                fixed=c.fixed_dims,
                constraints=tuple(c.dim_constraints()),
                draws=1,
                lows=c.dim_lows,
            )
        except DimsError as e:
            return str(e)
    return None


def merge(
    checker: Conjunction, results: Sequence[CheckResult], trials: int, seed: int, dtype: str
) -> CheckResult:
    """One result for the whole statement from its clauses' (see the module)."""
    n = len(results)

    def where(k: int) -> str:
        return checker.part_name(k)

    status, pick = "pass", None
    for wanted in ("error", "fail", "unsupported"):
        hit = [k for k, r in enumerate(results) if r.status == wanted]
        if hit:
            status, pick = wanted, hit[0]
            break
    if pick is None and checker.labels:
        reason = f"holds at all {n}: " + "; ".join(
            f"({where(k)}) {r.reason}" for k, r in enumerate(results)
        )
    elif pick is None:
        reason = f"all {n} clauses hold: " + "; ".join(
            f"({k + 1}) {r.reason}" for k, r in enumerate(results)
        )
    if pick is None:
        chosen = max(results, key=lambda r: r.max_abs_err or 0.0)
    else:
        chosen = results[pick]
        verb = {"error": "errs", "fail": "fails", "unsupported": "decides nothing"}[status]
        at = "at " if checker.labels else ""
        reason = f"{at}{where(pick)} {verb}: {chosen.reason}"
    errs = [r.max_abs_err for r in results if r.max_abs_err is not None]
    rels = [r.max_rel_err for r in results if r.max_rel_err is not None]
    draws: list[dict[str, int]] = []
    for r in results:
        for d in r.draws:
            if d not in draws:
                draws.append(dict(d))
    return CheckResult(
        name=checker.name,
        status=status,
        checker="derived",
        reason=reason,
        trials=trials,
        seed=seed,
        dtype=dtype,
        dims=dict(chosen.dims),
        max_abs_err=max(errs) if errs else None,
        max_rel_err=max(rels) if rels else None,
        atol=chosen.atol,
        rtol=chosen.rtol,
        device=chosen.device,
        worst_index=chosen.worst_index,
        trial=chosen.trial,
        vacuous_trials=sum(r.vacuous_trials for r in results),
        tied_trials=sum(r.tied_trials for r in results),
        unstable_trials=sum(r.unstable_trials for r in results),
        draws=draws,
        assumptions=checker.assumptions,
        dependencies=checker.dependencies,
        counterexample=chosen.counterexample if status == "fail" else None,
        version=checker.version,
        stats=_stats(results),
        rescaled_trials=sum(r.rescaled_trials for r in results),
        parts=[_row(k, checker, r) for k, r in enumerate(results)],
    )


def _row(k: int, checker: Conjunction, r: CheckResult) -> dict[str, Any]:
    """A clause's row, in the columns of a whole check's parts (family, nodes, ...)."""
    per_draw = r.stats.get("per_draw") or []
    failing = sum(int(d.get("failing_trials") or 0) for d in per_draw)
    evaluated = sum(int(d.get("trials") or 0) for d in per_draw)
    return {
        "family": checker.part_name(k) if checker.labels else f"clause {k + 1}: {checker.texts[k]}",
        "nodes": evaluated,
        "max_abs_err": r.max_abs_err,
        "max_rel_err": r.max_rel_err,
        "worst_node": f"trial {r.trial}" if r.trial is not None else "",
        "worst_ratio": None,
        "rtol": r.rtol,
        "failing": failing,
        "status": r.status,
        "reason": r.reason,
        "relation": getattr(checker.clauses[k], "relation", "="),
        "vacuous_trials": r.vacuous_trials,
        "tied_trials": r.tied_trials,
        "unstable_trials": r.unstable_trials,
        "dims": dict(r.dims),
        "counterexample": None if r.counterexample is None else r.counterexample.to_json(),
    }


def _stats(results: Sequence[CheckResult]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for r in results:
        for key, v in r.stats.items():
            if isinstance(v, int | float) and not isinstance(v, bool):
                out[key] = round(out.get(key, 0) + v, 6)
    out["per_draw"] = [d for r in results for d in r.stats.get("per_draw") or []]
    return out


def _replace(result: CheckResult, **changes: Any) -> CheckResult:
    import dataclasses

    return dataclasses.replace(result, **changes)


def _union(items: Any) -> tuple[Any, ...]:
    out: list[Any] = []
    for x in items:
        if x not in out:
            out.append(x)
    return tuple(out)
