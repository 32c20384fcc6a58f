"""Statements: a theorem's statement turned into a derived checker.

derive (the entry point) splits the statement (statement), unfolds predicates and
splits conjunctions (propositions), reads `≠` and `↔` (readings) and builds a
DerivedChecker (checker), or a Conjunction of clause checkers (conjunction), or
Unsupported with the reason.

    from checkers.statements import derive
    checker = derive("Proofs.sum_fin_prod", env)  # a Checker, or Unsupported(reason, missing)
"""

from checkers.statements.checker import DerivedChecker
from checkers.statements.conjunction import Conjunction
from checkers.statements.derive import derive

__all__ = ["Conjunction", "DerivedChecker", "derive"]
