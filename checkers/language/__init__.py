"""The language of statements: values, types, numerals and Lean's arithmetic at each type.

What a term evaluates to (values: arrays over named axes, host numbers, closures,
structures, proofs), the types the evaluator knows and how uses settle them
(types, unify, inference, instances: a statement over type variables checked at each
modelled type that meets its classes), numerals whose type is not fixed yet
(numerals), Lean's total arithmetic (total, coercion, arith, lax_ops), and the
machinery every form shares: host-side evaluation (host, memo), the size meter
(measure, metered), vectorised calls (vectorise), contractions (contraction),
substitution (substitute) and notation (notation). Nothing here knows a constant:
the evaluator (checkers.evaluator) interprets terms with these values, and the
library (checkers.library) gives constants their meaning.
"""

from checkers.language.coercion import Ctx, coerce
from checkers.language.errors import EvalError, NotSupported
from checkers.language.types import Ty
from checkers.language.values import Arr, Builtin, Proof, Struct, Sz, as_array

__all__ = [
    "Arr",
    "Builtin",
    "Ctx",
    "EvalError",
    "NotSupported",
    "Proof",
    "Struct",
    "Sz",
    "Ty",
    "as_array",
    "coerce",
]
