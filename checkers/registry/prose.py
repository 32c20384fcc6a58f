"""Registered checkers of prose theorems: whole checks bound to a paragraph.

A prose theorem is stated in words in a module doc (see
`theorem_index.prose_claims`). Its checker names the theorem (`Proofs.x`), how
the prose writes it (`x`), and the SHA-256 of the paragraph it was written for
(whitespace collapsed: `theorem_index.prose_claims.paragraph_hash`), so that
the seed text itself is never copied: when the ingested paragraph's hash
differs, the checker is set aside and the check is an `error` saying that the
paragraph changed since the checker was written (`checkers.registry.binding`).

Such a check is not one relation over many small trials: it runs as a whole
(`runner(dims, dtype, seed, trials) -> WholeOutcome`, say a network's 200
gradient nodes against `jax.grad`), and reports one row per part (`parts`:
a family of nodes, with its errors and its worst node).

    @register_prose("Proofs.vit_net_lossGrad", mention="vit_net_lossGrad",
                    paragraph_sha256="2e37…", dims=("B", "depth"), version="1")
    def run(dims, dtype, seed, trials) -> WholeOutcome: ...
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from checkers.core import DimConstraint, Evaluation, InputSpec, is_identifier
from checkers.registry.registrations import REGISTRY, RegistrationError, Registry, validate_name
from checkers.result import CheckResult
from checkers.tolerance import DTYPES

__all__ = ["ProseChecker", "WholeOutcome", "register_prose"]

_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class WholeOutcome:
    """What a whole check found; `parts` are plain-JSON rows (one per family of nodes)."""

    status: str
    reason: str
    dims: dict[str, int]
    trials: int
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    atol: float | None = None
    rtol: float | None = None
    parts: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    trial: int | None = None


Runner = Callable[[Mapping[str, int], str, int, int], WholeOutcome]


@dataclass(frozen=True, eq=False)
class ProseChecker:
    """A registry entry for a prose theorem; implements the `Checker` protocol's
    attributes and runs as a whole (`run_whole`)."""

    name: str
    function: Runner
    mention: str
    paragraph_sha256: str
    dims: tuple[str, ...] = ()
    dtypes: tuple[str, ...] = DTYPES
    version: str = "1"
    dependencies: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()
    fixed_dims: Mapping[str, int] = field(default_factory=dict)
    tolerance: Any = None
    signature: Any = field(default=None, repr=False)
    kind: str = field(default="registered", init=False)

    @property
    def statement(self) -> str:
        return f"the paragraph mentioning {self.mention} (sha256 {self.paragraph_sha256[:12]}…)"

    @property
    def dim_names(self) -> tuple[str, ...]:
        return self.dims

    @property
    def description(self) -> str:
        fn = self.function
        return (
            f"hand-written whole check {fn.__module__}.{fn.__qualname__} (version "
            f"{self.version}) of a theorem stated in prose"
        )

    def dim_constraints(self) -> Sequence[DimConstraint]:
        return ()

    def input_specs(self, dims: Mapping[str, int]) -> dict[str, InputSpec]:
        return {}

    def build(self, dims: Mapping[str, int], dtype: Any) -> Evaluation:
        raise TypeError(f"{self.name} is checked as a whole (run_whole), not trial by trial")

    def run_whole(
        self, *, trials: int, seed: int, dtype: str, dims: Mapping[str, int], **_: Any
    ) -> CheckResult:
        """`draws` and `shrink_failures` do not apply: the runner decides its own."""
        from checkers.runtime.jaxsetup import device_name

        start = time.perf_counter()
        common: dict[str, Any] = {
            "name": self.name,
            "checker": "registered",
            "seed": seed,
            "dtype": dtype,
            "device": device_name(),
            "dependencies": self.dependencies,
            "assumptions": self.assumptions,
            "version": self.version,
        }
        if dtype not in self.dtypes:
            return CheckResult(
                status="unsupported",
                reason=f"this checker supports {', '.join(self.dtypes)}, not {dtype}",
                trials=trials,
                **common,
            )
        unknown = sorted(set(dims) - set(self.dims))
        if unknown:
            return CheckResult(
                status="error",
                reason=f"no dimension {', '.join(unknown)} (dimensions: {', '.join(self.dims)})",
                trials=trials,
                **common,
            )
        try:
            out = self.function(dict(dims), dtype, seed, trials)
        except ValueError as e:
            return CheckResult(status="error", reason=str(e), trials=trials, **common)
        return CheckResult(
            status=out.status,
            reason=out.reason,
            trials=out.trials,
            dims=dict(out.dims),
            draws=[dict(out.dims)],
            max_abs_err=out.max_abs_err,
            max_rel_err=out.max_rel_err,
            atol=out.atol,
            rtol=out.rtol,
            trial=out.trial,
            parts=list(out.parts),
            stats=dict(out.stats),
            duration_s=round(time.perf_counter() - start, 6),
            **common,
        )

    def __repr__(self) -> str:
        fn = self.function
        return (
            f"register_prose({self.name!r}, mention={self.mention!r}, "
            f"paragraph_sha256={self.paragraph_sha256!r}, dims={self.dims!r}, "
            f"dtypes={self.dtypes!r}, version={self.version!r})({fn.__module__}.{fn.__qualname__})"
        )


def register_prose(
    name: str,
    *,
    mention: str,
    paragraph_sha256: str,
    dims: Sequence[str] = (),
    dtypes: Sequence[str] = DTYPES,
    version: str = "1",
    dependencies: Sequence[str] = (),
    registry: Registry | None = None,
) -> Callable[[Runner], ProseChecker]:
    """Validate a prose registration now; the decorated runner becomes the entry."""
    validate_name(name)
    where = f"checker {name!r}"
    if not isinstance(mention, str) or not all(is_identifier(p) for p in mention.split(".")):
        raise RegistrationError(f"{where}: mention must be a name as the prose writes it")
    if name != mention and not name.endswith("." + mention):
        raise RegistrationError(f"{where}: mention {mention!r} is not the end of its name")
    if not isinstance(paragraph_sha256, str) or not _SHA256.fullmatch(paragraph_sha256):
        raise RegistrationError(f"{where}: paragraph_sha256 must be 64 lowercase hex digits")
    if isinstance(dims, str) or not all(isinstance(d, str) and is_identifier(d) for d in dims):
        raise RegistrationError(f"{where}: dims must be a sequence of names, got {dims!r}")
    if isinstance(dtypes, str) or not dtypes or any(d not in DTYPES for d in dtypes):
        raise RegistrationError(f"{where}: dtypes must be a non-empty subset of {DTYPES!r}")
    if not isinstance(version, str) or not version.strip():
        raise RegistrationError(f"{where}: version must be a non-empty string")
    target = REGISTRY if registry is None else registry

    def decorate(function: Runner) -> ProseChecker:
        if not callable(function):
            raise RegistrationError(f"{where}: must decorate a function")
        entry = ProseChecker(
            name=name,
            function=function,
            mention=mention,
            paragraph_sha256=paragraph_sha256,
            dims=tuple(dims),
            dtypes=tuple(dtypes),
            version=version,
            dependencies=tuple(dependencies),
        )
        target.add(entry)  # type: ignore[arg-type]
        return entry

    return decorate
