"""Documents -> declarations -> Lean term trees. No JAX, no SQL."""

from .model import Declaration, Document, IngestError, ModuleDoc, SourceLocation
from .readers import Batch, detect_format, iter_tar_gz, read_bytes, read_paths

__all__ = [
    "Batch",
    "Declaration",
    "Document",
    "IngestError",
    "ModuleDoc",
    "SourceLocation",
    "detect_format",
    "iter_tar_gz",
    "read_bytes",
    "read_paths",
]
