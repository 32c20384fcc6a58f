"""The dry run of a statement traces the program of the first dims draw of a check at the
default seed, and that check runs that trace instead of tracing the statement again."""

from __future__ import annotations

import importlib

import pytest
from derived_support import FACT, environment, theorem

from checkers import Environment, check
from checkers.harness import interpreted
from checkers.statements.derive import derive


@pytest.fixture(autouse=True)
def _no_kept_dry_runs() -> None:
    """Start without the dry runs that other tests' derivations kept (they stay within
    their budget until their theorem is checked), nor the programs other checks kept."""
    interpreted._DRY_RUNS.clear()
    interpreted._KEPT.clear()


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, int]]:
    """Patch every caller's `trace_trial` to record the dims it traces at."""
    derive_module = importlib.import_module("checkers.statements.derive")
    traced: list[dict[str, int]] = []
    real = interpreted.trace_trial

    def spy(checker, dims, specs):  # type: ignore[no-untyped-def]
        traced.append(dict(dims))
        return real(checker, dims, specs)

    monkeypatch.setattr(interpreted, "trace_trial", spy)
    monkeypatch.setattr(derive_module, "trace_trial", spy)
    return traced


def _commuting(count: int) -> Environment:
    """An environment of `count` theorems Proofs.t0, Proofs.t1, … without dimensions."""
    return environment(
        *(theorem(f"Proofs.t{k}", "(x : ℝ)", f"x + {k} = {k} + x") for k in range(count))
    )


def _sorted(dims: list[dict[str, int]]) -> list[list[tuple[str, int]]]:
    return sorted(sorted(d.items()) for d in dims)


