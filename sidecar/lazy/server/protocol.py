"""The sidecar's contract: every custom method, its direction, and its params and result.

These pydantic models (with the surface models of ``lazy.model`` they use) are the single
source: ``protocol/generate.py`` writes the JSON Schema, ``methods.json`` and the TypeScript
types from ``METHODS``. Fields travel as they are named here (snake_case), as in every
``--json`` output of the CLI, so one model serves both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from lazy import agents
from lazy.model import BuilderInfo, DoctorReport, ImportReport, MessageView, SearchResults, Task
from lazy.usage.report import Report

# The agents, written out for the JSON Schema (a static Literal); a unit test holds it equal
# to lazy.agents.TOOLS, the one list of agents, from which the default below is taken.
Tool = Literal["claude", "codex", "opencode"]
TOOLS = cast("tuple[Tool, ...]", tuple(agents.TOOLS))


class Params(BaseModel):
    """What a client sends: every field known and of its own JSON type. An unknown field
    (``allProjects`` for ``all_projects``) is refused, never ignored into a default answer;
    ``strict`` refuses what lax validation would coerce (``"true"`` for a bool, ``"5"`` for
    a number), as a client sending either has a bug the sidecar should not hide."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Scope(Params):
    """Which projects: the workspace's folders (and what lies under them), or all."""

    all_projects: bool = False
    workspace_folders: list[str] = Field(default_factory=list)  # absolute paths


class InitializationOptions(Params):
    """The initializationOptions of LSP's initialize: how the extension wants the sidecar."""

    live_capture: bool = True  # watch the agents' folders and capture while running
    extra_roots: dict[Tool, list[str]] = Field(default_factory=dict)  # more folders, per agent


# ---- builders -------------------------------------------------------------------------------


class BuildersListParams(Scope):
    tools: list[Tool] = Field(default_factory=list)  # empty: every agent
    text: str | None = None  # in the summary or title, case-insensitive
    cursor: str | None = None  # next_cursor of the page before; None for the first
    limit: int = Field(default=50, ge=1, le=500)


class BuildersListResult(BaseModel):
    items: list[BuilderInfo]
    next_cursor: str | None = None  # None: this was the last page
    total: int | None = None  # Builders the filters match on every page (first page only)


class BuildersGetParams(Params):
    id: str  # a Builder's id, any of its session ids, or a unique prefix of either


class BuildersNameParams(Params):
    id: str  # a Builder's id, any of its session ids, or a unique prefix of either
    name: str | None  # its alias in the session registry, scoped to its project; None removes it


class SourceFile(BaseModel):
    """A file an agent wrote one of the Builder's sessions to, as capture last read it."""

    path: str  # the file on disk (an OpenCode database holds many sessions)
    tool: Tool
    session_id: str
    agent_id: str | None = None  # a subagent's own file
    size: int  # bytes when last captured
    exists: bool  # still there: agents delete old sessions, lazy keeps its copy


class BuildersSourcesResult(BaseModel):
    builder_id: str
    files: list[SourceFile]  # the main sessions' first, then subagents', each by path


# ---- transcripts ----------------------------------------------------------------------------


class TranscriptsPageParams(Params):
    builder_id: str
    session_id: str | None = None  # a subagent's session; None: the Builder's own line
    start: int = Field(default=1, ge=1)  # the first message number of the page
    count: int = Field(default=200, ge=1, le=1000)


class TranscriptsPageResult(BaseModel):
    builder: BuilderInfo
    session_id: str | None
    messages: list[MessageView]
    total: int  # messages in this line
    next_start: int | None  # the number after this page; None at the end


class TranscriptsFindParams(Params):
    builder_id: str
    session_id: str | None = None  # a subagent's session; None: the Builder's own line
    query: str = Field(min_length=1, max_length=1000)  # found as typed, case ignored
    limit: int = Field(default=5000, ge=1, le=100000)  # messages


class FindMatch(BaseModel):
    number: int  # the message it is shown in (a result is shown in its call's message)
    count: int  # times the text occurs in it


class TranscriptsFindResult(BaseModel):
    matches: list[FindMatch]  # in order
    total: int  # occurrences in the whole line (the matches listed may stop at the limit)


# ---- search ---------------------------------------------------------------------------------


class SearchQueryParams(Scope):
    query: str
    limit: int = Field(default=20, ge=1, le=200)  # Builders


