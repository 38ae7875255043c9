"""The doctor's capture paths while something else captures live: VS Code's sidecar says who
(``Context.live``), and the Claude Code hooks and the capture daemon not being there are then
an info with the reason, not a warning; a hook whose command is gone still warns. The sweep's
status and `lazy doctor`'s listing treat an info as nothing to fix."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lazy.agents.claude.hooks import EVENTS, command_for
from lazy.cli.doctor import print_checks
from lazy.doctor.checks import report, run_checks, worst
from lazy.doctor.context import Context
from lazy.doctor.daemon import TITLE as DAEMON
from lazy.doctor.daemon import daemon_check
from lazy.doctor.hooks import TITLE as HOOKS
from lazy.doctor.hooks import hooks_check
from lazy.doctor.report import Check

LIVE = "VS Code"


def settings() -> Path:
    return Path(os.environ["HOME"]) / ".claude" / "settings.json"


def write_hooks(program: Path) -> None:
    """Our hook for every event, running ``program``."""
    entry = [{"hooks": [{"type": "command", "command": command_for(program)}]}]
    settings().parent.mkdir(parents=True, exist_ok=True)
    settings().write_text(json.dumps({"hooks": {e: entry for e in EVENTS}}))


def test_missing_hooks_warn_unless_something_captures_live() -> None:
    alone = hooks_check()
    assert (alone.status, alone.fix) == ("warn", "lazy hooks install")
    live = hooks_check(LIVE)
    assert (live.status, live.fix) == ("info", "lazy hooks install")
    assert live.detail[0] == alone.detail[0]  # what is missing, said the same
    assert "VS Code captures live while it runs" in live.detail[-1]


def test_a_hook_whose_command_is_gone_warns_even_while_live(tmp_path: Path) -> None:
    write_hooks(tmp_path / "gone" / "lazy")
    check = hooks_check(LIVE)
    assert check.status == "warn"
    assert any("no longer exists" in d for d in check.detail)
    assert not any("captures live" in d for d in check.detail)


def test_installed_hooks_are_ok_either_way(tmp_path: Path) -> None:
    program = tmp_path / "bin" / "lazy"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    write_hooks(program)
    assert hooks_check().status == hooks_check(LIVE).status == "ok"


def test_no_daemon_warns_unless_something_captures_live(tmp_path: Path) -> None:
    alone = daemon_check(tmp_path)
    assert (alone.status, alone.detail) == ("warn", ["the capture daemon is not running"])
    live = daemon_check(tmp_path, LIVE)
    assert live.status == "info" and live.detail[0] == "the capture daemon is not running"
    assert "VS Code captures live" in live.detail[-1]


def test_the_context_carries_who_captures_live_to_the_checks(tmp_path: Path) -> None:
    from lazy.doctor.checks import CHECKS

    picked = tuple(c for c in CHECKS if c[0] in (HOOKS, DAEMON))
    assert len(picked) == 2
    quiet = run_checks(Context(tmp_path, None), picked)
    live = run_checks(Context(tmp_path, None, live=LIVE), picked)
    assert [c.status for c in quiet] == ["warn", "warn"]
    assert [c.status for c in live] == ["info", "info"]


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [(["ok", "info"], "ok"), (["info"], "ok"), (["info", "warn"], "warn"), ([], "ok")],
)
def test_an_info_is_as_good_as_ok_for_the_sweep(statuses: list[str], expected: str) -> None:
    checks = [Check(f"c{i}", s) for i, s in enumerate(statuses)]  # type: ignore[arg-type]
    assert worst(checks) == expected
    assert report(checks).status == expected


def test_the_listing_marks_an_info_and_offers_its_fix_as_optional(
    capsys: pytest.CaptureFixture[str],
) -> None:
    print_checks(
        [Check("Fine", "ok"), Check(HOOKS, "info", ["no lazy hook", "not needed now"], "lazy x")]
    )
    out = capsys.readouterr().out
    assert f"i {HOOKS}" in out and "optional: lazy x" in out and "fix:" not in out
    assert "Every check passed." in out
