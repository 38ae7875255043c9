"""Types shared by every layer.

Readers emit the light dataclasses (they run once per source line, so they stay cheap);
surfaces (CLI JSON, the sidecar protocol) use the pydantic models at the bottom.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

# lazy's own machine one-shots start their prompt with this marker, so the session file
# carries it durably. Detection is anchored at the very start of the session's first user
# message (see protocol/oneshot.md); a conversation that merely quotes it is still captured.
ONESHOT_MARKER = "[lazy:one-shot v1]"

Role = Literal["user", "assistant", "reasoning", "tool_call", "tool_result", "system"]


@dataclass(slots=True)
class Entry:
    """One node of an agent's uuid DAG (a source line that carries a uuid)."""

    uuid: str
    logical_parent_uuid: str | None  # a compaction boundary's: the entry it continues from
    meta: bool  # harness-injected (caveats, expanded prompts): never used to link sessions


@dataclass(slots=True)
class MessagePart:
    """What one source line contributes to a message; lines sharing a key are one message."""

    key: str  # message.id for assistant API messages, else the line's uuid
    uuid: str
    role: Role
    blocks: list[dict[str, Any]]
    timestamp: str | None
    line_no: int
    model: str | None = None
    request_id: str | None = None
    usage: dict[str, Any] | None = None
    meta: bool = False  # harness text (expanded command prompt, compact summary)
    provider: str | None = None  # model provider (openai, anthropic, ...) when the source says
    agent_mode: str | None = None  # OpenCode's agent (build, plan, ...)


@dataclass(slots=True)
class SessionFacts:
    """Per-session facts a reader learns while streaming; merged across capture batches."""

    cwd: str | None = None
    git_branch: str | None = None
    version: str | None = None
    first_timestamp: str | None = None
    last_timestamp: str | None = None
    title: str | None = None
    clear_start: bool = False  # the session was opened by /clear
    continued_in: str | None = None  # `continued-in` record: the conversation moved on there
    # the session this one's opening lines were copied from (a fork, or a 1.0.x resume)
    copied_from: str | None = None
    forked: bool = False  # the copy says outright it is a fork (forkedFrom, 2.1.x)
    head_msg: str | None = None  # first assistant message.id: 1.0.x resumes replay it
    oneshot: bool = False
    first_user_seen: bool = False
    head_uuid: str | None = None  # first user/assistant entry that is not harness text
    head_parent: str | None = None
    tail_uuid: str | None = None  # the last entry read
    git_commit: str | None = None
    git_repo: str | None = None  # remote URL
    provider: str | None = None
    cursor: str | None = None  # reader state carried from one capture to the next (Codex: its turn)

    def saw(self, ts: str | None) -> None:
        """Widen the session's time span to take in ``ts`` (ISO 8601, UTC)."""
        if ts is None:
            return
        if self.first_timestamp is None or ts < self.first_timestamp:
            self.first_timestamp = ts
        if self.last_timestamp is None or ts > self.last_timestamp:
            self.last_timestamp = ts


@dataclass(slots=True)
class Quarantined:
    line_no: int
    offset: int
    reason: str
    raw: bytes
    origin: str | None = None  # the file, when not the one being captured (OpenCode's records)


@dataclass(slots=True)
class ReadBatch:
    """The reader's output for a run of complete lines, keyed by session key."""

    entries: dict[str, list[Entry]] = field(default_factory=dict)
    parts: dict[str, list[MessagePart]] = field(default_factory=dict)
    facts: dict[str, SessionFacts] = field(default_factory=dict)
    sidechain_of: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    quarantine: list[Quarantined] = field(default_factory=list)
    # uuids of harness messages (an untagged caveat) earlier batches kept, now known to be
    # boilerplate because the built-in command they introduced arrived
    retract: dict[str, list[str]] = field(default_factory=dict)
    spawns: set[tuple[str, str]] = field(default_factory=set)  # (session, agent id) it ran
    unknown_types: dict[str, int] = field(default_factory=dict)
    lines: int = 0


# ---- surface models -------------------------------------------------------------------


class SidechainInfo(BaseModel):
    session_id: str
    agent_id: str | None = None
    message_count: int = 0


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


class MessageView(BaseModel):
    number: int
    role: str
    text: str
    session_id: str
    timestamp: str | None
    kinds: list[str]
    model: str | None = None
    tool_name: str | None = None
    calls: list[str] = Field(default_factory=list)  # tool calls made alongside the words


class SidechainView(BaseModel):
    session_id: str
    agent_id: str | None = None
    messages: list[MessageView] = Field(default_factory=list)


class Transcript(BaseModel):
    builder: BuilderInfo
    messages: list[MessageView]
    sidechains: list[SidechainView] = Field(default_factory=list)


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


# ---- per-message memories (lazy import <tool>, get, ls) ---------------------------------


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
    sidechain: bool = False  # said in a subagent of the Builder
    field: Literal["conversation", "tools", "memory"] = "conversation"
    kind: Literal["conversation", "task", "memory"] = "conversation"
    memory_path: str | None = None  # a memory's path, for ``lazy get``


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
    status: Literal["ok", "warn", "fail"]
    detail: list[str] = Field(default_factory=list)
    fix: str | None = None  # the command that fixes a warning or failure


class DoctorReport(BaseModel):
    status: Literal["ok", "warn", "fail"]  # the worst of the checks
    checks: list[HealthCheck]
