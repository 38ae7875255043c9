"""What every export format says the same way: a message's head, a call's state, an
attachment's label, a subagent's size (each format escapes them its own way)."""

from __future__ import annotations

from lazy.model import MessageView, Part, SubagentRef, ToolCall

ROLE = {"user": "User", "assistant": "Assistant", "system": "Harness"}


def head(m: MessageView) -> list[str]:
    """The message's number, role, time and model."""
    out = [f"#{m.number}", ROLE.get(m.role, m.role)]
    if m.timestamp:
        out.append(m.timestamp[:19].replace("T", " "))
    if m.model:
        out.append(m.model)
    return out


def states(t: ToolCall) -> list[str]:
    """How a call ended and what it found: exit status or error, duration, matches."""
    out = []
    if t.exit_code not in (None, 0):
        out.append(f"exit {t.exit_code}")
    elif t.is_error:
        out.append("error")
    if t.duration_ms is not None:
        out.append(f"{t.duration_ms / 1000:.1f} s")
    if t.matches is not None:
        out.append(f"{t.matches:,} {'match' if t.matches == 1 else 'matches'}")
    return out


def media(p: Part) -> str:
    """An image or file as the export names it (its bytes are not in the store's view)."""
    size = f"{p.bytes:,} bytes" if p.bytes else None
    what = " · ".join(x for x in (p.name, p.media_type, size) if x)
    return f"{p.kind}: {what} — not included"


def subagent(sub: SubagentRef) -> str:
    return " · ".join(x for x in (sub.agent_type, f"{sub.message_count} messages") if x)


def shows_output(t: ToolCall) -> bool:
    """An edit's or a checklist's result repeats the call: shown only when it failed."""
    return bool(t.output) and t.subagent is None and (t.is_error or not (t.diff or t.todos))
