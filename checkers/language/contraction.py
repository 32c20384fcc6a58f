"""`∑ r, A * B * …` over real factors as one contraction, never as a broadcast product.

Evaluated the general way, `fun i j => ∑ r : Fin N, X r i * dY r j` builds the
product over every (i, j, r) (N·a·c numbers) and then sums r away. When every
factor of the body is a real number on named axes, the same sum is one
`einsum` over those axes: XLA runs it as a matrix product and never holds the
N·a·c intermediate. The value is the same real sum, up to the order in which
floating-point additions happen.

Only the plain case is taken: a product of at least two factors, each of which,
evaluated on its own, is a real value with no own domain. Anything else (a
numeral, a natural number, whose type Lean's `binop%` would settle from the
other factors, or a function-valued factor) goes the general way. Low-precision
modes go the general way too, so that their measured tolerances keep holding.
"""

from __future__ import annotations

import string

from checkers.language.errors import EvalError, NotSupported
from checkers.language.host import Env, Host
from checkers.language.measure import note_terms
from checkers.language.values import Arr, Axis, Sz, as_array, iota
from checkers.lazyjax import jnp
from theorem_index.lean import syntax as S


def factors(t: S.Term) -> list[S.Term]:
    """The factors of a product tree (parentheses looked through)."""
    if isinstance(t, S.BinOp) and t.op == "*":
        return factors(t.lhs) + factors(t.rhs)
    if isinstance(t, S.Paren):
        return factors(t.term)
    return [t]


def try_product_sum(ev: Host, name: str, sz: Sz, body: S.Term, env: Env) -> Arr | None:
    """`∑ name, f₁ * f₂ * …` as one einsum, or None when the body is not that plain case."""
    if ev.ctx.dtype not in (jnp.float64, jnp.float32):
        return None
    terms = factors(body)
    if len(terms) < 2:
        return None
    ax = Axis(name, sz.n)
    inner = {**env, name: iota(ax, bound=sz)}
    values = []
    for term in terms:
        try:
            v = ev.eval(term, inner)
        except (EvalError, NotSupported):
            return None  # the general way decides, and says why if it cannot
        if not isinstance(v, Arr) or v.kind != "real" or v.dom or v.is_static:
            return None
        values.append(v)
    if not any(ax in v.axes for v in values):
        return None
    order: list[Axis] = []
    for v in values:
        order += [a for a in v.axes if a not in order]
    if len(order) > len(string.ascii_letters):
        return None
    letter = {a: string.ascii_letters[k] for k, a in enumerate(order)}
    out = tuple(a for a in order if a is not ax)
    spec = ",".join("".join(letter[a] for a in v.axes) for v in values)
    spec += "->" + "".join(letter[a] for a in out)
    arrays = [as_array(v, ev.ctx.dtype) for v in values]
    note_terms(ev.ctx, *arrays)
    data = jnp.einsum(spec, *arrays)
    return Arr(data, "real", axes=out)
