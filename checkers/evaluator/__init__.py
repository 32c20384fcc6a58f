"""The interpreter: a term tree evaluated with Lean's semantics, in JAX or on the host.

evaluate (the Evaluator) dispatches each node: application with arguments and
elaboration (implicit arguments, coercions), operators and forms (quantifiers and big
operators over finite sets: big_operators, finsets; structures, `let`, `if`,
projections: forms; `match`: patterns), at_once (a
function applied at every index at once); derivatives with kinks (`pdiv`, `fderiv`,
`deriv` by automatic differentiation, and where it is not Mathlib's derivative), and
definitions unfolded from their ingested equations (equations, definitions; recursive
types and their values: inductives, trees).
"""

from checkers.evaluator.evaluate import Evaluator

__all__ = ["Evaluator"]
