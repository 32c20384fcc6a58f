"""Documents -> declarations -> Lean term trees. No JAX, no SQL.

The readers (and the Lean parser behind them) load on first use of a name that needs
them, so that a process that only reads stored declarations (`proofbridge show`) does
not import the parser.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .model import Declaration, Document, IngestError, ModuleDoc, SourceLocation

if TYPE_CHECKING:
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

_READERS = frozenset({"Batch", "detect_format", "iter_tar_gz", "read_bytes", "read_paths"})


def __getattr__(name: str) -> Any:
    if name in _READERS:
        value = getattr(importlib.import_module(".readers", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
