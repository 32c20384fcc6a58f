"""A flattened program (jaxprs.Steps) in a form that loads and runs without JAX.

A process whose checks all find their interpreted programs on disk never imports JAX
(over half a second), nor traces a statement. What is stored is the flattened program
itself: the constants and literals by slot, and for each step the primitive's name, its
parameters, its operand and result slots and shapes. Each rule is bound again by name
from `RULES` when the program is loaded, so a rule fixed in this package applies to
stored programs (the store's key hashes this package's source, so a stored program is
never run by rules other than those it was checked against).

JAX's own parameter objects become plain ones with the same fields (`GatherNumbers`,
`ScatterNumbers`), the modes of gathers and scatters their names, a rounding method its
number; a scatter-add's combining jaxpr (always addition: the rule adds) is left out. A
parameter of any other JAX type makes the program `Unstorable`: it is then traced again
by every process, as before, never run from a guess.

Loading unpickles, through an unpickler that admits what rebuilds NumPy's arrays, scalars
and dtypes, this module's two classes and a few built-in types, and nothing else. (The
store's directory must still be writable only by the service: its compiled executables
are unpickled as JAX serializes them.)
"""

from __future__ import annotations

import builtins
import enum
import io
import pickle
import zlib
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from checkers.interpret.jaxprs import Interpreted, Steps, _Step
from checkers.interpret.rules import RULES, InterpretError

FORMAT = 1


class Unstorable(Exception):
    """A step's parameter has no plain form."""


class GatherNumbers(NamedTuple):
    """`lax.GatherDimensionNumbers`' fields."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterNumbers(NamedTuple):
    """`lax.ScatterDimensionNumbers`' fields."""

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


_NUMBERS: dict[str, type[GatherNumbers] | type[ScatterNumbers]] = {
    "GatherDimensionNumbers": GatherNumbers,
    "ScatterDimensionNumbers": ScatterNumbers,
}
_SCALARS = (type(None), bool, int, float, complex, str, np.dtype, np.generic, np.ndarray)


def _from_jax(value: Any) -> bool:
    module = type(value).__module__ or ""
    return module.split(".")[0] in ("jax", "jaxlib", "ml_dtypes")


def plain(step: str, key: str, value: Any) -> Any:
    """`value` (a parameter of a `step` equation) in a form that needs no JAX."""
    kind = type(value).__name__
    if kind in _NUMBERS and _from_jax(value):
        numbers = _NUMBERS[kind]
        return numbers(*(tuple(int(d) for d in getattr(value, f)) for f in numbers._fields))
    if isinstance(value, enum.Enum) and _from_jax(value):
        if kind == "GatherScatterMode":
            return str(value)  # read by its name (indexing._mode)
        if kind == "RoundingMethod":
            return int(value.value)
        raise Unstorable(f"{step}: parameter {key} is a {kind}")
    if key == "update_jaxpr" and step == "scatter-add":
        return None  # the rule adds; the combining jaxpr is addition
    if isinstance(value, np.dtype) and value.type.__module__.split(".")[0] == "ml_dtypes":
        raise Unstorable(f"{step}: parameter {key} is the dtype {value}")
    if isinstance(value, tuple | list):
        return tuple(plain(step, key, v) for v in value)
    if isinstance(value, _SCALARS) and not _from_jax(value):
        return value
    raise Unstorable(f"{step}: parameter {key} is a {type(value).__module__}.{kind}")


def _native(dtype: np.dtype[Any]) -> str:
    """The dtype's NumPy name; a dtype NumPy has no name for (ml_dtypes' bfloat16 reads
    back as raw bytes) makes the program `Unstorable`."""
    if dtype.type.__module__.split(".")[0] != "numpy" or np.dtype(dtype.str) != dtype:
        raise Unstorable(f"a value of dtype {dtype}")
    return dtype.str


def record(program: Interpreted, facts: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The program as plain data, with `facts` (plain data its user keeps beside it)
    (raises `Unstorable`)."""
    s = program.steps
    return {
        "format": FORMAT,
        "facts": dict(facts or {}),
        "names": program.names,
        "count": s._count,
        "fixed": dict(s.fixed),
        "inputs": list(s.inputs),
        "outputs": list(s.outputs),
        "checks": {slot: (shape, _native(dtype)) for slot, (shape, dtype) in s.checks.items()},
        "drop": list(s.drop),
        "trial_bytes": s.trial_bytes,
        "steps": [
            (
                st.name,
                {k: plain(st.name, k, v) for k, v in st.params.items()},
                st.ins,
                st.outs,
                st.multiple,
                st.shapes,
            )
            for st in s.steps
        ],
    }


def restore(data: dict[str, Any]) -> Interpreted:
    """The program `record` gave, each step's rule bound again by its primitive's name."""
    if data.get("format") != FORMAT:
        raise InterpretError("a stored program of another format")
    steps = Steps.__new__(Steps)
    steps._count = int(data["count"])
    steps.fixed = dict(data["fixed"])
    steps.inputs = list(data["inputs"])
    steps.outputs = list(data["outputs"])
    steps.checks = {
        slot: (tuple(shape), np.dtype(dtype)) for slot, (shape, dtype) in data["checks"].items()
    }
    steps.drop = [tuple(d) for d in data["drop"]]
    steps.trial_bytes = int(data["trial_bytes"])
    steps.steps = []
    for name, params, ins, outs, multiple, shapes in data["steps"]:
        rule = RULES.get(name)
        if rule is None:
            raise InterpretError(f"no NumPy rule for the primitive {name}")
        steps.steps.append(_Step(name, rule, dict(params), ins, outs, multiple, shapes))
    program = Interpreted.__new__(Interpreted)
    program.steps = steps
    program.names = tuple(data["names"])
    return program


def dumps(program: Interpreted, facts: Mapping[str, Any] | None = None) -> bytes:
    """The program's bytes on disk, `facts` beside it, compressed (the upstream tree's
    programs: 355 MB, 150 MB compressed) (raises `Unstorable`)."""
    data = pickle.dumps(record(program, facts), protocol=pickle.HIGHEST_PROTOCOL)
    return zlib.compress(data, 1)


_BUILTINS = frozenset({"complex", "slice", "frozenset", "set", "tuple", "list", "dict"})
# what NumPy's arrays, scalars and dtypes are rebuilt by (numpy 1 and 2 spellings), and
# nothing else of NumPy's: some of its functions run code, load libraries or write files
_NUMPY = frozenset(
    (module, name)
    for core in ("numpy.core", "numpy._core")
    for module, name in (
        (f"{core}.multiarray", "_reconstruct"),
        (f"{core}.multiarray", "scalar"),
        (f"{core}.numeric", "_frombuffer"),
    )
) | {("numpy", "dtype"), ("numpy", "ndarray")}
_STORED = frozenset({"GatherNumbers", "ScatterNumbers"})


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _NUMPY or (module == __name__ and name in _STORED):
            return super().find_class(module, name)
        if module == "builtins" and name in _BUILTINS:
            return getattr(builtins, name)
        raise pickle.UnpicklingError(f"a stored program may not name {module}.{name}")


def loads(data: bytes) -> tuple[Interpreted, dict[str, Any]]:
    """The program stored as `data`, and the facts stored beside it (raises on anything
    else)."""
    try:
        data = zlib.decompress(data)
    except zlib.error as exc:
        raise InterpretError(f"not a stored program: {exc}") from None
    loaded = _Unpickler(io.BytesIO(data)).load()
    if not isinstance(loaded, dict):
        raise InterpretError("not a stored program")
    return restore(loaded), dict(loaded.get("facts") or {})