# ---- tasks ----------------------------------------------------------------------------------


class TasksPromoteParams(Params):
    """A range of a Builder's own messages (numbers from 1, both ends included) to promote;
    each field left out or empty falls back as `lazy conversations promote` does: the goal
    to what the human said first in the range, the code to a slug of the goal, the parent
    to none, the prompt to the messages verbatim."""

    builder_id: str  # a Builder's id, any of its session ids, or a unique prefix of either
    from_message: int
    to_message: int
    goal: str | None = None
    code: str | None = None
    parent: str | None = None  # another task's code
    prompt: str | None = None


class TasksPromoteResult(BaseModel):
    task: Task  # created in the backlog, never started
    overlapping: list[Task]  # earlier tasks of the Builder sharing messages with it


class TasksListParams(Scope):
    # a Builder's tasks (what was promoted from it), by range; None: the scope's, newest first
    builder_id: str | None = None


class TasksListResult(BaseModel):
    items: list[Task]


# The code action the sidecar offers on a transcript opened as text (scheme lazy-transcript,
# textDocument/codeAction) carries the command PROMOTE_COMMAND with one argument: a
# TasksPromoteParams holding only the range (builder_id, from_message, to_message), for the
# extension to open the promote form on.
PROMOTE_COMMAND = "lazy.promoteMessages"


# ---- ask ------------------------------------------------------------------------------------


class AskRunParams(Params):
    """A question about a Builder (its id, any of its session ids, or a unique prefix) or a
    task (its code: its prompt, then the messages it was promoted from), as `lazy ask`."""

    id: str
    question: str


class AskRunResult(BaseModel):
    """The answer, as `lazy ask --json` gives it. Nothing was written back."""

    builder_id: str
    task: str | None = None  # the task's code, when a task was asked about
    answer: str
    chunks: int  # excerpts the transcript was read in (1: one pass)
    relevant_chunks: int  # excerpts that had anything bearing on the question
    warnings: list[str]  # every degradation: an excerpt not read, a message cut, notes left out


# ---- import ---------------------------------------------------------------------------------


class ImportParams(Scope):
    tools: list[Tool] = Field(default_factory=lambda: list(TOOLS))


class ImportResult(BaseModel):
    """What an import of conversations found (preview: nothing written) or did (run), per
    agent; as ``lazy import-conversation --json`` reports it."""

    dry_run: bool
    cancelled: bool = False  # run: stopped by the client between sessions
    reports: dict[str, ImportReport]


# ---- capture --------------------------------------------------------------------------------


class CaptureFailure(BaseModel):
    file: str
    line: int | None = None
    reason: str
    code: str  # a stable machine code: "read-error", "store-error", "bad-line", ...
    detail: str = ""  # the underlying error
    at: str  # ISO time


class CaptureStatusResult(BaseModel):
    live: bool  # watching and sweeping
    roots: list[str]  # the agents' source roots watched
    last_sweep_at: str | None
    captured: int  # sessions captured since the sidecar started
    last_failure: CaptureFailure | None = None


# ---- usage ----------------------------------------------------------------------------------


class UsageReportParams(Params):
    by: Literal["day", "week", "project", "agent", "model"] = "day"
    since: str | None = None  # as `lazy usage --since`: a date or time, today, 7d, 2w ...
    until: str | None = None  # exclusive
    workspace_folders: list[str] = Field(default_factory=list)  # projects at or below these
    all_projects: bool = False


class UsageReportResult(Report):
    """Tokens and cost per group (``lazy usage --json``)."""


class ExportBuilderParams(Params):
    builder_id: str  # an id, session id, unique prefix or alias
    format: Literal["md", "html", "json"] = "html"
    first: int | None = Field(default=None, ge=1)  # of the Builder's own line; None: from 1
    last: int | None = Field(default=None, ge=1)  # None: to its end
    redact: bool = True  # False leaves secrets in: the extension asks first


class ExportBuilderResult(BaseModel):
    """The export's text, to be written where the user says (``lazy export``)."""

    text: str
    format: str
    first: int
    last: int
    of: int  # messages in the Builder's own line
    redacted: bool
    redactions: dict[str, int]  # replacements by rule


