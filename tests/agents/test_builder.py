"""`lazy builder` with the real Claude Code CLI in a pseudo-terminal (builder_run.py, in a
loopback-only namespace): captured with nothing else running, the failure report after exit,
and an alias following a resume that forked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agent_support import kill_group, require, unshare_prefix
from driver import find_claude

HERE = Path(__file__).resolve().parent
REPORT_HEAD = "Conversation capture failed during this session"


def run(name: str, workdir: Path) -> dict[str, Any]:
    claude = find_claude()
    require(claude is not None and len(claude) == 1, "the claude CLI (cd tests/agents && npm ci)")
    proc = subprocess.Popen(
        [*unshare_prefix(), sys.executable, str(HERE / "builder_run.py"), name, str(workdir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        _, err = proc.communicate(timeout=300)
    finally:
        kill_group(proc)
    script = workdir / "script.json"
    assert script.is_file(), f"builder_run.py {name} wrote nothing (rc={proc.returncode}): {err}"
    data: dict[str, Any] = json.loads(script.read_text())
    assert data["error"] is None, data["error"]
    return data


def test_a_builder_session_is_captured_with_nothing_else_running(tmp_path: Path) -> None:
    d = run("healthy", tmp_path)
    assert d["run"]["rc"] == 0
    assert "Plan: capture every 30 seconds." in d["run"]["output"]
    assert REPORT_HEAD not in d["run"]["output"]
    builders = d["stored"]["builders"]["builders"]
    assert [b["summary"] for b in builders] == [d["prompt"]]
    assert builders[0]["message_count"] == 2
    assert any("captured 1 session(s)" in log for log in d["logs"])


def test_capture_failures_are_reported_once_after_claude_exits(tmp_path: Path) -> None:
    d = run("broken", tmp_path)
    out = d["run"]["output"]
    assert d["run"]["rc"] == 0  # Claude Code's own status
    assert "Here is the reply." in out
    # the report comes after Claude Code's output, once, each reason once
    assert out.index("Here is the reply.") < out.index(REPORT_HEAD)
    assert out.count(REPORT_HEAD) == 1
    said = " ".join(out.split())  # the report is wrapped at 80 columns
    assert said.count("[builder] Incremental capture failed: cannot open ") == 1
    assert "broken-lazy/store.db: it is a folder, not a database file" in said  # file, and why
    assert "[SQLITE_CANTOPEN]" in out and "unable to open database file" in out
    assert "Check `lazy daemon status`, then `lazy doctor` for details." in out
    assert "`lazy doctor --reimport-conversations` can re-import" in out
    # it recurred on every capture during the session: the log has them all
    (log,) = d["logs"]
    assert log.count("[SQLITE_CANTOPEN]") >= 3
    assert d["files"], "the session is still on disk for a re-import"


def test_an_alias_follows_a_forked_resume_and_never_a_one_shot(tmp_path: Path) -> None:
    d = run("alias", tmp_path)
    assert d["named"]["rc"] == 0, d["named"]
    assert d["resumed"]["rc"] == 0 and "Forked and continued." in d["resumed"]["output"]
    new = set(d["after"]) - set(d["before"])
    (forked,) = [Path(p).stem for p in new]
    assert forked != d["oneshot"]
    [entry] = [a for a in d["aliases"]["aliases"] if a["name"] == "reviewer"]
    assert entry["native_id"] == forked, (entry, forked)
    assert f"alias 'reviewer' now names session {forked[:8]}" in d["resumed"]["output"]


@pytest.fixture(autouse=True)
def _namespace() -> None:
    require(
        subprocess.run([*unshare_prefix(), "true"], capture_output=True).returncode == 0,
        "unshare --net (root, or unprivileged user namespaces)",
    )
