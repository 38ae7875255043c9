"""Capture by Claude Code's hooks alone: the real CLI, with lazy's hooks installed by `lazy
hooks install` into its (sandboxed) CLAUDE_CONFIG_DIR and LAZY_HOME in its environment,
writes sessions with no sidecar and no daemon running (driver.py's ``hooked`` scenario).
What the hooks stored must equal a fresh `lazy import-conversation` of the same files."""

from __future__ import annotations

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
