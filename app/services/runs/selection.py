"""Which theorems a check run covers, and the parameters it runs with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app import crud, models
from theorem_index.model import PROOF_STATES

__all__ = [
    "DTYPES",
    "CheckParams",
    "SelectionError",
    "UnknownDims",
    "check_pinned_dims",
    "select_theorems",
    "theorem_row",
]

DTYPES = ("float64", "float32", "bfloat16")


class SelectionError(ValueError):
    """The theorems asked for do not exist or cannot be checked; the message says which."""


class UnknownDims(SelectionError):
    """Pinned dimensions that none of the selected theorems has; the message names theirs."""


@dataclass(frozen=True)
class CheckParams:
    names: tuple[str, ...] = ()
    module: str | None = None
    trials: int = 64
    seed: int = 0
    dtype: str = "float64"
    dims: Mapping[str, int] | None = None
    draws: int | None = None
    changed_only: bool = False
    proof: str | None = None  # only theorems whose own proof status is this one

    def __post_init__(self) -> None:
        if self.trials < 1:
            raise SelectionError(f"trials must be a positive integer, got {self.trials}")
        if self.seed < 0:
            raise SelectionError(f"seed must be a non-negative integer, got {self.seed}")
        if self.dtype not in DTYPES:
            raise SelectionError(f"dtype must be one of {', '.join(DTYPES)}, got {self.dtype!r}")
        if self.proof is not None and self.proof not in PROOF_STATES:
            raise SelectionError(
                f"proof must be one of {', '.join(PROOF_STATES)}, got {self.proof!r}"
            )
        if self.draws is not None and self.draws < 1:
            raise SelectionError(f"draws must be a positive integer, got {self.draws}")
        for key, value in (self.dims or {}).items():
            if value < 1:
                raise SelectionError(f"dimension {key} must be a positive integer, got {value}")

    def to_json(self) -> dict[str, Any]:
        return {
            "names": list(self.names),
            "module": self.module,
            "trials": self.trials,
            "seed": self.seed,
            "dtype": self.dtype,
            "dims": None if self.dims is None else dict(self.dims),
            "draws": self.draws,
            "changed_only": self.changed_only,
            "proof": self.proof,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckParams:
        dims = data.get("dims")
        return cls(
            names=tuple(data.get("names") or ()),
            module=data.get("module"),
            trials=int(data.get("trials", 64)),
            seed=int(data.get("seed", 0)),
            dtype=str(data.get("dtype", "float64")),
            dims=None if dims is None else {str(k): int(v) for k, v in dims.items()},
            draws=data.get("draws"),
            changed_only=bool(data.get("changed_only", False)),
            proof=data.get("proof"),
        )


def select_theorems(
    session: Session,
    *,
    names: Sequence[str] = (),
    module: str | None = None,
    changed_only: bool = False,
    proof: str | None = None,
) -> list[str]:
    """Names of the theorems to check, sorted; raises SelectionError with the reason.
    `proof` keeps those whose own proof status is that one (`unproved`: the statements
    nobody has proved yet, where a counterexample saves the most work)."""
    d = models.Declaration
    if names:
        rows = {row.name: row for row in session.scalars(select(d).where(d.name.in_(list(names))))}
        for name in names:
            row = rows.get(name)
            if row is None:
                raise SelectionError(f"unknown theorem: {name}")
            if row.kind not in crud.declarations.THEOREM_KINDS:
                raise SelectionError(f"{name} is a {row.kind}, not a theorem")
            if row.removed:
                raise SelectionError(f"{name} was removed from its source file")
            if module and row.module != module:
                raise SelectionError(f"{name} is in module {row.module}, not {module}")
        selected = sorted(set(names))
    else:
        stmt = select(d.name).where(
            d.kind.in_(crud.declarations.THEOREM_KINDS), d.removed.is_(False)
        )
        if module:
            stmt = stmt.where(d.module == module)
        selected = sorted(session.scalars(stmt))
        if not selected:
            if module:
                raise SelectionError(f"no theorems in module {module}")
            raise SelectionError("no theorems ingested yet: run `proofbridge ingest PATH` first")
    if changed_only:
        stale = set(crud.stale_theorems(session, module=module))
        selected = [n for n in selected if n in stale]
    if proof is not None:
        chosen = set(session.scalars(select(d.name).where(d.proof == proof)))
        selected = [n for n in selected if n in chosen]
    return selected


def theorem_row(session: Session, name: str) -> models.Declaration:
    """The theorem called `name`; SelectionError when there is none."""
    decl = crud.get_declaration(session, name=name)
    if decl is None:
        raise SelectionError(f"unknown theorem: {name}")
    if decl.kind not in crud.declarations.THEOREM_KINDS:
        raise SelectionError(f"{name} is a {decl.kind}, not a theorem")
    return decl


def _listing(names: Sequence[str], limit: int = 12) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")


def check_pinned_dims(
    backend: Any, env: Any, *, names: Sequence[str], dims: Mapping[str, int] | None
) -> None:
    """Refuse pinned dimensions that none of `names` has (UnknownDims naming theirs). The
    command line (`check --dims`, `repro --dims`) and the API (`POST /runs`) share this rule.

    A dimension that some of the theorems have pins it in those; the others are drawn as
    usual. Theorems without a checker (unsupported, or describing it failed) have no
    dimensions to compare with and are left out; when none is left, nothing is refused.
    The theorems are described only until every pinned dimension has been seen.
    """
    if not dims:
        return
    known: dict[str, tuple[str, ...]] = {}
    seen: set[str] = set()
    for name in names:
        try:
            info = backend.describe(name, env)
        except Exception:
            continue
        if info.kind != "unsupported":
            known[name] = tuple(info.dim_names)
            seen.update(info.dim_names)
            if all(k in seen for k in dims):
                return
    if not known:
        return
    every = {d for dim_names in known.values() for d in dim_names}
    unknown = [k for k in dims if k not in every]
    if not unknown:
        return
    noun = "dimension" if len(unknown) == 1 else "dimensions"
    if len(names) == 1:
        (name,) = names
        own = known[name]
        listing = f"its dimensions: {', '.join(own)}" if own else "it has no dimensions"
        raise UnknownDims(f"{name} has no {noun} {', '.join(unknown)} ({listing})")
    theirs = sorted(every)
    listing = f"their dimensions: {_listing(theirs)}" if theirs else "they have no dimensions"
    raise UnknownDims(
        f"none of the {len(known)} selected theorems with a checker has a {noun} "
        f"{', '.join(unknown)} ({listing})"
    )
