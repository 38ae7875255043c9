"""The redaction benchmark runs end to end at a tiny size: plants, look-alikes, speed, imports."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench import redaction as bench


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("bench-redaction")
    argv = ["--plants", "3", "--size", "200KB", "--out", str(base / "out")]
    assert bench.main([*argv, "--workdir", str(base)]) == 0
    data: dict[str, Any] = json.loads((base / "out" / "redaction.json").read_text())
    return data


def test_every_rule_is_planted_and_judged(report: dict[str, Any]) -> None:
    from lazy.view.redaction import NAMES

    rows = {r["rule"]: r for r in report["rules"]}
    assert set(rows) == set(NAMES)
    assert all(r["planted"] == 3 for r in rows.values())
    assert all(0 <= r["found"] + r["other"] <= r["planted"] for r in rows.values())
    assert report["look_alikes"] == 3 * len(bench.LOOK_ALIKES)
    assert set(report["false_positives_by_kind"]) == set(bench.LOOK_ALIKES)


def test_throughput_and_both_imports_are_measured(report: dict[str, Any]) -> None:
    assert report["speed"]["text_mb"] > 0 and report["speed"]["redact_mb_per_s"] > 0
    runs = {r["redaction"]: r for r in report["imports"]}
    assert set(runs) == {"on", "off"}
    for run in runs.values():
        assert run["error"] is None, run
        assert run["import_seconds"] > 0 and run["rebuild_seconds"] > 0
    # detect-secrets is compared when installed, and said to be missing otherwise
    ds = report["detect_secrets"]
    assert (ds["version"] is None) == (ds["error"] is not None)
