"""Helpers for the derived-checker tests: evaluate Lean text, build small environments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax
import numpy as np

from checkers import Environment, Registry
from checkers.core import InputSpec
from checkers.evaluator.evaluate import Evaluator
from checkers.language.coercion import Ctx, settle
from checkers.language.values import Arr, Sz, as_array
from checkers.library.semantics import Semantics
from theorem_index.lean import KnownNames, parse_term, resolve
from theorem_index.model import Declaration


def term(text: str, bound: tuple[str, ...] = ()) -> Any:
    """Parse and resolve `text` as the upstream project's statements are (namespace Proofs)."""
    return resolve(parse_term(text), bound=bound, namespace="Proofs", known=KnownNames()).term


def real(x: Any, *dims: int) -> Arr:
    data = np.asarray(x, dtype=np.float64)
    doms = tuple(Sz(d) for d in (dims or data.shape))
    return Arr(jax.numpy.asarray(data), "real", dom=doms)


def fin(i: int, n: int) -> Arr:
    return Arr(jax.numpy.asarray(i, dtype=jax.numpy.int64), "fin", bound=Sz(n))


def nat(n: int) -> Arr:
    return Arr(int(n), "nat")


def evaluate(text: str, env: Mapping[str, Any] | None = None, sem: Semantics | None = None) -> Any:
    """The value of a Lean term, with `env` binding its free variables."""
    env = dict(env or {})
    ev = Evaluator(sem or Semantics(), Ctx())
    return ev.eval(term(text, tuple(env)), env)


def value(
    text: str, env: Mapping[str, Any] | None = None, sem: Semantics | None = None
) -> np.ndarray:
    """The value as an array; numerals nothing types are ℕ, as in a statement."""
    v = evaluate(text, env, sem)
    assert isinstance(v, Arr), v
    return np.asarray(as_array(settle(v)))


def theorem(name: str, binders: str, statement: str) -> Declaration:
    return Declaration(
        name=name,
        kind="theorem",
        module="Test",
        binders=binders,
        statement=statement,
        namespace="Proofs",
    )


def definition(
    name: str, binders: str, type_: str, *equations: str, namespace: str = "Proofs"
) -> Declaration:
    """A definition with its equations (several for a definition by cases)."""
    return Declaration(
        name=name,
        kind="def",
        module="Test",
        binders=binders,
        statement=type_,
        equations=equations,
        namespace=namespace,
    )


# ℕ's factorial by cases on its argument: a definition by structural recursion
FACT = definition(
    "Proofs.fact",
    "",
    "ℕ → ℕ",
    "Proofs.fact 0 = 1",
    "Proofs.fact (k + 1) = (k + 1) * Proofs.fact k",
)


def environment(*decls: Declaration) -> Environment:
    return Environment.from_declarations(decls, registry=Registry())


def random_inputs(specs: Mapping[str, InputSpec], rng: np.random.Generator) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n, s in specs.items():
        if s.kind == "real":
            x = rng.normal(size=s.shape)
            if s.constraint == "positive":
                x = np.abs(x) + 0.1
            out[n] = x
        elif s.kind == "fin":
            out[n] = np.int64(rng.integers(0, s.high))
        elif s.kind == "index_map":
            out[n] = rng.integers(0, s.high, size=s.shape).astype(np.int64)
        else:
            assert s.hi is not None
            out[n] = rng.integers(s.lo, s.hi + 1, size=s.shape).astype(np.int64)
    return out


def sides(
    checker: Any, dims: Mapping[str, int], trials: int = 8, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Both sides over `trials` random inputs (vmapped and jitted, as the harness does)."""
    rng = np.random.default_rng(seed)
    specs = checker.input_specs(dims)
    batch = [random_inputs(specs, rng) for _ in range(trials)]
    stacked = {n: np.stack([b[n] for b in batch]) for n in specs}
    fn = jax.jit(jax.vmap(checker.build(dims, np.float64)))
    lhs, rhs = fn(stacked)
    return np.asarray(lhs), np.asarray(rhs)
