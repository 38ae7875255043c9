"""Doctor's look at the capture daemon (lazy.capture.daemon): running, and what its last
sweep did. Not running while VS Code captures live is an info, not a warning."""

from __future__ import annotations

from pathlib import Path

from lazy.capture.daemon import PID_FILE, status
from lazy.doctor.hooks import not_needed
from lazy.doctor.report import Check

TITLE = "Capture daemon running"


def daemon_check(home: Path, live: str | None = None) -> Check:
    """Warn when it is not running, unless ``live`` (who else captures live meanwhile)
    makes that an info."""
    s = status(home)
    sweep = s["last_sweep"]
    last = ""
    if sweep:
        last = (
            f"last sweep {sweep['at']}: {sweep['captured']} session(s) captured,"
            f" {len(sweep['failures']) + sweep.get('more_failures', 0)} failure(s)"
        )
    if s["running"]:
        return Check(TITLE, "ok", [f"pid {s['pid']} since {s['since']}", *([last] if last else [])])
    detail = ["the capture daemon is not running"]
    if s["stale_pid"]:
        detail.append(f"pid {s['stale_pid']} (in {PID_FILE}) is gone")
    if last:
        detail.append(last)
    if live:
        return Check(TITLE, "info", [*detail, not_needed(live)], "lazy daemon start")
    return Check(TITLE, "warn", detail, "lazy daemon start")
