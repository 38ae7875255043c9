"""The benchmark's Codex and OpenCode generators write what lazy's real readers accept.

Small corpora are generated, imported with the ``lazy`` CLI in a child process (as
bench/import.py runs it) and the message counts lazy stores are compared with what the
generator says it wrote.
"""

from __future__ import annotations

import calendar
import collections
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from bench import agents_corpus as ac

LAZY = [sys.executable, "-c", "import sys; from lazy.cli.main import main; sys.exit(main())"]
SIZE = 1_500_000


def _env(base: Path) -> dict[str, str]:
    """Every agent's default location points into ``base``: nothing of this machine is read."""
    env = dict(os.environ)
    for key, sub in (
        ("HOME", "home"),
        ("LAZY_HOME", "lazy"),
        ("CODEX_HOME", "no-codex"),
        ("XDG_DATA_HOME", "no-xdg"),
        ("CLAUDE_CONFIG_DIR", "no-claude"),
    ):
        (base / sub).mkdir(parents=True, exist_ok=True)
        env[key] = str(base / sub)
    return env


def _lazy(env: dict[str, str], *args: str) -> Any:
    r = subprocess.run([*LAZY, *args], env=env, capture_output=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    return json.loads(r.stdout)


def _imported(tool: str, source: Path, base: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(import report, builders) of a full import-conversation of ``source``."""
    env = _env(base)
    report = _lazy(
        env, "import-conversation", "--tool", tool, "--all", "--yes", "--all-projects",
        "--source", str(source), "--json",
    )  # fmt: skip
    listing = _lazy(env, "conversations", "--all-projects", "--tool", tool, "--json")
    return report, listing["builders"]


def _stored(builders: list[dict[str, Any]]) -> int:
    return sum(b["message_count"] for b in builders) + sum(
        s["message_count"] for b in builders for s in b.get("sidechains") or []
    )


def _memories(tool: str, source: Path, base: Path) -> dict[str, Any]:
    report: dict[str, Any] = _lazy(
        _env(base), "import", tool, "--source", str(source), "--include-temp-cwd",
        "--include-trivial", "--json",
    )  # fmt: skip
    return report


# ---- Codex ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def codex(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return ac.generate_codex(tmp_path_factory.mktemp("codex-home"), SIZE, seed=4, images=False)


def _lines(path: Path) -> list[dict[str, Any]]:
    with path.open("rb") as fh:
        out = []
        for raw in fh:
            assert raw.endswith(b"\n")
            out.append(orjson.loads(raw))
        return out


def test_codex_layout_and_shapes(codex: Any) -> None:
    assert codex.files and codex.stats.sessions == len(codex.files) >= 3
    assert 0.95 * SIZE <= codex.bytes_on_disk == codex.stats.bytes <= 1.1 * SIZE
    name = re.compile(
        r"rollout-(\d{4})-(\d\d)-(\d\d)T(\d\d)-(\d\d)-(\d\d)-"
        r"([0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.jsonl"
    )
    kinds: collections.Counter[str] = collections.Counter()
    for path in codex.files:
        m = name.fullmatch(path.name)
        assert m, path.name
        y, mo, d = m.group(1, 2, 3)
        assert path.parent.relative_to(codex.source) == Path("sessions", y, mo, d)
        lines = _lines(path)
        meta = lines[0]
        assert meta["type"] == "session_meta" and meta["payload"]["id"] == m.group(7)
        assert {"commit_hash", "branch", "repository_url"} <= meta["payload"]["git"].keys()
        assert len(meta["payload"]["base_instructions"]["text"]) > 10_000
        # the name is local time (UTC+1 here), the JSON UTC
        started = time.strptime(meta["payload"]["timestamp"][:19], "%Y-%m-%dT%H:%M:%S")
        local = time.gmtime(calendar.timegm(started) + ac.LOCAL_OFFSET_S)
        assert path.name[8:27] == time.strftime("%Y-%m-%dT%H-%M-%S", local)
        calls, outputs = set(), set()
        said: collections.Counter[tuple[str, str]] = collections.Counter()
        for o in lines:
            p = o["payload"]
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", o["timestamp"])
            kinds[f"{o['type']}/{p.get('type', '')}"] += 1
            if p.get("type") in ("function_call", "custom_tool_call"):
                calls.add(p["call_id"])
                if p["type"] == "function_call":
                    assert isinstance(json.loads(p["arguments"]), dict)
            elif p.get("type") in ("function_call_output", "custom_tool_call_output"):
                outputs.add(p["call_id"])
            elif o["type"] == "response_item" and p.get("type") == "message":
                if p["role"] in ("user", "assistant"):
                    said[(p["role"], p["content"][0]["text"])] += 1
            elif p.get("type") in ("user_message", "agent_message"):
                role = "user" if p["type"] == "user_message" else "assistant"
                said[(role, p["message"])] -= 1
        assert calls == outputs
        # every prompt and answer is written twice (response_item and event_msg), as Codex does;
        # only the harness messages (AGENTS.md, environment_context) have no event copy
        assert sum(1 for v in said.values() if v != 0) == 2
    for kind in (
        "turn_context/", "event_msg/task_started", "event_msg/token_count",
        "event_msg/agent_reasoning", "response_item/reasoning", "response_item/custom_tool_call",
        "event_msg/task_complete", "compacted/",
    ):  # fmt: skip
        assert kinds[kind] > 0, kind


def test_codex_import_counts(codex: Any, tmp_path: Path) -> None:
    report, builders = _imported("codex", codex.source, tmp_path / "conv")
    assert report["quarantined"] == []
    assert len(report["imported"]) == len(builders) == codex.stats.sessions
    assert report["messages_added"] == _stored(builders) == codex.stats.messages
    assert {b["project"] for b in builders} <= {f"/home/u/proj-{i}" for i in range(12)}
    mem = _memories("codex", codex.source, tmp_path / "mem")
    assert mem["errors"] == [] and mem["quarantined"] == []
    assert mem["inserted"] == codex.stats.memories


def test_codex_prompt_with_image_stored_once(tmp_path: Path) -> None:
    info = ac.make_codex_session(tmp_path / "src" / "sessions", 60_000, seed=2, image=True)
    assert info.stats.images >= 1
    _, builders = _imported("codex", tmp_path / "src", tmp_path / "conv")
    assert _stored(builders) == info.stats.messages


def test_codex_deterministic(tmp_path: Path) -> None:
    a = ac.generate_codex(tmp_path / "a", 200_000, seed=9)
    b = ac.generate_codex(tmp_path / "b", 200_000, seed=9)
    rel = [p.relative_to(a.source) for p in a.files]
    assert rel == [p.relative_to(b.source) for p in b.files]
    assert all(x.read_bytes() == y.read_bytes() for x, y in zip(a.files, b.files, strict=True))


# ---- OpenCode ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def opencode(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return ac.generate_opencode(tmp_path_factory.mktemp("opencode-data"), SIZE, seed=4)


def test_opencode_db_shapes(opencode: Any) -> None:
    db = opencode.source / "opencode.db"
    assert opencode.files == [db]
    assert SIZE <= db.stat().st_size <= 1.1 * SIZE
    assert not Path(f"{db}-wal").exists()
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        sessions = {
            r[0]: r[1:] for r in con.execute("SELECT id, parent_id, directory, path FROM session")
        }
        msgs = {
            r[0]: (r[1], orjson.loads(r[2]))
            for r in con.execute("SELECT id, session_id, data FROM message")
        }
        parts = [
            (r[0], r[1], r[2], orjson.loads(r[3]))
            for r in con.execute("SELECT id, message_id, session_id, data FROM part")
        ]
    finally:
        con.close()
    assert len(sessions) == opencode.stats.sessions
    assert len(msgs) == opencode.stats.messages
    assert all(re.fullmatch(r"ses_[0-9a-f]{12}[0-9A-Za-z]{14}", s) for s in sessions)
    for parent, directory, path in sessions.values():
        assert path == directory.lstrip("/")
        assert parent is None or parent in sessions
    children = {s for s, (parent, _, _) in sessions.items() if parent}
    assert len(children) == opencode.stats.child_sessions >= 1
    spawned = set()
    for mid, (sid, data) in msgs.items():
        assert mid.startswith("msg_") and sid in sessions
        assert "id" not in data and "sessionID" not in data
        if data["role"] == "assistant":
            asked_in, asked = msgs[data["parentID"]]
            assert asked_in == sid and asked["role"] == "user"
    kinds: collections.Counter[str] = collections.Counter()
    for pid, mid, sid, data in parts:
        assert pid.startswith("prt_") and msgs[mid][0] == sid
        assert not {"id", "messageID", "sessionID"} & data.keys()
        kinds[data["type"]] += 1
        if data["type"] == "tool":
            assert data["state"]["status"] == "completed" and "output" in data["state"]
            if data["tool"] == "task":
                spawned.add(data["state"]["metadata"]["sessionId"])
    assert spawned == children
    assert {"text", "reasoning", "tool", "step-start", "step-finish", "file"} <= kinds.keys()


def test_opencode_import_counts(opencode: Any, tmp_path: Path) -> None:
    report, builders = _imported("opencode", opencode.source, tmp_path / "conv")
    assert report["quarantined"] == []
    assert len(builders) == opencode.stats.sessions - opencode.stats.child_sessions
    sidechains = sum(len(b.get("sidechains") or []) for b in builders)
    assert sidechains == opencode.stats.child_sessions
    assert report["messages_added"] == _stored(builders) == opencode.stats.messages
    mem = _memories("opencode", opencode.source, tmp_path / "mem")
    assert mem["errors"] == [] and mem["quarantined"] == []
    assert mem["inserted"] == opencode.stats.memories


def test_opencode_deterministic(tmp_path: Path) -> None:
    a = ac.generate_opencode(tmp_path / "a", 300_000, seed=9)
    b = ac.generate_opencode(tmp_path / "b", 300_000, seed=9)

    def rows(db: Path) -> list[Any]:
        con = sqlite3.connect(db)
        try:
            return [
                con.execute(f"SELECT * FROM {t} ORDER BY id").fetchall()
                for t in ("project", "session", "message", "part")
            ]
        finally:
            con.close()

    assert rows(a.files[0]) == rows(b.files[0])
