"""Hand-written checkers, registered in the default registry on import.

Each module registers the checkers of a few seed theorems; `lean` holds the
Lean semantics (total arithmetic, index plumbing, the seed vocabulary) they
share.
"""

from proofbridge_lean4_mlir.registered import finsum, vit, vit_tiny

__all__ = ["finsum", "vit", "vit_tiny"]
