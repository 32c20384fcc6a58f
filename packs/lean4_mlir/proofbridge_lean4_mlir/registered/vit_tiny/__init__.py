"""ViT-Tiny, whole: the forward (`model`), the explicit backward chain (`backward`), the
per-node tolerances (`tolerance`), the compiled comparison (`compare`) and the registered
checkers of the seed page's prose theorems (`checker`)."""

from proofbridge_lean4_mlir.registered.vit_tiny import checker

__all__ = ["checker"]
