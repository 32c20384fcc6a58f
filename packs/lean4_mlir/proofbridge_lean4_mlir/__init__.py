"""The lean4-mlir pack: what the constants of the project's `Proofs` namespace mean
(vocabulary, float_model) and hand-written checkers of its whole-network theorems
(registered). Everything here imports ProofBridge through `checkers.pack` alone."""
