"""`lazy_conversation_ask` as an agent calls it: `lazy mcp` over stdio, its ask run through the
real one-shot runner (the real Claude Code CLI in a hardened container of the test agent image,
its only channel the audited proxy), answered by the fake model API on the host."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_anthropic import Rule, text
from mcp.client.stdio import stdio_client

from fabricate.claude import Session
from mcp import ClientSession, StdioServerParameters
from support.docker import Engine
from support.oneshot_api import REAL_KEY, assert_one_pass_left_nothing, fake_api

LAZY = str(Path(sys.executable).with_name("lazy"))

pytestmark = pytest.mark.asyncio


async def test_mcp_ask_answers_from_a_real_container(engine: Engine, tmp_path: Path) -> None:
    repo = tmp_path / "work" / "asked"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    s = Session(Path(os.environ["HOME"]) / ".claude" / "projects", str(repo))
    s.turn("which compression for the raw archive?", "we chose zstd, level 3")
    env = {**os.environ, "LAZY_HOME": str(tmp_path / "lazy"), "NO_COLOR": "1"}
    subprocess.run(
        [LAZY, "import-conversation", "--all-projects", "--yes"], env=env, check=True,
        capture_output=True, timeout=120, stdin=subprocess.DEVNULL, cwd=repo,
    )  # fmt: skip
    rule = Rule("answer", [text("zstd at level 3 (#2)")], user_contains="what did we choose")
    with fake_api([rule]) as fake:
        params = StdioServerParameters(
            command=LAZY, args=["mcp"], cwd=str(repo),
            env={**env, "ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": REAL_KEY},
        )  # fmt: skip
        async with stdio_client(params) as (read, write), ClientSession(read, write) as c:
            await c.initialize()
            r = await c.call_tool(
                "lazy_conversation_ask",
                {"id": s.id[:8], "question": "what did we choose for compression?"},
            )
    assert not r.isError, r.content
    assert r.structuredContent is not None
    assert r.structuredContent["answer"] == "zstd at level 3 (#2)"
    assert (r.structuredContent["chunks"], r.structuredContent["warnings"]) == (1, [])
    assert_one_pass_left_nothing(rule, engine, env, (s.id, 2))
