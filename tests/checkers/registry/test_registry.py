"""The registry: eager validation with exact messages, duplicate refusal, records and repr."""

from __future__ import annotations

import re

import pytest

from checkers import REGISTRY, InputSpec, RegistrationError, Registry, ToleranceOverride
from checkers.core import DimConstraint
from checkers.registry.registrations import fin, index_map, nat, real


def _build(dims, dtype):
    return lambda x: (x["x"], x["x"])


def _register(registry: Registry, name: str = "Test.ok", **kwargs):
    kwargs.setdefault("dims", ("n",))
    kwargs.setdefault("inputs", {"x": real("n")})
    return registry.register(name, **kwargs)(_build)


def test_register_entry_valid_registration():
    registry = Registry()
    entry = _register(registry, tolerance={"atol": 1e-9}, version="2")
    assert registry.get("Test.ok") is entry
    assert "Test.ok" in registry and len(registry) == 1
    assert entry.kind == "registered"
    assert entry.dim_names == ("n",)
    assert entry.tolerance == ToleranceOverride(atol=1e-9, rtol=None)
    assert entry.input_specs({"n": 3}) == {"x": InputSpec.real((3,))}


def test_refuse_duplicate_registration():
    registry = Registry()
    _register(registry)
    with pytest.raises(RegistrationError) as info:
        _register(registry)
    assert str(info.value) == (
        f"a checker for 'Test.ok' is already registered (version '1', {__name__}._build)"
    )


def test_refuse_name_not_fully_qualified():
    with pytest.raises(RegistrationError) as info:
        _register(Registry(), "sum_fin_prod")
    assert str(info.value) == (
        "checker name 'sum_fin_prod' is not a fully qualified Lean name "
        "(expected Namespace.name, e.g. 'Proofs.sum_fin_prod')"
    )


@pytest.mark.parametrize("name", ["Proofs..x", "Proofs.", ".x", "Proofs.a b", "Proofs.1x", 3])
def test_refuse_name_malformed(name):
    with pytest.raises(RegistrationError, match="fully qualified Lean name|must be a string"):
        _register(Registry(), name)


def test_accept_name_unicode_components():
    entry = _register(Registry(), "Proofs.bn_grad_γ₁'")
    assert entry.name == "Proofs.bn_grad_γ₁'"


def test_refuse_input_with_unknown_dimension():
    with pytest.raises(RegistrationError) as info:
        _register(Registry(), inputs={"x": real("n", "m")})
    assert str(info.value) == ("checker 'Test.ok': input 'x' uses unknown dimension 'm' (dims: n)")


def test_refuse_input_size_expression_malformed():
    with pytest.raises(RegistrationError) as info:
        _register(Registry(), inputs={"x": real("n-1")})
    assert str(info.value) == (
        "checker 'Test.ok': input 'x': size 'n-1' is not a sum of products "
        "of dimension names and ints"
    )


def test_refuse_dims_repeated():
    with pytest.raises(RegistrationError) as info:
        _register(Registry(), dims=("n", "n"))
    assert str(info.value) == "checker 'Test.ok': dims must be distinct, got ('n', 'n')"


def test_refuse_dim_both_free_and_fixed():
    with pytest.raises(RegistrationError) as info:
        _register(Registry(), fixed_dims={"n": 3})
    assert str(info.value) == "checker 'Test.ok': dim 'n' is both free and fixed"


def test_refuse_constraint_on_unknown_dimension():
    with pytest.raises(RegistrationError) as info:
        _register(Registry(), constraints=(DimConstraint("W", ">=", "n"),))
    assert str(info.value) == "checker 'Test.ok': constraint W ≥ n uses unknown dimension 'W'"


def test_refuse_dtypes_without_float64():
    with pytest.raises(RegistrationError) as info:
        _register(Registry(), dtypes=("float32",))
    assert str(info.value) == "checker 'Test.ok': dtypes must include 'float64' (the reference)"


def test_refuse_dtype_unknown():
    with pytest.raises(RegistrationError, match=r"dtypes must be a non-empty subset of"):
        _register(Registry(), dtypes=("float64", "float16"))


