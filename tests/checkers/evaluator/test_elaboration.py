"""Terms Lean would not elaborate are refused, not given a meaning: a lambda's untyped
binder takes the type its definition states, and `⟨k, h⟩ : Fin n` needs k < n."""

from __future__ import annotations

import pytest
from derived_support import definition, environment, theorem

from checkers import check
from checkers.core import Unsupported
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive

# `def pool (c h : ℕ) : Vec (c * (2 * h)) → Vec c := fun v => ..` (the shape of the
# upstream `maxPoolFlat`): the sizes written as arguments are the types of `v` and of the value
POOL = definition(
    "Proofs.pool",
    "(c h : ℕ)",
    "Vec (c * (2 * h)) → Vec c",
    "Proofs.pool c h = fun v => fun i => ∑ j : Fin (2 * h), v (finProdFinEquiv (i, j))",
)


def test_a_lambda_binder_takes_the_domain_of_the_stated_type() -> None:
    env = environment(
        POOL, theorem("Proofs.t", "(x : Vec (2 * (2 * 3)))", "pool 2 3 x = pool 2 3 x")
    )
    assert isinstance(derive("Proofs.t", env), DerivedChecker)


def test_an_argument_of_another_size_than_the_stated_domain_is_refused() -> None:
    # `pool 3 3` takes a `Vec (3 * (2 * 3))`: a `Vec 12` is a type error in Lean
    env = environment(
        POOL, theorem("Proofs.t", "(x : Vec (2 * (2 * 3)))", "pool 3 3 x = pool 3 3 x")
    )
    result = derive("Proofs.t", env)
    assert isinstance(result, Unsupported)
    assert "sizes [18] are expected" in result.reason


@pytest.mark.parametrize(("k", "ok"), [(0, True), (2, True), (3, False), (7, False)])
def test_an_anonymous_fin_literal_needs_its_value_below_the_bound(k: int, ok: bool) -> None:
    env = environment(
        theorem("Proofs.t", "(x : Vec 3)", f"x (⟨{k}, by norm_num⟩ : Fin 3) = x ⟨{k}, by simp⟩")
    )
    result = derive("Proofs.t", env)
    if ok:
        assert isinstance(result, DerivedChecker), result
        assert check("Proofs.t", env, trials=4).status == "pass"
    else:
        assert isinstance(result, Unsupported)
        assert f"⟨{k}, _⟩ is not an element of Fin 3" in result.reason


# --- implicit dimensions fixed as Lean's elaborator fixes them -----------------------

# `flatConv {ic h w : ℕ} (k : ℝ) : Vec (ic * h * w) → Vec (h * w)`: h and w appear only in
# the value's type, so the value's argument (or the expected type) fixes them
SUMC = definition(
    "Proofs.sumc",
    "{ic h w : ℕ} (k : ℝ)",
    "Vec (ic * h * w) → Vec (h * w)",
    "Proofs.sumc k = fun v => fun p => k * ∑ c : Fin ic, v (finProdFinEquiv "
    "(finProdFinEquiv (c, (finProdFinEquiv.symm p).1), (finProdFinEquiv.symm p).2))",
)
UNFLAT = definition(
    "Proofs.unflat",
    "{c h : ℕ} (v : Vec (c * h))",
    "Mat c h",
    "Proofs.unflat v = fun i j => v (finProdFinEquiv (i, j))",
)
DOUBLE = definition(
    "Proofs.double", "(n : ℕ) (x : Vec n)", "Vec n", "Proofs.double n x = fun i => 2 * x i"
)


def _passes(*decls: object, statement: str, binders: str) -> None:
    env = environment(*decls, theorem("Proofs.t", binders, statement))  # type: ignore[arg-type]
    result = check("Proofs.t", env, trials=8)
    assert result.status == "pass", result.reason


def _fails(*decls: object, statement: str, binders: str) -> None:
    env = environment(*decls, theorem("Proofs.t", binders, statement))  # type: ignore[arg-type]
    result = check("Proofs.t", env, trials=8)
    assert result.status == "fail", result.reason


def test_dimensions_only_the_value_type_mentions_come_from_its_argument() -> None:
    binders = "(x : Vec (2 * 3 * 2))"
    _passes(
        SUMC,
        binders=binders,
        statement="sumc 2 x = fun p => 2 * ∑ c : Fin 2, "
        "x (finProdFinEquiv (finProdFinEquiv (c, (finProdFinEquiv.symm p).1), "
        "(finProdFinEquiv.symm p).2))",
    )
    # a wrong scale is caught: the fragment is checked, not skipped
    _fails(
        SUMC,
        binders=binders,
        statement="sumc 2 x = fun p => 3 * ∑ c : Fin 2, "
        "x (finProdFinEquiv (finProdFinEquiv (c, (finProdFinEquiv.symm p).1), "
        "(finProdFinEquiv.symm p).2))",
    )


