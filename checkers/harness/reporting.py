"""What the harness reports, put plainly: an exception in one line, dims in words, and
values as nested lists in their shapes, as a counterexample holds them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def explain(e: BaseException) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    text = text if len(text) <= 400 else text[:400] + "…"
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def format_dims(dims: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in dims.items()) or "no dims"


def to_list(value: Any) -> list[Any]:
    arr = np.asarray(value)
    if arr.dtype.kind not in "biu":
        arr = arr.astype(np.float64)
    out = arr.tolist()
    return out if isinstance(out, list) else [out]
