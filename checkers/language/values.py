"""The values a Lean term evaluates to.

An `Arr` is a number, a proposition or a function over `Fin` domains
(`Vec n`, `Mat m n`, an index map `Fin m → Fin D`) held as one array. Its
leading `axes` are *named* axes: one per index variable in scope that the
value depends on (the `r` of `fun (r : Fin N) => ...` or of `∑ r, ...`),
so that a body is evaluated for every value of its bound indices at once
(axes.py lays values out over the axes they share). The trailing `dom` axes
are the value's own function domain. `Sz` keeps how a size was built (`N * c`
as the product of `N` and `c`), which is what Lean uses to infer the implicit
dimensions of `Mat.unflatten` or `finProdFinEquiv.symm`.

Kinds: 'real' (ℝ), 'nat' (ℕ), 'int' (ℤ), 'fin' (`Fin bound`), 'bool'
(a decidable proposition), 'num' (numerals whose type the context has not
fixed yet: a `Numeral` tree, evaluated once the type is known; numerals.py).

A real `Arr` with `log` set holds the natural logarithm of its (positive)
values (a ℕ one, of exact naturals beyond int64's range: counting.py):
`Real.exp x` is kept as x, so that exponentials beyond float64's range (e^1000)
still divide, multiply, add, sum and take logarithms exactly in log space
(`exp a / ∑ exp b` is a softmax, `log (exp a)` is a). Anything that reads
the values (`as_array`) gets them exponentiated; `with_(data=...)` drops the
flag unless it is passed too.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from checkers.language.errors import EvalError
from checkers.language.numerals import Numeral
from checkers.lazyjax import jax, jnp

NUMERIC_KINDS = ("real", "nnreal", "complex", "int", "nat", "fin", "num")


@dataclass(frozen=True)
class Sz:
    """A dimension: its value and, when it was written `m * n`, the factors."""

    n: int
    factors: tuple[Sz, Sz] | None = None

    def __post_init__(self) -> None:
        if self.n < 0:
            raise EvalError(f"negative dimension {self.n}")

    @staticmethod
    def prod(a: Sz, b: Sz) -> Sz:
        return Sz(a.n * b.n, (a, b))

    def leaves(self) -> tuple[Sz, ...]:
        """The factors of a left-nested product `((a * b) * c)` as (a, b, c)."""
        if self.factors is None:
            return (self,)
        return self.factors[0].leaves() + (self.factors[1],)

    def __str__(self) -> str:
        if self.factors is None:
            return str(self.n)
        return f"({self.factors[0]} * {self.factors[1]})"


_axis_ids = itertools.count()


@dataclass(frozen=True, eq=False)
class Axis:
    """A named batch axis: the values of one bound index variable."""

    name: str
    size: int
    uid: int = field(default_factory=lambda: next(_axis_ids))

    def __repr__(self) -> str:
        return f"Axis({self.name}#{self.uid}:{self.size})"


@dataclass(frozen=True, eq=False)
class Arr:
    data: Any
    kind: str
    axes: tuple[Axis, ...] = ()
    dom: tuple[Sz, ...] = ()
    bound: Sz | None = None  # the n of `Fin n` for kind 'fin'
    iota: Axis | None = None  # the value is exactly the index of this axis
    log: bool = False  # data holds the logarithm of the values (real kind only)
    # a constant ℕ written as a product (`2 * (2 * 2)`): the size with those factors
    size: Sz | None = None
    # an element of `EuclideanSpace ℝ ι` (`PiLp 2`): its norm is the Euclidean one, not the
    # sup norm of a function `ι → ℝ` (`WithLp.toLp 2` makes one; arith.py keeps it)
    l2: bool = False

    @property
    def is_static(self) -> bool:
        return isinstance(self.data, int | Fraction | bool | Numeral)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(a.size for a in self.axes) + tuple(d.n for d in self.dom)

    def with_(self, **kw: Any) -> Arr:
        if "data" in kw and "log" not in kw:
            kw["log"] = False  # new values, not logarithms unless said so
        return replace(self, **kw)

    def describe(self) -> str:
        dom = "".join(f"Fin {d.n} → " for d in self.dom)
        elem = {"fin": f"Fin {self.bound.n if self.bound else '?'}"}.get(self.kind, self.kind)
        return dom + elem


def numeral_size(value: Any, n: int) -> Sz:
    """The size `n` with the factors it was written with: `relu (2 * (2*2) * 4)` passes a
    `Vec (2 * (2*2) * 4)`, which `flatConv`'s `Vec (ic * h * w)` unifies with as Lean does
    (structurally), not only by its value 32. `value` is the argument (an `Arr` whose
    `size` was kept, or a `Numeral` tree)."""
    if isinstance(value, Arr):
        if value.size is not None and value.size.n == n:
            return value.size
        value = value.data
    if isinstance(value, Numeral) and value.op == "*" and len(value.args) == 2:
        a, b = value.args
        left, right = a.at_type("nat"), b.at_type("nat")
        if left * right == n:
            return Sz.prod(numeral_size(a, left), numeral_size(b, right))
    return Sz(n)


@dataclass(frozen=True, eq=False)
class Pair:
    fst: Any
    snd: Any


@dataclass(frozen=True, eq=False)
class Lst:
    """A `List α`: its elements as values (`Arr`, `Pair`, `Lst`, functions), in order.

    The length is always known (a list is built from literals, `replicate`,
    `range`, ... on constant sizes); the elements may be sampled values.
    `elem` is the element type where it is known (a `Ty`, types.py), which
    the empty list needs for its sum or the default of `getD`."""

    items: tuple[Any, ...]
    elem: Any = None

    def __len__(self) -> int:
        return len(self.items)

    @cached_property
    def exact(self) -> bool:
        """Whether every element is an exact constant (see `exact_key`)."""
        return all(exact_key(x) is not None for x in self.items)


@dataclass(frozen=True, eq=False)
class Among:
    """One of several values, chosen per point of the named axes: `cases` are
    (condition, value) pairs whose conditions exclude each other, the last value taken
    where no earlier condition holds. `rows.getD t []` at a bound index t is the row
    t for each t: a list of a length that varies with t, which no array holds."""

    cases: tuple[tuple[Any, Any], ...]  # (a 'bool' Arr, value)


@dataclass(frozen=True, eq=False)
class Closure:
    """`fun (x : T) ... => body` whose first binder is not a `Fin` index."""

    params: tuple[tuple[Any, Any], ...]  # (name or pattern term, type term or None)
    body: Any
    env: Mapping[str, Any]
    expected: Any = None  # the function's type where the context gave it


@dataclass(frozen=True, eq=False)
class Builtin:
    """A constant with Python semantics, applied once `arity` arguments are given.

    `fn(ev, args, expected)` returns a value. `param_types` are coarse
    expected types ('nat', 'real', 'fin', 'fn', None) used for numerals and
    coercions in the arguments.
    """

    name: str
    arity: int
    fn: Callable[..., Any]
    param_types: tuple[str | None, ...] = ()
    # (argument position, the type expected of the result) -> the type expected
    # of that argument, where the result's type tells more than param_types.
    arg_expect: Callable[[int, Any], Any] | None = None
    # how many implicit and instance parameters lead its signature (what `@name`
    # also passes); None: not known, so `@name` is unsupported
    implicit: int | None = None
    # the explicit argument that field notation `x.f` fills with x: the first one of
    # the namespace's type (`xs.map f` is `List.map f xs`)
    self_arg: int = 0


@dataclass(frozen=True, eq=False)
class Partial:
    """A function value applied to fewer arguments than it takes."""

    head: Any  # Builtin or an equation-defined function
    args: tuple[Any, ...]


@dataclass(frozen=True, eq=False)
class TypeValue:
    """A type used as a term (e.g. the `ℝ` of `fderiv ℝ f x`)."""

    text: str


@dataclass(frozen=True, eq=False)
class Unsolved:
    """An implicit dimension of an unfolded definition that neither its arguments nor the
    expected type fix (`n` of `biPath {m n} (f g : Vec m → Vec n)`): the body is evaluated
    without it, its shapes read off the values it computes, as Lean leaves a metavariable
    for a later use to solve; a use of the dimension itself is `reason`."""

    reason: str


@dataclass(frozen=True, eq=False)
class Proof:
    """A proof term (hypothesis name, `by ...`): carries no data."""

    text: str = ""


@dataclass(frozen=True, eq=False)
class Struct:
    """A value of a structure (`M : FloatModel`): its type's name and its fields' values
    (proof fields are `Proof`s); `M.f` is the field, or `Type.f M` when f is not one."""

    type_name: str
    fields: Mapping[str, Any]


@dataclass(frozen=True, eq=False)
class Text:
    """A string (`"%W"`, `s!"%{p}W"`): names that carry no numbers, compared by text."""

    text: str


@dataclass(frozen=True, eq=False)
class Ctor:
    """A value of an inductive type built by one of its constructors (`.dotIn "W" W e`):
    the type, the constructor, the explicit arguments in order, the implicit ones by
    name (dimensions, where they were settled) and the type's indices (`SHlo n`'s n),
    which settle the dimensions of a function that takes it."""

    type_name: str
    ctor: str  # fully qualified (`Proofs.StableHLO.SHlo.dotIn`)
    args: tuple[Any, ...]
    implicit: Mapping[str, Any]
    indices: tuple[Sz | None, ...]
    # per unknown index, a name shared by the indices known to be equal (`Back i i`)
    links: tuple[str | None, ...] = ()

    @property
    def short(self) -> str:
        return self.ctor.rsplit(".", 1)[-1]


@dataclass(frozen=True, eq=False)
class Unevaluated:
    """A structure field that could not be evaluated (a proof the evaluator has no meaning
    for): refused, with why, where it is read."""

    reason: str


def holds_tracer(value: Any) -> bool:
    """Whether a value holds data of a trace in progress (so it cannot be kept for later)."""
    if isinstance(value, Arr):
        return isinstance(value.data, jax.core.Tracer)
    if isinstance(value, Pair):
        return holds_tracer(value.fst) or holds_tracer(value.snd)
    if isinstance(value, Lst):
        return any(holds_tracer(x) for x in value.items)
    if isinstance(value, Ctor):
        return any(holds_tracer(x) for x in (*value.args, *value.implicit.values()))
    return not isinstance(value, Arr | Pair | int | float | Fraction | Numeral | TypeValue | Text)


def pair_leaves(p: Pair) -> list[Any]:
    out: list[Any] = []
    for x in (p.fst, p.snd):
        out.extend(pair_leaves(x) if isinstance(x, Pair) else [x])
    return out


def exact_key(value: Any) -> Any:
    """A key that identifies an exact constant (a number held as a Python integer,
    fraction or numeral; a list of them, by its identity), or None for anything else."""
    if isinstance(value, Arr):
        if value.is_static or isinstance(value.data, Numeral):
            return (value.kind, value.data, value.bound.n if value.bound else None)
        return None
    if isinstance(value, Lst):
        return ("list", id(value)) if value.exact else None
    return None


# --- constructors -----------------------------------------------------------


def static_nat(n: int) -> Arr:
    return Arr(int(n), "nat")


def num(value: Fraction | int, decimal: bool = False) -> Arr:
    """A numeral whose type is not fixed yet."""
    return Arr(Numeral.literal(value, decimal), "num")


def iota(axis: Axis, kind: str = "fin", bound: Sz | None = None) -> Arr:
    # a host (numpy) array: index arithmetic on it stays a constant of the program
    data = np.arange(axis.size, dtype=np.int64)
    return Arr(
        data, kind, axes=(axis,), bound=bound if bound is not None else Sz(axis.size), iota=axis
    )


def as_array(x: Arr, dtype: Any = None) -> Any:
    """The data as a jax array (static Python numbers included); the values, not
    their logarithms, for an array held in log space."""
    d = x.data
    if x.log and x.kind not in ("real", "nnreal"):
        raise EvalError(
            "a natural number beyond int64's range (held as its logarithm) used other "
            "than as a real number"
        )
    _complex_kept(x, dtype)
    if x.log:
        d = jnp.exp(jnp.asarray(d))
        return d if dtype is None else d.astype(dtype)
    if isinstance(d, Numeral):
        raise EvalError(f"internal: the numeral {d} used before its type is known")
    if isinstance(d, bool):
        return jnp.asarray(d)
    if isinstance(d, Fraction):
        if dtype is None:
            return jnp.asarray(float(d)) if d.denominator != 1 else jnp.asarray(int(d))
        return jnp.asarray(float(d), dtype=dtype)
    if isinstance(d, int):
        return jnp.asarray(d, dtype=dtype if dtype is not None else jnp.int64)
    if isinstance(d, np.ndarray | np.generic):
        return jnp.asarray(d, dtype=dtype)
    if dtype is not None:
        return jnp.asarray(d).astype(dtype)
    return jnp.asarray(d)


def _complex_kept(x: Arr, dtype: Any) -> None:
    """A complex value is never read at a real dtype (its imaginary part would be lost)."""
    if x.kind == "complex" and dtype is not None and dtype is not object:
        if not np.issubdtype(np.dtype(dtype), np.complexfloating):
            raise EvalError(f"internal: a complex value read as {np.dtype(dtype)}")


def is_integral_kind(kind: str) -> bool:
    return kind in ("nat", "int", "fin")


def host_or_array(x: Arr, dtype: Any = None) -> Any:
    """The data as a numpy array when it is a host constant (and no float dtype is
    asked of an integer), else as a jax array."""
    d = x.data
    _complex_kept(x, dtype)
    if x.log:
        return as_array(x, dtype)
    if isinstance(d, np.ndarray) or (isinstance(d, int | bool) and not isinstance(d, Fraction)):
        if dtype is object or (dtype is None and is_exact(d)):
            # exact integers (`EXACT`): Python ints, never int64's wrap-around
            return np.asarray(d, dtype=object)
        if dtype is None or np.issubdtype(np.dtype(dtype), np.integer):
            return np.asarray(d, dtype=dtype)
        if host_float(dtype):
            # a constant computed on the host (a numeral, a weight table): rounding an
            # integer or float64 to float64 or float32 is the same in NumPy as in XLA
            return np.asarray(d, dtype=dtype)
    return as_array(x, dtype)


def is_exact(d: Any) -> bool:
    """Whether d holds integers exactly, as Python ints in a NumPy object array: how
    `lists.at_once` evaluates a function once over a whole list of integer constants
    (arithmetic on such arrays is Python's, so it is exact as the constants are)."""
    return isinstance(d, np.ndarray) and d.dtype == object


def host_float(dtype: Any) -> bool:
    """Whether constants of this float dtype are computed with NumPy (IEEE float64 and
    float32, whose correctly rounded +, -, *, / NumPy and XLA share); low-precision
    formats are left to XLA."""
    return dtype is not None and np.dtype(dtype) in (np.float64, np.float32)


def to_numpy(x: Arr) -> np.ndarray:
    return np.asarray(as_array(x))
