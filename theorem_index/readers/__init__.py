"""Readers of the four input forms: doc-gen4 HTML, doc-gen4 JSON, plain text, Lean.

Each turns one file into a `Document` of declarations, module docs and
precise errors; `read_paths` reads many files and folders into a `Batch`.

The names below are imported from their modules when first asked for (`theorem_index.lazy`),
so that a part that needs one reader module (`prose`, say) loads none of the others.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from theorem_index.readers.batch import (
        FOLDER_EXTENSIONS,
        MAX_FILE_BYTES,
        Batch,
        read_bytes,
        read_files_under,
        read_paths,
    )
    from theorem_index.readers.sniff import detect_format
    from theorem_index.readers.storable import MAX_NAME_LENGTH
    from theorem_index.readers.tarball import UnsafeArchive, iter_tar_gz
else:
    from theorem_index.lazy import lazy_exports

    __getattr__ = lazy_exports(
        __name__,
        {
            "batch": [
                "FOLDER_EXTENSIONS",
                "MAX_FILE_BYTES",
                "Batch",
                "read_bytes",
                "read_files_under",
                "read_paths",
            ],
            "sniff": ["detect_format"],
            "storable": ["MAX_NAME_LENGTH"],
            "tarball": ["UnsafeArchive", "iter_tar_gz"],
        },
    )

__all__ = [
    "FOLDER_EXTENSIONS",
    "MAX_FILE_BYTES",
    "MAX_NAME_LENGTH",
    "Batch",
    "UnsafeArchive",
    "detect_format",
    "iter_tar_gz",
    "read_bytes",
    "read_files_under",
    "read_paths",
]