def test_a_partial_application_waits_for_the_argument_under_composition() -> None:
    binders = "(x : Vec (2 * 3 * 2))"
    _passes(SUMC, DOUBLE, binders=binders, statement="(double (3 * 2) ∘ sumc 1) x = sumc 2 x")
    _fails(SUMC, DOUBLE, binders=binders, statement="(double (3 * 2) ∘ sumc 1) x = sumc 3 x")


def test_a_size_written_as_a_product_keeps_its_factors_through_a_definition() -> None:
    # `double (2 * 3 * 2) x` is a `Vec (2 * 3 * 2)`: `sumc` unifies `ic * h * w` with it
    binders = "(x : Vec 12)"
    _passes(
        SUMC,
        DOUBLE,
        binders=binders,
        statement="sumc 1 (double (2 * 3 * 2) x) = sumc 2 (double (2 * 3 * 2) x)"
        " - sumc 1 (double (2 * 3 * 2) x)",
    )
    env = environment(SUMC, theorem("Proofs.t", binders, "sumc 1 x = sumc 1 x"))
    result = derive("Proofs.t", env)  # a flat `Vec 12` fixes no factors: refused, saying so
    assert isinstance(result, Unsupported)
    assert "cannot infer the implicit dimension(s) h, ic, w" in result.reason


def test_the_expected_type_fixes_the_dimensions_of_a_value() -> None:
    _passes(UNFLAT, binders="(x : Vec 6)", statement="(unflat x : Mat 2 3) 1 2 = x 5")
    _fails(UNFLAT, binders="(x : Vec 6)", statement="(unflat x : Mat 3 2) 1 1 = x 5")


def test_a_lambda_argument_is_elaborated_at_the_parameter_type() -> None:
    _passes(
        SUMC, binders="", statement="sumc (ic := 2) (h := 1) (w := 3) 5 (fun _ => 1) = fun _ => 10"
    )
    _fails(
        SUMC, binders="", statement="sumc (ic := 2) (h := 1) (w := 3) 5 (fun _ => 1) = fun _ => 5"
    )


# --- implicit dimensions that only the body's values fix ------------------------------

# `biPath {m n} (f g : Vec m → Vec n)`: n is in no argument's value (f and g are functions),
# so it is left to the body, whose `f x` has it as its shape
BIPATH = definition(
    "Proofs.bipath",
    "{m n : ℕ} (f g : Vec m → Vec n)",
    "Vec m → Vec n",
    "Proofs.bipath f g = fun x i => f x i + g x i",
)
# `dense (fun j i => W i j) (fun _ => 0) c l`: W and b are functions whose domains are not
# written, so n is fixed by nothing before the body indexes `b j`
TDENSE = definition(
    "Proofs.tdense",
    "{m n : ℕ} (W : Mat m n) (b : Vec n) (x : Vec m)",
    "Vec n",
    "Proofs.tdense W b x = fun j => (∑ i : Fin m, x i * W i j) + b j",
)


def test_a_dimension_no_argument_fixes_is_read_off_the_body() -> None:
    binders = "{n : ℕ} (v : Vec n)"
    _passes(
        BIPATH, binders=binders, statement="bipath (fun x => x) (fun x => x) v = fun i => 2 * v i"
    )
    _fails(
        BIPATH, binders=binders, statement="bipath (fun x => x) (fun x => x) v = fun i => 3 * v i"
    )


def test_a_transposed_lambda_argument_is_evaluated_without_its_dimensions_written() -> None:
    binders = "{p n : ℕ} (W : Mat p n) (c : Vec n) (l : Fin p)"
    _passes(
        TDENSE,
        binders=binders,
        statement="(∑ k, W l k * c k) = tdense (fun j i' => W i' j) (fun _ => 0) c l",
    )
    _fails(
        TDENSE,
        binders=binders,
        statement="(∑ k, W l k * c k) = tdense (fun j i' => W i' j) (fun _ => 1) c l",
    )


def test_a_dimension_left_to_the_body_that_the_body_needs_is_named() -> None:
    # `sumc`'s body sums over `Fin ic`: with a flat argument nothing fixes ic
    env = environment(SUMC, theorem("Proofs.t", "(x : Vec 12)", "sumc 1 x 0 = sumc 1 x 0"))
    result = derive("Proofs.t", env)
    assert isinstance(result, Unsupported)
    assert "sumc: cannot infer the implicit dimension(s) h, ic, w" in result.reason
