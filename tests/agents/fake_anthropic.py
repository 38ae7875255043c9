"""A scripted fake of the Anthropic Messages API, good enough to drive the real Claude Code CLI.

Runs on 127.0.0.1 (meant to live inside a loopback-only network namespace together with the CLI).

* ``POST /v1/messages`` (streaming SSE and plain JSON), ``POST /v1/messages/count_tokens``;
  every other path gets a small JSON 404 (GET /) or an empty 200 so the CLI never crashes.
* Replies for the *main* conversation come from a list of :class:`Rule` objects matched on the
  request (text of the last user message, a ``tool_result`` for a given tool_use id, the system
  prompt). A rule fires at most ``times`` times; unmatched main requests get a default text that
  is recorded as "unscripted" so tests can complain about it.
* Side calls Claude Code makes on its own (title/topic generation, quota probes, compaction
  summaries, ...) are recognised first and answered with harmless canned replies, so they never
  consume the scripted rules.
* Every request and the reply chosen are appended to a JSON-lines log (fake_http.py).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from fake_http import FakeHandler, FakeServer, argv_port, chunks

JsonDict = dict[str, Any]

COMPACT_SUMMARY_TEXT = (
    "<summary>\nlazy-fake-compact-summary: the user and the assistant exchanged scripted "
    "test messages.\n</summary>"
)
DEFAULT_TEXT = "lazy-fake-default-reply"
WARMUP_TEXT = "lazy-fake-warmup-reply"
TITLE_TEXT = "lazy-fake-title"


# --------------------------------------------------------------------------------------------
# Reply building blocks
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """One content block of a scripted reply."""

    kind: str  # "text" | "thinking" | "tool_use"
    text: str = ""
    name: str = ""
    input: JsonDict = field(default_factory=dict)
    id: str = ""

    def to_json(self) -> JsonDict:
        if self.kind == "text":
            return {"type": "text", "text": self.text}
        if self.kind == "thinking":
            return {"type": "thinking", "thinking": self.text, "signature": _signature(self.text)}
        if self.kind == "tool_use":
            return {"type": "tool_use", "id": self.id, "name": self.name, "input": self.input}
        raise ValueError(f"unknown block kind {self.kind!r}")


def text(value: str) -> Block:
    return Block("text", text=value)


def thinking(value: str) -> Block:
    return Block("thinking", text=value)


def tool_use(tool_id: str, name: str, tool_input: JsonDict) -> Block:
    return Block("tool_use", name=name, input=tool_input, id=tool_id)


def _signature(value: str) -> str:
    return "fakesig" + format(abs(hash(value)) % (1 << 48), "x")


# --------------------------------------------------------------------------------------------
# Request inspection helpers
# --------------------------------------------------------------------------------------------


def _content_blocks(message: JsonDict) -> list[JsonDict]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def system_text(body: JsonDict) -> str:
    system = body.get("system")
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict))
    return ""


def last_user_message(body: JsonDict) -> JsonDict | None:
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            return message
    return None


def last_user_text(body: JsonDict) -> str:
    """Text blocks of the last user message (tool results excluded), joined by newlines."""
    message = last_user_message(body)
    if message is None:
        return ""
    return "\n".join(
        str(b.get("text", "")) for b in _content_blocks(message) if b.get("type") == "text"
    )


def last_tool_result_ids(body: JsonDict) -> list[str]:
    message = last_user_message(body)
    if message is None:
        return []
    return [
        str(b.get("tool_use_id"))
        for b in _content_blocks(message)
        if b.get("type") == "tool_result"
    ]


def request_session_id(body: JsonDict) -> str | None:
    """Claude Code puts its session id into ``metadata.user_id`` (a JSON string)."""
    user_id = (body.get("metadata") or {}).get("user_id")
    if not isinstance(user_id, str):
        return None
    try:
        value = json.loads(user_id)
    except json.JSONDecodeError:
        match = re.search(r"session_([0-9a-f-]{36})", user_id)
        return match.group(1) if match else None
    return str(value.get("session_id")) if isinstance(value, dict) else None


def all_text(body: JsonDict) -> str:
    parts = [system_text(body)]
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            for b in _content_blocks(message):
                if b.get("type") == "text":
                    parts.append(str(b.get("text", "")))
                elif b.get("type") == "tool_result":
                    parts.append(json.dumps(b.get("content"), ensure_ascii=False))
    return "\n".join(parts)


# --------------------------------------------------------------------------------------------
# Rules and side-call classification
# --------------------------------------------------------------------------------------------


@dataclass
class Rule:
    """A scripted reply for a main-conversation request.

    All given conditions must hold. ``user_contains`` looks at the text blocks of the last user
    message, ``tool_result_for`` at its tool_result blocks, ``system_contains`` at the system
    prompt and ``any_contains`` at the whole request text.
    """

    name: str
    reply: list[Block]
    user_contains: str | None = None
    tool_result_for: str | None = None
    system_contains: str | None = None
    any_contains: str | None = None
    times: int = 1  # 0 = unlimited
    stop_reason: str | None = None  # derived from the blocks when None
    delay: float = 0.0  # seconds the fake "thinks" before answering (to observe busy states)
    used: int = 0

    def matches(self, body: JsonDict) -> bool:
        if self.times and self.used >= self.times:
            return False
        if self.user_contains is not None and self.user_contains not in last_user_text(body):
            return False
        if self.tool_result_for is not None and self.tool_result_for not in last_tool_result_ids(
            body
        ):
            return False
        if self.system_contains is not None and self.system_contains not in system_text(body):
            return False
        return self.any_contains is None or self.any_contains in all_text(body)

    def final_stop_reason(self) -> str:
        if self.stop_reason:
            return self.stop_reason
        return "tool_use" if any(b.kind == "tool_use" for b in self.reply) else "end_turn"


@dataclass(frozen=True)
class Decision:
    kind: str  # "main" | "side:<what>" | "unscripted"
    rule: str | None
    blocks: list[Block]
    stop_reason: str
    delay: float = 0.0


SideClassifier = Callable[[JsonDict], Decision | None]


def classify_side_call(body: JsonDict) -> Decision | None:
    """Recognise requests Claude Code makes on its own, outside the scripted conversation."""
    system = system_text(body)
    user = last_user_text(body)
    tools = body.get("tools") or []
    max_tokens = int(body.get("max_tokens") or 0)
    low_user = user.lower()
    low_system = system.lower()

    # Compaction summary request (manual /compact or auto-compact).
    if (
        "create a detailed summary of the conversation" in low_user
        or "summarize this conversation" in low_system
        or "summarizing conversations" in low_system
        or ("<summary>" in user and "summary" in low_user and "your task" in low_user)
    ):
        return Decision("side:compact", None, [text(COMPACT_SUMMARY_TEXT)], "end_turn")
    # Older releases (1.0.x, 2.0.x) make more helper calls of their own, even with
    # CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1: subagent cache warm-ups (2.0.x: a Task run with
    # the prompt "Warmup" per built-in agent), "frequently modified files" from git history, the
    # files a Bash command touched, and a short conversation title (1.0.x writes it as a
    # `summary` line).
    if not tools and user.strip() == "Warmup":
        return Decision("side:warmup", None, [text(WARMUP_TEXT)], "end_turn")
    if "analyzing git history" in low_system:
        return Decision("side:git-history", None, [text("README.md")], "end_turn")
    if "extract any file paths that this command reads or modifies" in low_system:
        reply = (
            "<is_displaying_contents>\nfalse\n</is_displaying_contents>\n<filepaths>\n</filepaths>"
        )
        return Decision("side:bash-paths", None, [text(reply)], "end_turn")
    if not tools and "summarize this coding conversation in under 50 characters" in low_system:
        return Decision("side:title", None, [text(TITLE_TEXT)], "end_turn")
    # Quota / connectivity probe: "quota" prompt with a tiny max_tokens.
    if max_tokens and max_tokens <= 8 and not tools:
        return Decision("side:probe", None, [text("ok")], "end_turn")
    if low_user.strip() == "quota":
        return Decision("side:probe", None, [text("ok")], "end_turn")
    # Title / topic / summary helpers: tool-less, JSON-shaped or "title" in system prompt.
    if not tools and (
        "title" in low_system
        or "new conversation topic" in low_system
        or "isnewtopic" in low_system.replace("_", "")
    ):
        if "isnewtopic" in low_system.replace("_", "") or "new conversation topic" in low_system:
            reply = '{"isNewTopic": false, "title": null}'
        elif "json" in low_system:
            reply = '{"title": "Lazy fake session"}'
        else:
            reply = "Lazy fake session"
        return Decision("side:title", None, [text(reply)], "end_turn")
    if not tools and ("output_format" in body or "response_format" in body):
        return Decision(
            "side:structured", None, [text('{"title": "Lazy fake session"}')], "end_turn"
        )
    return None


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------


class AnthropicHandler(FakeHandler):
    server_version = "lazy-fake-anthropic/1"
    fake: ClassVar[FakeAnthropic]

    def json_headers(self) -> dict[str, str]:
        return {"request-id": f"req_lazyfake{time.monotonic_ns()}"}

    def get_reply(self, route: str) -> tuple[int, JsonDict]:
        if route == "/v1/models":
            return 200, {"data": [], "has_more": False, "first_id": None, "last_id": None}
        return 404, {
            "type": "error",
            "error": {"type": "not_found_error", "message": "fake: not found"},
        }

    def handle_post(self, route: str, body: JsonDict) -> bool:
        if route == "/v1/messages/count_tokens":
            tokens = max(1, len(json.dumps(body)) // 4)
            self.fake.record({"kind": "count_tokens", "path": self.path})
            self.send_json(200, {"input_tokens": tokens})
            return True
        if route != "/v1/messages":
            return False
        self._messages(body)
        return True

    def _messages(self, body: JsonDict) -> None:
        fake = self.fake
        decision = fake.decide(body)
        if decision.delay:
            time.sleep(decision.delay)
        model = str(body.get("model") or "claude-fake")
        msg_id = fake.next_id("msg")
        blocks = [b.to_json() for b in decision.blocks]
        input_tokens = max(1, len(json.dumps(body.get("messages") or [])) // 4)
        output_tokens = max(1, len(json.dumps(blocks)) // 4)
        usage = {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "service_tier": "standard",
        }
        fake.record(
            {
                "kind": decision.kind,
                "rule": decision.rule,
                "path": self.path,
                "time": time.time(),
                "model": model,
                "stream": bool(body.get("stream")),
                "max_tokens": body.get("max_tokens"),
                "n_tools": len(body.get("tools") or []),
                "tool_names": [
                    t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)
                ],
                "system_head": system_text(body)[:400],
                "last_user_text": last_user_text(body)[-1500:],
                "tool_results": last_tool_result_ids(body),
                "n_messages": len(body.get("messages") or []),
                "message_id": msg_id,
                "session_id": request_session_id(body),
                "reply": blocks,
                "stop_reason": decision.stop_reason,
                "body": body if fake.log_full_bodies else None,
            }
        )
        message = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": blocks,
            "stop_reason": decision.stop_reason,
            "stop_sequence": None,
            "usage": usage,
        }
        if not body.get("stream"):
            self.send_json(200, message)
            return
        self.send_sse(
            sse_events(message),
            content_type="text/event-stream; charset=utf-8",
            headers=self.json_headers(),
        )


class FakeAnthropic(FakeServer[Rule]):
    """Scripted fake Anthropic API. Use as a context manager or call start()/stop()."""

    handler_class = AnthropicHandler

    def __init__(
        self,
        rules: list[Rule] | None = None,
        log_path: Path | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        side_classifier: SideClassifier = classify_side_call,
    ) -> None:
        super().__init__(rules, log_path, host, port)
        self.side_classifier = side_classifier

    def decide(self, body: JsonDict) -> Decision:
        side = self.side_classifier(body)
        if side is not None:
            return side
        rule = self.take_rule(body)
        if rule is None:
            return Decision("unscripted", None, [text(DEFAULT_TEXT)], "end_turn")
        return Decision("main", rule.name, list(rule.reply), rule.final_stop_reason(), rule.delay)


def sse_events(message: JsonDict) -> list[tuple[str, JsonDict]]:
    """The Messages API streaming events that deliver ``message`` (a complete response)."""
    usage = message["usage"]
    start = dict(message, content=[], stop_reason=None, usage=dict(usage, output_tokens=1))
    events: list[tuple[str, JsonDict]] = [
        ("message_start", {"type": "message_start", "message": start}),
        ("ping", {"type": "ping"}),
    ]

    def delta(index: int, body: JsonDict) -> None:
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": body})
        )

    for index, block in enumerate(message["content"]):
        kind = block["type"]
        if kind == "text":
            opening: JsonDict = {"type": "text", "text": ""}
        elif kind == "thinking":
            opening = {"type": "thinking", "thinking": "", "signature": ""}
        else:
            opening = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
        )
        if kind == "text":
            for piece in chunks(block["text"]):
                delta(index, {"type": "text_delta", "text": piece})
        elif kind == "thinking":
            for piece in chunks(block["thinking"]):
                delta(index, {"type": "thinking_delta", "thinking": piece})
            delta(index, {"type": "signature_delta", "signature": block["signature"]})
        else:
            for piece in chunks(json.dumps(block["input"]), 24):
                delta(index, {"type": "input_json_delta", "partial_json": piece})
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


if __name__ == "__main__":  # manual debugging: python fake_anthropic.py [port]
    rules = [Rule("echo", [text("hello from the fake")], times=0)]
    FakeAnthropic(
        rules, Path("fake_anthropic.log.jsonl"), port=argv_port()
    ).serve_until_interrupted()
