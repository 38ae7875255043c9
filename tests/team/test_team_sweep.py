"""The daemon pushes on its sweep once the machine has joined a team (the sidecar shares the
same pusher, lazy.team.sync): a session captured by the daemon reaches the team database with
no `lazy team push`; with the server down, capture goes on and the failure is recorded."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from team_world import Member, fresh_team, git_repo, pushed

from support import poll
from support.postgres import Postgres


@pytest.fixture
def alice(postgres: Postgres, tmp_path: Path) -> Iterator[Member]:
    [m] = fresh_team(postgres, tmp_path, ("alice", "Alice Archer"))
    yield m
    status = json.loads(m.lazy("daemon", "status", "--json").stdout)
    if status.get("running") and status.get("pid"):
        m.lazy("daemon", "stop", ok=False)
        if json.loads(m.lazy("daemon", "status", "--json").stdout).get("running"):
            os.kill(int(status["pid"]), signal.SIGKILL)
    if not postgres.pid:
        postgres.start()


def test_the_daemon_pushes_what_its_sweep_captured(
    alice: Member, postgres: Postgres, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "src" / "app", "git@github.com:acme/app.git")
    alice.session(repo, "captured by the daemon, pushed by it", "without lazy team push")
    alice.lazy("daemon", "start")
    poll(lambda: pushed(postgres, "alice") == (1, 2), timeout=60, what="the daemon's push")
    status = poll(
        lambda: (s := alice.json("team", "status"))["last_push"] and s,
        timeout=30,
        what="the record",
    )
    assert status["last_push"]["builders"] == 1 and status["failing_since"] is None
    alice.lazy("daemon", "stop")

    postgres.stop()
    alice.session(repo, "captured while the team database is down", "kept locally")
    alice.lazy("daemon", "start")
    poll(
        lambda: alice.json("team", "status")["failing_since"],
        timeout=60,
        what="the failure recorded",
    )
    rows = alice.json("conversations", "--all-projects")["builders"]
    assert len(rows) == 2  # capture went on
    assert "cannot reach the team database" in alice.json("team", "status")["last_error"]
