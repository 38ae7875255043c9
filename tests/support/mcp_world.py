"""The MCP tests' world: a store filled from Claude Code sessions (fabricate.claude, imported by
the real CLI) and lazy's MCP server over it, reached through the SDK's in-memory client. Here,
not in tests/mcp/conftest.py, so the tests import it by a name no other conftest shares."""

from __future__ import annotations

import os
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.shared.memory import create_connected_server_and_client_session
from mcp.types import CallToolResult, TextContent

from fabricate.claude import Session
from lazy.mcp.server import build
from mcp import ClientSession
from support.cli import lazy

A = "abcd1111-0000-4000-8000-000000000001"  # the retention conversation
B = "abcd2222-0000-4000-8000-000000000002"  # shares "abcd" with A: an ambiguous prefix
LONG = "10ae0000-0000-4000-8000-000000000003"  # 120 messages, for paging
OTHER = "07e40000-0000-4000-8000-000000000004"  # in another project
LONG_TURNS = 60
TOOL_OUTPUT = "\n".join(f"line {i} of the grep output" for i in range(40))


@dataclass
class World:
    home: Path  # LAZY_HOME
    repo: Path


def make_world(tmp_path: Path) -> World:
    repo = tmp_path / "work" / "myrepo"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    projects = Path(os.environ["HOME"]) / ".claude" / "projects"
    a = Session(projects, str(repo), session_id=A)
    a.turn("design the retention policy for the cache", "Keep transcripts forever.")
    a.write(
        a.tool_use_line("Bash", {"command": "grep -rn retention ."}, "toolu_1", text="Looking."),
        a.tool_result_line("toolu_1", TOOL_OUTPUT),
    )
    a.turn("and the retention of the index?", "rebuilt from the store, retention unchanged")
    b = Session(projects, str(repo), session_id=B)
    b.turn("second conversation about wombats", "two wombats")
    long = Session(projects, str(repo), session_id=LONG)
    for i in range(LONG_TURNS):
        long.turn(
            f"step {i} of the migration plan " + "detail " * 30, f"done step {i} " + "ok " * 30
        )
    other = Session(projects, "/elsewhere/otherproj", session_id=OTHER)
    other.turn("quokkaelsewhere in another project", "yes, quokkas")
    lazy("import-conversation", "--all-projects", "--yes", cwd=repo)
    return World(Path(os.environ["LAZY_HOME"]), repo)


@asynccontextmanager
async def connected(world: World) -> AsyncIterator[ClientSession]:
    """A client of a server over ``world``'s store (a context, not a fixture: the SDK's task
    group must end in the task it began in)."""
    server = build(world.home, str(world.repo))
    async with create_connected_server_and_client_session(server) as c:
        yield c


def text_of(r: CallToolResult) -> str:
    return "\n".join(c.text for c in r.content if isinstance(c, TextContent))


async def call(c: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    """A tool's structured result; the call must succeed."""
    r = await c.call_tool(tool, args)
    assert not r.isError, text_of(r)
    assert r.structuredContent is not None
    return r.structuredContent


async def fails(c: ClientSession, tool: str, **args: Any) -> str:
    """The text of a tool error; the call must fail."""
    r = await c.call_tool(tool, args)
    assert r.isError, r
    return text_of(r)
