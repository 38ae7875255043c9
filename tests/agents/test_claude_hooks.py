"""Capture by Claude Code's hooks alone: the real CLI, with lazy's hooks installed by `lazy
hooks install` into its (sandboxed) CLAUDE_CONFIG_DIR and LAZY_HOME in its environment,
writes sessions with no sidecar and no daemon running (driver.py's ``hooked`` scenario).
What the hooks stored must equal a fresh `lazy import-conversation` of the same files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import Lazy, ScenarioRun

EVENTS = ("SessionStart", "Stop", "PreCompact", "SessionEnd")


def _ro(home: Path) -> sqlite3.Connection:
    db = home / "store.db"
    assert db.is_file(), f"no store at {home}: the hooks never ran"
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True)


def _messages(home: Path) -> dict[str, list[str]]:
    """Each session's message keys, in order."""
    out: dict[str, list[str]] = {}
    with _ro(home) as c:
        for sid, key in c.execute("SELECT session_id, key FROM messages ORDER BY session_id, seq"):
            out.setdefault(sid, []).append(key)
    return out


def _sessions(home: Path) -> dict[str, tuple[Any, ...]]:
    with _ro(home) as c:
        return {
            r[0]: tuple(r[1:])
            for r in c.execute(
                "SELECT id, kind, parent_session_id, message_count, builder_id FROM sessions"
            )
        }


@pytest.mark.parametrize(
    "scenario",
    [pytest.param(n, id=n, marks=pytest.mark.scenario(n)) for n in ("hooked", "v1_0_hooked")],
    indirect=True,
)
def test_hooks_alone_capture_what_an_import_would(scenario: ScenarioRun, lazy: Lazy) -> None:
    hooked = Path(scenario.script["observed"]["lazy_home"])
    settings = scenario.script["observed"]["settings"]
    # 1.0.65 ignores a whole settings file that names SessionEnd: lazy leaves that hook out
    events = EVENTS[:3] if scenario.name.startswith("v1_0") else EVENTS
    assert sorted(settings["hooks"]) == sorted(events)
    for event in events:
        commands = [h["command"] for g in settings["hooks"][event] for h in g["hooks"]]
        assert any(c.endswith(" capture --hook") for c in commands), (event, commands)
    assert settings["permissions"]["allow"], "the sandbox's own settings were kept"
    if events != EVENTS:
        assert "does not know SessionEnd" in scenario.script["observed"]["hooks_install"]

    report = lazy.json("import-conversation", "--all", "--all-projects", "--json")
    assert report["imported"], report
    fresh = lazy.lazy_home

    by_hooks, by_import = _messages(hooked), _messages(fresh)
    assert by_import and len(by_import) >= (6 if scenario.name == "hooked" else 1)
    assert {s: len(k) for s, k in by_hooks.items()} == {s: len(k) for s, k in by_import.items()}
    assert by_hooks == by_import
    assert _sessions(hooked) == _sessions(fresh)

    with _ro(hooked) as c:
        problems = c.execute(
            "SELECT level, path, reason, code FROM capture_log WHERE level <> 'refused'"
        ).fetchall()
    assert problems == []
    assert not (hooked / "hook-failures.log").exists(), (hooked / "hook-failures.log").read_text()


@pytest.mark.parametrize(
    "scenario",
    [pytest.param("hooked_broken_store", marks=pytest.mark.scenario("hooked_broken_store"))],
    indirect=True,
)
def test_a_broken_store_costs_claude_code_nothing_and_each_hook_says_so_aside(
    scenario: ScenarioRun, lazy: Lazy
) -> None:
    from driver import BROKEN_STORE

    observed = scenario.script["observed"]
    home, sid = Path(observed["lazy_home"]), observed["session_id"]
    # the turn went as ever: the driver fails the scenario on a non-zero exit or an error result
    assert sid
    # and by Claude Code's own account the Stop hook ended well, saying nothing
    [summary] = observed["stop_hooks"]
    [info] = summary["hookInfos"]
    assert info["command"].endswith(" capture --hook"), info
    assert (summary["hookErrors"], summary["hasOutput"]) == ([], False), summary
    assert summary["preventedContinuation"] is False
    # the file where the store should be is left exactly as it was
    assert (home / "store.db").read_bytes() == BROKEN_STORE
    # every hook Claude Code ran said why, in the fallback log, naming its session and file
    records = [json.loads(line) for line in (home / "hook-failures.log").read_text().splitlines()]
    assert sorted(r["event"] for r in records) == sorted(EVENTS[:2] + EVENTS[3:]), records
    for r in records:
        assert (r["level"], r["code"], r["session_id"]) == ("error", "SQLITE_NOTADB", sid), r
        assert r["reason"].startswith("the store could not be opened"), r
        assert r["path"].endswith(f"{sid}.jsonl"), r
    # nothing is lost: the session is on disk, and an import into a working store takes it
    report = lazy.json("import-conversation", "--all", "--all-projects", "--json")
    assert sid in report["imported"], report
