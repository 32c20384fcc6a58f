"""Binders written without a type get the type their uses settle (checkers/language/inference.py).

Each case derives a checker for a true statement and checks it through the harness, then
checks a mutant of it (one numeral, operator, operand or index changed) that is false and
must fail: the newly typed fragment is evaluated, not skipped. Ambiguous and unsettled
binders stay unsupported, saying why.
"""

from __future__ import annotations

import pytest
from derived_support import definition, environment, theorem

from checkers import check
from checkers.core import Unsupported
from checkers.language.inference import settle_types
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive, shared_semantics
from theorem_index.lean import print_term
from theorem_index.model import Declaration

W = definition("Proofs.W", "", "Fin 2 → Fin 3 → ℝ", "Proofs.W = ![![1, 2, 3], ![4, -5, 6]]")
G = definition("Proofs.G", "", "Fin 2 → Fin 2 → ℝ", "Proofs.G = ![![14, 12], ![12, 77]]")
DENSE = definition(
    "Proofs.dense",
    "{m n : ℕ} (W : Mat m n) (b : Vec n) (x : Vec m)",
    "Vec n",
    "Proofs.dense W b x = fun j => ∑ i : Fin m, x i * W i j + b j",
)
SCALE = definition(
    "Proofs.scale", "(c : ℕ) (z : Vec c)", "Vec c", "Proofs.scale c z = fun j => 2 * z j"
)
ROWSUM = definition(
    "Proofs.rowsum",
    "{m n : ℕ} (W : Mat m n)",
    "Vec m",
    "Proofs.rowsum W = fun k => ∑ j, W k j",
)
UNFLATTEN = definition(
    "Proofs.Tensor3.unflatten",
    "{c h w : ℕ} (v : Vec (c * h * w))",
    "Tensor3 c h w",
    "Proofs.Tensor3.unflatten v = fun ci hi wi => "
    "v (finProdFinEquiv (finProdFinEquiv (ci, hi), wi))",
)


def _binder_types(name: str, env: object) -> dict[str, str]:
    c = derive(name, env)
    assert isinstance(c, DerivedChecker), c
    return {i.name: str(print_term(i.type)) for i in c.plan.inputs}


def _status(decls: tuple[Declaration, ...], name: str = "Proofs.t") -> str:
    return check(name, environment(*decls), trials=32, seed=0).status


# (key, declarations, binders, true statement, false mutant of it)
CASES = [
    (
        "gram-entries",
        (W, G),
        "",
        "∀ a b, G a b = ∑ j, W a j * W b j",
        "∀ a b, G a b = ∑ j, W a j * W a j",
    ),
    (
        "vec-index",
        (),
        "{n : ℕ} (x : Vec n) (y : ℝ)",
        "∀ t, x t ≤ x t + |y|",
        "∀ t, x t ≤ x t - |y|",
    ),
    (
        "dense-argument",
        (DENSE,),
        "{m n : ℕ} (W : Mat m n) (b : Vec n)",
        "∀ x j, dense W b x j = ∑ i, x i * W i j + b j",
        "∀ x j, dense W b x j = ∑ i, x i * W i j + 2 * b j",
    ),
    (
        "explicit-dimension",
        (SCALE,),
        "{n : ℕ} (z : Vec n)",
        "∑ k, scale n z k = 2 * ∑ k, z k",
        "∑ k, scale n z k = 3 * ∑ k, z k",
    ),
    ("real-by-arithmetic", (), "(y : ℝ)", "∀ x, x + y = y + x", "∀ x, x - y = y - x"),
    (
        "nat-by-arithmetic",
        (),
        "(n : ℕ)",
        "∀ k, k - (k + n) = 0",
        "∀ k, k - (k + n) = 1",
    ),
    (
        "lambda-parameter",
        (),
        "(c : ℝ)",
        "(fun x => x * c) = fun x => c * x",
        "(fun x => x * c) = fun x => c * x + 1",
    ),
    (
        "equation-body",
        (ROWSUM,),
        "{m n : ℕ} (W : Mat m n) (i : Fin m)",
        "rowsum W i = ∑ j : Fin n, W i j",
        "rowsum W i = ∑ j : Fin n, W i j * W i j",
    ),
    (
        "implicit-dimensions-by-structure",
        (UNFLATTEN,),
        "{c h w : ℕ} (v : Vec (c * h * w))",
        "∀ ci hi wi, Tensor3.unflatten v ci hi wi = "
        "v (finProdFinEquiv (finProdFinEquiv (ci, hi), wi))",
        "∀ ci hi wi, Tensor3.unflatten v ci hi wi = "
        "v (finProdFinEquiv (finProdFinEquiv (ci, hi), Fin.rev wi))",
    ),
    (
        "scalar-multiple",
        (),
        "{n : ℕ} (e : Vec n) (t : ℝ)",
        "∑ idx, (t • e) idx = t * ∑ idx, e idx",
        "∑ idx, (t • e) idx = (t + 1) * ∑ idx, e idx",
    ),
    (
        "pair-component",
        (),
        "{m n : ℕ} (e : Vec (m * n)) (j : Fin n)",
        "∑ i, e (finProdFinEquiv (i, j)) = ∑ i : Fin m, e (finProdFinEquiv (i, j))",
        "∑ i, e (finProdFinEquiv (i, j)) = ∑ i : Fin m, e (finProdFinEquiv (i, Fin.rev j))",
    ),
]


