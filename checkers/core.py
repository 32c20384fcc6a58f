"""What a checker is: the protocol every registered and derived checker implements.

A checker knows one theorem. It names the free dimension binders the harness
draws, describes the inputs of one trial (`InputSpec`) at given dimensions, and
builds a pure JAX function of one trial's inputs returning both sides of the
stated equality. Everything else (seeds, sampling, batching, compilation,
tolerances, shrinking, the result record) belongs to the harness.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

REAL = "real"
NAT = "nat"
INT = "int"
FIN = "fin"
INDEX_MAP = "index_map"
INPUT_KINDS = (REAL, NAT, INT, FIN, INDEX_MAP)

CONSTRAINTS = ("positive", "nonzero", "nonnegative")

# One trial's inputs -> (lhs, rhs), arrays of equal shape.
# one trial's (lhs, rhs), or (lhs, rhs, {"scale": .., "underflow": ..}) (checkers/tolerance.py)
Evaluation = Callable[[dict[str, Any]], tuple[Any, ...]]

_IDENT = re.compile(r"^[^\W\d][\w'!?₀-₉ₐ-ₜᵢ-ᵪ]*$")


def is_identifier(text: str) -> bool:
    """True for one component of a Lean name (`N`, `ε`, `h₁`, `x'`) or a «quoted» one."""
    if len(text) > 2 and text.startswith("«") and text.endswith("»"):
        return "»" not in text[1:-1]
    return bool(_IDENT.match(text))


def _shape(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, tuple | list):
        raise ValueError(f"{what}: shape must be a tuple of non-negative ints, got {value!r}")
    for n in value:
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"{what}: shape must be a tuple of non-negative ints, got {value!r}")
    return tuple(value)


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a non-negative int, got {value!r}")
    return value


BOUND_SIDES = ("lower", "upper", "other")


@dataclass(frozen=True)
class Bound:
    """A hypothesis the sampler makes a real input satisfy, elementwise: `value ≤ x`
    (`<` when strict) for 'lower', `x ≤ value` for 'upper', `x ≠ value` for 'other'.

    `value(inputs)` reads the inputs named in `names` (each (trials, *shape)) and
    returns an array that broadcasts to (trials, *this input's shape); they are
    sampled first. `text` is the hypothesis and `hyp` its name: the same
    hypothesis is still evaluated per trial, so a bound the sampler could not
    meet makes the trial vacuous rather than wrong.
    """

    side: str
    strict: bool
    names: tuple[str, ...]
    value: Callable[[Mapping[str, Any]], Any] = field(compare=False, repr=False)
    text: str = ""
    hyp: str = ""
    # the value is the hypothesis's own side, computed without rounding (a constant, an
    # input, -w, |W|, a max): only then does a draw equal to it meet the hypothesis exactly
    exact: bool = False
    # the inputs the value reads as a difference (`|xt - x|`, `|a i k - b i k|`), each pair
    # in the order written: the sampler draws them close together in some trials
    pairs: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.side not in BOUND_SIDES:
            raise ValueError(
                f"bound side must be one of {', '.join(BOUND_SIDES)}, got {self.side!r}"
            )


@dataclass(frozen=True)
class InputSpec:
    """The value one input takes in one trial.

    - `real`: an array of floats of `shape` (`()` for a scalar), drawn from the
      named `distribution` and then made to satisfy `constraint` and `bounds`;
    - `nat`: an int in `lo..hi` (inclusive);
    - `int`: an int array of `shape` (`()` for a scalar), each entry in `lo..hi`
      (inclusive; `lo` may be negative);
    - `fin`: an int in `[0, high)`, shape `()`;
    - `index_map`: an int array of shape `(m,)` with values in `[0, high)`.
    """

    kind: str
    shape: tuple[int, ...] = ()
    high: int | None = None
    lo: int = 0
    hi: int | None = None
    constraint: str | None = None
    distribution: str = "normal"
    bounds: tuple[Bound, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in INPUT_KINDS:
            raise ValueError(
                f"input kind must be one of {', '.join(INPUT_KINDS)}, got {self.kind!r}"
            )
        object.__setattr__(self, "shape", _shape(self.shape, f"{self.kind} input"))
        if self.constraint is not None and self.constraint not in CONSTRAINTS:
            raise ValueError(
                f"constraint must be None or one of {', '.join(CONSTRAINTS)}, "
                f"got {self.constraint!r}"
            )
        if not isinstance(self.distribution, str) or not self.distribution:
            raise ValueError(f"distribution must be a sampler name, got {self.distribution!r}")
        if self.kind == REAL:
            if self.high is not None or self.hi is not None or self.lo != 0:
                raise ValueError("a real input takes no bounds (high, lo, hi)")
        elif self.kind == NAT:
            if self.shape != ():
                raise ValueError(f"a nat input is a scalar, got shape {self.shape}")
            lo = _count(self.lo, "nat lower bound lo")
            if self.hi is None:
                raise ValueError("a nat input needs an upper bound hi")
            if _count(self.hi, "nat upper bound hi") < lo:
                raise ValueError(f"nat bounds are empty: lo={lo} > hi={self.hi}")
            if self.high is not None:
                raise ValueError("a nat input takes lo and hi, not high")
        elif self.kind == INT:
            if isinstance(self.lo, bool) or not isinstance(self.lo, int):
                raise ValueError(f"int lower bound lo must be an int, got {self.lo!r}")
            if isinstance(self.hi, bool) or not isinstance(self.hi, int):
                raise ValueError(f"an int input needs an int upper bound hi, got {self.hi!r}")
            if self.hi < self.lo:
                raise ValueError(f"int bounds are empty: lo={self.lo} > hi={self.hi}")
            if self.high is not None:
                raise ValueError("an int input takes lo and hi, not high")
        else:
            if self.high is None:
                raise ValueError(f"a {self.kind} input needs high (values lie in [0, high))")
            _count(self.high, f"{self.kind} bound high")
            if self.kind == FIN and self.shape != ():
                raise ValueError(f"a fin input is a scalar, got shape {self.shape}")
            if self.kind == INDEX_MAP and len(self.shape) != 1:
                raise ValueError(f"an index_map input has shape (m,), got {self.shape}")
            if self.hi is not None or self.lo != 0:
                raise ValueError(f"a {self.kind} input takes high, not lo and hi")
        if self.kind != REAL and (
            self.constraint is not None or self.distribution != "normal" or self.bounds
        ):
            raise ValueError(f"constraint and distribution apply to real inputs, not {self.kind}")

    @classmethod
    def real(
        cls,
        shape: tuple[int, ...] = (),
        *,
        constraint: str | None = None,
        distribution: str = "normal",
        bounds: tuple[Bound, ...] = (),
    ) -> InputSpec:
        return cls(
            REAL, tuple(shape), constraint=constraint, distribution=distribution, bounds=bounds
        )

    @classmethod
    def nat(cls, lo: int, hi: int) -> InputSpec:
        return cls(NAT, (), lo=lo, hi=hi)

    @classmethod
    def integers(cls, lo: int, hi: int, shape: tuple[int, ...] = ()) -> InputSpec:
        return cls(INT, tuple(shape), lo=lo, hi=hi)

    @classmethod
    def fin(cls, high: int) -> InputSpec:
        return cls(FIN, (), high=high)

    @classmethod
    def index_map(cls, m: int, high: int) -> InputSpec:
        return cls(INDEX_MAP, (m,), high=high)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def empty(self) -> bool:
        """True when no value of this input exists (`Fin 0`, a map into `Fin 0`)."""
        if self.kind == FIN:
            return self.high == 0
        if self.kind == INDEX_MAP:
            return self.high == 0 and self.shape[0] > 0
        return False


_OPS: dict[str, Callable[[int, int], bool]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "dvd": lambda a, b: (b == 0) if a == 0 else b % a == 0,
}
_OP_TEXT = {"<": "<", "<=": "≤", ">": ">", ">=": "≥", "==": "=", "!=": "≠", "dvd": "∣"}


@dataclass(frozen=True)
class DimConstraint:
    """A relation between dimensions (or a dimension and a literal): `W ≥ P`, `1 ≤ n`, `P ∣ W`.

    `op` is one of `<`, `<=`, `>`, `>=`, `==`, `!=` or `dvd` (left divides right,
    Lean's `Nat` divisibility: `0 ∣ b` only for `b = 0`).
    """

    left: str | int
    op: str
    right: str | int

    def __post_init__(self) -> None:
        if self.op not in _OPS:
            raise ValueError(
                f"constraint operator must be one of {', '.join(_OPS)}, got {self.op!r}"
            )
        for side in (self.left, self.right):
            if isinstance(side, bool) or not isinstance(side, str | int):
                raise ValueError(f"constraint sides are dimension names or ints, got {side!r}")
            if isinstance(side, str) and not is_identifier(side):
                raise ValueError(f"constraint side {side!r} is not a dimension name")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s for s in (self.left, self.right) if isinstance(s, str))

    def holds(self, dims: Mapping[str, int]) -> bool:
        def value(side: str | int) -> int:
            return dims[side] if isinstance(side, str) else side

        return _OPS[self.op](value(self.left), value(self.right))

    def __str__(self) -> str:
        return f"{self.left} {_OP_TEXT[self.op]} {self.right}"


ToleranceValue = float | Mapping[str, float]


@dataclass(frozen=True)
class ToleranceOverride:
    """A per-theorem tolerance: a scalar for every dtype, or a dict by dtype name."""

    atol: ToleranceValue | None = None
    rtol: ToleranceValue | None = None


class Unevaluable(Exception):
    """Raised by a checker that cannot evaluate its statement at some dimensions, past a
    limit of what it gives meaning to (a recursion deeper than its limit there): the
    check is `unsupported` at those dimensions, not broken."""


@dataclass(frozen=True)
class Unsupported:
    """Why no checker can be built; `missing` names the constants without semantics."""

    reason: str
    missing: tuple[str, ...] = ()


@runtime_checkable
class Checker(Protocol):
    """One theorem's numeric checker; see the module docstring.

    The members below may be plain attributes (or dataclass fields) or properties.
    Optional extras the harness uses when present: `locate_nonfinite(dims,
    inputs) -> str | None` (the subterm whose value is NaN or infinite, for the
    'error' reason), `dtypes` (the dtype names it supports; default all),
    `dim_lows` (dimensions drawn from below 1, by name: a list's length from 0)
    and `description` (one line for `describe`).
    """

    @property
    def name(self) -> str:
        """The fully qualified theorem name."""
        ...

    @property
    def kind(self) -> str:
        """'registered' or 'derived'."""
        ...

    @property
    def version(self) -> str: ...

    @property
    def dim_names(self) -> tuple[str, ...]:
        """The free ℕ dimension binders the harness draws."""
        ...

    @property
    def fixed_dims(self) -> Mapping[str, int]:
        """Dimensions fixed by the statement itself (literals)."""
        ...

    @property
    def assumptions(self) -> tuple[str, ...]:
        """Hypotheses that could not be turned into sampling constraints."""
        ...

    @property
    def dependencies(self) -> tuple[str, ...]:
        """Definitions used, transitively."""
        ...

    @property
    def tolerance(self) -> ToleranceOverride | None: ...

    def dim_constraints(self) -> Sequence[DimConstraint]: ...

    def input_specs(self, dims: Mapping[str, int]) -> dict[str, InputSpec]: ...

    def build(self, dims: Mapping[str, int], dtype: Any) -> Evaluation:
        """The pure function of one trial's inputs.

        `dtype` is a numpy dtype (float64, float32 or bfloat16): real inputs
        arrive in it and the computation should stay in it; `fin`, `nat` and
        `index_map` inputs arrive as int64. The harness vmaps and jits it.
        """
        ...


def locate_nonfinite(
    checker: Any, dims: Mapping[str, int], inputs: Mapping[str, Any]
) -> str | None:
    """Ask a checker (if it can) which subterm of its statement is NaN or infinite."""
    locate = getattr(checker, "locate_nonfinite", None)
    if locate is None:
        return None
    result = locate(dims, inputs)
    return None if result is None else str(result)
