"""NumPy evaluation of jaxprs (checkers/interpret.py) against XLA's compiled results.

Every rule is exercised by a small JAX function, evaluated both ways on the same
inputs; then the programs of every derived checker of the project's example pages
are, at two dims draws each. Integers and booleans must agree exactly, floats to
a few units in the last place.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from checkers import Environment
from checkers.core import REAL
from checkers.harness import interpreted, programs
from checkers.interpret import Interpreted, InterpretError, Steps, evaluate, interpretable, jaxprs
from theorem_index import read_paths

ROOT = Path(__file__).resolve().parents[3]
rng = np.random.default_rng(0)
F = rng.standard_normal((3, 4))
G = rng.standard_normal((4, 5))
B = rng.standard_normal((2, 3, 4))
V = rng.standard_normal(6)
SPECIAL = np.array([0.0, -0.0, 1.5, -2.5, 2.5, np.inf, -np.inf, np.nan, 1e300, -1e-300])
SUBNORMAL = np.array([1e-320, -4e-310, 2.2e-308])
INTS = np.array([-7, -3, -1, 0, 1, 2, 5, 9], dtype=np.int64)
DIVISORS = np.array([2, -2, 3, 0, -1, 0, 4, -3], dtype=np.int64)
IDX = np.array([2, 0, 5, 1, 1], dtype=np.int64)


def _both(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    assert interpretable(closed.jaxpr) is None, interpretable(closed.jaxpr)
    with np.errstate(all="ignore"):
        got = evaluate(closed.jaxpr, closed.consts, jax.tree_util.tree_leaves(args))
    want = [np.asarray(w) for w in jax.tree_util.tree_leaves(jax.jit(f)(*args))]
    return got, want


def _agree(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        if np.issubdtype(w.dtype, np.floating):
            # a few units in the last place, relative to the value or, where terms of
            # magnitude ~1 cancel (gelu near 0), to 1
            np.testing.assert_allclose(g, w, rtol=4e-15, atol=1e-15, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


CASES = {
    "arithmetic": (
        lambda x, y: (x + y, x - y, x * y, x / y, jnp.maximum(x, y), x**3),
        (F, F[::-1]),
    ),
    "transcendental": (
        lambda x: (
            jnp.exp(x),
            jnp.log(jnp.abs(x)),
            jnp.sqrt(jnp.abs(x)),
            jnp.tanh(x),
            jax.nn.sigmoid(x),
            jnp.log1p(jnp.abs(x)),
            jnp.expm1(x),
            jnp.sin(x),
            jnp.arctan2(x, 1.0 - x),
            lax.rsqrt(jnp.abs(x) + 1),
        ),
        (F,),
    ),
    "special floats": (
        lambda x: (jnp.abs(x), jnp.isfinite(x), jnp.sign(x), jnp.floor(x), jnp.round(x), x * 2),
        (SPECIAL,),
    ),
    "round half away": (lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO), (SPECIAL,)),
    "integer division": (lambda a, b: (lax.div(a, b), lax.rem(a, b)), (INTS, DIVISORS)),
    "float remainder": (lambda a, b: lax.rem(a, b), (F * 5, F[::-1] + 0.5)),
    "float to int": (
        lambda x: (x.astype(jnp.int32), x.astype(jnp.int64), x.astype(bool)),
        (np.array([1.7, -1.7, 0.0, np.nan, 3e9, -3e9, 2.5]),),
    ),
    "comparisons and logic": (
        lambda x, y: (x < y, x <= y, x == y, x != y, (x > 0) & (y > 0), (x > 0) | ~(y > 0)),
        (F, F.T.reshape(3, 4)),
    ),
    "integer bits": (lambda a, b: (a & b, a | b, a ^ b, ~a), (INTS, DIVISORS)),
    "select": (
        lambda c, x, y: (jnp.where(c, x, y), lax.select_n(c.astype(jnp.int32), x, y)),
        (F > 0, F, -F),
    ),
    "clamp": (lambda x: (jnp.clip(x, -0.5, 0.5), lax.clamp(-1.0, x, 1.0)), (F * 3,)),
    "shapes": (
        lambda x: (
            x.reshape(4, 3),
            x.T,
            jnp.broadcast_to(x[:, None, :], (3, 2, 4)),
            x[None],
            jnp.squeeze(x[None]),
            jnp.concatenate([x, x * 2], axis=0),
            jnp.stack([x, -x], axis=1),
            x[::-1, 1::2],
            jnp.flip(x, 1),
            jnp.split(x, [1, 3], axis=1),
            jnp.pad(x, ((1, 2), (0, 1)), constant_values=7.0),
            lax.pad(x, 0.0, ((1, -1, 1), (-1, 0, 2))),
            jnp.arange(12).reshape(3, 4) + x,
        ),
        (F,),
    ),
    "dynamic slices": (
        lambda x, i: (
            lax.dynamic_slice(x, (i, i + 1), (2, 2)),
            lax.dynamic_slice(x, (i + 5, -3), (2, 3)),
            lax.dynamic_update_slice(x, jnp.ones((2, 2)), (i + 9, i)),
        ),
        (F, np.int64(1)),
    ),
    "reductions": (
        lambda x: (
            x.sum(),
            x.sum(axis=1),
            x.max(axis=0),
            x.min(),
            x.prod(axis=1),
            (x > 0).all(axis=1),
            (x > 0).any(),
            jnp.argmax(x, axis=1),
            jnp.argmin(x, axis=0),
            jnp.cumsum(x, axis=1),
            lax.cumsum(x, axis=0, reverse=True),
            lax.cummax(x, axis=1),
            jnp.max(x[:, :0], axis=1, initial=-jnp.inf),
            x[:0].sum(axis=0),
        ),
        (F,),
    ),
    "argmax with NaN": (lambda x: (jnp.argmax(x), jnp.argmin(x)), (SPECIAL,)),
    "integer reductions": (lambda a: (a.sum(), a.max(), a.min(), jnp.cumsum(a)), (INTS,)),
    "contractions": (
        lambda x, y, b: (
            x @ y,
            jnp.einsum("ij,ij->", x, x),
            jnp.einsum("bij,jk->bik", b, y),
            jnp.einsum("bij,bkj->bik", b, b),
            jnp.outer(x[0], y[:, 0]),
            jnp.dot(x[0], x[1]),
        ),
        (F, G, B),
    ),
    "integer contraction": (lambda a: jnp.dot(a, a), (INTS,)),
    "gather": (
        lambda x, v, i: (
            x[1],
            x[:, 2],
            x[i[0] % 3, ::2],
            v[i],
            x[i % 3, i % 4],
            jnp.take_along_axis(x, (i[:4].reshape(1, 4) % 3).repeat(3, 0), axis=0),
            v.at[i + 3].get(mode="fill", fill_value=-1.0),
            v.at[i + 3].get(mode="clip"),
            v.at[i - 4].get(mode="fill"),
            jnp.take(x, i % 12),
        ),
        (F, V, IDX),
    ),
    "windows of several dimensions": (
        lambda x, b, i: (
            lax.dynamic_slice(x, (i[0] % 5, i[1]), (2, 3)),  # starts clamped inside
            lax.dynamic_slice(b, (i[0], 1, i[2] - 9), (2, 2, 1)),
            jax.vmap(lambda k: lax.dynamic_slice(x, (k, k + 1), (2, 2)))(i[:4] % 3),
            jax.vmap(lambda r, k: lax.dynamic_slice(r, (k, 0), (1, 2)))(b, i[:2] % 3),
        ),
        (F, B, IDX),
    ),
    "gather under vmap": (lambda x, i: jax.vmap(lambda r, k: r[k])(x, i[:3] % 4), (F, IDX)),
    "scatter": (
        lambda v, i, u: (
            v.at[i].add(u),
            v.at[i + 3].add(u, mode="drop"),
            v.at[i + 3].add(u, mode="clip"),
            jnp.zeros((3, 4)).at[i[:3] % 3, i[:3] % 4].add(u[:3]),
        ),
        (V, IDX, np.arange(5.0) + 1),
    ),
    "gradient of a gather": (lambda x, i: jax.grad(lambda y: (y[i % 3] ** 2).sum())(x), (F, IDX)),
    "nested jit and custom derivatives": (
        lambda x: (
            jax.jit(lambda y: y * 2 + 1)(x),
            jax.nn.relu(x),
            jax.nn.softplus(x),
            jax.nn.gelu(x),
        ),
        (F,),
    ),
    "derivatives": (
        lambda x: jax.jvp(lambda y: jnp.tanh(y) * jnp.exp(y), (x,), (jnp.ones_like(x),)),
        (F,),
    ),
    # ℂ as language/complex.py builds it: from and into parts, with the field operations
    "complex numbers": (
        lambda x, y: (lambda z: (jnp.real(z * z / (z + 2.0)), jnp.imag(z - z * 3.0), jnp.real(-z)))(
            lax.complex(x, y)
        ),
        (F, F),
    ),
    "iota and integer powers": (
        lambda a: (
            lax.iota(jnp.int32, 5),
            lax.integer_pow(a, 3),
            lax.integer_pow(a * 1.0 + 10.0, -2),
        ),
        (INTS,),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rule_matches_xla(case):
    f, args = CASES[case]
    _agree(*_both(f, *args))


def test_subnormals_keep_ieee_gradual_underflow():
    # the one documented difference: XLA's CPU code reads subnormal inputs as zero
    closed = jax.make_jaxpr(lambda x: (x * 2, x > 0))(SUBNORMAL)
    doubled, positive = evaluate(closed.jaxpr, closed.consts, [SUBNORMAL])
    np.testing.assert_array_equal(doubled, SUBNORMAL * 2)
    np.testing.assert_array_equal(positive, SUBNORMAL > 0)


def test_unknown_primitive_is_not_interpretable():
    closed = jax.make_jaxpr(lambda x: jnp.sort(x))(V)
    assert interpretable(closed.jaxpr) == "no NumPy rule for the primitive sort"
    closed = jax.make_jaxpr(lambda x: lax.while_loop(lambda c: c < 3, lambda c: c + 1, x))(0)
    assert "while" in interpretable(closed.jaxpr)
    with pytest.raises(InterpretError, match="sort"):
        evaluate(jax.make_jaxpr(jnp.sort)(V).jaxpr, [], [V])


def test_a_rule_that_breaks_raises_instead_of_answering(monkeypatch):
    from checkers import interpret

    closed = jax.make_jaxpr(lambda x: x.sum(axis=0))(F)
    monkeypatch.setitem(interpret.RULES, "reduce_sum", lambda x, **_: x.sum(axis=1))
    with pytest.raises(InterpretError, match="shape"):
        evaluate(closed.jaxpr, closed.consts, [F])


def _batch_of(x, size=3):
    """`size` different values of x's type, stacked (integers stay in range)."""
    x = np.asarray(x)
    if np.issubdtype(x.dtype, np.floating):
        return np.stack([x * (1 + 0.25 * k) - 0.5 * k for k in range(size)])
    if x.dtype == np.bool_:
        return np.stack([x if k % 2 == 0 else ~x for k in range(size)])
    return np.stack([np.roll(x, k) for k in range(size)])


