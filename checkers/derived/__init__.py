"""Deprecated: the derived checkers' former package, kept so that old imports work.

Its modules moved into subpackages of `checkers` (ARCHITECTURE.md): the language
(`checkers.language`), the evaluator (`checkers.evaluator`), the library
(`checkers.library`), premises (`checkers.premises`), statements
(`checkers.statements`) and the exact route (`checkers.exact`). `checkers.derived.X`
still imports, with a DeprecationWarning (checkers/_aliases.py); a pack imports
`checkers.pack`, the rest of the code the new paths.
"""

import warnings

from checkers.core import Unsupported
from checkers.evaluator.evaluate import Evaluator
from checkers.language.errors import EvalError, NotSupported
from checkers.library.semantics import LIBRARY, Semantics
from checkers.statements.checker import DerivedChecker
from checkers.statements.conjunction import Conjunction
from checkers.statements.derive import derive

warnings.warn(
    "checkers.derived is deprecated: import checkers.statements (derive, DerivedChecker), "
    "checkers.library (LIBRARY, Semantics), or, from a pack, checkers.pack",
    DeprecationWarning,
    stacklevel=2,
)

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
