"""The environment: lookups, registered-over-derived precedence, the derive hook, unsupported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from checkers import (
    REGISTRY,
    Environment,
    InputSpec,
    Registry,
    UnknownTheorem,
    Unsupported,
    check,
    describe,
)
from checkers.registry import environment
from checkers.registry.environment import DerivationError
from checkers.registry.registrations import real
from theorem_index.model import Declaration


def _theorem(name: str, statement: str = "1 = 1") -> Declaration:
    return Declaration(
        name=name, kind="theorem", module="Proofs.Test", binders="", statement=statement
    )


def _sum_fin_prod() -> Declaration:
    """`Proofs.sum_fin_prod` with the statement its registered checker was written for."""
    return Declaration(
        name="Proofs.sum_fin_prod",
        kind="theorem",
        module="Proofs.Test",
        binders="{M : Type u_1} [AddCommMonoid M] (m n : ℕ) (f : Fin (m * n) → M)",
        statement=(
            "∑ idx : Fin (m * n), f idx = ∑ r : Fin m, ∑ k : Fin n, f (finProdFinEquiv (r, k))"
        ),
    )


def _definition(name: str) -> Declaration:
    return Declaration(
        name=name,
        kind="def",
        module="Proofs.Test",
        binders="(x : ℝ)",
        statement="ℝ",
        equations=(f"{name} x = x",),
    )


class _Derived:
    """A minimal derived checker, as checkers.statements would build one."""

    kind = "derived"
    version = "d1"
    dim_names = ("n",)
    fixed_dims: dict[str, int] = {}
    assumptions = ("Differentiable ℝ f",)
    dependencies = ("Proofs.f",)
    tolerance = None

    def __init__(self, name):
        self.name = name

    def dim_constraints(self):
        return ()

    def input_specs(self, dims):
        return {"x": InputSpec.real((dims["n"],))}

    def build(self, dims, dtype):
        return lambda v: (v["x"].sum(), v["x"].sum())


def test_index_declarations_by_name():
    decls = [_theorem("Proofs.a"), _definition("Proofs.f"), _theorem("Proofs.a", "2 = 2")]
    env = Environment.from_declarations(decls, derive=None)
    assert len(env) == 2 and "Proofs.a" in env and "Proofs.zz" not in env
    assert env["Proofs.a"].statement == "1 = 1"
    assert env.duplicates == ("Proofs.a",)
    assert [d.name for d in env.theorems()] == ["Proofs.a"]
    assert [d.name for d in env.definitions()] == ["Proofs.f"]
    assert env.equations("Proofs.f") == ("Proofs.f x = x",)
    assert env.get("Proofs.zz") is None


def test_resolve_registered_before_derived():
    calls = []

    def derive(name, env):
        calls.append(name)
        return _Derived(name)

    env = Environment.from_declarations([_sum_fin_prod()], derive=derive)
    assert env.resolve("Proofs.sum_fin_prod") is REGISTRY["Proofs.sum_fin_prod"]
    assert calls == []
    twin = env.resolve("Proofs.sum_fin_prod", prefer="derived")
    assert isinstance(twin, _Derived) and calls == ["Proofs.sum_fin_prod"]


def test_resolve_keeps_the_last_resolved_checkers_only(monkeypatch):
    monkeypatch.setattr(environment, "MAX_RESOLVED", 2)
    calls = []

    def derive(name, env):
        calls.append(name)
        return _Derived(name)

    env = Environment.from_declarations(
        [_theorem("Proofs.a"), _theorem("Proofs.b"), _theorem("Proofs.c")], derive=derive
    )
    first = env.resolve("Proofs.a")
    env.resolve("Proofs.b")
    assert env.resolve("Proofs.a") is first  # kept, and now the most recent
    env.resolve("Proofs.c")  # drops b, the least recently resolved
    assert env.derive_seconds("Proofs.b") == 0.0 and env.derive_seconds("Proofs.a") > 0.0
    again = env.resolve("Proofs.b")
    assert calls == ["Proofs.a", "Proofs.b", "Proofs.c", "Proofs.b"]
    assert isinstance(again, _Derived) and again.name == "Proofs.b"


def test_check_results_same_when_checkers_are_dropped(monkeypatch):
    env = Environment.from_declarations(
        [_theorem("Proofs.a"), _theorem("Proofs.b")], derive=lambda name, env: _Derived(name)
    )
    want = [check(n, env, trials=8).to_json() for n in ("Proofs.a", "Proofs.b")]
    monkeypatch.setattr(environment, "MAX_RESOLVED", 1)
    dropping = Environment.from_declarations(
        [_theorem("Proofs.a"), _theorem("Proofs.b")], derive=lambda name, env: _Derived(name)
    )
    got = [check(n, dropping, trials=8).to_json() for n in ("Proofs.a", "Proofs.b", "Proofs.a")]

    def same(r):
        return {k: v for k, v in r.items() if k not in ("duration_s", "stats")}

    assert [same(r) for r in got] == [same(r) for r in (*want, want[0])]


def test_describe_registered_derived_unsupported():
    env = Environment.from_declarations(
        [_sum_fin_prod(), _theorem("Proofs.x"), _theorem("Proofs.y")],
        derive=lambda name, env: (
            _Derived(name) if name == "Proofs.x" else Unsupported("no semantics for Proofs.g")
        ),
    )
    info = describe("Proofs.sum_fin_prod", env)
    assert info.kind == "registered" and info.version == "1"
    assert info.dependencies == ("finProdFinEquiv",)
    assert "proofbridge_lean4_mlir.registered.finsum.sum_fin_prod" in info.reason
    derived = describe("Proofs.x", env)
    assert (derived.kind, derived.version, derived.dependencies) == ("derived", "d1", ("Proofs.f",))
    assert derived.assumptions == ("Differentiable ℝ f",)
    assert describe("Proofs.y", env).reason == "no semantics for Proofs.g"


def test_check_unsupported_names_reason():
    env = Environment.from_declarations(
        [_theorem("Proofs.y")], derive=lambda name, env: Unsupported("no semantics for Proofs.g")
    )
    result = check("Proofs.y", env)
    assert (result.status, result.checker, result.reason) == (
        "unsupported",
        "none",
        "no semantics for Proofs.g",
    )
    assert result.to_json()["status"] == "unsupported"


def test_check_unsupported_without_derived_checkers():
    env = Environment.from_declarations([_theorem("Proofs.y")], derive=None)
    result = check("Proofs.y", env)
    assert result.status == "unsupported"
    assert result.reason == "no registered checker, and derived checkers are switched off"


def test_check_unsupported_when_derived_module_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "checkers.statements", None)
    env = Environment.from_declarations([_theorem("Proofs.y")])
    result = check("Proofs.y", env)
    assert result.status == "unsupported"
    assert result.reason == "no registered checker, and checkers.statements is not installed"


def test_check_definition_is_unsupported():
    env = Environment.from_declarations([_definition("Proofs.f")], derive=None)
    result = check("Proofs.f", env)
    assert result.status == "unsupported"
    assert result.reason == "Proofs.f is a def, not a theorem: it states nothing to check"


def test_check_error_when_derivation_raises():
    def derive(name, env):
        raise RuntimeError("evaluator bug")

    env = Environment.from_declarations([_theorem("Proofs.y")], derive=derive)
    assert isinstance(env.resolve("Proofs.y"), DerivationError)
    result = check("Proofs.y", env)
    assert (result.status, result.checker) == ("error", "derived")
    assert result.reason == "deriving a checker raised RuntimeError: evaluator bug"
    assert describe("Proofs.y", env).kind == "unsupported"


def test_check_derived_checker_runs():
    env = Environment.from_declarations([_theorem("Proofs.x")], derive=lambda n, e: _Derived(n))
    result = check("Proofs.x", env, trials=8)
    assert (result.status, result.checker, result.version) == ("pass", "derived", "d1")
    assert result.assumptions == ("Differentiable ℝ f",)


def test_refuse_unknown_theorem():
    env = Environment.from_declarations([], derive=None)
    with pytest.raises(UnknownTheorem) as info:
        check("Proofs.nothing", env)
    assert str(info.value) == "no theorem named 'Proofs.nothing'"


def test_registered_checker_runs_without_declaration():
    env = Environment.from_declarations([], derive=None)
    assert check("Proofs.sum_fin_prod", env, trials=4, draws=1).status == "pass"


def test_environment_uses_given_registry():
    registry = Registry()
    registry.register("Test.only", dims=("n",), inputs={"x": real("n")})(
        lambda dims, dtype: lambda v: (v["x"], v["x"])
    )
    env = Environment.from_declarations([], registry=registry, derive=None)
    assert env.resolve("Test.only") is registry["Test.only"]
    with pytest.raises(UnknownTheorem):
        env.resolve("Proofs.sum_fin_prod")


def test_import_checkers_without_web_or_database():
    code = (
        "import sys, checkers; "
        "bad = [m for m in ('sqlalchemy', 'fastapi', 'app') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    repo = str(Path(__file__).resolve().parents[3])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
