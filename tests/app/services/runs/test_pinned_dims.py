"""The rule of pinned dimensions (`check --dims`, `POST /runs` "dims"): a dimension that
none of the selected theorems has is refused, naming theirs; theorems are described only
until every pinned dimension has been seen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from app.services.runs.selection import SelectionError, UnknownDims, check_pinned_dims


@dataclass(frozen=True)
class Info:
    kind: str
    dim_names: tuple[str, ...]


class Describer:
    """Describes each theorem with the dims `dims` gives it (None: no checker), and records
    which theorems were described."""

    def __init__(self, dims: dict[str, tuple[str, ...] | None]) -> None:
        self.dims = dims
        self.described: list[str] = []

    def describe(self, name: str, env: Any) -> Info:
        self.described.append(name)
        own = self.dims[name]
        return Info("unsupported", ()) if own is None else Info("derived", own)


THEOREMS = {"a": ("n",), "b": None, "c": ("m", "n"), "d": ("k",)}


def test_stop_describing_once_every_pinned_dimension_is_seen() -> None:
    backend = Describer(THEOREMS)

    check_pinned_dims(backend, None, names=list(THEOREMS), dims={"m": 2, "n": 3})

    assert backend.described == ["a", "b", "c"]


def test_refuse_dimension_none_has_naming_theirs() -> None:
    backend = Describer(THEOREMS)

    with pytest.raises(UnknownDims) as raised:
        check_pinned_dims(backend, None, names=list(THEOREMS), dims={"n": 3, "ZZ": 1})

    assert isinstance(raised.value, SelectionError)  # the command line's exit 2
    assert str(raised.value) == (
        "none of the 3 selected theorems with a checker has a dimension ZZ "
        "(their dimensions: k, m, n)"
    )
    assert backend.described == list(THEOREMS)