@pytest.mark.parametrize(
    ("decls", "binders", "statement", "mutant"),
    [pytest.param(*c[1:], id=c[0]) for c in CASES],
)
def test_check_statement_with_untyped_binders_and_fail_its_mutant(
    decls: tuple[Declaration, ...], binders: str, statement: str, mutant: str
) -> None:
    assert _status((*decls, theorem("Proofs.t", binders, statement))) == "pass"
    assert _status((*decls, theorem("Proofs.t", binders, mutant))) == "fail"


def test_type_index_of_concrete_matrix_from_its_declared_type() -> None:
    env = environment(W, G, theorem("Proofs.t", "", "∀ a b, G a b = ∑ j, W a j * W b j"))
    assert _binder_types("Proofs.t", env) == {"a": "Fin 2", "b": "Fin 2"}
    sem = shared_semantics(env)
    decl = env.get("Proofs.t")
    assert decl is not None
    from theorem_index.lean import analyse_declaration

    a = analyse_declaration(decl, sem.known)
    assert a.statement is not None and a.binders is not None
    settled = settle_types(a.binders, a.statement, sem)
    text = str(print_term(settled.statement))
    assert "∑ j : Fin 3," in text
    assert settled.reasons == {}


def test_type_argument_of_definition_from_its_parameter() -> None:
    env = environment(
        DENSE,
        theorem(
            "Proofs.t",
            "{m n : ℕ} (W : Mat m n) (b : Vec n)",
            "∀ x j, dense W b x j = ∑ i, x i * W i j + b j",
        ),
    )
    types = _binder_types("Proofs.t", env)
    assert types["x"] == "Vec m" or types["x"] == "Fin m → ℝ"
    assert types["j"] == "Fin n"


def test_type_variable_compared_with_real_as_real() -> None:
    env = environment(theorem("Proofs.t", "", "∀ x, Real.exp x > 0"))
    assert _binder_types("Proofs.t", env) == {"x": "ℝ"}


def test_refuse_binder_whose_uses_settle_nothing() -> None:
    env = environment(theorem("Proofs.t", "", "∀ a b, a + b = b + a"))
    result = derive("Proofs.t", env)
    assert isinstance(result, Unsupported)
    assert result.reason == "the binder a has no type, and its uses do not settle it"


def test_refuse_binder_used_at_two_types() -> None:
    env = environment(
        theorem("Proofs.t", "{m n : ℕ} (x : Vec m) (y : Vec n)", "∑ j, x j * y j = 0")
    )
    result = derive("Proofs.t", env)
    assert isinstance(result, Unsupported)
    assert result.reason == (
        "the type of the summation variable j is not written, and its uses disagree: "
        "it is used both as Fin m and as Fin n"
    )


def test_type_index_of_euclidean_vector_like_the_function_it_wraps() -> None:
    env = environment(
        theorem("Proofs.t", "{k : ℕ} (v : EuclideanSpace ℝ (Fin k))", "∑ i, v i ^ 2 ≥ 0")
    )
    sem = shared_semantics(env)
    decl = env.get("Proofs.t")
    assert decl is not None
    from theorem_index.lean import analyse_declaration

    a = analyse_declaration(decl, sem.known)
    assert a.statement is not None and a.binders is not None
    settled = settle_types(a.binders, a.statement, sem)
    assert str(print_term(settled.statement)) == "∑ i : Fin k, v i ^ 2 ≥ 0"


def test_refuse_infinite_type_and_shorten_chains_of_metavariables() -> None:
    from checkers.language.unify import Base, Fun, Meta, resolve, unify

    a, b, c = Meta(), Meta(), Meta()
    assert unify(a, b) and unify(b, c) and unify(c, Base("real"))
    assert resolve(a) == Base("real")
    assert a.value == Base("real")  # the chain a -> b -> c was shortened
    m = Meta()
    assert not unify(m, Fun(m, Base("real")))
    assert m.value is None


def test_type_index_by_a_definition_whose_dimensions_are_auto_bound() -> None:
    # `def mul (A : Mat m n) (B : Mat n p) : Mat m p` under autoImplicit: m, n, p are the
    # definition's implicit parameters, solved from A and B, not constants of that name
    mul = definition(
        "Proofs.mul",
        "(A : Mat m n) (B : Mat n p)",
        "Mat m p",
        "Proofs.mul A B = fun i k => ∑ j : Fin n, A i j * B j k",
    )
    env = environment(
        mul,
        theorem(
            "Proofs.t",
            "{a b c : ℕ} (A : Mat a b) (B : Mat b c) (i : Fin a)",
            "∑ k, mul A B i k = 0",
        ),
    )
    sem = shared_semantics(env)
    decl = env.get("Proofs.t")
    assert decl is not None
    from theorem_index.lean import analyse_declaration

    a = analyse_declaration(decl, sem.known)
    assert a.statement is not None and a.binders is not None
    settled = settle_types(a.binders, a.statement, sem)
    assert str(print_term(settled.statement)) == "∑ k : Fin c, mul A B i k = 0"
