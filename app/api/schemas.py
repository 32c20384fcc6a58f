"""I/O schemas of the HTTP API beyond `app.schemas` (which the CLI shares)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StringConstraints,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from app.api.params import COMMIT_PATTERN, MAX_NAME_LENGTH, NO_NUL
from app.schemas import Dtype, IngestReportOut, LocationOut, ModuleSummary, RunOut

__all__ = [
    "MAX_DIM",
    "MAX_NAMES",
    "MAX_TRIALS",
    "CiTrigger",
    "ErrorOut",
    "GithubWebhookOut",
    "BrokerHealthOut",
    "HealthOut",
    "IngestFailureOut",
    "ModuleOut",
    "ProseOut",
    "RunCreate",
    "RunDetail",
    "QueuedRunOut",
    "RunProgress",
    "RunStatus",
    "RunTrigger",
    "ValidationErrorOut",
    "ValidationProblem",
    "WorkerSeenOut",
]

MAX_TRIALS = 100_000
# The largest integer every JSON reader holds exactly (RFC 8259, section 6); the OpenAPI
# document writes bounds as floats, so a larger one would not be said exactly either.
MAX_SEED = 2**53 - 1
MAX_DIM = 1024
MAX_NAMES = 10_000


class ErrorOut(BaseModel):
    """Every error but a validation error: one precise message."""

    detail: str


class ValidationProblem(BaseModel):
    """One problem of a request: where (`loc`), what (`msg`, `type`); malformed JSON adds
    its `line`, `column` and `position`."""

    model_config = ConfigDict(extra="allow")

    loc: list[str | int]
    msg: str
    type: str


class ValidationErrorOut(BaseModel):
    detail: list[ValidationProblem]


def _json_number(value: Any) -> Any:
    # A JSON integer is a number (3 or 3.0): a numeric string or a boolean is not one.
    if isinstance(value, str | bool):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


_JSON_NUMBER = BeforeValidator(_json_number)
Trials = Annotated[int, Field(ge=1, le=MAX_TRIALS), _JSON_NUMBER]
Seed = Annotated[int, Field(ge=0, le=MAX_SEED), _JSON_NUMBER]
Dim = Annotated[int, Field(ge=1, le=MAX_DIM), _JSON_NUMBER]
Name = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME_LENGTH, pattern=NO_NUL)]
DIM_NAME = r"^[^\x00-\x20\x7f=,:]+$"
DimName = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=DIM_NAME)]
Dims = Annotated[
    dict[DimName, Dim],
    Field(max_length=64),
    WithJsonSchema(
        {
            "type": "object",
            "propertyNames": {"minLength": 1, "maxLength": 64, "pattern": DIM_NAME},
            "additionalProperties": {"type": "integer", "minimum": 1, "maximum": MAX_DIM},
            "maxProperties": 64,
        }
    ),
]


class RunCreate(BaseModel):
    """A request for a check run (`POST /runs`)."""

    model_config = ConfigDict(extra="forbid")

    names: list[Name] | None = Field(
        default=None,
        max_length=MAX_NAMES,
        description="theorems to check (default: every theorem, or those of `module`)",
    )
    module: Name | None = None
    trials: Trials = 64
    seed: Seed = 0
    dtype: Dtype = "float64"
    dims: Dims | None = Field(
        default=None,
        description='pinned dimensions, e.g. {"N": 3}; one that none of the selected theorems '
        "has is refused (422), as `check --dims` refuses it",
    )
    changed_only: StrictBool = False
    proof: Literal["proved", "unproved", "unknown"] | None = Field(
        default=None,
        description="only theorems whose own proof is this one (`unproved`: those with `sorry`)",
    )


RunStatus = Literal["queued", "running", "passed", "failed", "error", "cancelled"]
RunTrigger = Literal["cli", "api", "ci", "github", "dashboard"]


class CiTrigger(BaseModel):
    """A CI system's request for a run at a commit (`POST /webhooks/ci`)."""

    model_config = ConfigDict(extra="forbid")

    commit: Annotated[str, StringConstraints(pattern=COMMIT_PATTERN)] = Field(
        description="the commit the ingested input comes from (4 to 64 hex digits)"
    )
    names: list[Name] | None = Field(
        default=None,
        max_length=MAX_NAMES,
        description="theorems to check (default: every theorem)",
    )
    changed_only: StrictBool = Field(
        default=True,
        description="only the theorems that changed since they were last checked (their "
        "statement, or a definition their checker used)",
    )


class QueuedRunOut(BaseModel):
    """A run queued by a trigger: its id, status, and where to follow it."""

    run: int
    status: RunStatus
    total: int = Field(description="theorems the run checks")
    url: str
    junit: str


class GithubWebhookOut(BaseModel):
    """What a GitHub delivery did: the run a push queued, or why nothing was queued."""

    event: str
    delivery: str | None
    detail: str
    ignored: str | None = Field(
        default=None,
        description="why the delivery was ignored (an event not handled, or a "
        "delivery already handled)",
    )
    commit: str | None = None
    run: int | None = Field(default=None, description="the run a push queued")
    status: RunStatus | None = None
    total: int | None = None
    url: str | None = None
    junit: str | None = None


class BrokerHealthOut(BaseModel):
    """The broker: whether it answered within a second, and why not."""

    url: str = Field(description="the broker's URL, its password hidden")
    reachable: bool
    error: str | None = Field(default=None, description="why it is not reachable")


class WorkerSeenOut(BaseModel):
    """A worker that announced itself on the broker within PROOFBRIDGE_STALE_AFTER_S."""

    name: str = Field(description="its Celery node name, as its results name it")
    queues: list[str]
    concurrency: int | None
    seen_s_ago: float


class HealthOut(BaseModel):
    """`ok`; `degraded` (200): the broker answers but no worker consuming the check queue
    was seen, so runs wait; `unavailable` (503): the broker does not answer, so no run
    can be dispatched. `broker` and `workers` are null without a broker (runs are checked
    in this server)."""

    status: Literal["ok", "degraded", "unavailable"]
    database: Literal["ok"]
    version: str
    broker: BrokerHealthOut | None = None
    workers: list[WorkerSeenOut] | None = None


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
