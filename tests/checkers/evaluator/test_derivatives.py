"""pdiv's index order, the VJP/JVP contraction rewrite, fderiv and deriv."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from derived_support import fin, real, term, value

from checkers.evaluator import derivatives as D
from checkers.evaluator.evaluate import Evaluator
from checkers.language.coercion import Ctx
from checkers.language.values import Arr
from checkers.library.semantics import Semantics

# An asymmetric map Vec 3 → Vec 2: its Jacobian is not square, let alone symmetric.
F = "fun (v : Vec 3) (k : Fin 2) => if k = 0 then v 0 * v 1 ^ 2 else Real.sin (v 2) + 3 * v 0"


def f_numpy(x: jax.Array) -> jax.Array:
    return jnp.stack([x[0] * x[1] ** 2, jnp.sin(x[2]) + 3 * x[0]])


X = np.array([0.7, -1.3, 0.4])


def test_read_pdiv_input_index_first() -> None:
    jac = np.asarray(jax.jacfwd(f_numpy)(jnp.asarray(X)))  # [output j, input i]
    for i in range(3):
        for j in range(2):
            got = value(f"pdiv ({F}) x i j", {"x": real(X), "i": fin(i, 3), "j": fin(j, 2)})
            assert got == pytest.approx(jac[j, i], rel=1e-13, abs=1e-13)


def test_tabulate_pdiv_over_both_indices_is_transposed_jacobian() -> None:
    jac = np.asarray(jax.jacfwd(f_numpy)(jnp.asarray(X)))
    full = value(f"fun (i : Fin 3) (j : Fin 2) => pdiv ({F}) x i j", {"x": real(X)})
    np.testing.assert_allclose(full, jac.T, rtol=1e-13, atol=1e-13)


def _contraction_used(text: str, env: dict[str, Any]) -> bool:
    """Whether the sum is evaluated by the one-VJP/JVP rewrite."""
    t = term(text, tuple(env))
    ev = Evaluator(Semantics(), Ctx())
    sz = ev.dim_of(t.binders[0].type.args[0], env)
    return D.try_contraction(ev, t.binders[0].names[0], sz, t.body, env) is not None


def test_contract_vjp_matches_materialised_jacobian() -> None:
    jac = np.asarray(jax.jacfwd(f_numpy)(jnp.asarray(X)))
    dy = np.array([0.3, -2.0])
    text = f"∑ o : Fin 2, pdiv ({F}) x i o * dy o"
    for i in range(3):
        env = {"x": real(X), "i": fin(i, 3), "dy": real(dy)}
        assert value(text, env) == pytest.approx(float(jac[:, i] @ dy), rel=1e-13)
    assert _contraction_used(text, {"x": real(X), "i": fin(0, 3), "dy": real(dy)})


def test_contract_with_cotangent_first_matches() -> None:
    jac = np.asarray(jax.jacfwd(f_numpy)(jnp.asarray(X)))
    dy = np.array([0.3, -2.0])
    env = {"x": real(X), "i": fin(2, 3), "dy": real(dy), "s": real(1.5)}
    got = value(f"∑ o : Fin 2, s * dy o * pdiv ({F}) x i o", env)
    assert got == pytest.approx(1.5 * float(jac[:, 2] @ dy), rel=1e-13)


def test_contract_mirror_jvp_matches_materialised_jacobian() -> None:
    jac = np.asarray(jax.jacfwd(f_numpy)(jnp.asarray(X)))
    t = np.array([1.0, -0.5, 2.0])
    text = f"∑ o : Fin 3, pdiv ({F}) x o j * t o"
    for j in range(2):
        env = {"x": real(X), "j": fin(j, 2), "t": real(t)}
        assert value(text, env) == pytest.approx(float(jac[j] @ t), rel=1e-13)
    assert _contraction_used(text, {"x": real(X), "j": fin(0, 2), "t": real(t)})


def test_contract_inside_lambda_over_free_index() -> None:
    jac = np.asarray(jax.jacfwd(f_numpy)(jnp.asarray(X)))
    dy = np.array([0.3, -2.0])
    got = value(
        f"fun (i : Fin 3) => ∑ o : Fin 2, pdiv ({F}) x i o * dy o", {"x": real(X), "dy": real(dy)}
    )
    np.testing.assert_allclose(got, jac.T @ dy, rtol=1e-13)


def test_contract_when_function_depends_on_outer_index() -> None:
    # For each k the function is v ↦ C k • v: its VJP must not sum over k.
    C = np.array([2.0, -1.0, 0.5])
    dy = np.array([1.0, 2.0, 3.0])
    got = value(
        "fun (k : Fin 3) => ∑ o : Fin 3, pdiv (fun (v : Vec 3) (m : Fin 3) => C k * v m) x 1 o"
        " * dy o",
        {"x": real(X), "dy": real(dy), "C": real(C)},
    )
    np.testing.assert_allclose(got, C * dy[1], rtol=1e-13)


def test_fderiv_and_deriv_are_forward_mode() -> None:
    dv = np.array([1.0, 0.0, -1.0])
    jac = np.asarray(jax.jacfwd(f_numpy)(jnp.asarray(X)))
    got = value(f"fderiv ℝ ({F}) x dv", {"x": real(X), "dv": real(dv)})
    np.testing.assert_allclose(got, jac @ dv, rtol=1e-13)
    assert value("deriv (fun (t : ℝ) => t ^ 3) y", {"y": real(2.0)}) == pytest.approx(12.0)


def test_basis_vec_is_unit_vector() -> None:
    np.testing.assert_array_equal(value("basisVec i", {"i": fin(2, 4)}), [0, 0, 1, 0])


def test_pdiv_of_total_ops_is_finite_where_guarded_and_undefined_at_the_guard() -> None:
    f = "fun (v : Vec 2) (k : Fin 2) => Real.sqrt (v k) + Real.log (v k) + 1 / v k"
    for x, defined in (([-1.0, 2.0], True), ([-1.0, 0.0], False), ([0.0, 2.0], False)):
        for i in range(2):
            for j in range(2):
                got = value(f"pdiv ({f}) x i j", {"x": real(x), "i": fin(i, 2), "j": fin(j, 2)})
                # at 0 the guards of `Real.sqrt`, `Real.log` and `/` are kinks: f is not
                # differentiable there, and automatic differentiation is not Mathlib's
                assert np.isfinite(got) == defined


def test_vjp_value_keeps_named_axes_of_cotangent() -> None:
    ev = Evaluator(Semantics(), Ctx())
    f = ev.eval(term("fun (v : Vec 2) (k : Fin 2) => v k * v k"), {})
    x = real([1.0, 3.0])
    from checkers.language.values import Axis, Sz

    ax = Axis("b", 4)
    g = Arr(jnp.arange(8.0).reshape(4, 2), "real", axes=(ax,), dom=(Sz(2),))
    out = D.vjp_value(ev, f, x, g)
    assert out.axes == (ax,)
    np.testing.assert_allclose(
        np.asarray(out.data), 2 * np.asarray([1.0, 3.0]) * np.arange(8.0).reshape(4, 2)
    )


def test_read_pdiv_mat_as_matrix_jacobian_entry() -> None:
    A = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
    # f A = A ⊙ A (entrywise): ∂ f(A)_kl / ∂ A_ij = 2 A_ij [i = k ∧ j = l]
    f = "fun (M : Mat 2 3) (k : Fin 2) (l : Fin 3) => M k l * M k l"
    full = value(
        f"fun (i : Fin 2) (j : Fin 3) (k : Fin 2) (l : Fin 3) => pdivMat ({f}) A i j k l",
        {"A": real(A)},
    )
    ref = np.einsum("ij,ik,jl->ijkl", 2 * A, np.eye(2), np.eye(3))
    np.testing.assert_allclose(full, ref, rtol=1e-14)
