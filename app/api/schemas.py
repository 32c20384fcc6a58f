"""I/O schemas of the HTTP API beyond `app.schemas` (which the CLI shares)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from app.schemas import IngestReportOut, LocationOut, ModuleSummary, RunOut

__all__ = [
    "HealthOut",
    "IngestFailureOut",
    "ModuleOut",
    "ProseOut",
    "RunDetail",
    "RunProgress",
]


class HealthOut(BaseModel):
    status: Literal["ok"]
    database: Literal["ok"]
    version: str


class ModuleOut(ModuleSummary):
    """A module: its declarations, theorems by newest result status, module-doc blocks."""

    module_docs: int


class ProseOut(BaseModel):
    """A module-doc block, listed among the declarations with kind `module_doc`."""

    kind: Literal["module_doc"] = "module_doc"
    module: str
    text: str
    headings: list[str]
    mentions: list[str]
    location: LocationOut


class RunProgress(BaseModel):
    done: int
    total: int


class RunDetail(RunOut):
    """A run: its status, progress (results recorded of the theorems selected), the results
    so far by status, and where its JUnit XML is."""

    progress: RunProgress
    summary: dict[Literal["pass", "fail", "error", "unsupported"], int]
    junit: str


class IngestFailureOut(IngestReportOut):
    """Nothing could be ingested: the report, with a one-line `detail`."""

    detail: str
