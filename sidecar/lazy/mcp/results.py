"""The tools' structured outputs (their JSON Schema is each tool's ``outputSchema``)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Match(BaseModel):
    """One matching message of a conversation."""

    number: int  # the message's number in its line (lazy_conversation_read's start)
    role: str
    timestamp: str | None
    snippet: str
    subagent_session: str | None = None  # said in this subagent's session, not the main line
    kind: str = "conversation"  # conversation | task | memory


class Found(BaseModel):
    """One conversation (Builder) with matching messages."""

    id: str  # the Builder id: give it to lazy_conversation_read / _ask
    short_id: str
    summary: str
    started_at: str | None
    project: str | None
    agent: str
    matches: list[Match]


class SearchOutput(BaseModel):
    query: str
    scope: str  # the project searched, or "all projects"
    total_matches: int
    conversations: list[Found]
    elsewhere: int = 0  # conversations matching in other projects, when none matched here
    hint: str = ""


class Listed(BaseModel):
    id: str
    short_id: str
    summary: str
    agent: str
    project: str | None
    started_at: str | None
    updated_at: str | None
    messages: int
    subagents: int = 0
    alias: str | None = None
    tokens: int | None = None  # input + output + cache tokens of its model responses
    cost_usd: float | None = None  # None: no response with a known price


class ListOutput(BaseModel):
    scope: str
    conversations: list[Listed]
    hint: str = ""


class ReadMessage(BaseModel):
    number: int
    role: str
    timestamp: str | None
    model: str | None = None
    text: str  # the message's parts rendered: words, tool calls summarised, outputs folded
    absorbed: list[int] = Field(default_factory=list)  # results shown under their calls


class ReadOutput(BaseModel):
    id: str
    short_id: str
    summary: str
    agent: str
    project: str | None
    session_id: str | None  # the subagent line read; None: the conversation's own line
    total: int  # messages in the line read
    first: int
    last: int
    messages: list[ReadMessage]
    tokens: int  # estimated tokens of this page's messages (about 4 characters a token)
    next_start: int | None  # where the next page starts; None: this is the end
    next: str  # how to get the next page, in words


class AskOutput(BaseModel):
    id: str
    answer: str
    chunks: int
    relevant_chunks: int
    warnings: list[str] = Field(default_factory=list)
