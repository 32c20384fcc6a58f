"""Wrong variants of the seed statements and equations must fail; equivalent ones pass."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from derived_support import sides

from checkers import Environment, Registry
from checkers.derived import DerivedChecker, derive
from theorem_index.model import Declaration
from theorem_index.readers.text_page import read_text_page

DIMS = ((2, 3, 4, 2, 3, 2), (3, 2, 1, 3, 4, 3), (1, 4, 3, 2, 2, 1))


@pytest.fixture(scope="module")
def seed_decls(seed_page: Path) -> dict[str, Declaration]:
    doc = read_text_page(str(seed_page), seed_page.read_text(encoding="utf-8"), seed_page.stem)
    return {d.name: d for d in doc.declarations}


def _mutated(decls: dict[str, Declaration], name: str, old: str, new: str) -> Environment:
    d = decls[name]
    if d.kind == "def":
        eqs = tuple(e.replace(old, new) for e in d.equations)
        assert eqs != d.equations, f"{old!r} not in the equation of {name}"
        d = dataclasses.replace(d, equations=eqs)
    else:
        assert old in d.statement, f"{old!r} not in the statement of {name}"
        d = dataclasses.replace(d, statement=d.statement.replace(old, new, 1))
    return Environment.from_declarations(
        [*(x for x in decls.values() if x.name != name), d], registry=Registry()
    )


def _max_error(env: Environment, theorem: str) -> float:
    checker = derive(theorem, env)
    assert isinstance(checker, DerivedChecker), checker
    worst = 0.0
    for k, sizes in enumerate(DIMS):
        dims = dict(zip(checker.dim_names, sizes, strict=False))
        lhs, rhs = sides(checker, dims, trials=48, seed=k)
        worst = max(worst, float(np.max(np.abs(lhs - rhs) / (1e-12 + 1e-10 * np.abs(rhs)))))
    return worst


MUTANTS = [
    # (definition or theorem mutated, text, replacement, theorem checked)
    ("Proofs.patchEmbed_bias_grad", "n.succ", "n.castSucc", "Proofs.vit_patchb_grad_bridge"),
    ("Proofs.patchEmbed_weight_grad", "n.succ", "n.castSucc", "Proofs.vit_patchW_grad_bridge"),
    (
        "Proofs.rowDense_weight_grad",
        "X r i * dY r j",
        "X r i * dY r j * 2",
        "Proofs.vit_rowDenseW_grad_bridge",
    ),
    ("Proofs.rowDense_bias_grad", "dY r j", "-dY r j", "Proofs.vit_rowDenseb_grad_bridge"),
    ("Proofs.cls_token_grad", "(0, i)", "(1, i)", "Proofs.vit_render_cls_certified"),
    (
        "Proofs.rowLN_grad_gamma",
        "(X r) (dY r)",
        "(dY r) (X r)",
        "Proofs.vit_rowlnGamma_grad_bridge",
    ),
    ("Proofs.pdiv_rowLN_gamma", "bnXhat D ε", "bnXhat D (2 * ε)", "Proofs.pdiv_rowLN_gamma"),
    ("Proofs.pdiv_rowLN_beta", "= 1", "= 0", "Proofs.pdiv_rowLN_beta"),
    ("Proofs.pdiv_maskGather_add_const", "= mask j *", "=", "Proofs.pdiv_maskGather_add_const"),
    ("Proofs.pdiv_patchEmbed_cls", ".1 = 0 then 1", ".1 = 1 then 1", "Proofs.pdiv_patchEmbed_cls"),
    (
        "Proofs.pdiv_patchEmbed_W",
        "(↑(finProdFinEquiv.symm idx).1 - 1)",
        "↑(finProdFinEquiv.symm idx).1",
        "Proofs.pdiv_patchEmbed_W",
    ),
    (
        "Proofs.vit_render_rowdenseb_certified",
        "bb i - lr",
        "bb i + lr",
        "Proofs.vit_render_rowdenseb_certified",
    ),
    ("Proofs.pdiv_id_add_const", "p k + C k", "p k * C k", "Proofs.pdiv_id_add_const"),
    (
        "Proofs.pdiv_rowDense_W",
        "X (finProdFinEquiv.symm idx).1 i",
        "X (finProdFinEquiv.symm idx).1 i * 2",
        "Proofs.pdiv_rowDense_W",
    ),
]


@pytest.mark.parametrize("defn, old, new, theorem", MUTANTS)
def test_check_mutant_fails(
    seed_decls: dict[str, Declaration], defn: str, old: str, new: str, theorem: str
) -> None:
    env = _mutated(seed_decls, defn, old, new)
    assert _max_error(env, theorem) > 1.0


@pytest.mark.parametrize(
    "theorem, old, new",
    [
        (
            "Proofs.sum_fin_prod",
            "∑ idx : Fin (m * n), f idx",
            "∑ idx : Fin (m * n), f (Fin.rev idx)",
        ),
        (
            "Proofs.sum_fin_prod",
            "∑ r : Fin m, ∑ k : Fin n, f (finProdFinEquiv (r, k))",
            "∑ k : Fin n, ∑ r : Fin m, f (finProdFinEquiv (r, k))",
        ),
        ("Proofs.pdiv_id_add_const", "if i = j then 1 else 0", "if j = i then 1 else 0"),
    ],
)
def test_check_equivalent_rewrite_passes(
    seed_decls: dict[str, Declaration], theorem: str, old: str, new: str
) -> None:
    env = _mutated(seed_decls, theorem, old, new)
    assert _max_error(env, theorem) <= 1.0
