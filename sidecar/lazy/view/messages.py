"""The message view model: stored messages made into what every surface shows.

Each message becomes ordered parts (text, thinking, tool calls paired with their results,
attachments, harness items), the same shape for every agent; what a tool call is comes from
that agent's ``tools`` module. A message that only carries results of calls shown above it
is shown inside them (``absorbed``), so a page is cut at whole steps. Nothing is cut here:
views fold.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lazy.agents import AGENTS
from lazy.agents.base import ToolKnowledge
from lazy.agents.tools import CallShape, ResultShape, listed, unknown
from lazy.blocks import render, spoken
from lazy.model import MessageView, Part, SidechainInfo, SubagentRef, ToolCall
from lazy.store.queries import StoredMessage

_ASSISTANT_SIDE = frozenset({"assistant", "tool_call", "reasoning"})


class _Plain:
    """Knowledge of an agent lazy has no ``tools`` module for: every call is its name."""

    @staticmethod
    def describe(name: str, value: Any) -> CallShape:
        return unknown(name, value)

    @staticmethod
    def describe_result(name: str, output: str) -> ResultShape:
        return ResultShape(output)

    @staticmethod
    def harness_label(text: str) -> str | None:
        return None

    @staticmethod
    def harness_split(text: str) -> list[tuple[str | None, str]]:
        return [(None, text)]


def knowledge(agent: str) -> ToolKnowledge:
    a = AGENTS.get(agent)
    if a is None or a.tool_knowledge is None:
        return _Plain()
    return a.tool_knowledge()


@dataclass
class Subagents:
    """A Builder's subagents, to find the one a call spawned: by the prompt it was handed,
    else by the agent id its result names."""

    sides: list[SidechainInfo]
    asked: dict[str, str] = field(default_factory=dict)  # session -> its first user words
    answered: dict[str, str] = field(default_factory=dict)  # session -> its last answer

    def find(self, shape: CallShape, output: str | None) -> SubagentRef | None:
        side = None
        prompt = (shape.subagent_prompt or "").strip()
        if prompt:
            side = next((s for s in self.sides if self.asked.get(s.session_id) == prompt), None)
        if side is None and output:
            side = next((s for s in self.sides if s.agent_id and s.agent_id in output[:4096]), None)
        if side is None:
            return None
        outcome = self.answered.get(side.session_id) or None
        return SubagentRef(
            session_id=side.session_id,
            agent_id=side.agent_id,
            description=shape.subagent_description,
            agent_type=shape.subagent_type,
            message_count=side.message_count,
            outcome=outcome[:400] if outcome else None,
        )


@dataclass
class _Result:
    block: dict[str, Any]
    number: int


def _results(rows: list[StoredMessage]) -> dict[str, _Result]:
    out: dict[str, _Result] = {}
    for r in rows:
        for b in r.blocks:
            if b["type"] == "tool_result" and b.get("tool_use_id") is not None:
                out.setdefault(str(b["tool_use_id"]), _Result(b, r.number))
    return out


def _tool(
    b: dict[str, Any],
    result: _Result | None,
    here: int,
    know: ToolKnowledge,
    subagents: Subagents | None,
) -> tuple[ToolCall, list[str]]:
    """The call, and the harness text its result carried (shown beside it)."""
    name = str(b.get("name") or "tool")
    value = b.get("input")
    shape = know.describe(name, value)
    call = ToolCall(
        id=str(b["id"]) if b.get("id") is not None else None,
        name=name,
        kind=shape.kind,
        summary=shape.summary,
        input=value,
        diff=shape.diff,
        todos=shape.todos,
        mcp_server=shape.mcp_server,
        language=shape.language,
    )
    reminders: list[str] = []
    if result is not None:
        said = know.describe_result(name, str(result.block.get("text", "")))
        call.output = said.output
        call.output_chars = result.block.get("chars")
        call.is_error = bool(result.block.get("is_error"))
        code, took = result.block.get("exit_code"), result.block.get("duration_ms")
        call.exit_code = code if isinstance(code, int) else said.exit_code
        call.duration_ms = took if isinstance(took, int) else said.duration_ms
        call.is_error = call.is_error or call.exit_code not in (None, 0)
        call.result_number = result.number if result.number != here else None
        reminders = said.reminders
        call.first_line = said.first_line
        if shape.kind == "search":
            call.matches = said.matches if said.matches is not None else listed(said.output)
    if shape.kind == "task" and subagents is not None:
        call.subagent = subagents.find(shape, call.output)
    return call, reminders


def _orphan(b: dict[str, Any], name: str | None) -> ToolCall:
    """A result whose call is not in view (an earlier page, or never recorded)."""
    return ToolCall(
        id=str(b.get("tool_use_id")) if b.get("tool_use_id") is not None else None,
        name=name or "tool",
        summary=f"Result of {name}" if name else "Tool result",
        output=str(b.get("text", "")),
        output_chars=b.get("chars"),
        is_error=bool(b.get("is_error")),
    )


def _notice(b: dict[str, Any]) -> Part:
    kind = b["type"]
    if kind == "subtask":
        what = str(b.get("description") or "")
        prompt = str(b.get("prompt") or "")
        return Part(
            kind="notice",
            label=f"Subtask {b.get('agent') or ''}".strip(),
            text="\n\n".join(t for t in (what, prompt) if t),
        )
    if kind == "patch":
        return Part(
            kind="notice", label="Patch", text="\n".join(str(f) for f in b.get("files") or [])
        )
    if kind == "compaction":
        return Part(
            kind="harness",
            label="Compaction",
            text="The conversation was compacted" + (" automatically." if b.get("auto") else "."),
        )
    if kind == "agent":
        return Part(kind="notice", label="Agent", text=str(b.get("name") or ""))
    return Part(kind="notice", label=kind)


@dataclass
class _Builder:
    know: ToolKnowledge
    results: dict[str, _Result]
    subagents: Subagents | None
    names: dict[str, str] = field(default_factory=dict)  # call id -> tool name, as seen
    absorbed: dict[int, int] = field(default_factory=dict)  # result message -> its call's

    def parts(self, r: StoredMessage) -> list[Part]:
        out: list[Part] = []
        words = r.role in ("user", "system")
        for b in r.blocks:
            kind = b["type"]
            if kind == "text":
                text = str(b.get("text", ""))
                label = self.know.harness_label(text) if words else None
                if label is not None or r.meta:
                    out.append(Part(kind="harness", label=label or "System", text=text))
                elif text:
                    out.append(Part(kind="text", text=text))
            elif kind == "thinking":
                out.append(Part(kind="thinking", text=str(b.get("text", ""))))
            elif kind == "redacted_thinking":
                out.append(Part(kind="thinking", label="redacted"))
            elif kind == "tool_use":
                call_id = str(b.get("id")) if b.get("id") is not None else None
                found = self.results.get(call_id) if call_id else None
                if call_id:
                    self.names[call_id] = str(b.get("name") or "")
                call, reminders = _tool(b, found, r.number, self.know, self.subagents)
                out.append(Part(kind="tool", tool=call))
                out += [Part(kind="harness", label="System reminder", text=t) for t in reminders]
            elif kind == "tool_result":
                if str(b.get("tool_use_id")) in self.names:
                    continue  # shown under its call
                name = r.tool_name or None
                out.append(Part(kind="tool", tool=_orphan(b, name)))
            elif kind in ("image", "file"):
                out.append(
                    Part(
                        kind=kind,
                        media_type=b.get("media_type"),
                        bytes=b.get("bytes"),
                        name=b.get("filename"),
                    )
                )
            else:
                out.append(_notice(b))
        return out

    def _text(self, text: str, words: bool, meta: bool) -> list[Part]:
        """A text block: the person's (or the assistant's) words, and the harness's items
        in a user line, each labelled."""
        if not words:
            return [Part(kind="text", text=text)] if text else []
        out = []
        for label, piece in self.know.harness_split(text):
            if label is not None or meta:
                out.append(Part(kind="harness", label=label or "System", text=piece))
            elif piece:
                out.append(Part(kind="text", text=piece))
        return out

    def absorbs(self, r: StoredMessage) -> bool:
        """Whether every block of ``r`` is a result of a call already shown."""
        return bool(r.blocks) and all(
            b["type"] == "tool_result" and str(b.get("tool_use_id")) in self.names for b in r.blocks
        )


def _role(r: StoredMessage, parts: list[Part]) -> str:
    if r.meta or (parts and all(p.kind == "harness" for p in parts) and r.role != "assistant"):
        return "system"
    if r.role in _ASSISTANT_SIDE:
        return "assistant"
    return r.role


def build(
    rows: list[StoredMessage],
    agent: str,
    *,
    subagents: Subagents | None = None,
    turn: int = 0,
    project: str | None = None,
) -> list[MessageView]:
    """The view of ``rows`` (consecutive messages of one line): a message that only answers
    calls shown above it is folded into the message that made them."""
    b = _Builder(knowledge(agent), _results(rows), subagents)
    out: list[MessageView] = []
    owner: dict[str, MessageView] = {}  # call id -> the view that shows it
    for r in rows:
        if b.absorbs(r):
            for blk in r.blocks:
                view = owner.get(str(blk.get("tool_use_id")))
                if view is not None and r.number not in view.absorbed:
                    view.absorbed.append(r.number)
            continue
        parts = b.parts(r)
        if project:
            _relative(parts, project.rstrip("/") + "/")
        role = _role(r, parts)
        if role == "user":
            turn = r.number
        view = MessageView(
            number=r.number,
            role=role,
            text=r.text if r.text else render(r.blocks),
            session_id=r.session_id,
            timestamp=r.timestamp,
            kinds=r.kinds,
            model=r.model,
            tool_name=r.tool_name or _first_tool(parts),
            parts=parts,
            turn=turn,
            harness=role == "system",
        )
        for p in parts:
            if p.tool is not None and p.tool.id and p.tool.output is not None:
                owner[p.tool.id] = view
        out.append(view)
    return out


def _relative(parts: list[Part], prefix: str) -> None:
    """Paths in the project said from it, in summaries and diffs (the input keeps them)."""
    for p in parts:
        if p.tool is not None:
            p.tool.summary = p.tool.summary.replace(prefix, "")
            for d in p.tool.diff:
                d.path = d.path.removeprefix(prefix)
                d.diff = d.diff.replace(f"a/{prefix}", "a/").replace(f"b/{prefix}", "b/")


def _first_tool(parts: list[Part]) -> str | None:
    return next((p.tool.name for p in parts if p.tool is not None), None)


# ---- text of a view (ask, promote, find, plain exports) --------------------------------------


def call_lines(m: MessageView) -> list[str]:
    """One line per tool call of a message: its summary."""
    return [p.tool.summary for p in m.parts if p.tool is not None]


_WS = re.compile(r"\s+")


def searchable(m: MessageView) -> Iterable[str]:
    """Every piece of text a person can see in a message, expanded: what find looks in."""
    for p in m.parts:
        if p.text:
            yield p.text
        if p.label:
            yield p.label
        t = p.tool
        if t is None:
            continue
        yield t.summary
        if t.output:
            yield t.output
        for d in t.diff:
            yield d.diff
        for todo in t.todos:
            yield todo.text
    if not m.parts:
        yield m.text


def words_of(m: MessageView) -> str:
    """A message's words, else how it reads as text (the ask prompt, a task's seed)."""
    return spoken([{"type": "text", "text": p.text} for p in m.parts if p.kind == "text"]) or m.text


def as_text(m: MessageView, *, outputs: bool = True) -> str:
    """A message as plain text: its words, then each tool call on a line (``→ summary``) with
    its output under it; harness items and thinking by their label."""
    out: list[str] = []
    for p in m.parts:
        if p.kind == "text":
            out.append(p.text)
        elif p.kind == "thinking":
            out.append(f"[thinking]\n{p.text}" if p.text else "[thinking, redacted]")
        elif p.kind in ("harness", "notice"):
            out.append(f"[{p.label}]\n{p.text}".rstrip())
        elif p.kind in ("image", "file"):
            size = f" {p.bytes:,} bytes" if p.bytes else ""
            out.append(f"[{p.kind} {p.name or p.media_type or ''}{size}]".replace("  ", " "))
        elif p.tool is not None:
            t = p.tool
            out.append(f"→ {t.summary}")
            if outputs:
                out += [d.diff for d in t.diff]
                out += [f"[{'x' if x.status == 'completed' else ' '}] {x.text}" for x in t.todos]
                if t.output:
                    out.append(t.output)
    return "\n\n".join(out) if m.parts else m.text
