"""Is live capture working? Sessions the agents wrote that never reached the store say it is
not. Report-only: it discovers and compares, and never writes."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from lazy.agents import TOOL_NAMES, TOOLS
from lazy.capture.bulk_import import plan
from lazy.doctor.context import Context
from lazy.doctor.report import Check, Status

TITLE = "Conversation capture is live"
FIX = "lazy doctor --reimport-conversations"
# A session written this recently may simply not have been swept yet (every 30 s): in flight.
IN_FLIGHT = 5 * 60
RECENT = 24 * 3600  # uncaptured this recently: capture is broken now


@dataclass(slots=True)
class Stranded:
    tool: str
    session_id: str
    age: float  # seconds since its file was last written


def ago(seconds: float) -> str:
    """41m ago, 5h ago, 3d ago."""
    minutes = max(1, int(seconds // 60))
    if minutes < 60:
        return f"{minutes}m ago"
    hours = minutes // 60
    return f"{hours}h ago" if hours < 48 else f"{hours // 24}d ago"


def _by_tool(items: list[Stranded]) -> str:
    counts = Counter(s.tool for s in items)
    return ", ".join(f"{TOOL_NAMES[t]} {counts[t]}" for t in TOOLS if counts[t])


def _every_agent(conjunction: str) -> str:
    """The agents' names as a sentence says them: "Claude Code, Codex CLI or OpenCode"."""
    names = [TOOL_NAMES[t] for t in TOOLS]
    return ", ".join(names[:-1]) + f" {conjunction} " + names[-1] if len(names) > 1 else names[0]


def capture_check(ctx: Context) -> Check:
    """Sessions of every agent in its default places, all projects, against the store.
    lazy's one-shots are never captured, so never counted; nor are sessions deleted from
    the store on request, nor ones with nothing said in them."""
    store = ctx.need_store()
    now = time.time()
    stranded: list[Stranded] = []
    found = oneshots = deleted = 0
    unlisted: list[str] = []
    for tool in TOOLS:
        d = ctx.discovery(tool)
        p = plan(store, d)
        found += p.found
        oneshots += len(d.oneshots)
        deleted += len(p.deleted)
        unlisted += [f"{q.origin}: {q.reason}" for q in d.problems]
        for sid in p.missing:
            age = now - d.sessions[sid].mtime_ns / 1e9
            stranded.append(Stranded(tool, sid, age))
    flight = [s for s in stranded if s.age < IN_FLIGHT]
    recent = [s for s in stranded if IN_FLIGHT <= s.age < RECENT]
    old = [s for s in stranded if s.age >= RECENT]
    detail: list[str] = []
    if recent:
        newest = min(s.age for s in recent)
        detail += [
            f"{len(recent)} conversation(s) written in the last 24h (most recent {ago(newest)})"
            " are on disk",
            "but never reached the store — live capture is not running.",
            f"({_by_tool(recent)})",
        ]
    if old:
        newest = min(s.age for s in old)
        detail.append(
            f"{len(old)} older conversation(s) (most recent {ago(newest)}) are on disk but"
            f" never reached the store ({_by_tool(old)})."
        )
    if not found:
        detail.append(f"no sessions of {_every_agent('or')} in their default places")
    elif not recent and not old:
        detail.append(
            f"every conversation on disk is in the store ({found} session(s) of"
            f" {_every_agent('and')} in their default places)"
        )
    if flight:
        detail.append(
            f"{len(flight)} written in the last {IN_FLIGHT // 60} minutes are not in the store"
            " yet: treated as in flight (the sweep may not have ticked yet)"
        )
    if oneshots:
        detail.append(f"{oneshots} lazy one-shot(s) on disk: never captured, not counted")
    if deleted:
        detail.append(f"{deleted} deleted from the store by lazy doctor on request: not counted")
    if unlisted:
        detail.append(f"{len(unlisted)} source(s) could not be listed, e.g. {unlisted[0]}")
    status: Status = "fail" if recent else "warn" if old else "ok"
    return Check(TITLE, status, detail, FIX if status != "ok" else None)
