"""A scripted fake of the OpenAI Responses API, good enough to drive the real Codex CLI.

Runs on 127.0.0.1 (meant to live inside a loopback-only network namespace together with the CLI).

* ``POST /v1/responses`` streams the SSE events codex-rs parses (``response.created``,
  ``response.output_item.added``/``done``, ``response.output_text.delta``,
  ``response.reasoning_summary_text.delta``, ``response.completed`` with usage); a request
  without ``"stream": true`` gets the whole response object as JSON.
* ``GET /v1/models`` answers an empty list (both the OpenAI ``data`` and Codex's ``models``
  shape); any other path gets an empty JSON 200 (POST) or a JSON 404 (GET) so the CLI never
  stalls on it. Every request is logged.
* Replies come from :class:`Rule` objects matched on the request: the text of the latest user
  message (only when the request ends with a user message, i.e. a new turn) or a
  ``function_call_output`` for a given call id that arrived after it (a tool follow-up).
  A rule fires at most ``times`` times; an unmatched request gets a default text and is recorded
  as "unscripted" so tests can complain.
* A :func:`shell_call` reply names the shell tool by what the request offers (``shell``,
  ``shell_command``, ``exec_command``, ``local_shell``): releases differ in which one they send.
* Every request and the reply chosen are appended to a JSON-lines log.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from fake_http import FakeHandler, FakeServer, argv_port, chunks

JsonDict = dict[str, Any]

DEFAULT_TEXT = "lazy-fake-openai-default-reply"
SHELL_TOOLS = ("shell_command", "shell", "exec_command", "local_shell")


# --------------------------------------------------------------------------------------------
# Reply building blocks
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One output item of a scripted reply."""

    kind: str  # "message" | "reasoning" | "function_call" | "shell"
    text: str = ""
    name: str = ""
    arguments: JsonDict = field(default_factory=dict)
    call_id: str = ""
    namespace: str = ""  # a tool inside a `namespace` tool (Codex 0.171: an MCP server's)


def message(value: str) -> Item:
    return Item("message", text=value)


def reasoning(summary: str) -> Item:
    return Item("reasoning", text=summary)


def function_call(call_id: str, name: str, arguments: JsonDict, namespace: str = "") -> Item:
    return Item(
        "function_call", name=name, arguments=arguments, call_id=call_id, namespace=namespace
    )


def shell_call(call_id: str, command: str) -> Item:
    """A call to whichever shell tool the request offers, running ``command`` with bash."""
    return Item("shell", text=command, call_id=call_id)


def resolve_shell(item: Item, tools: list[str], workdir: str | None) -> tuple[str, JsonDict]:
    """Tool name and arguments for a :func:`shell_call`, by the tools the CLI offered."""
    name = next((t for t in SHELL_TOOLS if t in tools), "shell")
    if name == "shell_command":
        args: JsonDict = {"command": item.text}
    elif name == "exec_command":
        args = {"cmd": item.text}
    else:
        args = {"command": ["bash", "-lc", item.text]}
    if workdir and name in ("shell", "shell_command"):
        args["workdir"] = workdir
    return name, args


def item_json(item: Item, item_id: str, tools: list[str], workdir: str | None) -> JsonDict:
    if item.kind == "message":
        return {
            "type": "message",
            "id": item_id,
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": item.text, "annotations": []}],
        }
    if item.kind == "reasoning":
        return {
            "type": "reasoning",
            "id": item_id,
            "summary": [{"type": "summary_text", "text": item.text}],
        }
    name, args = item.name, item.arguments
    if item.kind == "shell":
        name, args = resolve_shell(item, tools, workdir)
    call = {
        "type": "function_call",
        "id": item_id,
        "status": "completed",
        "name": name,
        "arguments": json.dumps(args),
        "call_id": item.call_id,
    }
    if item.namespace:
        call["namespace"] = item.namespace
    return call


# --------------------------------------------------------------------------------------------
# Request inspection helpers
# --------------------------------------------------------------------------------------------


def _input(body: JsonDict) -> list[JsonDict]:
    items = body.get("input")
    if isinstance(items, str):
        return [{"type": "message", "role": "user", "content": items}]
    return [i for i in items or [] if isinstance(i, dict)]


