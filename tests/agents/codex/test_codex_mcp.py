"""lazy's MCP server called by the real Codex CLI (codex_driver.py's ``mcp`` scenario):
registered by `lazy mcp install --agent codex` beside the sandbox's model provider, over a
store filled by an earlier real Codex thread; the fake model calls lazy_conversation_search,
then lazy_conversation_read. What Codex sent back as each call's output must name that
thread's Builder and the numbers of its messages."""

from __future__ import annotations

import json
import tomllib
from typing import Any

import pytest
from codex_harness import CodexRun


def _output(text: str) -> dict[str, Any]:
    """Codex wraps a tool's result: ``Wall time: …\\nOutput:\\n<the structured content>``."""
    assert "Output:\n" in text, text[:300]
    return dict(json.loads(text.split("Output:\n", 1)[1]))


@pytest.mark.codex_scenario("mcp")
def test_codex_searches_then_reads_through_lazy_mcp(codex_run: CodexRun) -> None:
    o = codex_run.script["observed"]
    assert "codex: added lazy's MCP server to" in o["mcp_install"]
    config = tomllib.loads(o["config"])
    assert config["model_provider"] == "lazyfake"  # the sandbox's own settings were kept
    assert config["mcp_servers"]["lazy"]["args"] == ["mcp"]
    assert "mcp__lazy" in o["tool_names"]
    found = _output(o["search_result"])
    assert found["query"] == o["word"] and found["scope"].startswith("project ")
    [conversation] = found["conversations"]
    assert conversation["id"] == o["builder_id"] and conversation["agent"] == "codex"
    matched = {m["number"]: m["role"] for m in conversation["matches"]}
    assert set(matched.values()) == {"user", "assistant"}, matched
    page = _output(o["read_result"])
    assert (page["id"], page["next_start"]) == (o["builder_id"], None)
    texts = {m["number"]: m["text"] for m in page["messages"]}
    for number in matched:
        assert o["word"] in texts[number], (number, texts)
