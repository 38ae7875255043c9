"""The usage benchmark end to end at a tiny size: its corpus, lazy usage's figures, the
GROUP BY floor and (where installed) ccusage, counted alike."""

from __future__ import annotations

from pathlib import Path

from bench import usage as bench


def test_usage_benchmark_at_a_tiny_size(tmp_path: Path) -> None:
    r = bench.main(["--messages", "200", "--sessions", "2", "--reps", "1",
                    "--workdir", str(tmp_path), "--out", str(tmp_path / "out")])  # fmt: skip
    assert r["import"]["returncode"] == 0
    assert r["corpus"]["files"] == 2
    expected = 200 // bench.MESSAGES_PER_TURN * bench.RESPONSES_PER_TURN
    for run in r["lazy"]:
        assert run["returncode"] == 0, run["stderr"]
        assert run["total"]["responses"] == expected  # each API message once, not per line
    floor = r["group_by"]
    assert floor["responses"] == expected
    assert floor["output"] == r["lazy"][0]["total"]["output"] > 0
    if r["ccusage"] is not None:
        assert r["ccusage"]["output"] == floor["output"]
    assert (tmp_path / "out" / "usage.json").exists()
