"""Messages rendered for an agent's context, and a read cut to fit a token budget.

An agent reads with a context window, not a screen: each message is its number, role and
time, its words whole, each tool call on one line with its output folded to its head (the
whole output when asked), thinking and harness text folded to a line. A page holds whole
messages until the next one would pass the budget; a single message larger than the budget
alone is cut, and says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from lazy.mcp.results import ReadMessage
from lazy.model import MessageView, Part, ToolCall

CHARS_PER_TOKEN = 4  # the usual estimate for English and code; no tokenizer is loaded
OUTPUT_LINES = 3  # a folded output's head
OUTPUT_CHARS = 300


def tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def _head(text: str, lines: int, chars: int) -> tuple[str, bool]:
    kept = "\n".join(text.splitlines()[:lines])[:chars]
    return kept, len(kept) < len(text.rstrip())


def _tool(t: ToolCall, full: bool) -> list[str]:
    out = [f"→ {t.summary}" + (" (error)" if t.is_error else "")]
    if t.subagent is not None:
        s = t.subagent
        out.append(
            f"  subagent session {s.session_id} ({s.message_count} messages): read it with"
            f" session_id={s.session_id!r}"
        )
        if s.outcome:
            out.append(f"  answered: {_head(s.outcome, 2, 200)[0]}")
    if full:
        out += [d.diff for d in t.diff]
        out += [f"[{'x' if x.status == 'completed' else ' '}] {x.text}" for x in t.todos]
        if t.output:
            out.append(t.output)
        return out
    if t.todos:
        done = sum(x.status == "completed" for x in t.todos)
        out.append(f"  ({done}/{len(t.todos)} todos done)")
    if t.output:
        head, cut = _head(t.output, OUTPUT_LINES, OUTPUT_CHARS)
        total = t.output_chars or len(t.output)
        out.append("  " + head.replace("\n", "\n  "))
        if cut:
            out.append(f"  … output folded ({total:,} chars; full_outputs=true shows it)")
    return out


def _part(p: Part, full: bool) -> list[str]:
    if p.kind == "text":
        return [p.text]
    if p.kind == "thinking":
        if full:
            return [f"[thinking]\n{p.text}"]
        return [f"[thinking, {len(p.text):,} chars folded]" if p.text else "[thinking]"]
    if p.kind in ("harness", "notice"):
        if full:
            return [f"[{p.label}]\n{p.text}".rstrip()]
        return [f"[{p.label or p.kind}, {len(p.text):,} chars folded]"]
    if p.kind in ("image", "file"):
        size = f" {p.bytes:,} bytes" if p.bytes else ""
        return [f"[{p.kind} {p.name or p.media_type or ''}{size}]".replace("  ", " ")]
    if p.tool is not None:
        return _tool(p.tool, full)
    return []


def head_line(m: MessageView) -> str:
    bits = [f"#{m.number} {m.role}"]
    if m.timestamp:
        bits.append(m.timestamp)
    if m.model:
        bits.append(m.model)
    return "--- " + " · ".join(bits) + " ---"


def body(m: MessageView, *, full: bool) -> str:
    if not m.parts:
        return m.text
    return "\n".join(x for p in m.parts for x in _part(p, full))


def shown(m: MessageView, *, full: bool) -> ReadMessage:
    return ReadMessage(
        number=m.number,
        role=m.role,
        timestamp=m.timestamp,
        model=m.model,
        text=body(m, full=full),
        absorbed=list(m.absorbed),
    )


def as_text(m: ReadMessage) -> str:
    head = head_line(
        MessageView(
            number=m.number, role=m.role, text="", session_id="", timestamp=m.timestamp,
            kinds=[], model=m.model,
        )
    )  # fmt: skip
    return f"{head}\n{m.text}\n"


def _cost(m: ReadMessage) -> int:
    """A message's tokens as the caller receives it: the larger of its text rendering and its
    JSON (Claude Code hands the model the structured content, keys and escapes included)."""
    return max(tokens(as_text(m)), tokens(m.model_dump_json()))


@dataclass
class Page:
    messages: list[ReadMessage] = field(default_factory=list)
    tokens: int = 0
    stopped_at: int | None = None  # the first message left for the next page
    cut: bool = False  # the one message shown was cut to the budget


def fill(views: Iterable[MessageView], budget: int, *, full: bool) -> Page:
    """Whole messages of ``views`` while they fit ``budget`` tokens; the first alone is cut
    to it when it is larger."""
    page = Page()
    for v in views:
        m = shown(v, full=full)
        n = _cost(m)
        if page.tokens + n > budget:
            if page.messages:
                page.stopped_at = v.number
                return page
            room = max(budget * CHARS_PER_TOKEN - 400, 200)
            left = len(m.text) - room
            m.text = m.text[:room] + f"\n… [message cut to the budget: {left:,} chars left out]"
            page.cut = True
            n = _cost(m)
        page.messages.append(m)
        page.tokens += n
    return page
