"""Normalized content blocks (tool-agnostic): the role a message plays and how it reads.

Blocks are dicts with a ``type``: text, thinking, redacted_thinking, tool_use (name, input),
tool_result (text, is_error), image (media_type, bytes; never the base64 payload).
"""

from __future__ import annotations

from typing import Any

import orjson

from lazy.model import Role


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
    rest: list[str] = []
    for b in blocks:
        kind = b["type"]
        if kind == "thinking":
            rest.append(b["text"])
        elif kind == "tool_result":
            more = b.get("chars")
            rest.append(b["text"] + (f"\n… ({more:,} characters in all)" if more else ""))
        elif kind == "tool_use":
            args = orjson.dumps(b.get("input"), option=orjson.OPT_SORT_KEYS).decode()
            rest.append(f"{b.get('name')}({args})")
    return "\n\n".join(r for r in rest if r)


def calls(blocks: list[dict[str, Any]], width: int = 160) -> list[str]:
    """One line per tool call: ``Bash({"command": "ls"})``, cut to ``width``."""
    out = []
    for b in blocks:
        if b["type"] == "tool_use":
            args = orjson.dumps(b.get("input"), option=orjson.OPT_SORT_KEYS).decode()
            line = f"{b.get('name')}({args})"
            out.append(line if len(line) <= width else line[: width - 1] + "…")
    return out
