"""ProofBridge's service: database, ingestion and check services, CLI and web API."""

__version__ = "0.1.0"

__all__ = ["__version__"]
