"""lazy's token counts beside ccusage's (npm ``ccusage`` 18.0.11, ``--offline``, in a
loopback-only namespace) on the same real Claude Code files.

The one difference, and why: ccusage keeps the FIRST line it reads of each (message.id,
requestId); lazy keeps the largest. Claude Code writes one API message over several lines
(one a content block) and, in subagent files even of 2.1.114, the earlier lines carry the
streaming placeholder of the output count (4, then 184), only the last the final one. So
ccusage counts the input and cache tokens as lazy does, but undercounts the output of those
messages; where every line carries the final usage (the main file here) the two agree, cost
included.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

from support import CORPUS, require
from support.agent_sessions import invoke, report

ROOT = Path(__file__).resolve().parents[2]
CCUSAGE = Path(os.environ.get("LAZY_CCUSAGE") or ROOT / "tests/agents/node_modules/.bin/ccusage")
PROJECT = "-experiments-worktrees"
REAL = "claude-code/handgemacht-ai__claude-code-log/test/test_data/real_projects"


def ccusage_sessions(config: Path) -> list[dict[str, Any]]:
    cmd = [str(CCUSAGE), "session", "--offline", "--json", "--timezone", "UTC"]
    if shutil.which("unshare") and os.geteuid() == 0:
        cmd = ["unshare", "--net", *cmd]  # offline for certain: no network to reach
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(config), "NO_COLOR": "1"}
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, timeout=120)
    sessions: list[dict[str, Any]] = json.loads(out.stdout)["sessions"]
    return sessions


def first_and_largest(files: list[Path]) -> tuple[int, int]:
    """Output tokens of each (message.id, requestId): its first line's, and its largest."""
    seen: dict[tuple[str, str], list[int]] = defaultdict(list)
    for f in files:
        for line in f.read_text().splitlines():
            obj = json.loads(line)
            if obj.get("type") == "assistant" and "usage" in obj.get("message", {}):
                key = (obj["message"]["id"], obj.get("requestId"))
                seen[key].append(obj["message"]["usage"]["output_tokens"])
    return sum(v[0] for v in seen.values()), sum(max(v) for v in seen.values())


def test_lazy_and_ccusage_on_the_same_claude_files(tmp_path: Path) -> None:
    require(CCUSAGE.exists(), f"ccusage at {CCUSAGE} (make tests/agents/node_modules/.installed)")
    src = CORPUS / REAL / PROJECT
    require(src.is_dir(), f"the corpus dir {src}")
    config = tmp_path / "claude"
    shutil.copytree(src, config / "projects" / PROJECT)
    theirs = {s["sessionId"]: s for s in ccusage_sessions(config)}
    main, subs = theirs[PROJECT], theirs["subagents"]

    invoke("import-conversation", "--source", str(config / "projects"), "--all-projects", "--yes")
    ours = report("show", "ef958aa1")["builder"]["usage"]

    # the main file: every line of a message carries its final usage, and both agree
    m = ours["main"]
    assert (m["input"], m["output"], m["cache_read"], m["cache_write"]) == (
        main["inputTokens"], main["outputTokens"], main["cacheReadTokens"],
        main["cacheCreationTokens"],
    )  # fmt: skip
    assert abs(m["cost_micros"] - round(main["totalCost"] * 1_000_000)) <= 1

    # the subagents: the same input and cache tokens; the output differs by exactly the
    # placeholders ccusage kept (its figure is the first line's of each message)
    s = ours["subagents"]
    assert (s["input"], s["cache_read"], s["cache_write"]) == (
        subs["inputTokens"], subs["cacheReadTokens"], subs["cacheCreationTokens"]
    )  # fmt: skip
    files = sorted((config / "projects" / PROJECT).rglob("agent-*.jsonl"))
    first, largest = first_and_largest(files)
    assert (subs["outputTokens"], s["output"]) == (first, largest)
    assert first < largest  # (15076 against 30557 on these files)
