"""Synthetic Codex rollouts and OpenCode stores for the `lazy import <tool>` tests, and the
CLI run in-process (click's runner: one process, so a test can monkeypatch the importer).

Rollouts are written in Codex's envelope format, line for line as 0.1xx writes a turn
(formats.md §2.2): ``task_started``, ``turn_context``, the prompt on both channels
(``response_item`` message and ``event_msg/user_message``), reasoning on both, a call and its
output paired by ``call_id``, the reply on both. OpenCode stores reuse the builders of
``tests/unit/test_opencode_reader.py`` (OpenCode's own DDL, 1.1.65's JSON tree).
"""

from __future__ import annotations

import json
import sqlite3
import sys
import uuid as uuidlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
from click.testing import CliRunner, Result

_UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if _UNIT not in sys.path:  # the OpenCode builders live beside the reader's tests
    sys.path.append(_UNIT)

from test_opencode_reader import (  # noqa: E402
    DDL,
    Conv,
    create_db,
    text,
    tool,
    write_oldest_tree,
    write_v1_tree,
)

from lazy.cli.main import cli  # noqa: E402
from support.claude_session import Session  # noqa: E402

__all__ = [
    "DDL",
    "Conv",
    "Rollout",
    "Session",
    "claude_subagent",
    "count_rows",
    "create_db",
    "invoke",
    "memories",
    "oc_conv",
    "report",
    "text",
    "tool",
    "write_oldest_tree",
    "write_v1_tree",
]

APP_CWD = "/home/u/dev/app"


# ---- the CLI ------------------------------------------------------------------------------


def invoke(*args: str, ok: bool = True) -> Result:
    """``lazy <args>`` in this process; with ``ok``, a non-zero exit fails the test."""
    r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    if ok and r.exit_code != 0:
        raise AssertionError(f"lazy {' '.join(args)} exited {r.exit_code}:\n{r.output}")
    return r


def report(*args: str) -> dict[str, Any]:
    """The JSON report of ``lazy <args> --json``."""
    out: dict[str, Any] = json.loads(invoke(*args, "--json").stdout)
    return out


def memories(lazy_home: Path) -> list[dict[str, Any]]:
    """Every stored memory, meta parsed, in path order (read-only, straight from SQLite)."""
    db = lazy_home / "store.db"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "SELECT id, tree, name, content, meta, temporal, updated_at FROM memories"
            " ORDER BY tree, name"
        ).fetchall()
    finally:
        con.close()
    return [
        {
            "id": r[0],
            "tree": r[1],
            "name": r[2],
            "path": f"{r[1]}/{r[2]}",
            "content": r[3],
            "meta": json.loads(r[4]),
            "temporal": r[5],
            "updated_at": r[6],
        }
        for r in rows
    ]


