"""Generate a synthetic corpus of documented declarations for the ingestion benchmark.

    python bench/corpus.py --n 10000 --form text --out bench/out/corpus-text

writes `n` declarations, about 100 per file, in the seed pages' plain-text
form (`text`) or as Lean 4 source (`lean`). The statements follow the seed
pages (per-token dense and layer-norm gradients, flat product indices,
`pdiv` Jacobians) with varied names and dimension letters; the same `seed`
gives the same corpus byte for byte.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass
from pathlib import Path

PER_FILE = 100
DIMS = ("N a c", "M p q", "T d k", "B m n", "S h w")


@dataclass(frozen=True)
class _Decl:
    kind: str  # theorem | def
    short: str
    binders: str
    statement: str
    doc: str
    body: str = ""  # definitions: the right-hand side of the equation
    args: str = ""  # definitions: the explicit arguments of the equation
    lam: str = ""  # definitions: the variables the Lean body abstracts over


def _theorems(i: int, rng: random.Random) -> list[_Decl]:
    n, a, c = rng.choice(DIMS).split()
    tag = f"{i}"
    return [
        _Decl(
            "theorem",
            f"sum_fin_prod_{tag}",
            f"{{M : Type u_1}} [AddCommMonoid M] ({a} {c} : ℕ) (f : Fin ({a} * {c}) → M)",
            f"∑ idx : Fin ({a} * {c}), f idx = ∑ r : Fin {a}, ∑ k : Fin {c}, "
            "f (finProdFinEquiv (r, k))",
            "Sum over a flat product index = double sum over the factors (row-major).",
        ),
        _Decl(
            "theorem",
            f"pdiv_rowDense_W_{tag}",
            f"{{{n} {a} {c} : ℕ}} (bb : Vec {c}) (X : Mat {n} {a}) (W : Mat {a} {c}) "
            f"(i : Fin {a}) (j' : Fin {c}) (idx : Fin ({n} * {c}))",
            f"pdiv (fun (v : Vec ({a} * {c})) => Mat.flatten fun (r : Fin {n}) => "
            "dense (Mat.unflatten v) bb (X r)) W.flatten (finProdFinEquiv (i, j')) idx = "
            "if j' = (finProdFinEquiv.symm idx).2 then X (finProdFinEquiv.symm idx).1 i else 0",
            "Jacobian of the per-token dense w.r.t. the (flattened) shared weight.",
        ),
        _Decl(
            "theorem",
            f"rowDenseW_grad_bridge_{tag}",
            f"{{{n} {a} {c} : ℕ}} (bb : Vec {c}) (X : Mat {n} {a}) (W : Mat {a} {c}) "
            f"(dy : Vec ({n} * {c})) (i : Fin {a}) (j : Fin {c})",
            f"rowDense_weight_grad X (Mat.unflatten dy) i j = ∑ o : Fin ({n} * {c}), "
            f"pdiv (fun (v : Vec ({a} * {c})) => Mat.flatten fun (r : Fin {n}) => "
            "dense (Mat.unflatten v) bb (X r)) W.flatten (finProdFinEquiv (i, j)) o * dy o",
            "Per-token dense W-gradient bridge: the rendered contraction equals the "
            "certified Jacobian contracted with the cotangent.",
        ),
        _Decl(
            "theorem",
            f"pdiv_rowLN_beta_{tag}",
            f"({n} {c} : ℕ) (ε γ : ℝ) (X : Mat {n} {c}) (β : Vec 1) (i : Fin 1) "
            f"(idx : Fin ({n} * {c}))",
            f"pdiv (fun (β' : Vec 1) => Mat.flatten fun (r : Fin {n}) => "
            f"layerNormForward {c} ε γ (β' 0) (X r)) β i idx = 1",
            "Jacobian of the rowwise scalar-LN w.r.t. β — ∂y_(r,k)/∂β = 1.",
        ),
        _Decl(
            "theorem",
            f"bnMean_const_{tag}",
            f"({n} : ℕ) (hn : 0 < {n}) (t : ℝ)",
            f"bnMean {n} (fun (_ : Fin {n}) => t) = t",
            "The mean of a constant vector is the constant.",
        ),
        _Decl(
            "theorem",
            f"sqrt_div_zero_{tag}",
            "(x : ℝ)",
            "Real.sqrt x / 0 = 0",
            "Division by zero is zero, whatever the numerator.",
        ),
        _Decl(
            "theorem",
            f"rowDense_bias_bridge_{tag}",
            f"{{{n} {a} {c} : ℕ}} (W : Mat {a} {c}) (X : Mat {n} {a}) (bb : Vec {c}) "
            f"(dy : Vec ({n} * {c})) (i : Fin {c})",
            f"rowDense_bias_grad (Mat.unflatten dy) i = ∑ o : Fin ({n} * {c}), "
            f"pdiv (fun (b' : Vec {c}) => Mat.flatten fun (r : Fin {n}) => dense W b' (X r)) "
            "bb i o * dy o",
            "Per-token dense b-gradient bridge.",
        ),
    ]


def _definitions(i: int, rng: random.Random) -> list[_Decl]:
    n, a, c = rng.choice(DIMS).split()
    return [
        _Decl(
            "def",
            f"rowDense_weight_grad_{i}",
            f"{{{n} {a} {c} : ℕ}} (X : Mat {n} {a}) (dY : Mat {n} {c})",
            f"Mat {a} {c}",
            "The token-axis-contracted outer product dW_(i,j) = Σ_r X_(r,i)·dY_(r,j).",
            f"∑ r : Fin {n}, X r i * dY r j",
            "X dY i j",
            "i j",
        ),
        _Decl(
            "def",
            f"rowLN_grad_beta_{i}",
            f"({n} {c} : ℕ) (dY : Mat {n} {c})",
            "ℝ",
            "The rendered rowwise-LN β gradient: dβ = Σ_r Σ_k dY_(r,k).",
            f"∑ r : Fin {n}, bn_grad_beta {c} (dY r)",
            f"{n} {c} dY",
        ),
        _Decl(
            "def",
            f"cls_token_grad_{i}",
            f"{{{n} {c} : ℕ}} (dy : Vec (({n} + 1) * {c}))",
            f"Vec {c}",
            "The row-0 slice of the patch-embed output cotangent.",
            "dy (finProdFinEquiv (0, i))",
            "dy i",
            "i",
        ),
    ]


def _module_decls(count: int, rng: random.Random) -> list[_Decl]:
    decls: list[_Decl] = []
    i = 0
    while len(decls) < count:
        pool = _theorems(i, rng) + _definitions(i, rng)
        rng.shuffle(pool)
        decls.extend(pool[: count - len(decls)])
        i += 1
    return decls


def _text_page(module: str, ns: str, decls: list[_Decl]) -> str:
    lines = [
        f"{module} — generated benchmark page #",
        "",
        f"module: {module}",
        "",
        "Per-token dense and rowwise layer-norm gradients, stated against pdiv "
        "(see rowDense_weight_grad and finProdFinEquiv).",
        "",
    ]
    for d in decls:
        prefix = "noncomputable def" if d.kind == "def" else "theorem"
        lines += [f"{prefix} {ns}.{d.short} {d.binders} : {d.statement}", "", d.doc, ""]
        if d.kind == "def":
            lines += ["Equations", "", f"• {ns}.{d.short} {d.args} = {d.body}", ""]
    return "\n".join(lines)


def _lean_file(module: str, ns: str, decls: list[_Decl], rng: random.Random) -> str:
    out = [
        "import Mathlib",
        "",
        f"/-! # {module}",
        "",
        "Generated benchmark module: per-token dense and rowwise layer-norm",
        "gradients, stated against `pdiv`. -/",
        "",
        "open Finset BigOperators",
        "",
        f"namespace {ns}",
        "",
    ]
    for d in decls:
        out.append(f"/-- {d.doc} -/")
        if d.kind == "def":
            out.append(f"noncomputable def {d.short} {d.binders} :")
            out.append(f"    {d.statement} :=")
            out.append(f"  fun {d.lam} => {d.body}" if d.lam else f"  {d.body}")
        else:
            attr = "@[simp] " if rng.random() < 0.1 else ""
            out.append(f"{attr}theorem {d.short} {d.binders} :")
            out.append(f"    {d.statement} := by")
            out.append("  -- the proof is skipped by the reader: (unbalanced ( in a comment")
            out.append("  simp [Finset.sum_comm]")
        out.append("")
    out.append(f"end {ns}")
    return "\n".join(out) + "\n"


def generate(n: int, form: str, out_dir: Path, seed: int = 0) -> list[Path]:
    """Write `n` declarations in `form` ('text' | 'lean') under `out_dir`; return the files."""
    if form not in ("text", "lean"):
        raise ValueError(f"form must be 'text' or 'lean', not {form!r}")
    rng = random.Random(seed)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    for k, start in enumerate(range(0, n, PER_FILE)):
        module = f"Bench.M{k:04d}"
        ns = f"Proofs.M{k:04d}"
        decls = _module_decls(min(PER_FILE, n - start), rng)
        if form == "text":
            path = out_dir / f"{module}.txt"
            path.write_text(_text_page(module, ns, decls), encoding="utf-8")
        else:
            path = out_dir / "Bench" / f"M{k:04d}.lean"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_lean_file(module, ns, decls, rng), encoding="utf-8")
        files.append(path)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000, help="number of declarations")
    parser.add_argument("--form", choices=("text", "lean"), default="text")
    parser.add_argument("--out", type=Path, default=Path("bench/out/corpus"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    files = generate(args.n, args.form, args.out, args.seed)
    print(f"wrote {args.n} declarations in {len(files)} files under {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
