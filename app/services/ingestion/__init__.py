"""Ingestion: documents read from folders, files or uploads into sources, declarations and
their revisions, one locked transaction per batch.

- `ingest`: a batch, or the files and folders read into one, into the database
- `batch`: what ingestion is given and what it reports; how revisions are told apart
- `snapshot`: the database as a batch is compared against it, in memory
- `owners`, `module_docs`: which copy of a name, or of a module's docs, a batch stores
- `writer`: writing one batch inside the locked transaction
- `parsing`, `parse_worker`: declarations' terms parsed, in worker processes for large
  batches
- `prose`: the theorems stated in prose that the registered checkers claim
- `uploads`: uploaded files and archives into a batch
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.services.ingestion.batch import IngestReport, describe_document_kinds
    from app.services.ingestion.ingest import ingest_batch, ingest_paths, remove_sources
    from app.services.ingestion.parsing import Parser
    from app.services.ingestion.uploads import (
        DEFAULT_ARCHIVE_NAME,
        Upload,
        read_archive,
        read_uploads,
    )
else:
    from theorem_index.lazy import lazy_exports

    __getattr__ = lazy_exports(
        __name__,
        {
            "batch": ["IngestReport", "describe_document_kinds"],
            "ingest": ["ingest_batch", "ingest_paths", "remove_sources"],
            "parsing": ["Parser"],
            "uploads": ["DEFAULT_ARCHIVE_NAME", "Upload", "read_archive", "read_uploads"],
        },
    )

__all__ = [
    "DEFAULT_ARCHIVE_NAME",
    "IngestReport",
    "Parser",
    "Upload",
    "describe_document_kinds",
    "ingest_batch",
    "ingest_paths",
    "remove_sources",
    "read_archive",
    "read_uploads",
]
