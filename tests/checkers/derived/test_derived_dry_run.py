"""The dry run of a statement traces the program of the first dims draw of a check at the
default seed, and that check runs that trace instead of tracing the statement again."""

from __future__ import annotations

import importlib

import pytest
from derived_support import FACT, environment, theorem

from checkers import check, interpreted
from checkers.derived import derive


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, int]]:
    """Patch every caller's `trace_trial` to record the dims it traces at."""
    derive_module = importlib.import_module("checkers.derived.derive")
    traced: list[dict[str, int]] = []
    real = interpreted.trace_trial

    def spy(checker, dims, specs):  # type: ignore[no-untyped-def]
        traced.append(dict(dims))
        return real(checker, dims, specs)

    monkeypatch.setattr(interpreted, "trace_trial", spy)
    monkeypatch.setattr(derive_module, "trace_trial", spy)
    return traced


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
    assert len(traced) <= len(result.draws)


def test_another_seed_traces_its_own_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    traced = _counting(monkeypatch)
    env = environment(theorem("Proofs.t", "{n : ℕ} (x : Fin n → ℝ)", "∑ i, x i = ∑ i, x i"))
    result = check("Proofs.t", env, trials=16, seed=3)
    assert result.status == "pass"
    # the dry run's trace (seed 0's first draw) is not the program of another draw
    assert len(traced) == 5 and _sorted(traced[1:]) == _sorted(result.draws)
    assert not interpreted._DRY_RUNS  # the unused trace is not kept past the check


def test_a_derivation_keeps_only_the_last_few_dry_runs() -> None:
    decls = [theorem(f"Proofs.t{k}", "(x : ℝ)", f"x + {k} = {k} + x") for k in range(10)]
    env = environment(*decls)
    for k in range(10):
        derive(f"Proofs.t{k}", env)
    assert len(interpreted._DRY_RUNS) == interpreted._DRY_RUNS_KEPT


def test_switched_off_interpretation_keeps_no_dry_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(interpreted.INTERPRET_VARIABLE, "0")
    interpreted._DRY_RUNS.clear()
    env = environment(theorem("Proofs.t", "(x : ℝ)", "x + 1 = 1 + x"))
    derive("Proofs.t", env)
    assert not interpreted._DRY_RUNS
    assert check("Proofs.t", env, trials=16, seed=0).status == "pass"


def test_a_refusal_of_the_statement_is_found_by_one_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    from checkers.core import Unsupported
    from checkers.derived.checker import DerivedChecker

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
