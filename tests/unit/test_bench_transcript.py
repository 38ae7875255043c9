"""The transcript benchmark: its session writer holds what lazy stores, and the whole benchmark
runs end to end at a tiny size (sidecar, webview in headless Chromium, lazy show)."""

from __future__ import annotations

import collections
import sqlite3
from pathlib import Path

import orjson

from bench import harness
from bench import rich_session as rs
from bench import transcript as bench


def test_rich_session_is_stored_message_for_message(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    a = rs.write_session(projects, "6a3f0c1e-1111-4abc-8def-000000000001", 157, seed=3)
    again = rs.write_session(tmp_path / "again", a.session_id, 157, seed=3)
    assert a.path.read_bytes() == again.path.read_bytes()  # deterministic for a seed
    assert a.messages == 157
    tools: collections.Counter[str] = collections.Counter()
    results = 0
    for raw in a.path.read_bytes().splitlines():
        line = orjson.loads(raw)
        content = (line.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use":
                tools[block["name"]] += 1
            elif block.get("type") == "tool_result":
                results += 1
                assert "toolUseResult" in line
    assert {"Bash", "Read", "Edit", "TodoWrite"} <= set(tools)
    assert results == sum(tools.values())

    home = tmp_path / "lazy-home"
    child = harness.import_history(projects, harness.isolated_env(tmp_path, home), 300)
    assert child.returncode == 0, child.stderr_tail
    conn = sqlite3.connect(home / "store.db")
    try:
        stored = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    finally:
        conn.close()
    assert stored == a.messages


def test_transcript_bench_at_a_tiny_size(tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["--long", "420", "--show", "90", "--reps", "2", "--cold-runs", "1"]
    argv += ["--webview-reps", "1", "--scrolls", "1", "--show-reps", "1", "--no-ccl"]
    assert bench.main([*argv, "--out", str(out), "--workdir", str(tmp_path)]) == 0
    report = orjson.loads((out / "transcript.json").read_bytes())["report"]
    assert report["prepared"]["store_messages"] == 420 + 90
    side = report["sidecar"]
    assert side["error"] is None and side["cold"]["runs"] == 1
    assert side["long_messages"] == 420
    # entries shown: results absorbed under their calls are not entries of their own
    assert len(side["warm"]) == 3 and all(0 < x["size"] < 200 for x in side["warm"])
    assert side["pages_captured"] >= 2  # pages from 1, then each next_start
    web = report["webview"]
    assert web["error"] is None, web["error"]
    assert web["loads"] == 1 and web["first_paint_ms"]["n"] == 1
    assert web["page_render_ms"]["n"] == 1  # the page loaded by scrolling
    assert web["first_paint_ms"]["p50"] >= web["first_page_render_ms"]["p50"] > 0
    assert web["dom"]["entries"] > 0 and web["refused"] == []
    assert web["requests"][0] == [1, 200]  # the first page asked for
    show, full = report["show"]  # lazy show, and lazy show --full
    assert show["error"] is None and show["reps"] == 1 and show["output_lines"] > 90
    assert full["error"] is None and full["output_lines"] > show["output_lines"]
    assert (out / "transcript-webview.png").is_file()
    assert not list(tmp_path.glob("lazy-bench-*"))  # the temp dir is removed
