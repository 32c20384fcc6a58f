"""Every theorem of the seed page gets a derived checker whose two sides agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from derived_support import sides

from checkers import Environment, Registry, check
from checkers.statements.checker import DerivedChecker
from checkers.statements.conjunction import Conjunction
from checkers.statements.derive import derive
from theorem_index.readers.text_page import read_text_page

SEED_THEOREMS = (
    "Proofs.sum_fin_prod",
    "Proofs.pdiv_rowDense_W",
    "Proofs.vit_rowDenseW_grad_bridge",
    "Proofs.vit_rowDenseb_grad_bridge",
    "Proofs.vit_render_rowdenseW_certified",
    "Proofs.vit_render_rowdenseb_certified",
    "Proofs.pdiv_rowLN_gamma",
    "Proofs.pdiv_rowLN_beta",
    "Proofs.vit_rowlnGamma_grad_bridge",
    "Proofs.vit_rowlnBeta_grad_bridge",
    "Proofs.vit_render_rowlngamma_certified",
    "Proofs.vit_render_rowlnbeta_certified",
    "Proofs.pdiv_id_add_const",
    "Proofs.pdiv_maskGather_add_const",
    "Proofs.pdiv_patchEmbed_pos",
    "Proofs.vit_render_pos_certified",
    "Proofs.pdiv_patchEmbed_cls",
    "Proofs.vit_render_cls_certified",
    "Proofs.pdiv_patchEmbed_W",
    "Proofs.vit_patchW_grad_bridge",
    "Proofs.vit_render_patchW_certified",
    "Proofs.pdiv_patchEmbed_b",
    "Proofs.vit_patchb_grad_bridge",
    "Proofs.vit_render_patchb_certified",
)
# Two draws of distinct small sizes; the patch ones cover W < P (an empty patch
# grid row) and W ≥ P, and more tokens N than patches.
DRAWS = ((2, 3, 4, 5, 1, 3), (3, 1, 5, 2, 4, 2))


@pytest.fixture(scope="module")
def seed_env(seed_page: Path) -> Environment:
    doc = read_text_page(str(seed_page), seed_page.read_text(encoding="utf-8"), seed_page.stem)
    return Environment.from_declarations(doc.declarations, registry=Registry())


def test_list_seed_theorems_matches_page(seed_env: Environment) -> None:
    assert tuple(d.name for d in seed_env.theorems()) == SEED_THEOREMS


@pytest.mark.parametrize("name", SEED_THEOREMS)
def test_derive_seed_theorem_sides_agree_on_random_inputs(seed_env: Environment, name: str) -> None:
    derived = derive(name, seed_env)
    # a generic statement is one checker per modelled type (`M := ℤ`)
    parts = derived.clauses if isinstance(derived, Conjunction) else (derived,)
    for checker in parts:
        assert isinstance(checker, DerivedChecker), checker
        for k, sizes in enumerate(DRAWS):
            dims = dict(zip(checker.dim_names, sizes, strict=False))
            lhs, rhs = sides(checker, dims, trials=16, seed=k)
            assert lhs.shape == rhs.shape
            assert np.all(np.isfinite(lhs)) and np.all(np.isfinite(rhs))
            np.testing.assert_allclose(lhs, rhs, rtol=1e-10, atol=1e-12)


def test_derive_seed_dependencies_follow_equations(seed_env: Environment) -> None:
    checker = derive("Proofs.vit_patchW_grad_bridge", seed_env)
    assert isinstance(checker, DerivedChecker)
    assert checker.dependencies == (
        "Proofs.Kernel4.unflatten",
        "Proofs.patchEmbed_flat",
        "Proofs.patchEmbed_weight_grad",
        "Proofs.patchRead",
        "Proofs.pdiv",
    )
    assert checker.dim_names == ("ic", "H", "W", "P", "N", "D")
    specs = checker.input_specs({"ic": 2, "H": 3, "W": 4, "P": 2, "N": 5, "D": 3})
    assert specs["Wc"].shape == (3, 2, 2, 2)
    assert specs["img"].shape == (24,)
    assert specs["dy"].shape == (18,)
    assert specs["kh"].kind == "fin" and specs["kh"].high == 2


def test_derive_index_map_and_vec1_inputs(seed_env: Environment) -> None:
    mask = derive("Proofs.pdiv_maskGather_add_const", seed_env)
    assert isinstance(mask, DerivedChecker)
    specs = mask.input_specs({"m": 3, "D": 4})
    assert specs["σ"].kind == "index_map" and specs["σ"].shape == (3,) and specs["σ"].high == 4
    ln = derive("Proofs.vit_rowlnGamma_grad_bridge", seed_env)
    assert isinstance(ln, DerivedChecker)
    assert ln.input_specs({"N": 2, "D": 3})["γ"].shape == (1,)


def test_derive_generic_type_at_each_modelled_instance(seed_env: Environment) -> None:
    checker = derive("Proofs.sum_fin_prod", seed_env)  # {M : Type u_1} [AddCommMonoid M]
    assert isinstance(checker, Conjunction)
    assert checker.labels == ("M := ℝ", "M := ℤ", "M := ℕ")
    assert checker.dim_names == ("m", "n")
    specs = [c.input_specs({"m": 2, "n": 3})["f"] for c in checker.clauses]
    assert [s.shape for s in specs] == [(6,)] * 3
    assert [(s.kind, s.lo, s.hi) for s in specs[1:]] == [("int", -10, 10), ("int", 0, 10)]


@pytest.mark.parametrize(
    "name",
    [
        "Proofs.vit_rowDenseW_grad_bridge",
        "Proofs.pdiv_patchEmbed_cls",
        "Proofs.vit_render_rowlngamma_certified",
    ],
)
def test_check_seed_theorem_passes_through_harness(seed_env: Environment, name: str) -> None:
    result = check(name, seed_env, trials=64, seed=3)
    assert result.checker == "derived"
    assert result.status == "pass", result.reason
    assert len(result.draws) >= 4


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_check_seed_theorems_raise_no_false_alarm(seed_env: Environment, seed: int) -> None:
    """Every seed theorem passes at float64, 64 trials over at least 4 dims draws, per seed."""
    problems = []
    for name in SEED_THEOREMS:
        result = check(name, seed_env, trials=64, seed=seed, dtype="float64")
        assert result.checker == "derived"
        assert result.trials == 64 and len(result.draws) >= 4, result.draws
        if result.status != "pass":
            problems.append(f"{name}: {result.status}: {result.reason}")
    assert not problems, problems
