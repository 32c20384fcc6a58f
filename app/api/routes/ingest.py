"""Ingestion of uploaded documents: multipart files, or one `.tar.gz` as the body."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import IO, Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request, status
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.api.deps import SessionDep, SettingsDep, WriteAccess
from app.api.params import COMMIT_PATTERN
from app.api.responses import error_responses
from app.api.schemas import ErrorOut, IngestFailureOut, ValidationErrorOut
from app.schemas import IngestReportOut
from app.services.ingestion import (
    DEFAULT_ARCHIVE_NAME,
    IngestReport,
    Upload,
    ingest_batch,
    read_archive,
    read_uploads,
)
from app.settings import Settings

__all__ = ["ARCHIVE_TYPES", "router"]

router = APIRouter(tags=["ingest"])

ARCHIVE_TYPES = frozenset(
    {
        "application/gzip",
        "application/x-gzip",
        "application/tar+gzip",
        "application/x-tar+gzip",
        "application/x-compressed-tar",
        "application/x-gtar",
    }
)
SPOOL_BYTES = 1024 * 1024
MAX_FILES = 10_000
NO_FILES = (
    "no files in the upload: send documents as multipart/form-data file parts "
    "(any field name, e.g. `files`), or one .tar.gz as the request body"
)

_BODY_DOC: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "files": {
                            "type": "array",
                            "items": {"type": "string", "format": "binary"},
                            "minItems": 1,
                            "description": "documents, or .tar.gz archives of documents",
                        }
                    },
                    "required": ["files"],
                }
            },
            "application/gzip": {
                "schema": {"type": "string", "format": "binary"},
            },
        },
    }
}


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";", 1)[0].strip().lower()


def _nothing_ingested(report: IngestReport) -> JSONResponse:
    errors = report.errors
    first = str(errors[0]) if errors else "no declarations found"
    others = len(errors) - 1
    more = f" (and {others} more error{'s' if others > 1 else ''})" if others > 0 else ""
    body = IngestFailureOut(**report.to_json(), detail=f"nothing could be ingested: {first}{more}")
    return JSONResponse(
        status_code=status.HTTP_422_UNPROCESSABLE_CONTENT, content=body.model_dump()
    )


def _ingest_uploads(
    session: Session, uploads: list[Upload], settings: Settings, commit: str | None
) -> IngestReport:
    batch = read_uploads(uploads, max_file_bytes=settings.max_file_bytes)
    return ingest_batch(session, batch=batch, commit=commit)


def _ingest_archive(
    session: Session, spool: IO[bytes], settings: Settings, commit: str | None
) -> IngestReport:
    spool.seek(0)
    batch = read_archive(DEFAULT_ARCHIVE_NAME, spool.read(), max_file_bytes=settings.max_file_bytes)
    return ingest_batch(session, batch=batch, commit=commit)


@asynccontextmanager
async def _read_form(request: Request) -> AsyncIterator[FormData]:
    """The multipart form; a body Starlette cannot parse is a 422 saying why."""
    try:
        form = await request.form(max_files=MAX_FILES, max_fields=MAX_FILES)
    except StarletteHTTPException as exc:
        if exc.status_code != status.HTTP_400_BAD_REQUEST:
            raise
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail=f"malformed multipart/form-data body: {exc.detail}",
        ) from None
    try:
        yield form
    finally:
        await form.close()


@router.post(
    "/ingest",
    response_model=IngestReportOut,
    openapi_extra=_BODY_DOC,
    responses=error_responses(
        write=True,
        e413="body over PROOFBRIDGE_MAX_UPLOAD_BYTES",
        e415="neither multipart/form-data nor application/gzip",
        e422={
            "model": IngestFailureOut | ErrorOut | ValidationErrorOut,
            "description": "nothing could be ingested (the report says why), no file was "
            "sent, the multipart body is malformed, or `commit` is not a SHA",
        },
    ),
)
async def create_ingestion(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    _: WriteAccess,
    commit: Annotated[
        str | None, Query(pattern=COMMIT_PATTERN, description="the commit the input comes from")
    ] = None,
) -> Any:
    """Ingest uploaded documents and return the ingestion report (`proofbridge ingest
    --json`). Multipart: every file part is a document or a .tar.gz of documents. Otherwise
    the body is one .tar.gz (`Content-Type: application/gzip`). 422 with the report when
    nothing could be ingested."""
    commit = commit.lower() if commit else None
    media = _media_type(request)
    if media == "multipart/form-data":
        async with _read_form(request) as form:
            uploads = [
                Upload(filename=value.filename or "", file=value.file)
                for _, value in form.multi_items()
                if isinstance(value, UploadFile)
            ]
            if not uploads:
                raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=NO_FILES)
            report = await run_in_threadpool(_ingest_uploads, session, uploads, settings, commit)
    elif media in ARCHIVE_TYPES or media == "application/octet-stream":
        with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
            async for chunk in request.stream():
                spool.write(chunk)
            if spool.tell() == 0:
                raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=NO_FILES)
            report = await run_in_threadpool(_ingest_archive, session, spool, settings, commit)
    else:
        shown = media or "none"
        raise HTTPException(
            status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
            detail=f"unsupported Content-Type {shown}: expected multipart/form-data "
            "or application/gzip (a .tar.gz)",
        )
    request.app.state.metrics.ingestions.inc()
    if report.exit_code != 0:
        return _nothing_ingested(report)
    return IngestReportOut.model_validate(report.to_json())
