"""Wrong variants of the seed statements and equations fail through the harness; equivalent
variants pass.

Each mutant edits one line of the seed page's text (a theorem's header or a
definition's equation), and the edited page goes the whole way: reader ->
parser -> derived checker -> `checkers.check` at its defaults (float64, 64
trials, 4 dims draws). A mutant must fail with a counterexample that was
shrunk, at the small dimensions the defect needs. The full table is marked
slow; the unmarked fast subset covers an equation change seen through its
dependents, a dropped factor, a sign flip, an off-by-one row, a branch swap
and a summand change.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from checkers import Environment, Registry, Unsupported, check
from theorem_index import read_bytes


@dataclass(frozen=True)
class Mutant:
    key: str
    decl: str  # the declaration whose line is edited (header or equation)
    old: str
    new: str
    checked: tuple[str, ...]  # theorems that must now fail
    most: int  # the largest dimension the shrunk counterexample needs
    fast: bool = False


M = Mutant
# fmt: off
MUTANTS = (
    # equations: every dependent of a changed definition fails
    M("patchb-castSucc", "Proofs.patchEmbed_bias_grad", "n.succ", "n.castSucc",
      ("Proofs.vit_patchb_grad_bridge", "Proofs.vit_render_patchb_certified"), 1, fast=True),
    M("patchW-castSucc", "Proofs.patchEmbed_weight_grad", "n.succ", "n.castSucc",
      ("Proofs.vit_patchW_grad_bridge", "Proofs.vit_render_patchW_certified"), 1),
    M("patchW-swap-kh-kw", "Proofs.patchEmbed_weight_grad", "c kh kw ↑n", "c kw kh ↑n",
      ("Proofs.vit_patchW_grad_bridge",), 2),
    M("rowdenseW-drop-X", "Proofs.rowDense_weight_grad", "X r i * dY r j", "dY r j",
      ("Proofs.vit_rowDenseW_grad_bridge", "Proofs.vit_render_rowdenseW_certified"), 1,
      fast=True),
    M("rowdenseb-sign", "Proofs.rowDense_bias_grad", "= ∑ r : Fin N, dY r j",
      "= ∑ r : Fin N, -dY r j",
      ("Proofs.vit_rowDenseb_grad_bridge", "Proofs.vit_render_rowdenseb_certified"), 1,
      fast=True),
    M("cls-row1", "Proofs.cls_token_grad", "(0, i)", "(1, i)",
      ("Proofs.vit_render_cls_certified",), 1),
    M("rowlngamma-swap", "Proofs.rowLN_grad_gamma", "(X r) (dY r)", "(dY r) (X r)",
      ("Proofs.vit_rowlnGamma_grad_bridge", "Proofs.vit_render_rowlngamma_certified"), 2),
    M("rowlnbeta-double", "Proofs.rowLN_grad_beta", "Proofs.bn_grad_beta D (dY r)",
      "2 * Proofs.bn_grad_beta D (dY r)",
      ("Proofs.vit_rowlnBeta_grad_bridge", "Proofs.vit_render_rowlnbeta_certified"), 1),
    # statements
    M("pdivrowdense-branches", "Proofs.pdiv_rowDense_W",
      "then X (finProdFinEquiv.symm idx).1 i else 0",
      "then 0 else X (finProdFinEquiv.symm idx).1 i", ("Proofs.pdiv_rowDense_W",), 1,
      fast=True),
    M("rowdenseW-ji", "Proofs.vit_rowDenseW_grad_bridge", "(finProdFinEquiv (i, j))",
      "(finProdFinEquiv (j, i))", ("Proofs.vit_rowDenseW_grad_bridge",), 2),
    M("rowdenseW-colmajor", "Proofs.vit_rowDenseW_grad_bridge",
      "rowDense_weight_grad X (Mat.unflatten dy) i j",
      "rowDense_weight_grad X (fun (r : Fin N) (k : Fin c) => dy (finProdFinEquiv (k, r))) i j",
      ("Proofs.vit_rowDenseW_grad_bridge",), 2),
    M("rowdenseb-unflatten-rev", "Proofs.vit_rowDenseb_grad_bridge",
      "rowDense_bias_grad (Mat.unflatten dy) i",
      "rowDense_bias_grad (Mat.unflatten fun (k : Fin (N * c)) => dy (Fin.rev k)) i",
      ("Proofs.vit_rowDenseb_grad_bridge",), 2),
    M("rowdenseb-plus-lr", "Proofs.vit_render_rowdenseb_certified",
      "bb i - lr * rowDense_bias_grad", "bb i + lr * rowDense_bias_grad",
      ("Proofs.vit_render_rowdenseb_certified",), 1),
    M("rowlngamma-rev-dy", "Proofs.vit_rowlnGamma_grad_bridge", "γ 0 idx * dy idx",
      "γ 0 idx * dy (Fin.rev idx)", ("Proofs.vit_rowlnGamma_grad_bridge",), 2),
    M("rowlngamma-2eps", "Proofs.vit_rowlnGamma_grad_bridge", "layerNormForward D ε",
      "layerNormForward D (2 * ε)", ("Proofs.vit_rowlnGamma_grad_bridge",), 2),
    M("rowlngamma-no-lr", "Proofs.vit_render_rowlngamma_certified",
      "γ 0 - lr * rowLN_grad_gamma", "γ 0 - rowLN_grad_gamma",
      ("Proofs.vit_render_rowlngamma_certified",), 2),
    M("rowlnbeta-sign", "Proofs.vit_render_rowlnbeta_certified", "β 0 - lr * rowLN_grad_beta",
      "β 0 + lr * rowLN_grad_beta", ("Proofs.vit_render_rowlnbeta_certified",), 1),
    M("pdivrowln-2eps", "Proofs.pdiv_rowLN_gamma", "= bnXhat D ε", "= bnXhat D (2 * ε)",
      ("Proofs.pdiv_rowLN_gamma",), 2),
    M("pdivrowlnbeta-zero", "Proofs.pdiv_rowLN_beta", "β i idx = 1", "β i idx = 0",
      ("Proofs.pdiv_rowLN_beta",), 1),
    M("idadd-neg", "Proofs.pdiv_id_add_const", "=> p k + C k", "=> -p k + C k",
      ("Proofs.pdiv_id_add_const",), 1, fast=True),
    M("maskgather-drop-mask", "Proofs.pdiv_maskGather_add_const", "= mask j * if", "= if",
      ("Proofs.pdiv_maskGather_add_const",), 1),
    M("cls-branches", "Proofs.pdiv_patchEmbed_cls", "= 0 then 1 else 0)", "= 0 then 0 else 1)",
      ("Proofs.pdiv_patchEmbed_cls",), 1),
    M("cls-fst-snd", "Proofs.pdiv_patchEmbed_cls", "if i = (finProdFinEquiv.symm j).2",
      "if i = (finProdFinEquiv.symm j).1", ("Proofs.pdiv_patchEmbed_cls",), 2),
    M("b-branches", "Proofs.pdiv_patchEmbed_b", "= 0 then 0 else 1)", "= 0 then 1 else 0)",
      ("Proofs.pdiv_patchEmbed_b",), 1),
    M("patchW-off-by-one", "Proofs.pdiv_patchEmbed_W", "(↑(finProdFinEquiv.symm idx).1 - 1)",
      "↑(finProdFinEquiv.symm idx).1", ("Proofs.pdiv_patchEmbed_W",), 2),
    M("pos-rev", "Proofs.pdiv_patchEmbed_pos", "if i = j then", "if i = Fin.rev j then",
      ("Proofs.pdiv_patchEmbed_pos",), 2),
    M("posrender-shift", "Proofs.vit_render_pos_certified", "lr * dy i =", "lr * dy (i + 1) =",
      ("Proofs.vit_render_pos_certified",), 2),
    M("patchW-flat-swap", "Proofs.vit_patchW_grad_bridge", "(d, c), kh), kw))",
      "(d, c), kw), kh))", ("Proofs.vit_patchW_grad_bridge",), 2),
    M("patchWrender-swap", "Proofs.vit_render_patchW_certified", ": Wc d c kh kw - lr *",
      ": Wc d c kw kh - lr *", ("Proofs.vit_render_patchW_certified",), 2),
    M("patchbrender-no-lr", "Proofs.vit_render_patchb_certified", "bc i - lr * patchEmbed",
      "bc i - patchEmbed", ("Proofs.vit_render_patchb_certified",), 1),
    M("sumfinprod-sign", "Proofs.sum_fin_prod", "∑ k : Fin n, f", "∑ k : Fin n, -f",
      ("Proofs.sum_fin_prod",), 1, fast=True),
)
# fmt: on

EQUIVALENTS = (
    ("sum-rev", "Proofs.sum_fin_prod", "f idx =", "f (Fin.rev idx) =", ("Proofs.sum_fin_prod",)),
    (
        "sum-reorder",
        "Proofs.sum_fin_prod",
        "∑ r : Fin m, ∑ k : Fin n,",
        "∑ k : Fin n, ∑ r : Fin m,",
        ("Proofs.sum_fin_prod",),
    ),
    (
        "rowdenseW-commute",
        "Proofs.rowDense_weight_grad",
        "X r i * dY r j",
        "dY r j * X r i",
        ("Proofs.vit_rowDenseW_grad_bridge", "Proofs.vit_render_rowdenseW_certified"),
    ),
    (
        "rowdenseW-rev-r",
        "Proofs.rowDense_weight_grad",
        "X r i * dY r j",
        "X (Fin.rev r) i * dY (Fin.rev r) j",
        ("Proofs.vit_rowDenseW_grad_bridge",),
    ),
    (
        "patchb-rev-n",
        "Proofs.patchEmbed_bias_grad",
        "(n.succ, d)",
        "((Fin.rev n).succ, d)",
        ("Proofs.vit_patchb_grad_bridge",),
    ),
    (
        "patchbrender-x2",
        "Proofs.vit_render_patchb_certified",
        ": bc i - lr",
        ": bc i * 2 - bc i - lr",
        ("Proofs.vit_render_patchb_certified",),
    ),
    (
        "rowdenseb-x+x",
        "Proofs.rowDense_bias_grad",
        "= ∑ r : Fin N, dY r j",
        "= ∑ r : Fin N, (dY r j + dY r j) / 2",
        ("Proofs.vit_rowDenseb_grad_bridge",),
    ),
    (
        "idadd-minus-const",
        "Proofs.pdiv_id_add_const",
        "=> p k + C k",
        "=> p k - C k",
        ("Proofs.pdiv_id_add_const",),
    ),
    (
        "idadd-symm",
        "Proofs.pdiv_id_add_const",
        "if i = j then",
        "if j = i then",
        ("Proofs.pdiv_id_add_const",),
    ),
    (
        "maskgather-commute",
        "Proofs.pdiv_maskGather_add_const",
        "mask k * cl (σ k)",
        "cl (σ k) * mask k",
        ("Proofs.pdiv_maskGather_add_const",),
    ),
    (
        "rowlnbeta-eta",
        "Proofs.vit_rowlnBeta_grad_bridge",
        "(Mat.unflatten dy)",
        "(Mat.unflatten fun (k : Fin (N * D)) => dy k)",
        ("Proofs.vit_rowlnBeta_grad_bridge",),
    ),
)


def edit(page: str, decl: str, old: str, new: str) -> str:
    """Replace `old` (exactly once) in the line of `decl`'s header or equation."""
    lines = page.split("\n")
    prefixes = (f"theorem {decl} ", f"noncomputable def {decl} ", f"• {decl} ")
    hits = [k for k, line in enumerate(lines) if line.startswith(prefixes)]
    target = [k for k in hits if lines[k].count(old) == 1]
    assert len(target) == 1, f"{old!r} is not once in exactly one line of {decl}"
    k = target[0]
    lines[k] = lines[k].replace(old, new)
    return "\n".join(lines)


