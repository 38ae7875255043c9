"""The hook benchmark runs end to end at a tiny size and reports every case."""

from __future__ import annotations

from pathlib import Path

import orjson

from bench import hook as bench


def test_hook_bench_at_a_tiny_size(tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["--reps", "2", "--small", "4", "--large", "40", "--out", str(out)]
    assert bench.main([*argv, "--workdir", str(tmp_path)]) == 0
    report = orjson.loads((out / "hook.json").read_bytes())
    cases = report["results"]
    assert list(cases) == [
        "python -c pass (the floor)",
        "lazy --version (CLI start-up)",
        "turn appended to a 4-message session",
        "turn appended to a 40-message session",
    ]
    assert all(c["n"] == 2 and 0 < c["p50_ms"] <= c["max_ms"] for c in cases.values())
    assert report["index"] is True and report["hook_failures_logged"] == []
    assert not list(tmp_path.glob("lazy-bench-hook-*"))  # the temp dir is removed
