"""The MCP benchmark runs end to end at a tiny size: a generated store, `lazy mcp` over stdio,
every tool call timed and sized (AgentsView left out: it is not a dependency)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from bench import mcp as bench


def test_mcp_bench_at_a_tiny_size(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    argv = ["--messages", "2k", "--reps", "2", "--warmup", "1", "--startups", "1"]
    argv += ["--no-agentsview", "--out", str(tmp_path / "out"), "--workdir", str(work)]
    assert bench.main(argv) == 0
    assert list(work.iterdir()) == []  # the temp dir is removed without --keep
    data: dict[str, Any] = orjson.loads((tmp_path / "out" / "mcp.json").read_bytes())
    lazy = data["lazy"]
    assert lazy["error"] is None and data["agentsview"] is None
    calls = {c["name"]: c for c in lazy["calls"]}
    names = [
        f"search: {q}" for q in ("common word", "rare word", "phrase", "identifier", "filtered")
    ]
    assert list(calls) == [*names, "list 20", "read 1-200"]
    for c in calls.values():
        assert c["error"] is None, c
        assert c["reps"] >= 2 and c["p50_ms"] > 0 and c["structured_tokens"] > 0, c
    shown = re.fullmatch(r"(\d+) shown for #1-(\d+)", calls["read 1-200"]["note"])
    assert shown is not None and int(shown[1]) >= 1 and int(shown[2]) >= int(shown[1])
    assert lazy["startup_p50_s"] > 0
    long = lazy["long_builder"]
    assert long["read_whole"] and long["pages_at_default_budget"] >= 1
    assert long["structured_tokens_per_page_max"] <= bench.READ_BUDGET
