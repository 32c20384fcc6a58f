"""Analyses over a corpus: what `check` would support (coverage, JAX-free), and how
many planted false statements the checks catch (mutation)."""

__all__ = ["coverage", "mutation"]