def message_text(item: JsonDict) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(
        str(part.get("text", ""))
        for part in content or []
        if isinstance(part, dict) and part.get("type") in ("input_text", "output_text", "text")
    )


def _is_user_message(item: JsonDict) -> bool:
    return item.get("type", "message") == "message" and item.get("role") == "user"


def last_user_text(body: JsonDict) -> str:
    """Text of the latest user message (harness messages included: they are role user too)."""
    for item in reversed(_input(body)):
        if _is_user_message(item):
            return message_text(item)
    return ""


def is_new_turn(body: JsonDict) -> bool:
    """True when the request ends with a user message (not a tool follow-up)."""
    items = _input(body)
    return bool(items) and _is_user_message(items[-1])


def tool_outputs_since_user(body: JsonDict) -> dict[str, str]:
    """``call_id -> output`` of the function_call_outputs after the latest user message."""
    out: dict[str, str] = {}
    for item in reversed(_input(body)):
        if _is_user_message(item):
            break
        if item.get("type") in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            if isinstance(output, dict):
                output = output.get("content", json.dumps(output))
            elif isinstance(output, list):
                output = "\n".join(str(p.get("text", "")) for p in output if isinstance(p, dict))
            out[str(item.get("call_id"))] = str(output)
    return out


def tool_names(body: JsonDict) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        if isinstance(tool, dict):
            names.append(str(tool.get("name") or tool.get("type") or ""))
    return names


# --------------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------------


@dataclass
class Rule:
    """A scripted reply. All given conditions must hold.

    ``user_contains`` matches a new turn whose latest user message holds the text;
    ``tool_output_for`` matches a follow-up carrying the output of that call id.
    """

    name: str
    reply: list[Item]
    user_contains: str | None = None
    tool_output_for: str | None = None
    times: int = 1  # 0 = unlimited
    used: int = 0

    def matches(self, body: JsonDict) -> bool:
        if self.times and self.used >= self.times:
            return False
        if self.tool_output_for is not None:
            if self.tool_output_for not in tool_outputs_since_user(body):
                return False
        elif not is_new_turn(body):
            return False
        return self.user_contains is None or self.user_contains in last_user_text(body)


@dataclass(frozen=True)
class Decision:
    kind: str  # "main" | "unscripted"
    rule: str | None
    items: list[Item]


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------


class OpenAIHandler(FakeHandler):
    server_version = "lazy-fake-openai/1"
    fake: ClassVar[FakeOpenAI]

    def get_reply(self, route: str) -> tuple[int, JsonDict]:
        if route.rstrip("/").endswith("/models"):
            return 200, {"object": "list", "data": [], "models": []}
        return 404, {"error": {"type": "not_found", "message": "fake"}}

    def handle_post(self, route: str, body: JsonDict) -> bool:
        if not route.rstrip("/").endswith("/responses"):
            return False
        fake = self.fake
        decision, response = fake.build_response(body)
        fake.record(
            {
                "kind": decision.kind,
                "rule": decision.rule,
                "path": self.path,
                "time": time.time(),
                "model": body.get("model"),
                "stream": bool(body.get("stream")),
                "tool_names": tool_names(body),
                "new_turn": is_new_turn(body),
                "last_user_text": last_user_text(body)[-1500:],
                "tool_outputs": tool_outputs_since_user(body),
                "n_input": len(_input(body)),
                "input_types": [
                    f"{i.get('type', 'message')}:{i.get('role', '')}" for i in _input(body)
                ],
                "session_header": self.headers.get("session_id") or self.headers.get("session-id"),
                "response_id": response["id"],
                "reply": response["output"],
                "body": body if fake.log_full_bodies else None,
            }
        )
        if not body.get("stream"):
            self.send_json(200, response)
            return True
        self.send_sse(
            ((event["type"], event) for event in sse_events(response)),
            headers={"x-request-id": f"req_lazyfake{time.monotonic_ns()}"},
        )
        return True