@pytest.mark.parametrize(
    "binders, statement, status",
    [
        ("(x y : ℝ)", "x * y + y = (x + 1) * y", "pass"),
        ("(x y : ℝ)", "x * y + y = (x + 2) * y", "fail"),
        ("", "(2 : ℝ) + 2 = 4", "pass"),
    ],
)
def test_check_runs_the_program_the_dry_run_traced(
    binders: str, statement: str, status: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    traced = _counting(monkeypatch)
    env = environment(theorem("Proofs.t", binders, statement))
    result = check("Proofs.t", env, trials=16, seed=0)
    assert result.status == status
    assert traced == [{}]  # once, by the dry run
    assert result.stats["programs_interpreted"] == 1


def test_a_statement_with_dimensions_is_traced_once_at_each_draw(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    traced = _counting(monkeypatch)
    env = environment(theorem("Proofs.t", "{n : ℕ} (x : Fin n → ℝ)", "∑ i, x i = ∑ i, x i"))
    result = check("Proofs.t", env, trials=16, seed=0)
    assert result.status == "pass"
    assert len(result.draws) == 4
    # the dry run traced the first draw, the check the other three
    assert traced[0] == result.draws[0]
    assert _sorted(traced) == _sorted(result.draws)
    assert result.stats["programs_interpreted"] == 4


def test_a_wrong_statement_with_dimensions_fails_from_the_kept_trace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    traced = _counting(monkeypatch)
    env = environment(theorem("Proofs.t", "{n : ℕ} (x : Fin n → ℝ)", "∑ i, x i = ∑ i, (x i + 1)"))
    result = check("Proofs.t", env, trials=16, seed=0)
    assert result.status == "fail"
    # the failure reported is at the first draw, whose only trace was the dry run's
    assert result.dims == result.draws[0] == traced[0]
    assert _sorted(traced) == _sorted(result.draws)


def test_another_seed_traces_its_own_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    traced = _counting(monkeypatch)
    env = environment(theorem("Proofs.t", "{n : ℕ} (x : Fin n → ℝ)", "∑ i, x i = ∑ i, x i"))
    result = check("Proofs.t", env, trials=16, seed=3)
    assert result.status == "pass"
    # the dry run's trace (seed 0's first draw) is not the program of another draw
    assert len(traced) == 5 and _sorted(traced[1:]) == _sorted(result.draws)
    assert not interpreted._DRY_RUNS  # the unused trace is not kept past the check


def test_a_page_derived_before_it_is_checked_runs_every_kept_trace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    traced = _counting(monkeypatch)
    names = [f"Proofs.t{k}" for k in range(10)]
    env = _commuting(10)
    for n in names:
        env.resolve(n)
    assert len(traced) == 10  # the dry runs
    assert all(check(n, env, trials=16, seed=0).status == "pass" for n in names)
    assert len(traced) == 10  # no check traced its statement again
    assert not interpreted._DRY_RUNS


def test_the_kept_dry_runs_stay_within_their_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    interpreted._DRY_RUNS.clear()
    env = _commuting(10)
    derive("Proofs.t0", env)
    (one,) = [kept[2] for kept in interpreted._DRY_RUNS.values()]
    assert one > 0
    monkeypatch.setattr(interpreted, "_DRY_RUNS_BUDGET", 3 * one)
    for k in range(1, 10):
        derive(f"Proofs.t{k}", env)
    kept = [c.name for c, _, _ in interpreted._DRY_RUNS.values()]
    assert kept == ["Proofs.t7", "Proofs.t8", "Proofs.t9"]  # the oldest were forgotten first
    monkeypatch.setattr(interpreted, "_DRY_RUNS_BUDGET", one - 1)
    interpreted._DRY_RUNS.clear()
    derive("Proofs.t0", env)
    assert not interpreted._DRY_RUNS  # a trace larger than the whole budget is not kept


def test_a_check_forgets_only_its_own_dry_runs() -> None:
    interpreted._DRY_RUNS.clear()
    env = _commuting(3)
    for k in range(3):
        env.resolve(f"Proofs.t{k}")
    assert check("Proofs.t1", env, trials=16, seed=5).status == "pass"  # not seed 0's program
    kept = [c.name for c, _, _ in interpreted._DRY_RUNS.values()]
    assert kept == ["Proofs.t0", "Proofs.t2"]


def test_switched_off_interpretation_keeps_no_dry_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(interpreted.INTERPRET_VARIABLE, "0")
    interpreted._DRY_RUNS.clear()
    env = environment(theorem("Proofs.t", "(x : ℝ)", "x + 1 = 1 + x"))
    derive("Proofs.t", env)
    assert not interpreted._DRY_RUNS
    assert check("Proofs.t", env, trials=16, seed=0).status == "pass"


def test_a_refusal_of_the_statement_is_found_by_one_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    from checkers.core import Unsupported
    from checkers.statements.checker import DerivedChecker

    traced = _counting(monkeypatch)
    built: list[int] = []
    real_build = DerivedChecker.build
    monkeypatch.setattr(
        DerivedChecker, "build", lambda self, *a: built.append(1) or real_build(self, *a)
    )
    env = environment(FACT, theorem("Proofs.t", "", "∑ i : Fin 3, fact i.val = 4"))
    got = derive("Proofs.t", env)
    assert isinstance(got, Unsupported)
    assert got.reason.startswith("the definitions unfold more than 150 levels deep")
    assert len(traced) == 1 and not built  # not traced again by the abstract dry run


def test_a_warm_check_again_runs_the_program_it_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    # another seed, in an environment built again (as a warm worker's is after any
    # ingestion): the unchanged statement is not traced again in the same process
    traced = _counting(monkeypatch)
    first = check("Proofs.t0", _commuting(1), trials=8, seed=0)
    count = len(traced)
    assert first.status == "pass" and count >= 1
    again = check("Proofs.t0", _commuting(1), trials=8, seed=5)
    assert again.status == "pass"
    assert len(traced) == count
    # a changed statement is another program
    other = environment(theorem("Proofs.t0", "(x : ℝ)", "x + 0 = 1 + x"))
    assert check("Proofs.t0", other, trials=8, seed=5).status == "fail"
    assert len(traced) > count
