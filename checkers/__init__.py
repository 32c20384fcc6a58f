"""ProofBridge checkers: registry, sampling, JAX evaluation, tolerances, the harness.

    from checkers import Environment, describe, check, repro

    env = Environment.from_declarations(decls)
    result = check("Proofs.sum_fin_prod", env, trials=64, seed=0)

Importing this package imports no JAX: JAX loads on the first computation
(`checkers.lazyjax`), so that deciding what a statement needs (`checkers.coverage`)
costs no JAX import. Whenever it loads, it is switched to float64 (the reference
precision), with the persistent compilation cache on when $PROOFBRIDGE_JAX_CACHE_DIR is
set; glibc gives large arrays back to the system as soon as they are freed
(`checkers.memory`).
"""

import checkers.lazyjax  # noqa: F401  (first: JAX is configured whenever it is imported)
import checkers.registered  # noqa: F401  (fills REGISTRY with the hand-written checkers)
from checkers.core import Checker, DimConstraint, InputSpec, ToleranceOverride, Unsupported
from checkers.description import describe
from checkers.environment import Environment, UnknownTheorem
from checkers.harness import check, run_checker
from checkers.jaxsetup import configure_compilation_cache, device_kind
from checkers.memory import keep_large_arrays_mapped
from checkers.registry import REGISTRY, RegistrationError, Registry, register
from checkers.replay import repro
from checkers.result import CheckerInfo, CheckResult, Counterexample, Repro

configure_compilation_cache()
keep_large_arrays_mapped()

__all__ = [
    "REGISTRY",
    "CheckResult",
    "Checker",
    "CheckerInfo",
    "Counterexample",
    "DimConstraint",
    "Environment",
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
