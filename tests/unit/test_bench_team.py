"""The team benchmark runs end to end at a tiny size on a PostgreSQL server of its own: the
full push, the incremental pushes, team and local search, the sizes."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from bench import team as bench
from support import require


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    missing = bench.pg_missing()
    require(missing is None, f"{missing} (make sysdeps)")
    base = tmp_path_factory.mktemp("bench-team")
    work = base / "work"
    work.mkdir()
    argv = ["--messages", "300", "--reps", "3", "--warmup", "1", "--cli-reps", "1"]
    argv += ["--inc-reps", "1", "--out", str(base / "out"), "--workdir", str(work)]
    code = bench.main(argv)
    data: dict[str, Any] = orjson.loads((base / "out" / "team.json").read_bytes())
    assert code == 0, data["report"]["error"]
    assert list(work.iterdir()) == []  # the temp dir (and the server's) removed without --keep
    return data


def test_the_whole_history_is_pushed(report: dict[str, Any]) -> None:
    r = report["report"]
    assert r["error"] is None and r["store_messages"] >= 150
    full = r["full"]
    assert full["step"]["error"] is None and full["step"]["seconds"] > 0
    assert full["step"]["maxrss_bytes"] > 0
    assert full["skipped"] == []  # every generated project was named
    assert full["builders"] == r["store_builders"]
    assert full["messages"] == full["server_messages"] > 0
    assert full["text_bytes"] > 0 and full["view_bytes"] > 0
    assert full["messages_per_s"] > 0 and full["mb_per_s"] > 0


def test_an_appended_turn_is_pushed_alone(report: dict[str, Any]) -> None:
    r = report["report"]
    assert len(r["noop_push_s"]) == 3 and r["noop_error"] is None
    assert len(r["floor_s"]) == 3
    assert [c["case"] for c in r["incremental"]] == ["largest Builder", "median Builder"]
    for c in r["incremental"]:
        assert c["error"] is None, c["error"]
        assert len(c["push_s"]) == 1 and c["p50_s"] > 0
        # the turn's messages, not the Builder again
        assert 0 < c["sent_messages"][0] < c["builder_messages"], c


def test_team_and_local_search_find_the_planted_words(report: dict[str, Any]) -> None:
    rows = {q["name"]: q for q in report["report"]["rows"]}
    assert list(rows) == ["common word", "rare word", "phrase"]
    for q in rows.values():
        for side in ("team", "local"):
            assert q[side]["error"] is None, (q["name"], side, q[side]["error"])
            assert q[side]["reps"] == 3 and q[side]["p50_ms"] > 0
        assert q["team_cli_p50_ms"] > 0 and q["local_cli_p50_ms"] > 0
        assert any(line.startswith("Execution Time:") for line in q["team_plan"])
        assert q["team_gin_scans"] is not None
        if q["expected"] is not None:
            assert q["expected"] > 0
            assert q["team"]["hits"] == q["expected"] == q["local"]["hits"], q["name"]


def test_the_server_sizes(report: dict[str, Any]) -> None:
    s = report["report"]["sizes"]
    assert s["database_bytes"] > s["messages_total_bytes"] > s["messages_heap_bytes"] > 0
    assert s["gin_bytes"] > 0 and s["pkey_bytes"] > 0