@pytest.mark.parametrize("which", ["all", "first", "last"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_batched_run_matches_vmap(case, which):
    # one trial's jaxpr run on a batch is what jax.vmap of the function computes, whichever
    # operands carry the batch (an operand without one is the same in every trial)
    f, args = CASES[case]
    n = len(args)
    axes = [
        0
        if which == "all" or (which == "first" and k == 0) or (which == "last" and k == n - 1)
        else None
        for k in range(n)
    ]
    batched = [_batch_of(a) if ax == 0 else a for a, ax in zip(args, axes, strict=True)]
    closed = jax.make_jaxpr(f)(*args)
    whole = [
        a if ax == 0 else np.broadcast_to(a, (3, *np.shape(a)))
        for a, ax in zip(batched, axes, strict=True)
    ]
    want = [np.asarray(w) for w in jax.tree_util.tree_leaves(jax.jit(jax.vmap(f))(*whole))]
    with np.errstate(all="ignore"):
        got = Steps(closed).run([np.asarray(a) for a in whole], batch=3)
        mixed = Steps(closed).run(
            [np.asarray(a) for a in batched], batch=3, batched_args=[ax == 0 for ax in axes]
        )
    _agree(got, want)
    _agree(mixed, want)


def test_interpreted_runs_one_trials_jaxpr_on_a_batch_by_input_name():
    def one(inputs, lane):
        return inputs["x"].sum() * lane, inputs["y"] + 1, jnp.float64(2.0)

    closed = jax.make_jaxpr(one)(
        {"x": jax.ShapeDtypeStruct((3,), jnp.float64), "y": jax.ShapeDtypeStruct((), jnp.float64)},
        jax.ShapeDtypeStruct((), jnp.int64),
    )
    run = Interpreted(closed, ["x", "y"])
    x, y = rng.standard_normal((4, 3)), rng.standard_normal(4)
    a, b, c = run({"y": y, "x": x}, np.arange(4))
    np.testing.assert_allclose(a, x.sum(axis=1) * np.arange(4), rtol=1e-15)
    np.testing.assert_allclose(b, y + 1, rtol=1e-15)
    np.testing.assert_array_equal(c, np.full(4, 2.0))  # the same in every trial, one per trial


def _bits(xs):
    return [(np.shape(x), np.asarray(x).dtype, np.ascontiguousarray(x).tobytes()) for x in xs]


@pytest.mark.parametrize("case", sorted(CASES))
def test_run_in_groups_of_trials_gives_the_whole_batch_bit_for_bit(case, monkeypatch):
    # a batch whose values would take more than BATCH_BYTES runs a group of trials at a time
    f, args = CASES[case]
    closed = jax.make_jaxpr(f)(*args)
    whole = [np.asarray(_batch_of(a, 5)) for a in args]
    steps = Steps(closed)
    with np.errstate(all="ignore"):
        want = steps.run(whole, batch=5)
        monkeypatch.setattr(jaxprs, "BATCH_BYTES", 2 * steps.trial_bytes)  # two trials a group
        got = steps.run(whole, batch=5)
        mixed = steps.run(
            [whole[0], *args[1:]], batch=5, batched_args=[True] + [False] * (len(args) - 1)
        )
        monkeypatch.setattr(jaxprs, "BATCH_BYTES", 10**12)
        mixed_whole = steps.run(
            [whole[0], *args[1:]], batch=5, batched_args=[True] + [False] * (len(args) - 1)
        )
    assert _bits(got) == _bits(want)
    assert _bits(mixed) == _bits(mixed_whole)


def _chain(x):
    # six values of x's size, each read only by the next
    for _ in range(6):
        x = jnp.sin(x) + 1.0
    return x.sum()


def _peak_bytes(run):
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_value_is_dropped_after_the_last_step_that_reads_it():
    x = rng.standard_normal(1 << 14)  # 128 KiB a value
    steps = Steps(jax.make_jaxpr(_chain)(x))
    assert steps.trial_bytes <= 2 * x.nbytes + 64  # at most two of them at once
    batch = np.stack([x] * 16)
    peak = _peak_bytes(lambda: steps.run([batch], batch=16))
    assert peak < 4 * batch.nbytes  # not the 12 values the chain computes


def test_a_large_batch_is_run_within_the_byte_budget(monkeypatch):
    x = rng.standard_normal(1 << 14)
    steps = Steps(jax.make_jaxpr(_chain)(x))
    batch = np.stack([x * (1 + k) for k in range(64)])  # 8 MiB of inputs
    want = steps.run([batch], batch=64)
    monkeypatch.setattr(jaxprs, "BATCH_BYTES", 1 << 20)
    peak = _peak_bytes(lambda: steps.run([batch], batch=64))
    assert peak < 4 * (1 << 20)  # a group's values, not the whole batch's 16 MiB
    assert _bits(steps.run([batch], batch=64)) == _bits(want)


# --- the programs of real statements ---------------------------------------------------


@pytest.fixture(scope="module")
def example_env() -> Environment:
    batch = read_paths([str(ROOT / "examples")])
    return Environment.from_declarations([d for doc in batch.documents for d in doc.declarations])


def _inputs(specs, batch, seed):
    gen = np.random.default_rng(seed)
    out = {}
    for n, s in specs.items():
        shape = (batch, *s.shape)
        if s.kind == REAL:
            out[n] = gen.standard_normal(shape) * gen.choice([1e-3, 1.0, 1e3])
        elif s.kind == "nat":
            out[n] = gen.integers(s.lo, s.hi, size=shape, endpoint=True).astype(np.int64)
        else:
            out[n] = gen.integers(0, s.high, size=shape).astype(np.int64)
    return out


def test_every_example_program_matches_xla(example_env, monkeypatch):
    monkeypatch.setenv(interpreted.INTERPRET_VARIABLE, "1")
    compared = 0
    for decl in example_env.theorems():
        checker = example_env.resolve(decl.name, prefer="derived")
        if not hasattr(checker, "plan"):
            continue
        for k, dims in enumerate(
            (dict.fromkeys(checker.dim_names, 2), dict.fromkeys(checker.dim_names, 3))
        ):
            dims.update(checker.fixed_dims)
            try:
                specs = checker.input_specs(dims)
            except Exception:
                continue
            if any(s.empty for s in specs.values()):
                continue
            prog = programs.interpreted_program(checker, dims, "float64", specs, 8)
            assert prog is not None, decl.name
            lowered = programs.lower(checker, dims, "float64", specs, 8)
            compiled = lowered.compile()
            inputs = _inputs(specs, 8, k)
            lanes = np.arange(8, dtype=np.int64)
            got = prog(inputs)
            want = [np.asarray(o) for o in compiled(inputs, lanes)]
            for g, w in zip(got, want, strict=True):
                np.testing.assert_allclose(
                    g, w, rtol=1e-12, atol=1e-300, equal_nan=True, err_msg=decl.name
                )
            compared += 1
    assert compared >= 40, compared


def test_switched_off_or_large_programs_are_compiled(example_env, monkeypatch):
    name = next(
        d.name
        for d in example_env.theorems()
        if hasattr(example_env.resolve(d.name, prefer="derived"), "plan")
    )
    checker = example_env.resolve(name, prefer="derived")
    dims = dict.fromkeys(checker.dim_names, 2) | dict(checker.fixed_dims)
    specs = checker.input_specs(dims)
    assert programs.interpreted_program(checker, dims, "float64", specs, 8) is not None
    assert programs.interpreted_program(checker, dims, "float32", specs, 8) is None
    assert programs.interpreted_program(checker, dims, "float64", specs, 1024) is None
    monkeypatch.setenv(interpreted.INTERPRET_VARIABLE, "0")
    assert programs.interpreted_program(checker, dims, "float64", specs, 8) is None


def test_largest_value_counts_what_evaluating_step_by_step_holds() -> None:
    from checkers.interpret import largest_value

    closed = jax.make_jaxpr(lambda x: (x[:, None] * x[None, :]).sum())(jnp.zeros(300))
    assert largest_value(closed.jaxpr) == 300 * 300
    nested = jax.make_jaxpr(jax.jit(lambda x: jnp.outer(x, x) @ x))(jnp.zeros(40))
    assert largest_value(nested.jaxpr) == 40 * 40


def _hypotheses(inputs):
    x, k = inputs["x"], inputs["k"]
    return jnp.stack([(x.sum() > 0).astype(jnp.float64), jnp.where(k % 2 == 0, 1.0, 0.0)])


def test_evaluate_trials_interprets_small_functions_as_xla_computes_them(monkeypatch):
    rng = np.random.default_rng(0)
    batch = {"x": rng.normal(size=(16, 3)), "k": rng.integers(0, 9, size=16)}
    want = np.asarray(jax.jit(jax.vmap(_hypotheses))(batch))
    compiled = []
    real_jit = interpreted.jax.jit
    monkeypatch.setattr(
        interpreted.jax, "jit", lambda *a, **k: compiled.append(1) or real_jit(*a, **k)
    )
    got = interpreted.evaluate_trials(_hypotheses, batch, 16)
    assert not compiled  # interpreted: nothing handed to XLA
    np.testing.assert_array_equal(got, want)
    monkeypatch.setenv(interpreted.INTERPRET_VARIABLE, "0")
    np.testing.assert_array_equal(interpreted.evaluate_trials(_hypotheses, batch, 16), want)
    assert compiled  # switched off: compiled


def test_evaluate_trials_without_inputs_gives_every_trial():
    got = interpreted.evaluate_trials(lambda _: jnp.ones(2), {}, 4)
    assert got.shape == (4, 2) and (got == 1).all()