class TeamStatusResult(BaseModel):
    """This machine's side of the team (``lazy team status`` without asking the server)."""

    joined: bool
    database: str | None = None  # user@host:port/db, never a password
    email: str | None = None
    last_push_at: str | None = None
    last_push_builders: int = 0
    last_push_messages: int = 0
    unpushed: int = 0  # messages stored since the last complete push
    failing_since: str | None = None
    last_error: str | None = None


class TeamBuildersParams(Params):
    project: str | None = None  # a project's team name (normalised remote); None: every one
    member: str | None = None  # email, name or role
    limit: int = Field(default=200, ge=1, le=1000)


class TeamBuilder(BaseModel):
    """A Builder on the team database, as its list shows it."""

    builder_id: str
    member: str  # the member's name
    email: str
    project: str
    agent: str
    title: str
    message_count: int
    updated_at: str | None
    grew: bool  # it has messages the viewer has not seen (or was never opened by them)


class TeamBuildersResult(BaseModel):
    items: list[TeamBuilder]


class TeamPageParams(Params):
    builder_id: str  # an id or a unique prefix, among the Builders the viewer can see
    email: str | None = None  # whose (when two members' ids start alike)
    start: int = Field(default=1, ge=1)
    count: int = Field(default=200, ge=1, le=1000)


class TeamPageResult(BaseModel):
    """A page of a teammate's Builder, read-only; asking for it marks it seen (to its end)."""

    member: str
    email: str
    project: str
    builder: BuilderInfo
    messages: list[MessageView]
    total: int
    next_start: int | None


class TeamSearchParams(Params):
    query: str  # words (stemmed), "quoted phrases"
    project: str | None = None
    member: str | None = None
    limit: int = Field(default=20, ge=1, le=500)


class TeamHit(BaseModel):
    builder_id: str
    member: str
    email: str
    project: str
    title: str
    number: int
    role: str
    at: str | None
    snippet: str  # plain text around the match
    marks: list[tuple[int, int]] = Field(default_factory=list)  # the matched words in snippet


class TeamSearchResult(BaseModel):
    hits: list[TeamHit]


class TeamPushParams(Params):
    dry_run: bool = False


class TeamPushResult(BaseModel):
    builders: int
    messages: int
    unchanged: int
    redactions: dict[str, int]
    skipped: list[str]  # one line per project not pushed, and why


class TeamPromoteParams(Params):
    """A range of a teammate's Builder to promote to a task on the team database; each field
    left out or empty falls back as `lazy team promote` does (the goal to what was said first,
    the code to a slug of the goal unique in the project, the prompt to the messages)."""

    builder_id: str  # an id or a unique prefix, among the Builders the viewer can see
    email: str | None = None  # whose, when two members' ids start alike
    from_message: int
    to_message: int
    goal: str | None = None
    code: str | None = None
    parent: str | None = None
    prompt: str | None = None


class TeamTask(BaseModel):
    code: str
    goal: str
    by: str  # who created it
    project: str
    builder_id: str
    from_message: int
    to_message: int


class TeamPromoteResult(BaseModel):
    task: TeamTask
    overlaps: list[str]  # one line per other task sharing messages with it, said after


class BuildersDidChange(BaseModel):
    builder_ids: list[str]  # the Builders that changed (new or grown)
    reason: Literal["captured", "imported"]


class NoParams(Params):
    pass


# ---- the registry ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Method:
    name: str
    kind: Literal["request", "notification"]
    direction: Literal["client->server", "server->client"]
    params: type[BaseModel]
    result: type[BaseModel] | None
    doc: str


