"""lazy's MCP server called by the real OpenCode CLI (opencode_driver.py's ``mcp`` scenario):
registered by `lazy mcp install --agent opencode` beside the sandbox's provider, over a store
filled by an earlier real OpenCode session; the fake model calls lazy_conversation_search,
then lazy_conversation_read. What OpenCode sent back as each result (1.18.33 sends the text
content) must name that session's Builder and its message numbers."""

from __future__ import annotations

import re

import pytest
from oc_support import OcRun


@pytest.mark.opencode_scenario("mcp")
def test_opencode_searches_then_reads_through_lazy_mcp(oc_run: OcRun) -> None:
    o = oc_run.script["mcp"]
    assert "opencode: added lazy's MCP server to" in o["install"]
    config = o["config"]
    assert "anthropic" in config["provider"]  # the sandbox's own settings were kept
    server = config["mcp"]["lazy"]
    assert (server["type"], server["command"][-1], server["enabled"]) == ("local", "mcp", True)
    names = {"lazy_lazy_conversation_search", "lazy_lazy_conversation_read"}
    assert names <= set(o["tool_names"]), o["tool_names"]
    found = o["search_result"]
    assert f"{o['builder_id']} · opencode ·" in found
    assert o["earlier_session"] == o["builder_id"]
    said = dict(re.findall(r"^  #(\d+) (user|assistant)", found, re.M))
    assert said == {"1": "user", "2": "assistant"}, found
    page = o["read_result"]
    assert page.startswith(f"conversation {o['builder_id']} · opencode ·")
    assert "messages 1-2 of 2" in page and "end of the range read" in page
    assert re.search(rf"--- #1 user .*---\n.*{o['word']}", page)
    assert re.search(
        rf"--- #2 assistant .*---\nDecision: keep every transcript forever \({o['word']}\)", page
    )
