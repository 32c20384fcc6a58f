"""Mathlib's matrices (Mathlib/LinearAlgebra/Matrix/, Mathlib/Data/Matrix/): a
`Matrix m n α` over finite index types `Fin a`, `Fin b` is an array `Fin a → Fin b → α`,
so its sum, negation, scalar multiple and entries are an array's (Mathlib defines them
entrywise). What is not entrywise is named, never `*`: statements/matrices.py rewrites
a statement's matrix product, inverse, power and identity to the functions here first,
and refuses one whose operands it cannot type.

- `Matrix.mul A B` (Mathlib's `A * B`, Mathlib/Data/Matrix/Mul.lean): `∑ j, A i j * B j k`.
- `Matrix.hadamard A B` (`A ⊙ B`, Mathlib/Data/Matrix/Hadamard.lean): `A i j * B i j`.
- `Matrix.mulVec A v` (`A *ᵥ v`), `Matrix.vecMul v A` (`v ᵥ* A`), `dotProduct v w`
  (`v ⬝ᵥ w`), `Matrix.trace A` (`∑ i, A i i`), `Matrix.diag A` (`fun i => A i i`),
  `Matrix.transpose A` (`Aᵀ`), `Matrix.diagonal d`, `Matrix.of f` (f itself).
- `Matrix.det A` (Mathlib/LinearAlgebra/Matrix/Determinant/Basic.lean): Leibniz's sum
  over permutations, products and sums only, so a trial's determinant of exact entries
  is evaluated exactly when a failure is confirmed (a factorisation would not be).
- `Matrix.adjugate A`: each entry a cofactor, by the same expansion.
- `Matrix.conjTranspose A` (`Aᴴ`, `star A`): the transpose, since every modelled type of
  entries (ℝ, ℤ, ℕ) has the trivial star; `star x` of a number or a vector is x.
- `Matrix.inv A` (`A⁻¹`, Mathlib/LinearAlgebra/Matrix/NonsingularInverse.lean): Lean's
  total inverse `Ring.inverse (det A) • adjugate A`: the adjugate divided by the
  determinant, 0 where the determinant is not a unit (0 over ℝ; not ±1 over ℤ).
- `Matrix.pow A k` (`A ^ k`, k : ℕ): k products, k a literal or drawn (up to
  `MAX_POWER`, each power computed and the drawn one selected).
- `Matrix.scalarOf A c` (a numeral c where a matrix the size of A is expected: `A = 1`,
  `A + 2`): `c` on the diagonal, Mathlib's `(c : Matrix n n α)`.

Square sizes and matching shapes are checked where they are used; the evaluator's
arrays of ℝ, ℤ and ℕ entries alike (an ℕ matrix's entries stay ℕ).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from checkers.language.coercion import coerce
from checkers.language.errors import EvalError, NotSupported
from checkers.language.measure import note_terms
from checkers.language.total import real_inv
from checkers.language.values import Arr, Builtin, Sz, as_array
from checkers.language.vectorise import call_vectorised
from checkers.lazyjax import jnp

if TYPE_CHECKING:
    from checkers.evaluator.evaluate import Evaluator

__all__ = ["MATRICES", "MATRIX_FUNCTIONS", "MAX_DET_SIZE", "MAX_INV_SIZE", "MAX_POWER"]

MAX_POWER = 10  # a drawn ℕ exponent lies in 0..10 (trial_inputs.NAT_INPUT_RANGE)
_RANK = {"nat": 0, "int": 1, "real": 2}


def _entries(ev: Evaluator, args: tuple[Any, ...], name: str, ranks: tuple[int, ...]) -> list[Arr]:
    """The arguments as arrays of one kind of entries (the widest), each of the rank
    asked (2: a matrix, 1: a vector, 0: a number). A numeral where a vector is asked is
    the constant vector (Mathlib's `Pi` numerals: `v ⬝ᵥ 1 = ∑ i, v i`), sized as the
    vector it meets."""
    xs = [ev._arr(a, name) for a in args]
    xs = [_constant_vector(ev, x, r, xs, ranks) for x, r in zip(xs, ranks, strict=True)]
    for x, r in zip(xs, ranks, strict=True):
        if x.kind not in _RANK or len(x.dom) != r:
            raise EvalError(f"{name} of a {x.describe()}")
    kind = max((x.kind for x in xs), key=_RANK.__getitem__)
    return [coerce(x, kind, ev.ctx) if x.kind != kind else x for x in xs]


def _constant_vector(
    ev: Evaluator, x: Arr, rank: int, xs: list[Arr], ranks: tuple[int, ...]
) -> Arr:
    """A numeral asked for as a vector, as the constant vector the size of the operand it
    is contracted with, at that operand's entries' type; anything else as it is."""
    if rank != 1 or x.kind != "num" or x.dom:
        return x
    other = next((y for y, r in zip(xs, ranks, strict=True) if y is not x and y.dom), None)
    if other is None or other.kind not in _RANK:
        return x
    # `v ⬝ᵥ 1`: v's size; `A *ᵥ 1`: A's columns; `1 ᵥ* A`: A's rows
    size = other.dom[0] if len(other.dom) == 1 or xs.index(x) == 0 else other.dom[1]
    c = coerce(x, other.kind, ev.ctx)
    data = jnp.broadcast_to(jnp.asarray(as_array(c)), (size.n,))
    return Arr(data, other.kind, c.axes, (size,))


def _same(a: Sz, b: Sz, name: str) -> None:
    if a.n != b.n:
        raise EvalError(f"{name}: sizes {a.n} and {b.n} differ")


def _sums(ev: Evaluator, *factors: Arr) -> None:
    """The terms a function sums are bounded by the product of its factors' magnitudes
    (measure.py: the comparison's scale)."""
    note_terms(ev.ctx, *(as_array(f) for f in factors))


def _contraction(name: str, ranks: tuple[int, int], spec: str, shared: tuple[int, int]) -> Any:
    """A sum of products of two arrays' entries (`jnp.einsum(spec)`): the matrix product,
    `mulVec`, `vecMul`, `dotProduct`. `shared` names the axis of each summed over, whose
    sizes must agree; the result's domain is the other axes, in order."""

    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
        a, b = _entries(ev, args, name, ranks)
        _same(a.dom[shared[0]], b.dom[shared[1]], name)
        _sums(ev, a, b)
        dom = tuple(d for k, d in enumerate(a.dom) if k != shared[0]) + tuple(
            d for k, d in enumerate(b.dom) if k != shared[1]
        )
        return call_vectorised(lambda x, y: jnp.einsum(spec, x, y), [a, b], kind=a.kind, dom=dom)

    return fn


_mul = _contraction("Matrix.mul", (2, 2), "ij,jk->ik", (1, 0))
_mul_vec = _contraction("Matrix.mulVec", (2, 1), "ij,j->i", (1, 0))
_vec_mul = _contraction("Matrix.vecMul", (1, 2), "i,ij->j", (0, 0))
_dot = _contraction("dotProduct", (1, 1), "i,i->", (0, 0))


def _hadamard(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
    """`A ⊙ B` (Mathlib/Data/Matrix/Hadamard.lean): the entrywise product, of one shape."""
    a, b = _entries(ev, args, "Matrix.hadamard", (2, 2))
    _same(a.dom[0], b.dom[0], "Matrix.hadamard")
    _same(a.dom[1], b.dom[1], "Matrix.hadamard")
    return call_vectorised(lambda x, y: x * y, [a, b], kind=a.kind, dom=a.dom)


def _square(ev: Evaluator, args: tuple[Any, ...], name: str) -> Arr:
    (a,) = _entries(ev, args, name, (2,))
    _same(a.dom[0], a.dom[1], name)
    return a


def _trace(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
    a = _square(ev, args, "Matrix.trace")
    _sums(ev, a)
    return call_vectorised(lambda x: jnp.einsum("ii->", x), [a], kind=a.kind, dom=())


def _diag(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
    a = _square(ev, args, "Matrix.diag")
    return call_vectorised(lambda x: jnp.einsum("ii->i", x), [a], kind=a.kind, dom=a.dom[:1])


def _upper_symmetric(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
    """The matrix whose upper triangle (with the diagonal) is A's, mirrored below: a
    symmetric matrix, A itself when A is symmetric (statements/matrix_hypotheses.py)."""
    a = _square(ev, args, "Matrix.upperSymmetric")
    n = a.dom[0].n
    upper = np.triu(np.ones((n, n), dtype=bool))
    return call_vectorised(
        lambda x: jnp.where(upper, x, jnp.swapaxes(x, 0, 1)), [a], kind=a.kind, dom=a.dom
    )


def _transpose(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
    (a,) = _entries(ev, args, "Matrix.transpose", (2,))
    return call_vectorised(lambda x: jnp.swapaxes(x, 0, 1), [a], kind=a.kind,
                           dom=(a.dom[1], a.dom[0]))  # fmt: skip


def _diagonal(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
    (d,) = _entries(ev, args, "Matrix.diagonal", (1,))
    n = d.dom[0]
    return call_vectorised(lambda x: jnp.diag(x), [d], kind=d.kind, dom=(n, n))


def _adjugate(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
    a = _square(ev, args, "Matrix.adjugate")
    n = a.dom[0].n
    if n > MAX_INV_SIZE:
        raise NotSupported(f"Matrix.adjugate of a {n}×{n} matrix: expanded up to {MAX_INV_SIZE}")
    return call_vectorised(lambda x: _adjugate_of(x, n), [a], kind=a.kind, dom=a.dom)


def _star(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
    """`star x` of a modelled number (ℝ, ℤ, ℕ: `TrivialStar`) or of a vector of them: x.
    A matrix's star is its conjugate transpose, which the rewrite names instead."""
    x = ev._arr(args[0], "star")
    if x.kind not in _RANK or len(x.dom) > 1:
        raise EvalError(f"star of a {x.describe()}")
    return x


def _of(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`Matrix.of f` is f (Mathlib's `of : (m → n → α) ≃ Matrix m n α` is the identity):
    a function of the indices stays one until a type with the sizes tabulates it."""
    if not isinstance(args[0], Arr):
        return args[0]
    (a,) = _entries(ev, args, "Matrix.of", (2,))
    return a


def _scalars(x: Any, n: int) -> list[list[Any]]:
    """The entries of the n×n array x, each taken once: the expansions below reuse them
    (an exact evaluation, when a failure is confirmed, then computes the products alone)."""
    rows = [x[i] for i in range(n)]
    return [[rows[i][j] for j in range(n)] for i in range(n)]


def _det_of(e: list[list[Any]], rows: list[int], cols: list[int], one: Any) -> Any:
    """Leibniz's determinant of the entries e at rows × cols: products and sums only."""
    m = len(rows)
    if m == 0:
        return one
    total = None
    for perm in itertools.permutations(range(m)):
        term = e[rows[0]][cols[perm[0]]]
        for i in range(1, m):
            term = term * e[rows[i]][cols[perm[i]]]
        if _sign(perm) < 0:
            term = -term
        total = term if total is None else total + term
    return total


def _sign(perm: tuple[int, ...]) -> int:
    inversions = sum(1 for i, j in itertools.combinations(range(len(perm)), 2) if perm[i] > perm[j])
    return -1 if inversions % 2 else 1


def _determinant(x: Any, n: int) -> Any:
    return _det_of(_scalars(x, n), list(range(n)), list(range(n)), jnp.ones((), x.dtype))


def _adjugate_of(x: Any, n: int) -> Any:
    """The adjugate: adj j i = (-1)^(i+j) · the determinant of x without row i, column j."""
    if n == 0:
        return jnp.zeros((0, 0), x.dtype)
    e = _scalars(x, n)
    one = jnp.ones((), x.dtype)
    out = []
    for j in range(n):
        row = []
        for i in range(n):
            keep_r = [r for r in range(n) if r != i]
            keep_c = [c for c in range(n) if c != j]
            minor = _det_of(e, keep_r, keep_c, one)
            row.append(minor if (i + j) % 2 == 0 else -minor)
        out.append(jnp.stack(row))
    return jnp.stack(out)


# the largest size whose determinant is expanded (5! = 120 products), and whose inverse
# and adjugate are (each entry a determinant of the next size down)
MAX_DET_SIZE = 5
MAX_INV_SIZE = 5


def _det(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
    a = _square(ev, args, "Matrix.det")
    n = a.dom[0].n
    if n > MAX_DET_SIZE:
        raise NotSupported(f"Matrix.det of a {n}×{n} matrix: expanded up to {MAX_DET_SIZE} only")
    _sums(ev, *([a] * n))  # products of n entries
    return call_vectorised(lambda x: _determinant(x, n), [a], kind=a.kind, dom=())


def _inv(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
    a = _square(ev, args, "Matrix.inv")
    n = a.dom[0].n
    if n > MAX_INV_SIZE:
        raise NotSupported(f"Matrix.inv of a {n}×{n} matrix: expanded up to {MAX_INV_SIZE} only")
    if a.kind == "nat":
        raise EvalError("Matrix.inv of a matrix of naturals (ℕ is not a commutative ring)")

    def inv(x: Any) -> Any:
        det = _determinant(x, n)
        adj = _adjugate_of(x, n)
        if a.kind == "real":  # Ring.inverse of a field: d⁻¹, and 0⁻¹ = 0
            return real_inv(det) * adj
        unit = (det == 1) | (det == -1)  # ℤ's units: the inverse of ±1 is itself
        return jnp.where(unit, det * adj, jnp.zeros_like(adj))

    return call_vectorised(inv, [a], kind=a.kind, dom=a.dom)


def _power_of(x: Any, k: int) -> Any:
    out = jnp.eye(x.shape[0], dtype=x.dtype)
    for _ in range(k):
        out = jnp.einsum("ij,jk->ik", out, x)
    return out


def _pow(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
    a = _square(ev, args[:1], "Matrix.pow")
    k = coerce(ev._arr(args[1], "Matrix.pow"), "nat", ev.ctx)
    if k.is_static and not k.axes:
        power = int(k.data)
        return call_vectorised(lambda x: _power_of(x, power), [a], kind=a.kind, dom=a.dom)

    def select(x: Any, e: Any) -> Any:
        out = jnp.zeros_like(x)
        for j in range(MAX_POWER + 1):
            out = jnp.where(e == j, _power_of(x, j), out)
        return out

    return call_vectorised(select, [a, k], kind=a.kind, dom=a.dom)


def _scalar_of(ev: Evaluator, args: tuple[Any, ...]) -> Arr:
    a = _square(ev, args[:1], "Matrix.scalarOf")
    c = coerce(ev._arr(args[1], "Matrix.scalarOf"), a.kind, ev.ctx)
    n = a.dom[0].n
    return call_vectorised(
        lambda x, s: s * jnp.eye(n, dtype=x.dtype), [a, c], kind=a.kind, dom=a.dom
    )


MATRICES: tuple[Builtin, ...] = (
    Builtin("Matrix.mul", 2, _mul),
    Builtin("Matrix.hadamard", 2, _hadamard),
    Builtin("Matrix.mulVec", 2, _mul_vec),
    Builtin("Matrix.vecMul", 2, _vec_mul),
    Builtin("dotProduct", 2, _dot),
    Builtin("Matrix.dotProduct", 2, _dot),
    Builtin("Matrix.trace", 1, _trace),
    Builtin("Matrix.diag", 1, _diag),
    Builtin("Matrix.transpose", 1, _transpose),
    Builtin("Matrix.upperSymmetric", 1, _upper_symmetric),
    Builtin("Matrix.diagonal", 1, _diagonal),
    # the type expected of `Matrix.of f` is f's (`!![…]`'s numerals are typed by it)
    Builtin("Matrix.of", 1, _of, arg_expect=lambda k, expected: expected),
    Builtin("Matrix.det", 1, _det),
    Builtin("Matrix.adjugate", 1, _adjugate),
    # the modelled entries (ℝ, ℤ, ℕ) have the trivial star: the conjugate transpose is the
    # transpose
    Builtin("Matrix.conjTranspose", 1, _transpose),
    Builtin("star", 1, _star),
    Builtin("Matrix.inv", 1, _inv),
    Builtin("Matrix.pow", 2, _pow),
    Builtin("Matrix.scalarOf", 2, _scalar_of),
)
# what each returns: a matrix, a vector or a number (statements/matrices.py types by it)
MATRIX_FUNCTIONS: dict[str, str] = {
    "Matrix.mul": "matrix",
    "Matrix.hadamard": "matrix",
    "Matrix.mulVec": "vector",
    "Matrix.vecMul": "vector",
    "dotProduct": "scalar",
    "Matrix.dotProduct": "scalar",
    "Matrix.trace": "scalar",
    "Matrix.diag": "vector",
    "Matrix.transpose": "matrix",
    "Matrix.upperSymmetric": "matrix",
    "Matrix.diagonal": "matrix",
    "Matrix.of": "matrix",
    "Matrix.det": "scalar",
    "Matrix.adjugate": "matrix",
    "Matrix.conjTranspose": "matrix",
    "Matrix.inv": "matrix",
    "Matrix.pow": "matrix",
    "Matrix.scalarOf": "matrix",
}
