"""Counter-based streams: values depend on (key, trial, position) alone, with sound marginals."""

from __future__ import annotations

import numpy as np
import pytest

from checkers.inputs.streams import BULK, PARALLEL, Stream, input_key, mix


def test_mix_is_splitmix64_finaliser():
    # SplitMix64 seeded with 0: its first outputs are mix(γ), mix(2γ)
    gamma = np.uint64(0x9E3779B97F4A7C15)
    first = mix(np.array([1, 2], dtype=np.uint64) * gamma)
    assert [int(v) for v in first] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4]


def test_trial_values_do_not_depend_on_the_batch():
    key = input_key((5, 6, 7, 8), "W")
    whole = Stream(key, range(10))
    some = Stream(key, [7, 3])
    a, b = whole.standard_normal((4, 3)), some.standard_normal((4, 3))
    np.testing.assert_array_equal(a[[7, 3]], b)
    # later calls take later positions, again the same in both batches
    np.testing.assert_array_equal(whole.integers(0, 9, (5,))[[7, 3]], some.integers(0, 9, (5,)))


def test_keys_separate_inputs_and_draws():
    base = (1, 2, 3, 4)
    assert input_key(base, "x") != input_key(base, "y")
    assert input_key(base, "x") != input_key((1, 2, 3, 5), "x")
    x = Stream(input_key(base, "x"), [0]).random((64,))
    y = Stream(input_key(base, "y"), [0]).random((64,))
    assert not np.array_equal(x, y)


@pytest.mark.parametrize("width", [BULK // 2 + 1, 4 * BULK])  # stream words; numpy's PCG64
def test_marginals(width):
    s = Stream(input_key((9, 9, 9, 9), "z"), range(200_000 // width + 1))
    z = s.standard_normal((width,)).ravel()  # an odd width drops half a Box-Muller pair
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.01
    assert abs(np.mean(np.abs(z) < 1) - 0.6827) < 0.005
    assert abs(np.mean(np.abs(z) < 2) - 0.9545) < 0.003
    u = s.random((width,)).ravel()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.005
    k = s.integers(-3, 4, (width,)).ravel()
    counts = np.bincount(k + 3)
    assert len(counts) == 7 and counts.min() > 0.95 * k.size / 7
    # neighbouring trials are not correlated
    rows = Stream(input_key((9, 9, 9, 9), "c"), range(2)).standard_normal((50_000,))
    assert abs(np.corrcoef(rows)[0, 1]) < 0.02
    small = Stream(input_key((9, 9, 9, 9), "c"), range(50_000)).standard_normal((2,))
    assert abs(np.corrcoef(small.T)[0, 1]) < 0.02


def test_refuse_empty_integer_range():
    with pytest.raises(ValueError, match="empty range"):
        Stream(1, [0]).integers(3, 3)


def test_empty_shapes():
    s = Stream(1, range(3))
    assert s.standard_normal((0, 4)).shape == (3, 0, 4)
    assert s.integers(0, 2, (2, 0)).shape == (3, 2, 0)


@pytest.mark.parametrize("shape", [(BULK,), (3, BULK)])
def test_large_blocks_are_numpy_pcg64_set_from_the_stream(shape):
    key = input_key((1, 1, 2, 3), "X")
    s = Stream(key, [4, 9])
    words = Stream(key, [4, 9]).words(4)
    z = s.standard_normal(shape)
    n = int(np.prod(shape))
    for row, w in zip(z, words, strict=True):
        bits = np.random.PCG64()
        bits.state = {
            "bit_generator": "PCG64",
            "state": {
                "state": (int(w[0]) << 64) | int(w[1]),
                "inc": (int(w[2]) << 64) | int(w[3]) | 1,
            },
            "has_uint32": 0,
            "uinteger": 0,
        }
        np.testing.assert_array_equal(row.ravel(), np.random.Generator(bits).standard_normal(n))
    # the same rows in another batch, and the next calls at the next positions
    other = Stream(key, [9])
    np.testing.assert_array_equal(other.standard_normal(shape)[0], z[1])
    np.testing.assert_array_equal(other.integers(0, 5, shape)[0], s.integers(0, 5, shape)[1])
    np.testing.assert_array_equal(other.random(shape)[0], s.random(shape)[1])
    assert np.abs(z.mean()) < 0.05
    # the rows of different trials differ
    assert not np.array_equal(z[0], z[1])


def test_rows_drawn_in_threads_equal_rows_drawn_alone():
    key = input_key((3, 1, 4, 1), "dy")
    batch = Stream(key, range(5)).standard_normal((PARALLEL // 2,))
    assert batch.size >= PARALLEL
    for t in range(5):
        np.testing.assert_array_equal(
            batch[t], Stream(key, [t]).standard_normal((PARALLEL // 2,))[0]
        )
