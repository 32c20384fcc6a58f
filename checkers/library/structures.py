"""Binders whose type is a structure: sampled through a sampler registered for the type.

    M : FloatModel      -- inputs `M.u`, `M.θ`; the value `Struct("Proofs.FloatModel", …)`

A structure's fields may be functions with a property (FloatModel's `rnd` with `err :
|rnd x - x| ≤ u * |x|`), which no field-by-field draw meets; a `StructSampler` knows how
to draw members of its type: the real inputs it needs (named `binder.input`), the value
built from them in one trial, and what the draw covers (said in the result, as an
assumption of the check). Samplers are vocabulary: a project pack registers its own
(`STRUCTURES`); the evaluator only reads fields (`forms._proj`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from checkers.core import InputSpec
from checkers.language.values import Struct

__all__ = [
    "STRUCTURES",
    "StructSampler",
    "is_structure_field",
    "register_structure",
    "structure_sampler",
]


@dataclass(frozen=True)
class StructSampler:
    type_name: str  # the structure, fully qualified (`Proofs.FloatModel`)
    # the real scalar fields drawn as inputs named `binder.field`: a hypothesis that bounds
    # one (`M.u ≤ u32`) is met by the sampler, as for any real input (bounds.py)
    fields: Mapping[str, InputSpec]
    # further inputs the draw needs, by name without the binder's prefix
    hidden: Mapping[str, InputSpec]
    # (the inputs of one trial, by the same names; the float dtype) -> the value's fields
    build: Callable[[Mapping[str, Any], Any], Mapping[str, Any]]
    covers: str  # what a draw is, for the result's assumptions
    field_names: tuple[str, ...] = ()  # every field of the structure (what `M.f` may name)

    @property
    def inputs(self) -> Mapping[str, InputSpec]:
        return {**self.fields, **self.hidden}

    def specs(self, binder: str) -> dict[str, InputSpec]:
        return {f"{binder}.{k}": v for k, v in self.inputs.items()}

    def value(self, binder: str, inputs: Mapping[str, Any], dtype: Any) -> Struct:
        own = {k: inputs[f"{binder}.{k}"] for k in self.inputs}
        return Struct(self.type_name, dict(self.build(own, dtype)))


STRUCTURES: dict[str, StructSampler] = {}


def register_structure(sampler: StructSampler) -> StructSampler:
    STRUCTURES[sampler.type_name] = sampler
    return sampler


def structure_sampler(name: str | None) -> StructSampler | None:
    """The sampler of the structure `name` (as written or in the `Proofs` namespace)."""
    if name is None:
        return None
    return STRUCTURES.get(name) or STRUCTURES.get(f"Proofs.{name}")


def is_structure_field(field: str) -> bool:
    """Whether `x.field` names a field of some registered structure (static analysis)."""
    return any(field in s.field_names for s in STRUCTURES.values())
