"""The export benchmark runs end to end at a tiny size: each format exported by the real CLI."""

from __future__ import annotations

from pathlib import Path

import orjson

from bench import export as bench


def test_the_export_bench_exports_every_format(tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["--messages", "40", "--reps", "1", "--no-ccl", "--out", str(out)]
    assert bench.main([*argv, "--workdir", str(tmp_path)]) == 0
    report = orjson.loads((out / "export.json").read_bytes())["report"]
    assert report["error"] is None and report["messages"] == 40
    rows = {r["name"]: r for r in report["rows"]}
    assert set(rows) == {"lazy export → md", "lazy export → html", "lazy export → json"}
    for r in rows.values():
        assert r["error"] is None and r["reps"] == 1 and r["output_bytes"] > 1000, r
