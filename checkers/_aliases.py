"""Deprecated import paths: the modules that moved when `checkers` was grouped into
subpackages, still importable under their old names.

`import checkers` installs a finder for the old names; importing one warns
(DeprecationWarning) and gives the module itself (`checkers.derived.values is
checkers.language.values`), so that monkeypatching and isinstance work through either
name. Packs should import `checkers.pack` instead (README, "Deprecations").
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import Any

__all__ = ["MOVED", "install"]

MOVED: dict[str, str] = {
    "checkers.binding": "checkers.registry.binding",
    "checkers.bounded": "checkers.inputs.bounded",
    "checkers.confirming": "checkers.harness.confirming",
    "checkers.coverage": "checkers.analysis.coverage",
    "checkers.crosscheck": "checkers.harness.crosscheck",
    "checkers.definition_binding": "checkers.registry.definition_binding",
    "checkers.derived.application": "checkers.evaluator.application",
    "checkers.derived.arguments": "checkers.evaluator.arguments",
    "checkers.derived.arith": "checkers.language.arith",
    "checkers.derived.at_once": "checkers.evaluator.at_once",
    "checkers.derived.binder_shapes": "checkers.premises.binder_shapes",
    "checkers.derived.binders": "checkers.premises.binders",
    "checkers.derived.bound_search": "checkers.premises.bound_search",
    "checkers.derived.bound_values": "checkers.premises.bound_values",
    "checkers.derived.bounds": "checkers.premises.bounds",
    "checkers.derived.checker": "checkers.statements.checker",
    "checkers.derived.coercion": "checkers.language.coercion",
    "checkers.derived.conjunction": "checkers.statements.conjunction",
    "checkers.derived.contraction": "checkers.language.contraction",
    "checkers.derived.counting": "checkers.library.counting",
    "checkers.derived.definitions": "checkers.evaluator.definitions",
    "checkers.derived.derivatives": "checkers.evaluator.derivatives",
    "checkers.derived.derive": "checkers.statements.derive",
    "checkers.derived.drawn_functions": "checkers.premises.drawn_functions",
    "checkers.derived.drawn_lists": "checkers.premises.drawn_lists",
    "checkers.derived.elaboration": "checkers.evaluator.elaboration",
    "checkers.derived.equations": "checkers.evaluator.equations",
    "checkers.derived.errors": "checkers.language.errors",
    "checkers.derived.evaluate": "checkers.evaluator.evaluate",
    "checkers.derived.exact": "checkers.exact.sides",
    "checkers.derived.exact_numbers": "checkers.exact.numbers",
    "checkers.derived.exact_terms": "checkers.exact.terms",
    "checkers.derived.finsets": "checkers.evaluator.finsets",
    "checkers.derived.float_model": "proofbridge_lean4_mlir.float_model",
    "checkers.derived.forms": "checkers.evaluator.forms",
    "checkers.derived.host": "checkers.language.host",
    "checkers.derived.inductives": "checkers.evaluator.inductives",
    "checkers.derived.inference": "checkers.language.inference",
    "checkers.derived.instances": "checkers.language.instances",
    "checkers.derived.kinks": "checkers.evaluator.kinks",
    "checkers.derived.lax_ops": "checkers.language.lax_ops",
    "checkers.derived.lean_core": "checkers.library.lean_core",
    "checkers.derived.lists": "checkers.library.lists",
    "checkers.derived.measure": "checkers.language.measure",
    "checkers.derived.memo": "checkers.language.memo",
    "checkers.derived.metered": "checkers.language.metered",
    "checkers.derived.notation": "checkers.language.notation",
    "checkers.derived.numerals": "checkers.language.numerals",
    "checkers.derived.operators": "checkers.evaluator.operators",
    "checkers.derived.patterns": "checkers.evaluator.patterns",
    "checkers.derived.plugins": "checkers.library.plugins",
    "checkers.derived.premises": "checkers.premises.holding",
    "checkers.derived.probability": "checkers.library.probability",
    "checkers.derived.propositions": "checkers.statements.propositions",
    "checkers.derived.reach": "checkers.library.reach",
    "checkers.derived.readings": "checkers.statements.readings",
    "checkers.derived.reparam": "checkers.premises.reparam",
    "checkers.derived.semantics": "checkers.library.semantics",
    "checkers.derived.statement": "checkers.statements.statement",
    "checkers.derived.structures": "checkers.library.structures",
    "checkers.derived.substitute": "checkers.language.substitute",
    "checkers.derived.total": "checkers.language.total",
    "checkers.derived.trees": "checkers.evaluator.trees",
    "checkers.derived.types": "checkers.language.types",
    "checkers.derived.unify": "checkers.language.unify",
    "checkers.derived.values": "checkers.language.values",
    "checkers.derived.vectorise": "checkers.language.vectorise",
    "checkers.derived.vocabulary": "proofbridge_lean4_mlir.vocabulary",
    "checkers.description": "checkers.harness.description",
    "checkers.dims": "checkers.inputs.dims",
    "checkers.environment": "checkers.registry.environment",
    "checkers.evaluation": "checkers.harness.evaluation",
    "checkers.interpreted": "checkers.harness.interpreted",
    "checkers.jaxsetup": "checkers.runtime.jaxsetup",
    "checkers.memory": "checkers.runtime.memory",
    "checkers.mutation": "checkers.analysis.mutation",
    "checkers.outcome": "checkers.harness.outcome",
    "checkers.program_store": "checkers.runtime.program_store",
    "checkers.programs": "checkers.harness.programs",
    "checkers.prose": "checkers.registry.prose",
    "checkers.regimes": "checkers.inputs.regimes",
    "checkers.registered": "proofbridge_lean4_mlir.registered",
    "checkers.registered.finsum": "proofbridge_lean4_mlir.registered.finsum",
    "checkers.registered.lean": "proofbridge_lean4_mlir.registered.lean",
    "checkers.registered.vit": "proofbridge_lean4_mlir.registered.vit",
    "checkers.registered.vit_tiny": "proofbridge_lean4_mlir.registered.vit_tiny",
    "checkers.replay": "checkers.harness.replay",
    "checkers.sampling": "checkers.inputs.sampling",
    "checkers.shrink": "checkers.harness.shrink",
    "checkers.streams": "checkers.inputs.streams",
    "checkers.templates": "checkers.registry.templates",
    "checkers.trials": "checkers.harness.trials",
    "checkers.verdict": "checkers.harness.verdict",
}


class _Alias(importlib.abc.Loader):
    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        old = module.__name__
        warnings.warn(
            f"{old} is deprecated: import {self.new} (or, from a pack, checkers.pack)",
            DeprecationWarning,
            stacklevel=2,
        )
        # the import system hands back whatever sys.modules holds once this returns
        sys.modules[old] = importlib.import_module(self.new)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        new = MOVED.get(fullname)
        if new is None and fullname.startswith("checkers.registered."):
            # modules inside the moved packages (the ViT-Tiny checker's)
            new = "proofbridge_lean4_mlir.registered." + fullname.removeprefix(
                "checkers.registered."
            )
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(new))


_FINDER = _Finder()


def install() -> None:
    """Put the finder of the old names first on sys.meta_path (once)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
