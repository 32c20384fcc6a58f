"""`∑ r, A * B * …` over real factors: one einsum, the same values as the general way."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from derived_support import fin, nat, real, term, value

from checkers.evaluator.evaluate import Evaluator
from checkers.language.coercion import Ctx
from checkers.language.contraction import try_product_sum
from checkers.language.values import Arr, Sz
from checkers.library.semantics import Semantics

RNG = np.random.default_rng(3)
X = RNG.standard_normal((5, 3))  # Mat N a, N = 5
DY = RNG.standard_normal((5, 4))  # Mat N c
V = RNG.standard_normal(5)
W = RNG.standard_normal(5)
LIFTED = "fun (i : Fin 3) (j : Fin 4) => ∑ r : Fin 5, X r i * dY r j"


def _taken(text: str, env: dict[str, Any], dtype: Any = jnp.float64) -> bool:
    """Whether the sum `text` is evaluated as one einsum."""
    t = term(text, tuple(env))
    ev = Evaluator(Semantics(), Ctx(dtype=dtype))
    sz = ev.dim_of(t.binders[0].type.args[0], env)
    return try_product_sum(ev, t.binders[0].names[0], sz, t.body, env) is not None


def test_transposed_matrix_product():
    got = value(LIFTED, {"X": real(X), "dY": real(DY)})
    np.testing.assert_allclose(got, X.T @ DY, rtol=1e-13, atol=1e-13)
    env = {"X": real(X), "dY": real(DY), "i": fin(1, 3), "j": fin(2, 4)}
    assert _taken("∑ r : Fin 5, X r i * dY r j", env)
    assert value("∑ r : Fin 5, X r i * dY r j", env) == pytest.approx(X[:, 1] @ DY[:, 2])


def test_three_factors_and_a_factor_without_the_index():
    env = {"X": real(X), "dY": real(DY), "v": real(V), "s": real(2.5)}
    got = value("fun (i : Fin 3) (j : Fin 4) => ∑ r : Fin 5, s * (X r i * v r) * dY r j", env)
    np.testing.assert_allclose(got, 2.5 * np.einsum("ri,r,rj->ij", X, V, DY), rtol=1e-13)


def test_dot_product():
    env = {"v": real(V), "w": real(W)}
    assert _taken("∑ r : Fin 5, v r * w r", env)
    assert float(value("∑ r : Fin 5, v r * w r", env)) == pytest.approx(float(V @ W), rel=1e-13)


def test_einsum_replaces_the_broadcast_product():
    # the traced program holds a dot_general and no (3, 4, 5) intermediate
    def traced(x: Any, dy: Any) -> Any:
        ev = Evaluator(Semantics(), Ctx())
        env = {"X": Arr(x, "real", dom=(Sz(5), Sz(3))), "dY": Arr(dy, "real", dom=(Sz(5), Sz(4)))}
        return ev.eval(term(LIFTED, ("X", "dY")), env).data

    jaxpr = jax.make_jaxpr(traced)(jnp.asarray(X), jnp.asarray(DY))
    assert any(e.primitive.name == "dot_general" for e in jaxpr.eqns)
    shapes = {tuple(v.aval.shape) for e in jaxpr.eqns for v in e.outvars}
    assert not any(sorted(s) == [3, 4, 5] for s in shapes), shapes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("∑ r : Fin 5, 2 * v r", 2 * V.sum()),  # a numeral: its type comes from the rest
        ("∑ r : Fin 5, v r", V.sum()),  # not a product
        ("∑ r : Fin 5, (↑(r : ℕ) : ℝ) * v r", np.arange(5) @ V),
    ],
)
def test_values_agree_either_way(text, expected):
    assert float(value(text, {"v": real(V)})) == pytest.approx(float(expected), rel=1e-13)


def test_left_to_the_general_way():
    env = {"v": real(V), "w": real(W), "n": nat(3)}
    assert not _taken("∑ r : Fin 5, 2 * v r", env)
    assert not _taken("∑ r : Fin 5, v r", env)
    assert not _taken("∑ r : Fin 5, v r * w r", env, dtype=jnp.bfloat16)
    assert not _taken("∑ r : Fin 5, n * (r : ℕ)", env)


def test_natural_factors_keep_lean_semantics():
    # ℕ factors are not real: the general way evaluates them, truncated subtraction included
    assert int(value("∑ r : Fin 3, (n - 5) * (r : ℕ)", {"n": nat(3)})) == 0
    assert int(value("∑ r : Fin 3, (n - 1) * (r : ℕ)", {"n": nat(3)})) == 6
