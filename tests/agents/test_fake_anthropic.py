"""The fake Anthropic API on its own (no CLI needed): wire format, scripting, side calls."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import (  # tests/agents is on sys.path (conftest.py)
    COMPACT_SUMMARY_TEXT,
    DEFAULT_TEXT,
    FakeAnthropic,
    Rule,
    text,
    thinking,
    tool_use,
)

JsonDict = dict[str, Any]


@pytest.fixture
def api(tmp_path: Path) -> Iterator[FakeAnthropic]:
    with FakeAnthropic(log_path=tmp_path / "api.jsonl") as fake:
        yield fake


def post(api: FakeAnthropic, path: str, body: JsonDict) -> tuple[int, str, bytes]:
    request = urllib.request.Request(
        api.base_url + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "x-api-key": "sk-ant-placeholder"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers.get("content-type", ""), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("content-type", ""), exc.read()


def events(raw: bytes) -> list[tuple[str, JsonDict]]:
    out = []
    for chunk in raw.decode().split("\n\n"):
        if not chunk.strip():
            continue
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def user(content: Any) -> JsonDict:
    return {
        "model": "claude-test",
        "max_tokens": 1000,
        "messages": [{"role": "user", "content": content}],
    }


def test_streams_a_scripted_reply_block_by_block(api: FakeAnthropic) -> None:
    api.add(
        Rule(
            "r",
            [thinking("hmm"), text("hello there"), tool_use("toolu_1", "Bash", {"command": "ls"})],
            user_contains="hi",
        )
    )
    status, ctype, raw = post(api, "/v1/messages?beta=true", {**user("hi"), "stream": True})
    assert status == 200 and ctype.startswith("text/event-stream")
    got = events(raw)
    names = [name for name, _ in got]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    starts = [p["content_block"]["type"] for n, p in got if n == "content_block_start"]
    assert starts == ["thinking", "text", "tool_use"]
    deltas = [p["delta"] for n, p in got if n == "content_block_delta"]
    assert "".join(d.get("text", "") for d in deltas) == "hello there"
    assert "".join(d.get("thinking", "") for d in deltas) == "hmm"
    assert any(d["type"] == "signature_delta" for d in deltas)
    partial = "".join(d.get("partial_json", "") for d in deltas)
    assert json.loads(partial) == {"command": "ls"}
    final = next(p for n, p in got if n == "message_delta")
    assert final["delta"]["stop_reason"] == "tool_use"
    assert api.records[-1]["rule"] == "r"


def test_plain_json_reply_and_default_for_unscripted(api: FakeAnthropic) -> None:
    status, _, raw = post(api, "/v1/messages", user([{"type": "text", "text": "anything"}]))
    message = json.loads(raw)
    assert status == 200 and message["type"] == "message"
    assert message["content"] == [{"type": "text", "text": DEFAULT_TEXT}]
    assert message["stop_reason"] == "end_turn"
    assert len(api.unscripted) == 1


def test_rules_match_tool_results_and_fire_once(api: FakeAnthropic) -> None:
    api.add(Rule("after-tool", [text("done")], tool_result_for="toolu_9"))
    body = user([{"type": "tool_result", "tool_use_id": "toolu_9", "content": "ok"}])
    first = json.loads(post(api, "/v1/messages", body)[2])
    second = json.loads(post(api, "/v1/messages", body)[2])
    assert first["content"][0]["text"] == "done"
    assert second["content"][0]["text"] == DEFAULT_TEXT


def test_compaction_request_is_a_side_call(api: FakeAnthropic) -> None:
    api.add(Rule("main", [text("main reply")], times=0))
    prompt = "Your task is to create a detailed summary of the conversation so far, ..."
    reply = json.loads(post(api, "/v1/messages", user(prompt))[2])
    assert reply["content"][0]["text"] == COMPACT_SUMMARY_TEXT
    assert api.records[-1]["kind"] == "side:compact"
    assert api.rules[0].used == 0


def test_count_tokens_and_unknown_paths(api: FakeAnthropic, tmp_path: Path) -> None:
    status, _, raw = post(api, "/v1/messages/count_tokens", user("x"))
    assert status == 200 and json.loads(raw)["input_tokens"] >= 1
    assert post(api, "/api/event_logging/batch", {})[0] == 200
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(api.base_url + "/api/hello", timeout=10)
    assert exc.value.code == 404
    logged = [json.loads(line) for line in (tmp_path / "api.jsonl").read_text().splitlines()]
    assert [r["kind"] for r in logged] == ["count_tokens", "other", "other"]