METHODS: tuple[Method, ...] = (
    Method("builders/list", "request", "client->server", BuildersListParams, BuildersListResult,
           "A page of Builders, newest first."),
    Method("builders/get", "request", "client->server", BuildersGetParams, BuilderInfo,
           "One Builder by id, session id or unique prefix."),
    Method("builders/name", "request", "client->server", BuildersNameParams, BuilderInfo,
           "Name a Builder (its alias, which `lazy builder --resume` takes); null unnames it."),
    Method("builders/sources", "request", "client->server", BuildersGetParams,
           BuildersSourcesResult, "The agents' files a Builder was captured from."),
    Method("transcripts/page", "request", "client->server", TranscriptsPageParams,
           TranscriptsPageResult, "A range of a Builder's (or a subagent's) messages."),
    Method("transcripts/find", "request", "client->server", TranscriptsFindParams,
           TranscriptsFindResult, "Where a text occurs in a whole Builder (or subagent), as shown."),
    Method("export/builder", "request", "client->server", ExportBuilderParams,
           ExportBuilderResult, "A Builder (or a range) as Markdown, HTML or JSON, redacted."),
    Method("search/query", "request", "client->server", SearchQueryParams, SearchResults,
           "Search everything captured (lazy search's query language)."),
    Method("tasks/promote", "request", "client->server", TasksPromoteParams, TasksPromoteResult,
           "Promote a range of a Builder's messages to a backlog task."),
    Method("tasks/list", "request", "client->server", TasksListParams, TasksListResult,
           "Tasks of the workspace, or those promoted from one Builder."),
    Method("ask/run", "request", "client->server", AskRunParams, AskRunResult,
           "Ask a Builder or a task a question in a sandboxed one-shot, reporting $/progress"
           " (excerpts read); cancellable."),
    Method("import/preview", "request", "client->server", ImportParams, ImportResult,
           "What an import would find; nothing is written."),
    Method("import/run", "request", "client->server", ImportParams, ImportResult,
           "Import the agents' sessions, reporting $/progress; cancellable."),
    Method("capture/status", "request", "client->server", NoParams, CaptureStatusResult,
           "Whether live capture runs, and its last failure."),
    Method("doctor/run", "request", "client->server", NoParams, DoctorReport,
           "lazy doctor's health sweep: one line per check; it only looks."),
    Method("usage/report", "request", "client->server", UsageReportParams, UsageReportResult,
           "Tokens and cost by day, week, project, agent or model over a span."),
    Method("team/status", "request", "client->server", NoParams, TeamStatusResult,
           "Whether this machine joined a team, its last push and any failure since."),
    Method("team/builders", "request", "client->server", TeamBuildersParams, TeamBuildersResult,
           "The team's Builders the viewer can see, newest first, each marked when it grew."),
    Method("team/page", "request", "client->server", TeamPageParams, TeamPageResult,
           "A page of a teammate's Builder (read-only); marks it seen."),
    Method("team/search", "request", "client->server", TeamSearchParams, TeamSearchResult,
           "Full-text search of the team's Builders the viewer can see."),
    Method("team/promote", "request", "client->server", TeamPromoteParams, TeamPromoteResult,
           "Promote a range of a team Builder's messages to a task on the team database."),
    Method("team/push", "request", "client->server", TeamPushParams, TeamPushResult,
           "Push this machine's new and grown Builders now (or say what would go)."),
    Method("builders/didChange", "notification", "server->client", BuildersDidChange, None,
           "Builders captured or imported (debounced)."),
    Method("capture/didFail", "notification", "server->client", CaptureFailure, None,
           "A capture failed; the file, line and reason."),
)  # fmt: skip

# JSON-RPC error codes of the sidecar's own (the -32000..-32099 server range); each error's
# data object: not found {id}; ambiguous {prefix, candidates: [{id, started_at, summary}]};
# bad query {part}; store error {code, detail}; name taken {name, builder_id} (the
# Builder the name already belongs to in that project); already promoted {task, builder_id,
# from_message, to_message} (the task the exact range went into); ask failed {code, detail,
# warnings} (code as `lazy ask` prints it: docker-unavailable, agent-image-missing,
# ALL_EXCERPTS_FAILED, ...; the warnings gathered before it failed); team failed {kind}
# (unreachable, lost, rights, schema, refused, not-joined: lazy.team.db.TeamError). Invalid params is
# JSON-RPC's -32602 {errors: [{field, message}]}: also a promotion's range outside the
# Builder, a taken code, an unknown parent.
ERRORS = {
    "NOT_FOUND": -32001,
    "AMBIGUOUS": -32002,
    "BAD_QUERY": -32003,
    "STORE_ERROR": -32004,
    "NAME_TAKEN": -32005,
    "ALREADY_PROMOTED": -32006,
    "ASK_FAILED": -32007,
    "TEAM_FAILED": -32008,
}
(
    NOT_FOUND,
    AMBIGUOUS,
    BAD_QUERY,
    STORE_ERROR,
    NAME_TAKEN,
    ALREADY_PROMOTED,
    ASK_FAILED,
    TEAM_FAILED,
) = ERRORS.values()
