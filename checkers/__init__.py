"""ProofBridge checkers: registry, sampling, JAX evaluation, tolerances, the harness.

    from checkers import Environment, describe, check, repro

    env = Environment.from_declarations(decls)
    result = check("Proofs.sum_fin_prod", env, trials=64, seed=0)

Importing this package imports no JAX: JAX loads on the first computation
(`checkers.lazyjax`), so that deciding what a statement needs (`checkers.analysis.coverage`)
costs no JAX import. Whenever it loads, it is switched to float64 (the reference
precision), with the persistent compilation cache on when $PROOFBRIDGE_JAX_CACHE_DIR is
set; glibc gives large arrays back to the system as soon as they are freed
(`checkers.runtime.memory`).
"""

import checkers.lazyjax  # noqa: F401  (first: JAX is configured whenever it is imported)
from checkers import _aliases
from checkers.core import Checker, DimConstraint, InputSpec, ToleranceOverride, Unsupported
from checkers.harness.check import check, run_checker
from checkers.harness.description import describe
from checkers.harness.replay import repro
from checkers.registry.environment import Environment, UnknownTheorem
from checkers.registry.lazy import LazyDeclarations
from checkers.registry.packs import load_checker_packs
from checkers.registry.registrations import REGISTRY, RegistrationError, Registry, register
from checkers.result import CheckerInfo, CheckResult, Counterexample, Repro
from checkers.runtime.jaxsetup import configure_compilation_cache, device_kind
from checkers.runtime.memory import keep_large_arrays_mapped

_aliases.install()
configure_compilation_cache()
keep_large_arrays_mapped()
# every installed pack of registered checkers (entry point group `proofbridge.checkers`)
# fills REGISTRY
load_checker_packs()

__all__ = [
    "REGISTRY",
    "CheckResult",
    "Checker",
    "CheckerInfo",
    "Counterexample",
    "DimConstraint",
    "Environment",
    "LazyDeclarations",
    "InputSpec",
    "RegistrationError",
    "Registry",
    "Repro",
    "ToleranceOverride",
    "UnknownTheorem",
    "Unsupported",
    "check",
    "configure_compilation_cache",
    "describe",
    "device_kind",
    "register",
    "repro",
    "run_checker",
]
