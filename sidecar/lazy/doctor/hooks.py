"""Doctor's look at the Claude Code hooks that run `lazy capture --hook`: installed for every
event, and their command still there (the settings file is read by lazy.agents.claude.hooks).
While something else captures live (VS Code's sidecar), hooks not installed are worth a line,
not a warning; a hook whose command is gone still is one (Claude Code runs it every event)."""

from __future__ import annotations

from lazy.agents.claude.hooks import EVENTS, SettingsError, settings_path, status
from lazy.doctor.report import Check

TITLE = "Claude Code hooks installed"
FIX = "lazy hooks install"


def not_needed(live: str) -> str:
    """Why a capture path is not needed now, and when it would be."""
    return f"not needed now: {live} captures live while it runs (this is for capture without it)"


def hooks_check(live: str | None = None) -> Check:
    """Ok when every event has our hook and its command exists; ``live``: who captures
    live meanwhile, so missing hooks are an info."""
    path = settings_path()
    try:
        events = status(path)
    except SettingsError as e:
        return Check(TITLE, "warn", [f"{e.reason} [{e.code}]"], FIX)
    missing = [s.event for s in events if not s.installed]
    broken = sorted({s.command or "" for s in events if s.installed and not s.runnable})
    if not missing and not broken:
        return Check(TITLE, "ok", [f"{', '.join(EVENTS)} in {path}"])
    detail = []
    if missing:
        detail.append(f"no lazy hook for {', '.join(missing)} in {path}")
    for command in broken:
        detail.append(f"the hook's command no longer exists: {command}")
    if live and not broken:
        return Check(TITLE, "info", [*detail, not_needed(live)], FIX)
    return Check(TITLE, "warn", detail, FIX)