_ENVS: dict[str, Environment] = {}


def environment_of(seed_page: Path, key: str, decl: str, old: str, new: str) -> Environment:
    if key not in _ENVS:
        text = edit(seed_page.read_text(encoding="utf-8"), decl, old, new)
        doc = read_bytes(seed_page.name, text.encode("utf-8"))
        assert not doc.errors, doc.errors
        # an empty registry: the derived checker reads the (mutated) statement
        _ENVS[key] = Environment.from_declarations(doc.declarations, registry=Registry())
    return _ENVS[key]


def _cases() -> list[object]:
    out: list[object] = []
    for m in MUTANTS:
        for name in m.checked:
            marks = () if m.fast else (pytest.mark.slow,)
            out.append(pytest.param(m, name, id=f"{m.key}:{name[7:]}", marks=marks))
    return out


def test_count_mutants_meets_target() -> None:
    assert len(MUTANTS) >= 25
    assert len({m.key for m in MUTANTS}) == len(MUTANTS)
    assert sum(m.fast for m in MUTANTS) >= 5


@pytest.mark.parametrize("mutant, name", _cases())
def test_check_mutant_fails_with_shrunk_counterexample(
    seed_page: Path, mutant: Mutant, name: str
) -> None:
    env = environment_of(seed_page, mutant.key, mutant.decl, mutant.old, mutant.new)
    result = check(name, env)
    assert result.checker == "derived"
    assert result.status == "fail", result.reason
    ce = result.counterexample
    assert ce is not None
    assert ce.shrunk, ce.note
    assert ce.dims == result.dims
    assert ce.dims and max(ce.dims.values()) <= mutant.most, (ce.dims, ce.note)
    assert ce.lhs != ce.rhs
    checker = env.resolve(name)
    assert not isinstance(checker, Unsupported)
    if getattr(checker, "clauses", None):  # a generic statement: the part that failed
        failed = [p["status"] for p in result.parts].index("fail")
        checker = checker.clauses[failed]
    assert set(ce.inputs) == set(checker.input_specs(ce.dims))


@pytest.mark.parametrize("key, decl, old, new, names", EQUIVALENTS, ids=[e[0] for e in EQUIVALENTS])
def test_check_equivalent_rewrite_passes(
    seed_page: Path, key: str, decl: str, old: str, new: str, names: tuple[str, ...]
) -> None:
    env = environment_of(seed_page, key, decl, old, new)
    for name in names:
        result = check(name, env)
        assert result.checker == "derived"
        assert result.status == "pass", (name, result.reason)
