"""Element-wise functions over long lists of integer constants, in one evaluation.

`List.map f xs` and `List.zipWith f xs ys` apply `f` to each element; where the
elements are integer constants (the certificate files' weight rows, hundreds long),
`at_once` evaluates `f` once with each list as one exact array over a fresh axis, as a
bound variable's values are, instead of once per element (lists.py falls back to that
wherever `at_once` cannot decide).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from checkers.language.values import Arr, Axis, is_exact

if TYPE_CHECKING:
    from checkers.evaluator.evaluate import Evaluator

# Lists at least this long have an element-wise function applied to all their integer
# constants in one evaluation (`at_once`); shorter ones, one element at a time.
AT_ONCE_MIN = 8


def exact_kind(items: tuple[Any, ...]) -> str | None:
    """'int' or 'nat' where every item is an integer constant of that one type."""
    kinds = {x.kind if isinstance(x, Arr) and type(x.data) is int else None for x in items}
    kind = kinds.pop() if len(kinds) == 1 else None
    return kind if kind in ("int", "nat") and all(not (x.axes or x.dom) for x in items) else None


def at_once(ev: Evaluator, f: Any, columns: list[tuple[Any, ...]]) -> tuple[Any, ...] | None:
    """`f` applied to each row of equally long columns of integer constants, in one
    evaluation: each column becomes one exact array (Python ints in a NumPy object array,
    values.is_exact) over a fresh axis, as a bound variable's values are, so
    `List.zipWith (fun r a => c * r + a) row acc` over 784 entries is one evaluation of
    the body, not 784. The results are taken only where they are integer constants of
    ℕ or ℤ computed exactly (every entry a Python int); otherwise (a function that
    branches on its argument's value, a real result, anything the evaluator refuses on
    an array) None: the caller applies f element by element, as Lean's definition reads."""
    n = len(columns[0])
    if n < AT_ONCE_MIN or ev.probe is not None:
        return None
    kinds = [k for k in map(exact_kind, columns) if k is not None]
    if len(kinds) < len(columns):
        return None
    axis = Axis("elem", n)
    args = [
        Arr(np.array([x.data for x in col], dtype=object), kind, (axis,))
        for col, kind in zip(columns, kinds, strict=True)
    ]
    unfoldings = ev.unfoldings
    try:
        out = ev.apply(f, args)
    except Exception:  # noqa: BLE001 (element by element decides, errors included)
        ev.unfoldings = unfoldings
        return None
    if not isinstance(out, Arr) or out.kind not in ("int", "nat") or out.dom or out.log:
        return None
    data = out.data
    if not out.axes:  # the same value for every element
        if isinstance(data, np.ndarray) and data.shape == () and is_exact(data):
            data = data.item()
        return (Arr(data, out.kind),) * n if type(data) is int else None
    if out.axes != (axis,) or not is_exact(data):
        return None
    values = data.tolist()
    if not {int}.issuperset(map(type, values)):  # every entry a Python int (checked in C)
        return None
    return tuple(Arr(v, out.kind) for v in values)
