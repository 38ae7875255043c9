"""lazy's MCP server called by the real Claude Code CLI (driver.py's ``mcp`` scenario):
registered by `lazy mcp install`, over a store filled by an earlier real session, the fake
model scripted to call lazy_conversation_search and then lazy_conversation_read. What the CLI
sent back to the model as each tool's result must name that session's Builder and its
message numbers."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import ScenarioRun


@pytest.mark.parametrize(
    "scenario", [pytest.param("mcp", marks=pytest.mark.scenario("mcp"))], indirect=True
)
def test_claude_code_searches_then_reads_through_lazy_mcp(scenario: ScenarioRun) -> None:
    o = scenario.script["observed"]
    assert "claude: added lazy's MCP server to" in o["mcp_install"]
    server = o["claude_json_servers"]["lazy"]
    assert (server["type"], server["args"]) == ("stdio", ["mcp"])
    assert server["env"] == {"LAZY_HOME": o["lazy_home"]}
    # the model was told of the four tools and given the server's instructions
    assert len(o["tools_named"]) == 4, o["tools_named"]
    assert o["instructions_sent"]
    # Claude Code 2.1.x sends the structured content to the model, as JSON
    found = json.loads(o["search_result"])
    assert found["query"] == o["word"] and found["scope"].startswith("project ")
    [conversation] = found["conversations"]
    assert conversation["id"] == o["builder_id"]
    assert o["earlier_session"] == o["builder_id"]
    assert [(m["number"], m["role"]) for m in conversation["matches"]] == [(1, "user")]
    assert o["word"] in conversation["matches"][0]["snippet"]
    page = json.loads(o["read_result"])
    assert (page["id"], page["total"], page["next_start"]) == (o["builder_id"], 2, None)
    assert [(m["number"], m["role"]) for m in page["messages"]] == [(1, "user"), (2, "assistant")]
    assert o["word"] in page["messages"][0]["text"]
    assert page["messages"][1]["text"].startswith("Decision: keep every transcript forever")
