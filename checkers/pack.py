"""The pack API: the one module a vocabulary pack or a pack of registered checkers imports.

A pack is a distribution that declares entry points (see docs/packs.md and the example
pack in packs/lean4_mlir):

    [project.entry-points."proofbridge.vocabulary"]
    team = "team_pack.vocabulary:BUILTINS"    # constants' semantics
    [project.entry-points."proofbridge.checkers"]
    team = "team_pack.registered"             # a module that registers checkers on import

    from checkers.pack import Builtin, as_array, coerce, register, real, jnp

Everything a pack needs is named here; the modules behind these names may move, this
module does not.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from checkers.core import Evaluation, InputSpec
    from checkers.evaluator.derivatives import one_hot
    from checkers.evaluator.evaluate import Evaluator
    from checkers.language import lax_ops, total
    from checkers.language.coercion import coerce, nat_constant
    from checkers.language.errors import EvalError, NotSupported
    from checkers.language.measure import note_operands, note_terms
    from checkers.language.total import xp_of
    from checkers.language.values import Arr, Builtin, Proof, Sz, as_array, numeral_size
    from checkers.language.vectorise import call_vectorised
    from checkers.lazyjax import jax, jnp
    from checkers.library.structures import StructSampler, register_structure
    from checkers.registry.prose import WholeOutcome, register_prose
    from checkers.registry.registrations import fin, index_map, nat, real, register

# each name and the module that defines it: loaded on first use, so that a pack of
# registered checkers imports the registry alone, and no pack imports JAX
_WHERE = {
    "Evaluation": "checkers.core",
    "InputSpec": "checkers.core",
    "one_hot": "checkers.evaluator.derivatives",
    "Evaluator": "checkers.evaluator.evaluate",
    "coerce": "checkers.language.coercion",
    "nat_constant": "checkers.language.coercion",
    "EvalError": "checkers.language.errors",
    "NotSupported": "checkers.language.errors",
    "note_operands": "checkers.language.measure",
    "note_terms": "checkers.language.measure",
    "xp_of": "checkers.language.total",
    "Arr": "checkers.language.values",
    "Builtin": "checkers.language.values",
    "Proof": "checkers.language.values",
    "Sz": "checkers.language.values",
    "as_array": "checkers.language.values",
    "numeral_size": "checkers.language.values",
    "call_vectorised": "checkers.language.vectorise",
    "jax": "checkers.lazyjax",
    "jnp": "checkers.lazyjax",
    "StructSampler": "checkers.library.structures",
    "register_structure": "checkers.library.structures",
    "WholeOutcome": "checkers.registry.prose",
    "register_prose": "checkers.registry.prose",
    "fin": "checkers.registry.registrations",
    "index_map": "checkers.registry.registrations",
    "nat": "checkers.registry.registrations",
    "real": "checkers.registry.registrations",
    "register": "checkers.registry.registrations",
}
_MODULES = {"lax_ops": "checkers.language.lax_ops", "total": "checkers.language.total"}

__all__ = [
    "lax_ops",
    "total",
    "Arr",
    "Builtin",
    "EvalError",
    "Evaluation",
    "Evaluator",
    "InputSpec",
    "NotSupported",
    "Proof",
    "StructSampler",
    "Sz",
    "WholeOutcome",
    "as_array",
    "call_vectorised",
    "coerce",
    "fin",
    "index_map",
    "jax",
    "jnp",
    "nat",
    "nat_constant",
    "note_operands",
    "note_terms",
    "numeral_size",
    "one_hot",
    "real",
    "register",
    "register_prose",
    "register_structure",
    "xp_of",
]


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(_MODULES[name])
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'checkers.pack' has no attribute {name!r}")


def __dir__() -> list[str]:
    return list(__all__)
