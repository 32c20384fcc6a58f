"""The library: what constants mean, one module per source of constants.

lean_core (Lean core and Mathlib numbers, `Fin`, big operators), lists (`List.*` and
the `Int` constructors), counting, probability, structures (samplers of structure
types), reach (which definitions a statement depends on); semantics assembles them
with every installed vocabulary pack (plugins: the `proofbridge.vocabulary` entry
points) into `LIBRARY`, and `Semantics` resolves a constant for one environment:
its ingested equation where it can be evaluated, else the library's meaning.
"""

from checkers.library.plugins import GROUP, Pack, VocabularyError, load_packs
from checkers.library.semantics import LIBRARY, Semantics

__all__ = ["GROUP", "LIBRARY", "Pack", "Semantics", "VocabularyError", "load_packs"]