class FakeOpenAI(FakeServer[Rule]):
    """Scripted fake OpenAI Responses API. Use as a context manager or call start()/stop()."""

    handler_class = OpenAIHandler
    base_path = "/v1"  # what a Codex ``model_providers.<id>.base_url`` should hold

    def __init__(
        self,
        rules: list[Rule] | None = None,
        log_path: Path | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        workdir: str | None = None,
    ) -> None:
        super().__init__(rules, log_path, host, port)
        self.workdir = workdir  # passed as the shell tool's workdir argument

    def responses(self) -> list[JsonDict]:
        return self.main_requests()

    def decide(self, body: JsonDict) -> Decision:
        rule = self.take_rule(body)
        if rule is None:
            return Decision("unscripted", None, [message(DEFAULT_TEXT)])
        return Decision("main", rule.name, list(rule.reply))

    def build_response(self, body: JsonDict) -> tuple[Decision, JsonDict]:
        decision = self.decide(body)
        tools = tool_names(body)
        prefixes = {"message": "msg", "reasoning": "rs"}
        output = [
            item_json(item, self.next_id(prefixes.get(item.kind, "fc")), tools, self.workdir)
            for item in decision.items
        ]
        input_tokens = max(1, len(json.dumps(body.get("input") or [])) // 4)
        output_tokens = max(1, len(json.dumps(output)) // 4)
        reasoning_tokens = sum(len(i.text) // 4 for i in decision.items if i.kind == "reasoning")
        response = {
            "id": self.next_id("resp"),
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "model": str(body.get("model") or "gpt-fake"),
            "output": output,
            "usage": {
                "input_tokens": input_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": output_tokens,
                "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
                "total_tokens": input_tokens + output_tokens,
            },
        }
        return decision, response


def sse_events(response: JsonDict) -> list[JsonDict]:
    """The Responses API streaming events that deliver ``response`` (a complete response)."""
    head = dict(response, status="in_progress", output=[], usage=None)
    events: list[JsonDict] = [
        {"type": "response.created", "response": head},
        {"type": "response.in_progress", "response": head},
    ]
    for index, item in enumerate(response["output"]):
        kind = item["type"]
        if kind == "message":
            opening = dict(item, status="in_progress", content=[])
        elif kind == "reasoning":
            opening = dict(item, summary=[])
        else:
            opening = dict(item, status="in_progress", arguments="")
        events.append(
            {"type": "response.output_item.added", "output_index": index, "item": opening}
        )
        common = {"item_id": item["id"], "output_index": index}
        if kind == "message":
            text = item["content"][0]["text"]
            part = {"type": "output_text", "text": "", "annotations": []}
            events.append(
                {"type": "response.content_part.added", **common, "content_index": 0, "part": part}
            )
            for piece in chunks(text):
                events.append(
                    {
                        "type": "response.output_text.delta",
                        **common,
                        "content_index": 0,
                        "delta": piece,
                    }
                )
            events.append(
                {"type": "response.output_text.done", **common, "content_index": 0, "text": text}
            )
            events.append(
                {
                    "type": "response.content_part.done",
                    **common,
                    "content_index": 0,
                    "part": item["content"][0],
                }
            )
        elif kind == "reasoning":
            for summary_index, summary in enumerate(item["summary"]):
                part = {"type": "summary_text", "text": ""}
                events.append(
                    {
                        "type": "response.reasoning_summary_part.added",
                        **common,
                        "summary_index": summary_index,
                        "part": part,
                    }
                )
                for piece in chunks(summary["text"]):
                    events.append(
                        {
                            "type": "response.reasoning_summary_text.delta",
                            **common,
                            "summary_index": summary_index,
                            "delta": piece,
                        }
                    )
                events.append(
                    {
                        "type": "response.reasoning_summary_text.done",
                        **common,
                        "summary_index": summary_index,
                        "text": summary["text"],
                    }
                )
        else:
            for piece in chunks(item["arguments"], 24):
                events.append(
                    {"type": "response.function_call_arguments.delta", **common, "delta": piece}
                )
            events.append(
                {
                    "type": "response.function_call_arguments.done",
                    **common,
                    "arguments": item["arguments"],
                }
            )
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": response})
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


if __name__ == "__main__":  # manual debugging: python fake_openai.py [port]
    rules = [Rule("echo", [message("hello from the fake")], times=0)]
    FakeOpenAI(rules, Path("fake_openai.log.jsonl"), port=argv_port()).serve_until_interrupted()
