"""Normalized content blocks (tool-agnostic): the role a message plays and how it reads.

Blocks are dicts with a ``type``: text, thinking, redacted_thinking, tool_use (name, input),
tool_result (text, is_error), image (media_type, bytes; never the base64 payload).
"""

from __future__ import annotations

from typing import Any

import orjson

from lazy.records import Role

# Tool output and tool inputs are cut to this many characters in derived rows; the whole
# of them stays in the raw archive.
TOOL_OUTPUT_KEPT = 16 * 1024


def clip(value: Any) -> Any:
    """A tool input with long strings (a whole file being written) cut to their head."""
    if isinstance(value, str) and len(value) > TOOL_OUTPUT_KEPT:
        return value[:TOOL_OUTPUT_KEPT] + f"… ({len(value):,} characters in all)"
    if isinstance(value, dict):
        return {k: clip(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clip(v) for v in value]
    return value


def result_block(tool_use_id: Any, text: str, is_error: bool) -> dict[str, Any]:
    """A tool_result block: the output's head, and its full length when cut."""
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "text": text[:TOOL_OUTPUT_KEPT],
        "is_error": is_error,
    }
    if len(text) > TOOL_OUTPUT_KEPT:
        block["chars"] = len(text)
    return block


def role_of(blocks: list[dict[str, Any]], provisional: Role) -> Role:
    """The role a whole message plays, from its block kinds."""
    if provisional == "system":
        return "system"
    kinds = {b["type"] for b in blocks}
    if "text" in kinds or "image" in kinds:
        return provisional
    if provisional == "assistant":
        if "tool_use" in kinds:
            return "tool_call"
        if kinds & {"thinking", "redacted_thinking"}:
            return "reasoning"
    if provisional == "user" and "tool_result" in kinds:
        return "tool_result"
    return provisional


def _said(b: dict[str, Any]) -> str | None:
    if b["type"] == "text":
        return str(b["text"])
    if b["type"] == "image":
        return f"[image {b.get('media_type') or ''} {b.get('bytes', '?')} bytes]"
    return None


def spoken(blocks: list[dict[str, Any]]) -> str:
    """The words of a message: its text blocks (and image placeholders), nothing else."""
    return "\n\n".join(t for t in map(_said, blocks) if t)


def render(blocks: list[dict[str, Any]]) -> str:
    """A message as text: the words said, else its reasoning, tool calls or tool output."""
    said = spoken(blocks)
    if said:
        return said
    rest = (render_block(b) for b in blocks if b["type"] in ("thinking", "tool_result", "tool_use"))
    return "\n\n".join(r for r in rest if r)


def render_block(b: dict[str, Any]) -> str:
    """One block as text, whatever its kind (a full-transcript rendering)."""
    kind = b["type"]
    if kind in ("text", "thinking"):
        return str(b.get("text", ""))
    if kind == "tool_use":
        args = orjson.dumps(b.get("input"), option=orjson.OPT_SORT_KEYS).decode()
        return f"{b.get('name')}({args})"
    if kind == "tool_result":
        more = b.get("chars")
        return str(b.get("text", "")) + (f"\n… ({more:,} characters in all)" if more else "")
    if kind == "image":
        return _said(b) or ""
    if kind == "redacted_thinking":
        return "[redacted thinking]"
    if kind == "file":
        return f"[file {b.get('filename') or ''} {b.get('media_type') or ''}]".replace("  ", " ")
    if kind == "subtask":
        return f"[subtask {b.get('agent') or ''}] {b.get('description') or ''}\n{b.get('prompt') or ''}"
    if kind == "patch":
        return "[patch] " + ", ".join(str(f) for f in b.get("files") or [])
    if kind == "compaction":
        return "[compaction]"
    if kind == "agent":
        return f"[agent {b.get('name') or ''}]"
    return f"[{kind}]"


def render_all(blocks: list[dict[str, Any]]) -> str:
    """Every block of a message, joined with blank lines."""
    return "\n\n".join(t for t in map(render_block, blocks) if t)


def note_calls(blocks: list[dict[str, Any]], names: dict[str, str]) -> None:
    """Remember the tool calls in ``blocks`` (call id -> tool name)."""
    for b in blocks:
        if b["type"] == "tool_use" and b.get("id") and b.get("name"):
            names[str(b["id"])] = str(b["name"])


def answered(blocks: list[dict[str, Any]], names: dict[str, str]) -> str | None:
    """The tool whose call a message's tool_result answers, among the calls noted."""
    for b in blocks:
        if b["type"] == "tool_result" and str(b.get("tool_use_id")) in names:
            return names[str(b.get("tool_use_id"))]
    return None
