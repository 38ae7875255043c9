"""Doctor's look at the Claude Code hooks that run `lazy capture --hook`: installed for every
event, and their command still there (the settings file is read by lazy.agents.claude.hooks)."""

from __future__ import annotations

from lazy.agents.claude.hooks import EVENTS, SettingsError, settings_path, status
from lazy.doctor.report import Check

TITLE = "Claude Code hooks installed"


def hooks_check() -> Check:
    """Ok when every event has our hook and its command exists."""
    path = settings_path()
    fix = "lazy hooks install"
    try:
        events = status(path)
    except SettingsError as e:
        return Check(TITLE, "warn", [f"{e.reason} [{e.code}]"], fix)
    missing = [s.event for s in events if not s.installed]
    broken = sorted({s.command or "" for s in events if s.installed and not s.runnable})
    if not missing and not broken:
        return Check(TITLE, "ok", [f"{', '.join(EVENTS)} in {path}"])
    detail = []
    if missing:
        detail.append(f"no lazy hook for {', '.join(missing)} in {path}")
    for command in broken:
        detail.append(f"the hook's command no longer exists: {command}")
    return Check(TITLE, "warn", detail, fix)
