"""An application is evaluated once per trace for the same values of its names.

An untyped index variable's size is read off the function it is applied to, which the
body then evaluates again; nested, that evaluated a network several times over. The
evaluator keeps each application's value for the trace (memo.py): the trace holds fewer
operations, and the sides, the scale and every result stay what they were.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from derived_support import definition, environment, real, sides, term, theorem

from checkers.evaluator import evaluate as evaluator_module
from checkers.language.coercion import Ctx
from checkers.language.measure import Meter
from checkers.language.memo import MAX_HOST_ENTRIES, Applications
from checkers.language.values import Arr, Sz

DOUBLE = definition(
    "Proofs.double", "{m : ℕ} (x : Vec m)", "Vec m", "Proofs.double x = fun j => x j + x j"
)
# `∑ i, …` binds an untyped index: its size is read off `double (double x)` by evaluating
# it, and the body then evaluates its argument `double x` again
LAYER = definition(
    "Proofs.layer",
    "{m n : ℕ} (W : Mat m n) (x : Vec m)",
    "Vec n",
    "Proofs.layer W x = fun j => ∑ i, double (double x) i * W i j",
)
NESTED = "layer W (layer W x) = layer W (layer W x)"


class _NoMemo(Applications):
    def key(self, *args, **kwargs):
        return None


def _evaluator(meter=None):
    sem = environment(DOUBLE, LAYER).shared("derived.semantics", _semantics)
    return evaluator_module.Evaluator(sem, Ctx(dtype=jnp.float64, meter=meter))


def _twice(ev, text):
    """The equations of a trace that evaluates `text` twice in one environment (as the
    size of an untyped index and then the body it indexes do)."""
    t = term(text, ("W", "x"))

    def fn(w, x):
        env = {"W": Arr(w, "real", dom=(Sz(3), Sz(3))), "x": Arr(x, "real", dom=(Sz(3),))}
        first = ev.eval(t, env)
        again = ev.eval(t, env)
        return first.data, again.data

    return jax.make_jaxpr(fn)(np.ones((3, 3)), np.ones(3))


def test_an_application_evaluated_again_in_one_trace_is_not_traced_again(monkeypatch):
    text = "layer W (double x)"
    once = _twice(_evaluator(), text)
    monkeypatch.setattr(evaluator_module, "Applications", _NoMemo)
    twice = _twice(_evaluator(), text)
    assert len(twice.jaxpr.eqns) > len(once.jaxpr.eqns)
    assert len(once.jaxpr.outvars) == 2 and once.jaxpr.outvars[0] is once.jaxpr.outvars[1]


def test_checks_with_and_without_it_agree(monkeypatch):
    statement = theorem("Proofs.t", "{n : ℕ} (W : Mat n n) (x : Vec n)", NESTED)
    checker = environment(DOUBLE, LAYER, statement).resolve("Proofs.t")
    lhs1, rhs1 = sides(checker, {"n": 3})
    monkeypatch.setattr(evaluator_module, "Applications", _NoMemo)
    lhs0, rhs0 = sides(checker, {"n": 3})
    np.testing.assert_array_equal(lhs1, lhs0)
    np.testing.assert_array_equal(rhs1, rhs0)
    np.testing.assert_allclose(lhs1, rhs1, rtol=1e-12)


def test_the_same_term_with_other_values_is_evaluated_again():
    a, b = real([1.0, 2.0]), real([3.0, 5.0])
    apps = Applications()
    t = term("f x", ("f", "x"))
    k1 = apps.key(t, {"f": 1, "x": a}, None, True)
    k2 = apps.key(t, {"f": 1, "x": b}, None, True)
    k3 = apps.key(t, {"f": 1, "x": a}, None, False)  # the meter paused
    assert k1[0] != k2[0] and k1[0] != k3[0]
    apps.put(t, k1, a)
    assert apps.get(k1) is a and apps.get(k2) is None and apps.get(k3) is None


def test_every_name_a_term_mentions_is_in_its_key():
    apps = Applications()
    t = term("fun (i : Fin n) => x.1 i + y", ("n", "x", "y"))
    names = apps.names(t)
    assert {"n", "x", "y"} <= set(names)


def test_the_names_of_a_term_are_found_once_for_every_evaluator(monkeypatch):
    from checkers.language import memo

    t = term("fun (i : Fin n) => x i * y", ("n", "x", "y"))
    names = Applications().names(t)
    seen = []
    monkeypatch.setattr(memo.S, "node_fields", lambda cls: seen.append(cls) or ())
    assert Applications().names(t) is names  # another trace: not walked again
    assert not seen


def test_the_names_kept_are_bounded(monkeypatch):
    from checkers.language import memo

    monkeypatch.setattr(memo, "MAX_TERMS_NAMED", 4)
    monkeypatch.setattr(memo, "_NAMES", {})
    apps = Applications()
    terms = [term(f"x + {k} * y", ("x", "y")) for k in range(10)]
    for t in terms:
        assert set(apps.names(t)) >= {"x", "y"}
        assert len(apps._names) <= 4
    assert set(Applications().names(terms[0])) >= {"x", "y"}  # forgotten, found again


def test_large_host_values_are_not_kept():
    apps = Applications()
    t = term("f x", ("f", "x"))
    big = real(np.zeros(MAX_HOST_ENTRIES + 1))
    big = big.with_(data=np.zeros(MAX_HOST_ENTRIES + 1))
    k = apps.key(t, {"x": big}, None, True)
    apps.put(t, k, big)
    assert apps.get(k) is None
    small = real(np.zeros(4))
    apps.put(t, k, small)
    assert apps.get(k) is small


@pytest.mark.parametrize("together", [True, False])
def test_the_scale_is_what_it_was(monkeypatch, together):
    t = term("layer W (double x) + layer W x", ("W", "x"))
    rng = np.random.default_rng(0)
    w, x = rng.normal(size=(3, 3)) * 100, rng.normal(size=3)

    def scale():
        def fn(w, x):
            meter = Meter(together=together)
            ev = _evaluator(meter)
            env = {"W": Arr(w, "real", dom=(Sz(3), Sz(3))), "x": Arr(x, "real", dom=(Sz(3),))}
            ev.eval(t, env)
            with meter.paused():
                ev.eval(t, env)  # a hypothesis: not measured, and not taken for the sides
            ev.eval(t, env)
            return meter.scale()

        return float(jax.jit(fn)(w, x))

    with_memo = scale()
    monkeypatch.setattr(evaluator_module, "Applications", _NoMemo)
    assert with_memo == scale() > 0


def test_a_probe_switches_it_off():
    # a probe records every evaluation (the hypothesis probe), so nothing may be skipped
    seen: list = []
    ev = evaluator_module.Evaluator(
        environment(DOUBLE, LAYER).shared("derived.semantics", _semantics),
        Ctx(dtype=jnp.float64, meter=Meter()),
        probe=lambda t, v: seen.append(t),
    )
    assert ev.applications is None
    t = term("double x", ("x",))
    env = {"x": real([1.0, 2.0])}
    ev.eval(t, env)
    ev.eval(t, env)
    assert sum(1 for u in seen if u is t) == 2  # evaluated, and seen, both times


def _semantics(env):
    from checkers.library.semantics import Semantics

    return Semantics(env)
