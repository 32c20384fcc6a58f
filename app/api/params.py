"""The bounds of what the API accepts, declared once so that the OpenAPI document says them.

Integers stay within what both databases store (`offset` and ids within a 32-bit
PostgreSQL `INTEGER`); texts are bounded in length and never hold a NUL character (which
PostgreSQL's text type cannot store) or a lone surrogate (which is not Unicode).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Header, Path, Query

from theorem_index.readers import MAX_NAME_LENGTH as READ_NAME_LENGTH

__all__ = [
    "COMMIT_PATTERN",
    "DECLARATION_KINDS",
    "MAX_ID",
    "MAX_LIMIT",
    "MAX_NAME_LENGTH",
    "MAX_OFFSET",
    "MAX_TEXT_LENGTH",
    "MODULE_DOC",
    "NO_NUL",
    "DeclarationKind",
    "IdempotencyKey",
    "Limit",
    "ModuleQuery",
    "Offset",
    "RunId",
    "SearchText",
    "TheoremName",
]

MAX_OFFSET = 2**31 - 1
MAX_LIMIT = 1000
MAX_ID = 2**31 - 1
MAX_NAME_LENGTH = READ_NAME_LENGTH  # what ingestion stores is what a path can name
MAX_TEXT_LENGTH = 1024
NO_NUL = r"^[^\x00]*$"
# a commit SHA, full or abbreviated: 4 to 64 hexadecimal digits
COMMIT_PATTERN = r"^[0-9a-fA-F]{4,64}$"

MODULE_DOC = "module_doc"
# theorem_index's declaration kinds (`show` prints them before the name), CONTRACT.md's
# `prose`, and the module-doc blocks listed among the declarations.
DeclarationKind = Literal[
    "theorem",
    "lemma",
    "def",
    "abbrev",
    "instance",
    "opaque",
    "axiom",
    "inductive",
    "structure",
    "class",
    "ctor",
    "example",
    "prose",
    "module_doc",
]
DECLARATION_KINDS: tuple[str, ...] = DeclarationKind.__args__  # type: ignore[attr-defined]

Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET, description="items to skip")]
RunId = Annotated[int, Path(ge=1, le=MAX_ID, description="the run id")]
IdempotencyKey = Annotated[
    str | None,
    Header(
        min_length=1,
        max_length=200,
        pattern=r"^[!-~]+$",
        description="a key for this trigger: a second request with the same key gets the "
        "run the first created (printable ASCII, no blanks, at most 200 characters)",
    ),
]
TheoremName = Annotated[
    str,
    Path(
        min_length=1,
        max_length=MAX_NAME_LENGTH,
        pattern=NO_NUL,
        description="fully qualified name, e.g. Proofs.sum_fin_prod",
    ),
]
ModuleQuery = Annotated[
    str | None,
    Query(
        max_length=MAX_NAME_LENGTH,
        pattern=NO_NUL,
        description="only this module, e.g. Proofs.Attention",
    ),
]

Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description="items per page")]
SearchText = Annotated[
    str | None,
    Query(
        max_length=MAX_TEXT_LENGTH,
        pattern=NO_NUL,
        description="substring of the name or statement (case-insensitive)",
    ),
]