@pytest.mark.parametrize(
    ("tolerance", "message"),
    [
        (-1.0, "tolerance must be finite and >= 0, got -1.0"),
        ({"atol": 1e-3, "eps": 1}, "tolerance keys must be 'atol' and 'rtol', got ['eps']"),
        (
            ToleranceOverride(atol={"float16": 1e-3}),
            "tolerance atol has unknown dtype 'float16' "
            "(expected one of float64, float32, bfloat16)",
        ),
        ("tight", "tolerance must be None, a number, a ToleranceOverride or a dict"),
    ],
)
def test_refuse_tolerance_invalid(tolerance, message):
    with pytest.raises(RegistrationError) as info:
        _register(Registry(), tolerance=tolerance)
    assert str(info.value).startswith(f"checker 'Test.ok': {message}")


def test_refuse_unknown_distribution():
    with pytest.raises(RegistrationError) as info:
        _register(Registry(), inputs={"x": real("n", distribution="cauchy")})
    assert re.fullmatch(
        r"checker 'Test.ok': input 'x' has unknown distribution 'cauchy' \(known: .*normal.*\)",
        str(info.value),
    )


def test_refuse_inputs_function_returning_garbage():
    with pytest.raises(RegistrationError) as info:
        _register(Registry(), inputs=lambda dims: {"x": (dims["n"],)})
    assert str(info.value) == (
        "checker 'Test.ok': inputs(dims) must return a dict of InputSpec, got {'x': (2,)}"
    )


def test_refuse_inputs_function_raising():
    def inputs(dims):
        return {"x": InputSpec.real((dims["m"],))}

    with pytest.raises(RegistrationError) as info:
        _register(Registry(), inputs=inputs)
    assert str(info.value) == "checker 'Test.ok': inputs({'n': 2}) raised KeyError: 'm'"


def test_refuse_version_empty():
    with pytest.raises(RegistrationError) as info:
        _register(Registry(), version=" ")
    assert str(info.value) == "checker 'Test.ok': version must be a non-empty string, got ' '"


def test_keep_registry_unchanged_after_refusal():
    registry = Registry()
    with pytest.raises(RegistrationError):
        _register(registry, dims=("n", "n"))
    assert len(registry) == 0
    _register(registry)
    assert registry.names() == ["Test.ok"]


def test_resolve_templates_at_dims():
    entry = Registry().register(
        "Test.templates",
        dims=("N", "c"),
        fixed_dims={"D": 3},
        inputs={
            "v": real("N*c"),
            "m": real("N", "D+1", constraint="positive"),
            "i": fin("c"),
            "k": nat(1, "N"),
            "p": index_map("N", "D"),
        },
    )(_build)
    specs = entry.input_specs({"N": 2, "c": 4, "D": 3})
    assert specs == {
        "v": InputSpec.real((8,)),
        "m": InputSpec.real((2, 4), constraint="positive"),
        "i": InputSpec.fin(4),
        "k": InputSpec.nat(1, 2),
        "p": InputSpec.index_map(2, 3),
    }


def test_repr_registration_of_seed_checker():
    entry = REGISTRY["Proofs.vit_rowDenseW_grad_bridge"]
    text = repr(entry)
    assert text.startswith(
        "register('Proofs.vit_rowDenseW_grad_bridge', dims=('N', 'a', 'c'), "
        "inputs={'bb': real('c'), 'X': real('N', 'a'), 'W': real('a', 'c'), "
        "'dy': real('N*c'), 'i': fin('a'), 'j': fin('c')}, "
        "dtypes=('float64', 'float32', 'bfloat16'), tolerance=None, version='1', "
    )
    assert text.endswith(")(proofbridge_lean4_mlir.registered.vit.vit_rowDenseW_grad_bridge)")


def test_register_three_seed_checkers_by_default():
    assert {
        "Proofs.sum_fin_prod",
        "Proofs.vit_rowDenseW_grad_bridge",
        "Proofs.pdiv_rowLN_beta",
    } <= set(REGISTRY.names())


def test_refuse_invalid_input_spec():
    with pytest.raises(ValueError, match=r"a fin input needs high"):
        InputSpec("fin")
    with pytest.raises(ValueError, match=r"nat bounds are empty: lo=3 > hi=1"):
        InputSpec.nat(3, 1)
    with pytest.raises(ValueError, match=r"constraint must be None or one of"):
        InputSpec.real((2,), constraint="odd")
