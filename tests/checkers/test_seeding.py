"""Seeding many generators at once gives numpy's own streams, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from checkers.core import InputSpec
from checkers.sampling import draw_key, fin_plan, sample_batch, sample_trial
from checkers.seeding import generators, pcg64_seeds


def _numpy_state(row: np.ndarray) -> np.ndarray:
    return np.random.SeedSequence(row.astype(np.uint32)).generate_state(4, np.uint64)


@pytest.mark.parametrize("width", [1, 3, 4, 5, 6, 9])
def test_pcg64_seeds_match_numpy_seed_sequence(width):
    rng = np.random.default_rng(width)
    entropy = rng.integers(0, 2**32, (300, width), dtype=np.uint64)
    entropy[0] = 0
    entropy[1] = 2**32 - 1
    got = pcg64_seeds(entropy)
    want = np.stack([_numpy_state(row) for row in entropy])
    np.testing.assert_array_equal(got, want)


def test_generators_streams_match_numpy():
    entropy = np.random.default_rng(7).integers(0, 2**32, (50, 6), dtype=np.uint64)
    for fast, row in zip(generators(entropy), entropy, strict=True):
        slow = np.random.Generator(np.random.PCG64(np.random.SeedSequence(row.astype(np.uint32))))
        np.testing.assert_array_equal(fast.standard_normal(7), slow.standard_normal(7))
        np.testing.assert_array_equal(fast.integers(0, 5, 3), slow.integers(0, 5, 3))
        np.testing.assert_array_equal(fast.lognormal(0.0, 1.0, 2), slow.lognormal(0.0, 1.0, 2))


def test_refuse_entropy_wider_than_32_bits():
    with pytest.raises(ValueError, match="below 2\\*\\*32"):
        pcg64_seeds(np.array([[2**32]], dtype=np.uint64))
    with pytest.raises(ValueError, match="shape"):
        pcg64_seeds(np.zeros((3,), dtype=np.uint64))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sample_batch_equals_trial_by_trial(dtype):
    specs = {
        "x": InputSpec.real((2, 3)),
        "e": InputSpec.real((), constraint="positive"),
        "k": InputSpec.nat(0, 9),
        "m": InputSpec.index_map(4, 3),
        "i": InputSpec.fin(3),
        "j": InputSpec.fin(5),
    }
    base = draw_key("Proofs.t", 4, {"n": 3})
    for trials in (8, 64):  # Fin tuples drawn (15 > 8) and enumerated (15 <= 64)
        plan = fin_plan(specs, trials)
        batch = sample_batch(specs, plan, base, range(trials), dtype)
        for t in range(trials):
            one = sample_trial(specs, plan, base, t, dtype)
            for name in specs:
                np.testing.assert_array_equal(batch[name][t], one[name])
