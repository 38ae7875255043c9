"""Types shared by every layer.

Readers emit the light dataclasses of lazy.records (re-exported here); surfaces (CLI JSON,
the sidecar protocol) use the pydantic models below.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

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
    status: Literal["ok", "warn", "fail"]
    detail: list[str] = Field(default_factory=list)
    fix: str | None = None  # the command that fixes a warning or failure


class DoctorReport(BaseModel):
    status: Literal["ok", "warn", "fail"]  # the worst of the checks
    checks: list[HealthCheck]