def count_rows(lazy_home: Path, table: str) -> int:
    con = sqlite3.connect(f"file:{lazy_home / 'store.db'}?mode=ro", uri=True)
    try:
        return int(con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    finally:
        con.close()


# ---- Codex rollouts -----------------------------------------------------------------------


@dataclass
class Call:
    name: str
    arguments: dict[str, Any]
    output: str
    call_id: str = ""


class Rollout:
    """One Codex thread's rollout file under ``<codex_home>/sessions/YYYY/MM/DD/``.

    Lines are built, then written with :meth:`write` (or held back to append later)."""

    def __init__(
        self,
        codex_home: Path,
        cwd: str = APP_CWD,
        *,
        thread_id: str | None = None,
        started: str = "2026-03-01T10:00:00",
        forked_from: str | None = None,
        parent: str | None = None,
        version: str = "0.104.0",
        model: str = "gpt-5.1-codex",
        git: dict[str, str] | None = None,
        meta: bool = True,
    ) -> None:
        self.id = thread_id or str(uuidlib.uuid4())
        self.cwd = cwd
        self.model = model
        self.t = datetime.fromisoformat(started).replace(tzinfo=UTC)
        day = self.t.strftime("%Y/%m/%d")
        stamp = self.t.strftime("%Y-%m-%dT%H-%M-%S")
        self.path = codex_home / "sessions" / day / f"rollout-{stamp}-{self.id}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.turns = 0
        self.calls = 0
        self.start = self._ts()
        if meta:
            payload: dict[str, Any] = {
                "id": self.id,
                "timestamp": self.start,
                "cwd": cwd,
                "originator": "codex_cli_rs",
                "cli_version": version,
                "source": "cli",
                "model_provider": "openai",
                "git": git or {},
            }
            if forked_from:
                payload["forked_from_id"] = forked_from
            if parent:
                payload["source"] = {
                    "subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}
                }
            self.write(self.line("session_meta", payload, ts=self.start))

    def _ts(self) -> str:
        self.t += timedelta(seconds=1)
        return self.t.strftime("%Y-%m-%dT%H:%M:%S.000Z")

    def line(self, kind: str, payload: dict[str, Any], ts: str | None = None) -> bytes:
        obj = {"timestamp": ts or self._ts(), "type": kind, "payload": payload}
        return orjson.dumps(obj) + b"\n"

    def write(self, *lines: bytes | list[bytes]) -> None:
        with open(self.path, "ab") as f:
            for item in lines:
                f.write(b"".join(item) if isinstance(item, list) else item)

    # -- items ------------------------------------------------------------------------------

    def user_item(self, words: str) -> bytes:
        content = [{"type": "input_text", "text": words}]
        return self.line("response_item", {"type": "message", "role": "user", "content": content})

    def user_event(self, words: str) -> bytes:
        return self.line(
            "event_msg",
            {"type": "user_message", "message": words, "images": [], "text_elements": []},
        )

    def assistant_item(self, words: str, item_id: str | None = None) -> bytes:
        p: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": words}],
        }
        if item_id:
            p["id"] = item_id
        return self.line("response_item", p)

    def assistant_event(self, words: str) -> bytes:
        return self.line("event_msg", {"type": "agent_message", "message": words})

    def reasoning_item(self, words: str) -> bytes:
        return self.line(
            "response_item",
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": words}],
                "content": None,
                "encrypted_content": "b3BhcXVl",
            },
        )

    def reasoning_event(self, words: str) -> bytes:
        return self.line("event_msg", {"type": "agent_reasoning", "text": words})

    def call_lines(self, call: Call) -> list[bytes]:
        self.calls += 1
        call.call_id = call.call_id or f"call_{self.id[:8]}_{self.calls}"
        return [
            self.line(
                "response_item",
                {
                    "type": "function_call",
                    "name": call.name,
                    "arguments": json.dumps(call.arguments),
                    "call_id": call.call_id,
                },
            ),
            self.line(
                "response_item",
                {"type": "function_call_output", "call_id": call.call_id, "output": call.output},
            ),
        ]

    def turn_lines(
        self,
        prompt: str,
        reply: str,
        *,
        reasoning: str | None = None,
        call: Call | None = None,
        events: bool = True,
    ) -> list[bytes]:
        """What one turn writes; ``events``: the event_msg copies too (0.1xx writes both)."""
        self.turns += 1
        turn = f"turn-{self.id[:8]}-{self.turns}"
        out = [
            self.line("event_msg", {"type": "task_started", "turn_id": turn}),
            self.line(
                "turn_context",
                {"turn_id": turn, "cwd": self.cwd, "model": self.model, "approval_policy": "never"},
            ),
            self.user_item(prompt),
        ]
        if events:
            out.append(self.user_event(prompt))
        if reasoning:
            if events:
                out.append(self.reasoning_event(reasoning))
            out.append(self.reasoning_item(reasoning))
        if call:
            out += self.call_lines(call)
        if events:
            out.append(self.assistant_event(reply))
        out.append(self.assistant_item(reply))
        out.append(self.line("event_msg", {"type": "task_complete", "turn_id": turn}))
        return out

    def turn(self, prompt: str, reply: str, **kw: Any) -> list[bytes]:
        lines = self.turn_lines(prompt, reply, **kw)
        self.write(lines)
        return lines


# ---- OpenCode -----------------------------------------------------------------------------


def oc_conv(
    sid: str, cwd: str = APP_CWD, turns: int = 2, *, title: str = "Probe title", start: int = 0
) -> Conv:
    """An OpenCode session of ``turns`` prompt/answer pairs run in ``cwd``."""
    c = Conv(sid, title=title)
    c.info["directory"] = cwd
    if start:
        c.info["time"] = {"created": start, "updated": start + 60_000}
    for i in range(turns):
        c.user(text(f"{sid} question {i}"))
        c.assistant(
            {"type": "reasoning", "text": f"{sid} thinking {i}"},
            text(f"{sid} answer {i}"),
            tool("bash", f"toolu_{sid[-6:]}_{i}", "completed", {"command": "ls"}, output="a b"),
        )
    return c


# ---- Claude Code --------------------------------------------------------------------------


def claude_subagent(main: Session, agent_id: str, prompt: str, reply: str) -> Path:
    """A subagent's file as Claude Code 2.x lays it out: ``<session>/subagents/agent-<id>.jsonl``
    beside the main session's file, every line a sidechain line naming the agent."""
    sub = Session(main.path.parent.parent, main.cwd, session_id=main.id, version=main.version)
    sub.path = main.path.parent / main.id / "subagents" / f"agent-{agent_id}.jsonl"
    sub.path.parent.mkdir(parents=True, exist_ok=True)
    side = {"isSidechain": True, "agentId": agent_id}
    sub.write(sub.line("user", message={"role": "user", "content": prompt}, **side))
    sub.write(
        sub.line(
            "assistant",
            requestId="req_sub",
            message={
                "id": f"msg_sub_{agent_id}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": reply}],
                "usage": {"input_tokens": 3, "output_tokens": 7},
            },
            **side,
        )
    )
    return sub.path
