"""`lazy hooks install|uninstall|status` (issue 6) against a Claude settings file that holds
the user's own hooks and settings: those survive, in meaning, every change lazy makes."""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from harness import LAZY

from lazy.doctor import hooks as doctor_hooks
from lazy.doctor.report import Check
from support.search import env_for

EVENTS = ["SessionStart", "Stop", "PreCompact", "SessionEnd"]
USER_SETTINGS: dict[str, Any] = {
    "permissions": {"allow": ["Read", "Bash(git status)"], "defaultMode": "default"},
    "model": "opus",
    "hooks": {
        "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}
        ],
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [
                    {"type": "command", "command": "echo hi", "timeout": 5},
                    {"type": "command", "command": "other-tool capture --hook"},
                ],
            }
        ],
    },
    "env": {"FOO": "bär ✓"},
    "cleanupPeriodDays": 3650,
}


class Claude:
    def __init__(self, base: Path) -> None:
        self.config = base / "claude-config"
        self.config.mkdir()
        self.settings = self.config / "settings.json"
        self.home = base / "home"
        self.lazy_home = base / "lazy"

    def lazy(
        self, *args: str, ok: bool = True, claude: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``claude``: the version a `claude` first on PATH says it is."""
        env = env_for(self.lazy_home, self.home, CLAUDE_CONFIG_DIR=str(self.config), NO_COLOR="1")
        if claude is not None:
            bin_dir = self.config.parent / "bin"
            bin_dir.mkdir(exist_ok=True)
            fake = bin_dir / "claude"
            fake.write_text(f"#!/bin/sh\necho '{claude} (Claude Code)'\n")
            fake.chmod(0o755)
            env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
        p = subprocess.run(
            [LAZY, "hooks", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        if ok:
            assert p.returncode == 0, p
        return p

    def write(self, data: Any) -> None:
        self.settings.write_text(json.dumps(data, indent=4))

    def read(self) -> Any:
        return json.loads(self.settings.read_text())

    def status(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.lazy("status", "--json").stdout)
        return data


@pytest.fixture
def claude(tmp: Path) -> Claude:
    return Claude(tmp)


def without_ours(settings: Any) -> Any:
    """The settings with lazy's hooks (and what held only them) taken out."""
    out = copy.deepcopy(settings)
    for event in list(out.get("hooks", {})):
        groups = []
        for g in out["hooks"][event]:
            g["hooks"] = [
                h for h in g["hooks"] if not h["command"].endswith("/lazy capture --hook")
            ]
            if g["hooks"]:
                groups.append(g)
        if groups:
            out["hooks"][event] = groups
        else:
            del out["hooks"][event]
    return out


def ours(settings: Any, event: str) -> list[dict[str, Any]]:
    return [
        h
        for g in settings["hooks"].get(event, [])
        for h in g["hooks"]
        if h["command"] == f"{LAZY} capture --hook"
    ]


def test_install_keeps_everything_else_and_twice_is_once(claude: Claude) -> None:
    claude.write(USER_SETTINGS)
    before = claude.status()
    assert before["installed"] is False
    assert [e["installed"] for e in before["events"]] == [False] * 4  # other-tool's is not ours
    p = claude.lazy("install")
    assert (
        "SessionStart, Stop, PreCompact, SessionEnd" in p.stdout
        and str(claude.settings) in p.stdout
    )
    after = claude.read()
    for event in EVENTS:
        [mine] = ours(after, event)
        assert mine == {"type": "command", "command": f"{LAZY} capture --hook", "timeout": 30}
        group = next(g for g in after["hooks"][event] if mine in g["hooks"])
        assert group["matcher"] == "" and group["hooks"] == [mine]
    assert without_ours(after) == USER_SETTINGS
    assert list(after) == list(USER_SETTINGS)  # the keys in their order
    text = claude.settings.read_bytes()
    p = claude.lazy("install")
    assert "Already installed" in p.stdout
    assert claude.settings.read_bytes() == text  # twice = once, not even rewritten
    assert claude.status()["installed"] is True


def test_uninstall_removes_only_ours(claude: Claude) -> None:
    claude.write(USER_SETTINGS)
    claude.lazy("install")
    p = claude.lazy("uninstall")
    assert "Removed" in p.stdout
    assert claude.read() == USER_SETTINGS
    p = claude.lazy("uninstall")
    assert "nothing to remove" in p.stdout
    assert claude.read() == USER_SETTINGS
    # a file with nothing but our hooks goes back to what it was
    claude.write({"model": "sonnet"})
    claude.lazy("install")
    claude.lazy("uninstall")
    assert claude.read() == {"model": "sonnet"}


def test_invalid_json_is_refused_and_left_as_it_is(claude: Claude) -> None:
    broken = b'{\n  "model": "opus",\n  "hooks": {,\n}\n'
    claude.settings.write_bytes(broken)
    for args in (["install"], ["uninstall"], ["status"], ["install", "--dry-run"]):
        p = claude.lazy(*args, ok=False)
        assert p.returncode == 1, (args, p)
        assert str(claude.settings) in p.stderr and "not valid JSON" in p.stderr
        assert "line 3" in p.stderr and "INVALID_JSON" in p.stderr
        assert claude.settings.read_bytes() == broken
    assert [f.name for f in claude.config.iterdir()] == ["settings.json"]  # no temp file left
    check = hooks_check(claude)
    assert check.status == "warn" and "not valid JSON" in check.detail[0]


def test_a_settings_value_of_the_wrong_shape_is_refused(claude: Claude) -> None:
    claude.write({"hooks": {"Stop": {"not": "a list"}}})
    text = claude.settings.read_bytes()
    p = claude.lazy("install", ok=False)
    assert p.returncode == 1 and '"hooks.Stop" is not a list' in p.stderr
    assert claude.settings.read_bytes() == text


def test_dry_run_shows_the_change_and_writes_nothing(claude: Claude) -> None:
    claude.write(USER_SETTINGS)
    text = claude.settings.read_bytes()
    p = claude.lazy("install", "--dry-run")
    assert f'+            "command": "{LAZY} capture --hook",' in p.stdout
    assert "dry run" in p.stdout and claude.settings.read_bytes() == text
    claude.lazy("install")
    p = claude.lazy("uninstall", "--dry-run")
    assert f'-            "command": "{LAZY} capture --hook",' in p.stdout
    assert ours(claude.read(), "Stop")


def test_no_settings_file_yet(claude: Claude) -> None:
    claude.lazy("install")
    settings = claude.read()
    assert set(settings) == {"hooks"} and all(ours(settings, e) for e in EVENTS)
    claude.lazy("uninstall")
    assert claude.read() == {}


def test_a_moved_lazy_is_replaced_and_status_says_when_the_command_is_gone(claude: Claude) -> None:
    old = "/opt/old-venv/bin/lazy capture --hook"
    settings = copy.deepcopy(USER_SETTINGS)
    for event in EVENTS:
        settings["hooks"].setdefault(event, []).append(
            {"matcher": "", "hooks": [{"type": "command", "command": old, "timeout": 30}]}
        )
    claude.write(settings)
    status = claude.status()
    assert all(e["installed"] and not e["command_exists"] for e in status["events"])
    assert status["installed"] is False
    p = claude.lazy("status")
    assert "no longer exists" in p.stdout and "lazy hooks install" in p.stdout
    check = hooks_check(claude)
    assert check.status == "warn" and check.fix == "lazy hooks install"
    assert any(old in line for line in check.detail)
    claude.lazy("install")
    after = claude.read()
    assert all(len(ours(after, e)) == 1 for e in EVENTS)
    assert old not in json.dumps(after)
    assert without_ours(after) == USER_SETTINGS
    assert hooks_check(claude).status == "ok"


def test_a_symlinked_settings_file_stays_a_symlink(claude: Claude, tmp: Path) -> None:
    dotfiles = tmp / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(json.dumps(USER_SETTINGS))
    os.chmod(dotfiles, 0o640)
    claude.settings.symlink_to(dotfiles)
    claude.lazy("install")
    assert claude.settings.is_symlink() and claude.settings.resolve() == dotfiles
    assert ours(json.loads(dotfiles.read_text()), "PreCompact")
    assert dotfiles.stat().st_mode & 0o777 == 0o640


def hooks_check(claude: Claude) -> Check:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CLAUDE_CONFIG_DIR", str(claude.config))
        return doctor_hooks.hooks_check()


def test_json_reports_the_change(claude: Claude) -> None:
    claude.write(USER_SETTINGS)
    dry = json.loads(claude.lazy("install", "--dry-run", "--json").stdout)
    assert dry["dry_run"] is True and dry["changed"] is True and dry["added"] == EVENTS
    assert claude.read() == USER_SETTINGS
    done = json.loads(claude.lazy("install", "--json").stdout)
    assert done["added"] == EVENTS and done["command"] == f"{LAZY} capture --hook"
    assert done["settings"] == str(claude.settings)
    again = json.loads(claude.lazy("install", "--json").stdout)
    assert again["changed"] is False and again["kept"] == EVENTS
    gone = json.loads(claude.lazy("uninstall", "--json").stdout)
    assert sorted(gone["removed"]) == sorted(EVENTS) and claude.read() == USER_SETTINGS


def test_an_older_claude_code_gets_only_the_events_it_knows(claude: Claude) -> None:
    """1.0.x ignores a whole settings file that names SessionEnd (schema check): lazy leaves
    that hook out, and takes an earlier install's out; 2.x gets all four; older than 1.0.65
    is refused, the file untouched."""
    claude.write(USER_SETTINGS)
    claude.lazy("install", claude="2.1.332")
    assert all(ours(claude.read(), e) for e in EVENTS)
    p = claude.lazy("install", claude="1.0.65")
    assert "does not know SessionEnd" in p.stdout and "Removed" in p.stdout
    after = claude.read()
    assert [e for e in EVENTS if ours(after, e)] == ["SessionStart", "Stop", "PreCompact"]
    assert "SessionEnd" not in after["hooks"] and without_ours(after) == USER_SETTINGS
    again = json.loads(claude.lazy("install", "--json", claude="1.0.99").stdout)
    assert again["changed"] is False
    text = claude.settings.read_bytes()
    p = claude.lazy("install", claude="1.0.30", ok=False)
    assert p.returncode == 1 and "CLAUDE_TOO_OLD" in p.stderr and "1.0.30" in p.stderr
    assert claude.settings.read_bytes() == text
    claude.lazy("install", claude="2.0.42")
    assert all(ours(claude.read(), e) for e in EVENTS)
