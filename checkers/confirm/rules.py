"""The primitives of a checker program on exact values: the jaxpr of one trial evaluated
on NumPy object arrays whose elements are `Interval`s (floats), Python integers
(integers: exact, never wrapping, as Lean's ℕ and ℤ) and True, False or None
(booleans; None is undecided).

Each rule follows XLA's semantics as the NumPy rules of checkers/interpret do
(integer division truncates and `x / 0` is -1, `x % 0` is x; a float-to-integer
conversion truncates), on exact values: a comparison of intervals that overlap
is undecided; `select_n` on an undecided predicate takes the hull of its cases
(and undecided booleans or integers that differ raise `Undecided`); a boolean
converted to a float is 0, 1 or, undecided, [0, 1]. Shapes, slices, gathers and
scatters are the NumPy rules of checkers/interpret, which work on object arrays
unchanged. A primitive without a rule raises `Unconfirmable`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from checkers.confirm import complex as cx
from checkers.confirm import functions as fn
from checkers.confirm import intervals as iv
from checkers.confirm.intervals import Interval, full
from checkers.confirm.reductions import arg_rule, cumulative, dot_general, extreme, reduction, zero
from checkers.confirm.values import Rule, Unconfirmable, Undecided, is_float, kind, mapped
from checkers.interpret.indexing import gather, iota, scatter_add
from checkers.interpret.rules import RULES as NUMPY_RULES

# --- elementwise -----------------------------------------------------------------------


def _float_only(name: str, f: Callable[[Interval], Interval]) -> Rule:
    def one(x: Any) -> Any:
        if not is_float(x):
            raise Unconfirmable(f"{name} of a {type(x).__name__}")
        return f(x)

    return one


def _int_div(x: int, y: int) -> int:
    if y == 0:
        return -1
    q = abs(x) // abs(y)
    return -q if (x < 0) != (y < 0) else q


def _int_rem(x: int, y: int) -> int:
    if y == 0:
        return x
    return x - _int_div(x, y) * y


def _float_rem(x: Interval, y: Interval) -> Interval:
    q = iv.trunc_int(iv.div(x, y))
    if q is None or iv.contains_zero(y):
        return full()
    return iv.sub(x, iv.mul(iv.point(q), y))


def _arith(name: str) -> Rule:
    ints: dict[str, Rule] = {
        "add": lambda a, b: a + b,
        "add_any": lambda a, b: a + b,
        "sub": lambda a, b: a - b,
        "mul": lambda a, b: a * b,
        "div": _int_div,
        "rem": _int_rem,
        "max": max,
        "min": min,
        "pow": _int_pow,
    }
    floats = {**fn.BINARY, "rem": _float_rem}

    def one(a: Any, b: Any) -> Any:
        if cx.is_complex(a) or cx.is_complex(b):
            if name not in cx.BINARY:
                raise Unconfirmable(f"{name} of complex values")
            return cx.BINARY[name](cx.lift(a), cx.lift(b))
        if is_float(a) or is_float(b):
            return floats[name](iv.lift(a), iv.lift(b))
        if (a is None or b is None or isinstance(a, bool)) and name in ("max", "min"):
            return _three(a, b, (lambda p, q: p or q) if name == "max" else (lambda p, q: p and q))
        return ints[name](int(a), int(b))

    return one


_INT_BITS = 1 << 20  # the largest exact integer power evaluated (bits): 128 KiB


def _int_pow(x: int, y: int) -> int:
    if y < 0:
        raise Unconfirmable("an integer power with a negative exponent")
    if abs(x) > 1 and y * abs(x).bit_length() > _INT_BITS:
        raise Unconfirmable(f"an integer power of more than {_INT_BITS} bits")
    return int(x) ** int(y)


def _three(a: bool | None, b: bool | None, f: Callable[[bool, bool], bool]) -> bool | None:
    """A boolean function of two three-valued booleans (Kleene's logic)."""
    options = {
        f(p, q)
        for p in ((a,) if a is not None else (False, True))
        for q in ((b,) if b is not None else (False, True))
    }
    return options.pop() if len(options) == 1 else None


def _logical(op: Callable[[bool, bool], bool], bitwise: Callable[[int, int], int]) -> Rule:
    def one(a: Any, b: Any) -> Any:
        if a is None or b is None or isinstance(a, bool):
            return _three(a, b, op)
        return bitwise(int(a), int(b))

    return one


def _not(x: Any) -> Any:
    if x is None:
        return None
    return (not x) if isinstance(x, bool) else ~int(x)


def _compare(name: str) -> Rule:
    def one(a: Any, b: Any) -> Any:
        if cx.is_complex(a) or cx.is_complex(b):
            if name not in ("eq", "ne"):
                raise Unconfirmable(f"the comparison {name} of complex values")
            e = cx.equal(cx.lift(a), cx.lift(b))
            return e if e is None or name == "eq" else not e
        if is_float(a) or is_float(b):
            a, b = iv.lift(a), iv.lift(b)
            if name in ("eq", "ne"):
                e = iv.equal(a, b)
                return e if e is None or name == "eq" else not e
            if name in ("lt", "le"):
                return iv.less(a, b, strict=name == "lt")
            return iv.less(b, a, strict=name == "gt")
        if a is None or b is None:
            ops: dict[str, Callable[[bool, bool], bool]] = {
                "eq": lambda p, q: p == q,
                "ne": lambda p, q: p != q,
                "lt": lambda p, q: p < q,
                "le": lambda p, q: p <= q,
                "gt": lambda p, q: p > q,
                "ge": lambda p, q: p >= q,
            }
            return _three(a, b, ops[name])
        x, y = int(a), int(b)
        return {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[
            name
        ]

    return one


def _unary_any(name: str) -> Rule:
    ints: dict[str, Callable[[int], int]] = {
        "neg": lambda x: -x,
        "abs": abs,
        "sign": lambda x: (x > 0) - (x < 0),
        "square": lambda x: x * x,
    }

    def one(x: Any) -> Any:
        if cx.is_complex(x):
            if name == "neg":
                return -x
            if name == "abs":
                return cx.modulus(x)
            if name == "square":
                return cx.mul(x, x)
            raise Unconfirmable(f"{name} of a complex value")
        if is_float(x):
            return fn.UNARY[name](x)
        return ints[name](int(x))

    return one


def _is_finite(x: Any) -> Any:
    if x.finite:
        return True
    return False if x.is_point else None


def _integer_pow(x: Any, *, y: int) -> Any:
    if cx.is_complex(x):
        return cx.power(x, y)
    if is_float(x):
        return fn.integer_power(x, y)
    return _int_pow(int(x), y)


def _round(x: Any, *, rounding_method: Any) -> Any:
    from checkers.lazyjax import lax

    even = int(rounding_method) == int(lax.RoundingMethod.TO_NEAREST_EVEN)
    return fn.rounded(fn.round_half_even if even else fn.round_half_away)(x)


def _select(which: Any, *cases: Any) -> Any:
    if which is None:
        if len(cases) != 2:
            raise Undecided("an undecided choice among more than two cases")
        a, b = cases
        if cx.is_complex(a) or cx.is_complex(b):
            return cx.hull(cx.lift(a), cx.lift(b))
        if is_float(a) or is_float(b):
            return iv.hull(iv.lift(a), iv.lift(b))
        if a == b:
            return a
        if isinstance(a, bool) or a is None or b is None:
            return None
        raise Undecided("an integer chosen by an undecided comparison")
    return cases[int(which)]


def _convert(x: Any, target: str) -> Any:
    if target == "c":
        return cx.lift(x)
    if cx.is_complex(x):  # XLA converts a complex number to a real one by its real part
        if target != "f":
            raise Unconfirmable(f"a complex value converted to kind {target}")
        return x.re
    if target == "f":
        return iv.lift(x)
    if target == "b":
        if is_float(x):
            e = iv.equal(x, iv.point(0))
            return None if e is None else not e
        return None if x is None else bool(x)
    if is_float(x):
        n = iv.trunc_int(x)
        if n is None:
            raise Undecided("a float converted to an integer it does not pin down")
        return n
    if x is None:
        raise Undecided("an undecided boolean converted to an integer")
    return int(x)


def _clamp(lo: Any, x: Any, hi: Any) -> Any:
    mx, mn = _arith("max"), _arith("min")
    return mn(mx(x, lo), hi)


def _complex(re: Any, im: Any) -> Any:
    return cx.CInterval(iv.lift(re), iv.lift(im))


def _part(imaginary: bool) -> Rule:
    def one(x: Any) -> Any:
        z = cx.lift(x)
        return z.im if imaginary else z.re

    return one


# --- the table -------------------------------------------------------------------------


def _ignoring(f: Rule) -> Rule:
    """An elementwise rule whose parameters are sharding only."""

    def rule(*xs: Any, out_kind: str, **_: Any) -> np.ndarray:
        return mapped(f, *xs)

    return rule


_FLOAT_ONLY = {
    n: _float_only(n, f) for n, f in fn.UNARY.items() if n not in ("neg", "abs", "sign", "square")
}

RULES: dict[str, Rule] = {
    **{n: _ignoring(f) for n, f in _FLOAT_ONLY.items()},
    **{n: _ignoring(_unary_any(n)) for n in ("neg", "abs", "sign", "square")},
    **{
        n: _ignoring(_arith(n))
        for n in ("add", "add_any", "sub", "mul", "div", "rem", "max", "min", "pow")
    },
    **{n: _ignoring(_compare(n)) for n in ("eq", "ne", "lt", "le", "gt", "ge")},
    "and": _ignoring(_logical(lambda p, q: p and q, lambda a, b: a & b)),
    "or": _ignoring(_logical(lambda p, q: p or q, lambda a, b: a | b)),
    "xor": _ignoring(_logical(lambda p, q: p != q, lambda a, b: a ^ b)),
    "not": _ignoring(_not),
    "is_finite": _ignoring(_is_finite),
    "integer_pow": lambda x, *, y, out_kind: mapped(lambda v: _integer_pow(v, y=y), x),
    "round": lambda x, *, rounding_method, out_kind: mapped(
        lambda v: _round(v, rounding_method=rounding_method), x
    ),
    "clamp": _ignoring(_clamp),
    "select_n": _ignoring(_select),
    "convert_element_type": lambda x, *, new_dtype, out_kind, **_: mapped(
        lambda v: _convert(v, kind(new_dtype)), x
    ),
    "reduce_sum": reduction(_arith("add"), zero),
    "reduce_prod": reduction(_arith("mul"), lambda k: iv.point(1) if k == "f" else 1),
    "reduce_max": reduction(_arith("max"), lambda k: extreme(k, True)),
    "reduce_min": reduction(_arith("min"), lambda k: extreme(k, False)),
    "reduce_and": reduction(_logical(lambda p, q: p and q, lambda a, b: a & b), lambda k: True),
    "reduce_or": reduction(_logical(lambda p, q: p or q, lambda a, b: a | b), lambda k: False),
    "argmax": arg_rule(_compare("gt"), _compare("ge")),
    "argmin": arg_rule(_compare("lt"), _compare("le")),
    "cumsum": cumulative(_arith("add")),
    "cumprod": cumulative(_arith("mul")),
    "cummax": cumulative(_arith("max")),
    "cummin": cumulative(_arith("min")),
    "dot_general": dot_general,
    # ℂ (confirm/complex.py)
    "complex": _ignoring(_complex),
    "real": _ignoring(_part(False)),
    "imag": _ignoring(_part(True)),
    "conj": lambda x, *, out_kind, **_: mapped(lambda v: cx.conj(cx.lift(v)), x),
    "iota": lambda *, out_kind, **params: iota(**params).astype(object),
}

# shapes, slices, gathers and scatters: the NumPy rules, on object arrays
_SHAPES = (
    "broadcast_in_dim",
    "reshape",
    "slice",
    "dynamic_slice",
    "dynamic_update_slice",
    "pad",
    "concatenate",
    "split",
    "rev",
    "squeeze",
    "expand_dims",
    "transpose",
    "stack",
    "stop_gradient",
    "copy",
    "copy_p",
    "optimization_barrier",
)
for _name in _SHAPES:
    RULES[_name] = (lambda f: lambda *xs, out_kind, **params: f(*xs, **params))(NUMPY_RULES[_name])
RULES["gather"] = lambda *xs, out_kind, **params: gather(*xs, **params)
RULES["scatter-add"] = lambda *xs, out_kind, **params: scatter_add(*xs, **params)
