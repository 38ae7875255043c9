"""Types shared by every layer.

Readers emit the light dataclasses of lazy.records (re-exported here); surfaces (CLI JSON,
the sidecar protocol) use the pydantic models below.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr

from lazy.records import ONESHOT_MARKER as ONESHOT_MARKER
from lazy.records import Entry as Entry
from lazy.records import MessagePart as MessagePart
from lazy.records import Quarantined as Quarantined
from lazy.records import ReadBatch as ReadBatch
from lazy.records import Role as Role
from lazy.records import SessionFacts as SessionFacts

# ---- surface models -------------------------------------------------------------------


class SidechainInfo(BaseModel):
    session_id: str
    agent_id: str | None = None
    message_count: int = 0


class Tokens(BaseModel):
    """Tokens of some model responses, each counted once, and what they cost.

    ``input`` is the input billed at the full rate (cache reads and writes apart);
    ``output`` includes ``reasoning``. ``cost_micros`` is in millionths of a US dollar, of
    the responses whose model has a known price; ``unpriced`` responses had none (their
    cost is unknown, never counted as 0); None when no response has a price."""

    responses: int = 0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    cost_micros: int | None = None
    unpriced: int = 0
    # the exact sum cost_micros rounds (sums of many responses are rounded once)
    _exact: Decimal | None = PrivateAttr(default=None)


class ModelTokens(Tokens):
    model: str | None = None
    provider: str | None = None


class UsageInfo(BaseModel):
    """A Builder's usage: totals, its subagents' part apart, per model, and the provenance
    of the prices (``prices of genai-prices 0.2.3``)."""

    total: Tokens = Field(default_factory=Tokens)
    main: Tokens = Field(default_factory=Tokens)  # the Builder's own line
    subagents: Tokens = Field(default_factory=Tokens)
    models: list[ModelTokens] = Field(default_factory=list)
    context: int | None = None  # the input of its latest main response: its context size
    prices: str = ""


class BuilderInfo(BaseModel):
    id: str
    short_id: str
    tool: str
    project: str | None
    started_at: str | None
    updated_at: str | None
    message_count: int
    summary: str
    title: str | None = None
    session_ids: list[str] = Field(default_factory=list)
    sidechains: list[SidechainInfo] = Field(default_factory=list)
    forked_from: str | None = None
    alias: str | None = None  # its name in the session registry (`lazy alias`), if any
    usage: UsageInfo | None = None  # tokens and cost, where the surface asked for them


ToolKind = Literal[
    "shell", "read", "edit", "write", "search", "todo", "web", "task", "mcp", "plan", "other"
]


class DiffFile(BaseModel):
    """One file a tool call changed, as a unified diff (``---``/``+++`` header, hunks)."""

    path: str
    diff: str
    added: int = 0
    removed: int = 0
    language: str | None = None  # for highlighting, from the file's name


class TodoItem(BaseModel):
    text: str
    status: str = "pending"  # pending | in_progress | completed (as the agent says it)


class SubagentRef(BaseModel):
    """The subagent a tool call spawned, as its parent shows it."""

    session_id: str
    agent_id: str | None = None
    description: str | None = None
    agent_type: str | None = None
    message_count: int = 0
    outcome: str | None = None  # the head of its last answer


class ToolCall(BaseModel):
    """One tool call paired with its result: the input in full, what came back."""

    id: str | None = None
    name: str  # as the agent names it
    kind: ToolKind = "other"  # what it does, the same word for every agent
    summary: str  # one line: ``$ ls -la``, ``Read src/a.py (lines 1-80)``
    input: Any = None
    output: str | None = None  # None: no result recorded (yet)
    output_chars: int | None = None  # the output's full length when the store kept its head
    is_error: bool = False
    exit_code: int | None = None
    duration_ms: int | None = None
    matches: int | None = None  # a search's results (files or lines)
    first_line: int | None = None  # a read's output is the file's text from this line
    language: str | None = None  # a read file's, for the highlighter
    diff: list[DiffFile] = Field(default_factory=list)
    todos: list[TodoItem] = Field(default_factory=list)
    subagent: SubagentRef | None = None
    mcp_server: str | None = None
    result_number: int | None = None  # the message that carried the result, when another


PartKind = Literal["text", "thinking", "tool", "image", "file", "harness", "notice"]


class Part(BaseModel):
    """One piece of a message, in order. ``text``: Markdown source (text, thinking, harness,
    notice); ``tool``: the call; ``label``: what a harness item or notice is."""

    kind: PartKind
    text: str = ""
    label: str | None = None
    tool: ToolCall | None = None
    media_type: str | None = None  # image, file
    bytes: int | None = None
    name: str | None = None


class MessageView(BaseModel):
    number: int
    role: str  # user | assistant | system (harness) | tool_result (a result with no call shown)
    text: str  # the words said (text blocks), else how the message reads as text
    session_id: str
    timestamp: str | None
    kinds: list[str]
    model: str | None = None
    tool_name: str | None = None
    parts: list[Part] = Field(default_factory=list)
    # messages shown inside this one (tool results under their calls), by number
    absorbed: list[int] = Field(default_factory=list)
    turn: int = 0  # the number of the user message that opened this turn; 0: before any
    harness: bool = False  # the whole message is the harness's, not anyone's words
    tokens: Tokens | None = None  # what this model response cost, when the agent says


class SidechainView(BaseModel):
    session_id: str
    agent_id: str | None = None
    messages: list[MessageView] = Field(default_factory=list)


class Transcript(BaseModel):
    builder: BuilderInfo
    messages: list[MessageView]
    sidechains: list[SidechainView] = Field(default_factory=list)


class Task(BaseModel):
    """A backlog task promoted from a range of a Builder's messages (``lazy conversations
    promote``). Only the Builder's own line can be promoted from, not a subagent's."""

    code: str  # unique: given, or a slug of the goal made unique
    goal: str
    prompt: str
    parent: str | None = None  # another task's code
    status: Literal["backlog"] = "backlog"  # promoting never starts it
    created_at: str
    builder_id: str
    from_message: int  # numbers from 1 in the Builder, both ends included
    to_message: int
    usage: Tokens | None = None  # what the range's model responses cost


class QuarantineInfo(BaseModel):
    file: str
    line: int
    reason: str


class SkipInfo(BaseModel):
    session_id: str
    path: str
    reason: str


class ImportReport(BaseModel):
    found: int = 0
    missing: int = 0
    already_imported: int = 0
    imported: list[str] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)
    skipped: list[SkipInfo] = Field(default_factory=list)
    refused: list[SkipInfo] = Field(default_factory=list)
    ignored_oneshots: int = 0
    quarantined: list[QuarantineInfo] = Field(default_factory=list)
    messages_added: int = 0
    bytes_read: int = 0
    dry_run: bool = False


# ---- per-message memories (lazy import <agent>, get, ls) --------------------------------


class MemoryView(BaseModel):
    id: str
    path: str
    tree: str
    name: str
    content: str
    meta: dict[str, Any]
    temporal: str | None
    created_at: str
    updated_at: str


class TreeChild(BaseModel):
    name: str
    path: str
    kind: Literal["node", "memory"]
    count: int  # memories at or below it


class SessionImport(BaseModel):
    session_id: str
    parent_session_id: str | None = None  # a subagent's (child thread's) session
    node: str  # the session's tree node
    project_slug: str
    cwd: str | None = None
    messages: int = 0  # memories planned for it
    inserted: int = 0
    updated: int = 0
    skipped: int = 0


class SessionSkip(BaseModel):
    session_id: str
    kind: Literal["project", "temp_cwd", "since", "until", "no_start", "trivial", "empty"]
    reason: str
    cwd: str | None = None


class AgentImportReport(BaseModel):
    tool: str
    dry_run: bool = False
    content_mode: Literal["default", "full_transcript"] = "default"
    sources: list[str] = Field(default_factory=list)
    found: int = 0  # sessions found under the sources
    sessions: list[SessionImport] = Field(default_factory=list)
    skipped_sessions: list[SessionSkip] = Field(default_factory=list)
    inserted: int = 0
    updated: int = 0
    skipped: int = 0  # memories already stored as planned
    quarantined: list[QuarantineInfo] = Field(default_factory=list)
    errors: list[SkipInfo] = Field(default_factory=list)  # sessions that could not be read


# ---- search (lazy search, lazy index) ------------------------------------------------------


class SearchHit(BaseModel):
    number: int
    role: str
    session_id: str
    timestamp: str | None
    score: float
    snippet: str  # plain text of the best passage
    highlights: list[tuple[int, int]] = Field(default_factory=list)  # char ranges in snippet
    # what the query matched in the whole message, as written there (a phrase's words one
    # space apart), else the query's words: highlighted, case ignored, where the hit opens
    terms: list[str] = Field(default_factory=list)
    sidechain: bool = False  # said in a subagent of the Builder
    field: Literal["conversation", "tools", "memory"] = "conversation"
    kind: Literal["conversation", "task", "memory"] = "conversation"
    memory_path: str | None = None  # a memory's path, for ``lazy get``
    task_code: str | None = None  # a task's code, for ``lazy tasks show``


class SearchGroup(BaseModel):
    builder_id: str
    short_id: str
    started_at: str | None
    project: str | None
    tool: str
    summary: str
    score: float
    hits: list[SearchHit]


class SearchResults(BaseModel):
    query: str
    total_hits: int  # matching messages
    groups: list[SearchGroup]


class IndexStatus(BaseModel):
    path: str
    documents: int
    lag: int  # messages changed in the store and not yet searchable
    size_bytes: int
    schema_version: int
    rebuilt: str | None = None  # why the index had to be started afresh, if it had


# ---- lazy doctor -------------------------------------------------------------------------


class HealthCheck(BaseModel):
    """One line of `lazy doctor` (``lazy.doctor.report.Check`` as it travels)."""

    title: str
    status: Literal["ok", "info", "warn", "fail"]  # info: worth knowing, nothing to fix
    detail: list[str] = Field(default_factory=list)
    fix: str | None = None  # the command that fixes a warning or failure


class DoctorReport(BaseModel):
    status: Literal["ok", "warn", "fail"]  # the worst of the checks
    checks: list[HealthCheck]
