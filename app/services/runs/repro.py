"""Describing a theorem's checker, and replaying one recorded trial (`show --describe`,
`repro`).

Both load the checkers (and JAX) when called, with `checks.load_backend` looked up at each
call: that one function decides the backend of runs, descriptions and replays alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from app import crud
from app.services.runs import checks
from app.services.runs.selection import SelectionError, check_pinned_dims, theorem_row

__all__ = ["Replay", "describe_theorem", "replay"]


def describe_theorem(session: Session, *, name: str, backend: Any = None) -> dict[str, Any]:
    """Which checker the theorem gets now (`CheckerInfo.to_json()`); imports the checkers."""
    theorem_row(session, name)
    backend = backend if backend is not None else checks.load_backend()
    info = backend.describe(name, checks.build_environment(session, backend))
    return dict(info.to_json())


@dataclass(frozen=True)
class Replay:
    name: str
    seed: int
    dims: dict[str, int]
    trial: int | None
    trials: int
    dtype: str
    repro: Any  # checkers.Repro
    # the stored counterexample whose inputs were replayed ({"dims", "trial", "shrunk"}),
    # None when the inputs are those the seed draws for the trial
    counterexample: dict[str, Any] | None = None
    # each input's shape at the replayed dims (() for a scalar), where the checker says
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)


def _input_shapes(env: Any, name: str, dims: Mapping[str, int]) -> dict[str, tuple[int, ...]]:
    """The inputs' shapes from the checker's input specs ({} when it cannot say)."""
    try:
        specs = env.resolve(name).input_specs(dict(dims))
        return {k: tuple(int(n) for n in spec.shape) for k, spec in specs.items()}
    except Exception:
        return {}


def replay(
    session: Session,
    *,
    name: str,
    seed: int | None = None,
    dims: Mapping[str, int] | None = None,
    trial: int | None = None,
    trials: int | None = None,
    dtype: str | None = None,
    backend: Any = None,
) -> Replay:
    """Replay one trial of `name` at `seed` (by default the seed of its newest result).

    The newest recorded result of `name` with this seed supplies what is not given: the
    dims and trial (those of its counterexample, whose stored inputs are then replayed, or
    else of its worst trial), the trial count (which decides how trials are drawn) and the
    dtype. Without a recorded result, `dims` is required. Giving `dims` or `trial` replays
    the sampled trial, never the stored counterexample.
    """
    decl = theorem_row(session, name)
    result = crud.latest_result(session, declaration_id=decl.id, seed=seed)
    if seed is None:
        if result is None:
            raise SelectionError(
                f"no recorded check of {name}: give the seed and the dimensions with "
                "--seed S --dims K=V,..."
            )
        seed = result.seed
    counterexample = None
    given = dims
    if dims is None:
        if result is None:
            raise SelectionError(
                f"no recorded check of {name} with seed {seed}: "
                "give the dimensions with --dims K=V,..."
            )
        stored = crud.counterexamples_for(session, result_ids=[result.id]).get(result.id)
        if stored is not None and stored.seed == seed and trial is None:
            counterexample = stored
            dims = dict(stored.dims)
            trial = stored.trial
        else:
            dims = dict(result.dims)
            trial = result.trial if trial is None else trial
    if trials is None:
        trials = result.trials if result is not None and result.trials > 0 else 64
    if dtype is None:
        dtype = result.dtype if result is not None else "float64"
    backend = backend if backend is not None else checks.load_backend()
    env = checks.build_environment(session, backend)
    check_pinned_dims(backend, env, names=[name], dims=given)
    kwargs: dict[str, Any] = {
        "seed": seed,
        "dims": dict(dims),
        "trial": trial,
        "trials": trials,
        "dtype": dtype,
    }
    if counterexample is not None:
        kwargs["counterexample"] = backend.Counterexample.from_json(
            {
                "dims": counterexample.dims,
                "seed": counterexample.seed,
                "trial": counterexample.trial if counterexample.trial is not None else 0,
                "inputs": counterexample.inputs,
                "lhs": counterexample.lhs,
                "rhs": counterexample.rhs,
                "shrunk": counterexample.shrunk,
                "note": counterexample.note,
            }
        )
    repro = backend.repro(name, env, **kwargs)
    return Replay(
        shapes=_input_shapes(env, name, repro.dims),
        name=name,
        seed=seed,
        dims=dict(dims),
        trial=trial,
        trials=trials,
        dtype=dtype,
        repro=repro,
        counterexample=None
        if counterexample is None
        else {
            "dims": dict(counterexample.dims),
            "trial": counterexample.trial,
            "shrunk": bool(counterexample.shrunk),
        },
    )
