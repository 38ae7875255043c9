"""Codex CLI rollouts, written in Codex's envelope format line for line as 0.1xx writes a turn
(formats.md §2.2): ``task_started``, ``turn_context``, the prompt on both channels
(``response_item`` message and ``event_msg/user_message``), reasoning on both, a call and its
output paired by ``call_id``, the reply on both.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from . import APP_CWD


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
        self.id = thread_id or str(uuid.uuid4())
        self.cwd = cwd
        self.model = model
        self.t = datetime.fromisoformat(started).replace(tzinfo=UTC)
        day = self.t.strftime("%Y/%m/%d")
        stamp = self.t.strftime("%Y-%m-%dT%H-%M-%S")
        self.path = codex_home / "sessions" / day / f"rollout-{stamp}-{self.id}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.turns = 0
        self.calls = 0
        self.total: dict[str, int] = {}  # the running token_count total
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

    def token_count(self, input_tokens: int, cached: int, output: int, reasoning: int = 0) -> bytes:
        """The ``event_msg/token_count`` Codex writes after a model response: that response's
        tokens (``last_token_usage``) and the thread's running total. Codex writes it again,
        totals unchanged, when only its rate limits changed: :meth:`token_count_again`."""
        last = {
            "input_tokens": input_tokens,
            "cached_input_tokens": cached,
            "output_tokens": output,
            "reasoning_output_tokens": reasoning,
            "total_tokens": input_tokens + output,
        }
        self.total = {k: self.total.get(k, 0) + v for k, v in last.items()}
        return self.token_count_again(last)

    def token_count_again(self, last: dict[str, int] | None = None) -> bytes:
        info = None
        if self.total:
            info = {
                "total_token_usage": dict(self.total),
                "last_token_usage": last or dict(self.total),
                "model_context_window": 258400,
            }
        limits = {"limit_id": "codex", "primary": {"used_percent": 1.0, "window_minutes": 300}}
        return self.line("event_msg", {"type": "token_count", "info": info, "rate_limits": limits})

    def turn(self, prompt: str, reply: str, **kw: Any) -> list[bytes]:
        lines = self.turn_lines(prompt, reply, **kw)
        self.write(lines)
        return lines
