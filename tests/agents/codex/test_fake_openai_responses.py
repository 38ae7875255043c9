"""The fake OpenAI Responses API on its own (no CLI needed): wire format and scripting."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import (  # tests/agents is on sys.path (conftest.py)
    DEFAULT_TEXT,
    FakeOpenAI,
    Rule,
    message,
    reasoning,
    shell_call,
)

JsonDict = dict[str, Any]


@pytest.fixture
def api(tmp_path: Path) -> Iterator[FakeOpenAI]:
    with FakeOpenAI(log_path=tmp_path / "api.jsonl", workdir="/w") as fake:
        yield fake


def post(api: FakeOpenAI, body: JsonDict) -> list[JsonDict]:
    request = urllib.request.Request(
        api.base_url + "/responses",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "authorization": "Bearer sk-x"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        raw = response.read().decode()
    if not body.get("stream"):
        return [json.loads(raw)]
    events = []
    for chunk in raw.split("\n\n"):
        data = [line[6:] for line in chunk.splitlines() if line.startswith("data: ")]
        if data:
            events.append(json.loads(data[0]))
    return events


def user(text: str) -> JsonDict:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def test_stream_delivers_items_and_usage(api: FakeOpenAI) -> None:
    api.add(Rule("r", [reasoning("why"), message("hello world")], user_contains="hi"))
    events = post(api, {"model": "m", "stream": True, "input": [user("hi there")]})
    kinds = [e["type"] for e in events]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert [i["type"] for i in done] == ["reasoning", "message"]
    assert done[1]["content"][0]["text"] == "hello world"
    deltas = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    assert deltas == "hello world"
    usage = events[-1]["response"]["usage"]
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))


def test_shell_call_follows_the_offered_tool(api: FakeOpenAI) -> None:
    api.add(Rule("a", [shell_call("c1", "ls")], user_contains="go", times=0))
    tools = {"exec_command": {"cmd": "ls"}, "shell": {"command": ["bash", "-lc", "ls"]}}
    for name, wanted in tools.items():
        body = {"input": [user("go")], "tools": [{"type": "function", "name": name}]}
        (response,) = post(api, body)
        (item,) = response["output"]
        assert item["name"] == name and item["call_id"] == "c1"
        args = json.loads(item["arguments"])
        assert {k: args[k] for k in wanted} == wanted


def test_tool_output_rules_and_unscripted(api: FakeOpenAI) -> None:
    api.add(Rule("first", [shell_call("c9", "true")], user_contains="run"))
    api.add(Rule("after", [message("ran it")], tool_output_for="c9"))
    (first,) = post(api, {"input": [user("run")]})
    call = first["output"][0]
    follow_up = [
        user("run"),
        call,
        {"type": "function_call_output", "call_id": "c9", "output": "ok"},
    ]
    (second,) = post(api, {"input": follow_up})
    assert second["output"][0]["content"][0]["text"] == "ran it"
    # the prompt rule fired once; a repeat is unscripted and logged as such
    (third,) = post(api, {"input": [user("run")]})
    assert third["output"][0]["content"][0]["text"] == DEFAULT_TEXT
    assert [r["kind"] for r in api.responses()] == ["main", "main", "unscripted"]
    assert api.log_path is not None
    logged = [json.loads(line) for line in api.log_path.read_text().splitlines()]
    assert [r["rule"] for r in logged] == ["first", "after", None]
