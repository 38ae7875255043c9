"""The search benchmark runs end to end at a tiny size: planted answers, baselines, lazy."""

from __future__ import annotations

import shutil
from typing import Any

import orjson
import pytest

from bench import search as bench
from support import require


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("bench-search")
    work = base / "work"
    work.mkdir()
    argv = ["--sizes", "3k", "--reps", "5", "--rg-reps", "1", "--warmup", "1"]
    argv += ["--out", str(base / "out"), "--workdir", str(work)]
    assert bench.main(argv) == 0
    assert list(work.iterdir()) == []  # the temp dir is removed without --keep
    data: dict[str, Any] = orjson.loads((base / "out" / "search.json").read_bytes())
    return data


def test_planted_answers_match_store_and_fts5(report: dict[str, Any]) -> None:
    (run,) = report["runs"]
    assert run["messages"] >= 1500 and run["corpus_bytes"] > 0
    assert run["import_error"] is None
    rows = {r["name"]: r for r in run["rows"]}
    assert list(rows) == ["common word", "rare word", "phrase", "identifier", "filtered"]
    assert rows["common word"]["fts"]["hits"] > 0
    for name in ("rare word", "phrase", "identifier", "filtered"):
        row = rows[name]
        assert row["expected"] > 0, name
        # the out-of-order decoy must not count as the phrase: FTS5 matches phrases exactly
        assert row["store_count"] == row["expected"] == row["fts"]["hits"], name
        assert row["fts"]["p50_ms"] is not None and row["fts"]["reps"] == 5
    fts = run["fts_build"]
    assert fts["documents"] == run["messages"] and fts["size_bytes"] > 0


def test_rg_baseline(report: dict[str, Any]) -> None:
    require(shutil.which("rg") is not None, "ripgrep (rg) not installed")
    rows = {r["name"]: r for r in report["runs"][0]["rows"]}
    for name in ("rare word", "phrase", "identifier", "filtered"):
        # rg counts lines: the prompt's, plus copies in queue-operation / last-prompt lines
        assert rows[name]["rg"]["hits"] >= rows[name]["expected"], name
        assert rows[name]["rg"]["p50_ms"] > 0


def test_lazy_finds_the_planted_answers(report: dict[str, Any]) -> None:
    run = report["runs"][0]
    require(run["lazy_build"]["error"] is None, f"lazy index rebuild: {run['lazy_build']['error']}")
    assert run["lazy_build"]["size_bytes"] > 0
    for row in run["rows"]:
        assert row["lazy"]["error"] is None, row["lazy"]["error"]
        assert row["lazy"]["p50_ms"] is not None and row["lazy"]["reps"] == 5
        if row["expected"] is not None:
            assert row["lazy"]["hits"] == row["expected"], row["name"]
