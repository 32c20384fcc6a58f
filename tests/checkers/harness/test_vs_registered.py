"""The hand-registered seed checkers and their derived twins compute the same sides."""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np
import pytest
from derived_support import random_inputs

from checkers import REGISTRY, Environment
from checkers.statements.checker import DerivedChecker
from checkers.statements.conjunction import Conjunction
from checkers.statements.derive import derive
from theorem_index.readers.text_page import read_text_page


@pytest.fixture(scope="module")
def env(seed_page: Path) -> Environment:
    doc = read_text_page(str(seed_page), seed_page.read_text(encoding="utf-8"), seed_page.stem)
    return Environment.from_declarations(doc.declarations)


def _twins(env: Environment) -> list[str]:
    return [d.name for d in env.theorems() if REGISTRY.get(d.name) is not None]


def test_cross_check_registered_against_derived(env: Environment) -> None:
    names = _twins(env)
    assert names, "no registered checker for a seed theorem"
    for name in names:
        registered = env.resolve(name)
        derived = derive(name, env)
        if isinstance(derived, Conjunction):  # generic: the registered one is its ℝ instance
            derived = derived.clauses[0]
        assert isinstance(derived, DerivedChecker), derived
        assert set(registered.dim_names) == set(derived.dim_names)
        for k, size in enumerate((2, 3, 4)):
            dims = {d: size + (i % 2) for i, d in enumerate(derived.dim_names)}
            specs = derived.input_specs(dims)
            assert registered.input_specs(dims) == specs, name
            inputs = random_inputs(specs, np.random.default_rng(k))
            reg = jax.jit(registered.build(dims, np.float64))(inputs)
            der = jax.jit(derived.build(dims, np.float64))(inputs)
            for a, b in zip(reg[:2], der, strict=True):  # a registered one may add measures
                np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12)
