"""Derived checkers: a theorem's statement, interpreted in JAX with Lean's semantics.

    from checkers.derived import derive
    checker = derive("Proofs.sum_fin_prod", env)  # a Checker, or Unsupported(reason, missing)

Constants get their meaning from their ingested equation when it has one that
can be evaluated, else from the library (Lean core, Mathlib, and each project's
vocabulary pack, loaded through the entry points of plugins.py); `pdiv`,
`pdivMat`, `fderiv` and `deriv` are always the library's (automatic
differentiation). See semantics.py.

Modules, by idea: values (what terms evaluate to), numerals (numerals whose
type is not fixed yet), total and coercion and arith (Lean's arithmetic at
each type), types, evaluate with its parts operators, forms, patterns,
notation, elaboration and arguments (the interpreter), vectorise, derivatives (with
kinks: where automatic differentiation is not Mathlib's derivative), equations and
definitions (definitions unfolded, recursive ones included), binders (with
binder_shapes) and premises (hypotheses), instances (a statement over type variables
checked at each modelled type that meets its classes, or refused naming the class),
structures, drawn_functions, drawn_lists and trees (binders drawn by a sampler:
structures, functions, integers, lists, whose lengths are dimensions, and recursive
types at several depths),
derive; statements of several clauses: propositions (conjunctions split,
predicates unfolded, with substitute), readings (`≠`, `↔`), conjunction (their
checker), reparam and bound_search (premises sampled to hold); exact_terms with
exact_numbers (a closed statement float64 cannot decide, decided in exact
arithmetic). The semantics
library, one file per source of constants: lean_core
(Lean core and Mathlib numbers, `Fin`, big operators), lists (Lean core's
`List.*` and the `Int` constructors), finsets, counting and probability;
each project's pack (the upstream one is vocabulary, with float_model) is
loaded as a plugin (plugins.py) into semantics.LIBRARY.
"""

from checkers.core import Unsupported
from checkers.derived.checker import DerivedChecker
from checkers.derived.conjunction import Conjunction
from checkers.derived.derive import derive
from checkers.derived.errors import EvalError, NotSupported
from checkers.derived.evaluate import Evaluator
from checkers.derived.semantics import LIBRARY, Semantics

__all__ = [
    "LIBRARY",
    "Conjunction",
    "DerivedChecker",
    "EvalError",
    "Evaluator",
    "NotSupported",
    "Semantics",
    "Unsupported",
    "derive",
]
