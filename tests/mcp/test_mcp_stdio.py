"""`lazy mcp` as an agent starts it: a child process speaking MCP on stdin/stdout, in the
project's directory, with the SDK's stdio client."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp.client.stdio import stdio_client

from mcp import ClientSession, StdioServerParameters
from support.mcp_world import A, World, text_of
from support.search import env_for

pytestmark = pytest.mark.asyncio


async def test_lazy_mcp_over_stdio(world: World) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "lazy.cli.main", "mcp"],
        env=env_for(world.home, Path(os.environ["HOME"])),
        cwd=str(world.repo),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as c:
        init = await c.initialize()
        assert init.serverInfo.name == "lazy"
        found = await c.call_tool("lazy_conversation_search", {"query": "retention policy"})
        assert found.structuredContent is not None
        assert [g["id"] for g in found.structuredContent["conversations"]] == [A]
        page = await c.call_tool("lazy_conversation_read", {"id": A, "start": 1, "end": 2})
        assert "--- #1 user" in text_of(page) and "--- #2 assistant" in text_of(page)
