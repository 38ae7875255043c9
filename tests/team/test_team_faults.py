"""lazy team when things go wrong, on a real PostgreSQL server: the server unreachable, killed
mid-push, the client killed mid-push, a schema newer than lazy, a role without rights, one
member pushing from two machines at once. Each says what happened, and nothing is lost or
duplicated on either side."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from team_world import Member, fresh_team, git_repo, pushed

from support import poll
from support.postgres import Postgres
from support.search import LAZY, env_for

# each Builder's row waits this long before it is written: a push of a few Builders takes
# long enough to be cut in the middle (a trigger on the real server, not a fake of it)
SLOW = """
CREATE FUNCTION lazy_team.slow_down() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN PERFORM pg_sleep(0.4); RETURN NEW; END $$;
CREATE TRIGGER slow BEFORE INSERT ON lazy_team.builders
  FOR EACH ROW EXECUTE FUNCTION lazy_team.slow_down();
"""


@pytest.fixture
def pg(postgres: Postgres) -> Iterator[Postgres]:
    yield postgres
    if not postgres.pid:  # a test that stopped it leaves it running for the next
        postgres.start()


def _member_with_builders(base: Path, pg: Postgres, n: int) -> Member:
    [alice] = fresh_team(pg, base, ("alice", "Alice Archer"))
    repo = git_repo(base / "alice" / "src" / "app", "git@github.com:acme/app.git")
    for i in range(n):
        alice.session(repo, f"question {i} about the tangerine cache", f"answer {i}")
    alice.capture()
    return alice


def _local(alice: Member) -> tuple[int, int]:
    rows = alice.json("conversations", "--all-projects")["builders"]
    return len(rows), sum(int(r["message_count"]) for r in rows)


def test_an_unreachable_server_is_said_and_local_work_goes_on(pg: Postgres, tmp_path: Path) -> None:
    alice = _member_with_builders(tmp_path, pg, 2)
    pg.stop()
    r = alice.lazy("team", "push", ok=False)
    assert r.returncode == 1
    assert f"cannot reach the team database at alice@{pg.sockets}:{pg.port}/team" in r.stderr
    assert "password" not in r.stderr.lower()
    status = alice.json("team", "status")
    assert status["reachable"].startswith("no: cannot reach")
    assert status["failing_since"] and status["unpushed_messages"] == 4
    assert _local(alice) == (2, 4)  # the store is untouched and serves as before
    pg.start()
    assert "Sent 2 Builder(s), 4 message(s)" in alice.lazy("team", "push").stdout
    assert alice.json("team", "status")["failing_since"] is None


def _push_child(alice: Member) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [LAZY, "team", "push"],
        env=env_for(alice.lazy_home, alice.home, **alice.env()),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )


@pytest.mark.parametrize("who", ["server", "client"])
def test_a_push_cut_in_the_middle_loses_and_duplicates_nothing(
    who: str, pg: Postgres, tmp_path: Path, procs: list[subprocess.Popen[str]]
) -> None:
    alice = _member_with_builders(tmp_path, pg, 6)
    pg.sql(SLOW)
    child = _push_child(alice)
    procs.append(child)
    poll(lambda: pushed(pg, "alice")[0] >= 2, timeout=60, what="two Builders pushed")
    if who == "server":
        pg.kill()
    else:
        os.kill(child.pid, signal.SIGKILL)
    _, err = child.communicate(timeout=60)
    assert child.returncode != 0
    if who == "server":
        assert "the connection to alice@" in err and "was lost or refused" in err, err
        assert "nothing is half-written" in err
        pg.start()
    cut = pushed(pg, "alice")
    assert 2 <= cut[0] < 6 and cut[1] == 2 * cut[0]  # whole Builders only
    assert alice.json("team", "status")["last_push"] is None  # the watermark did not move
    pg.sql("DROP TRIGGER slow ON lazy_team.builders")
    again = alice.json("team", "push")
    assert len(again["builders"]) == 6 - cut[0]
    assert pushed(pg, "alice") == _local(alice) == (6, 12)
    assert alice.json("team", "push", "--all")["builders"] == []


def test_a_schema_newer_than_lazy_is_refused_before_anything(pg: Postgres, tmp_path: Path) -> None:
    alice = _member_with_builders(tmp_path, pg, 1)
    pg.sql("UPDATE lazy_team.meta SET value = '99' WHERE key = 'schema_version'")
    try:
        r = alice.lazy("team", "push", ok=False)
        assert "schema is version 99; this lazy knows up to 3: upgrade lazy" in r.stderr
        assert pushed(pg, "alice") == (0, 0)
        owner = Member(tmp_path, "owner", "Owner", pg)
        init = owner.lazy("team", "init", pg.conninfo(), ok=False)
        assert "version 99" in init.stderr and "nothing was changed" in init.stderr
    finally:
        pg.sql("UPDATE lazy_team.meta SET value = '3' WHERE key = 'schema_version'")


def test_a_role_without_rights_is_told_what_to_do(pg: Postgres, tmp_path: Path) -> None:
    fresh_team(pg, tmp_path)
    pg.sql("DROP ROLE IF EXISTS mallory; CREATE ROLE mallory LOGIN")
    mallory = Member(tmp_path, "mallory", "Mallory", pg)
    r = mallory.lazy("team", "join", mallory.conninfo, ok=False)
    assert r.returncode == 1
    assert "permission denied for schema lazy_team" in r.stderr, r.stderr
    assert not (mallory.lazy_home / "team.json").exists()


def test_one_member_pushing_from_two_machines_at_once_converges(
    pg: Postgres, tmp_path: Path, procs: list[subprocess.Popen[str]]
) -> None:
    [laptop] = fresh_team(pg, tmp_path, ("alice", "Alice Archer"))
    desk = Member(tmp_path / "desk", "alice", "Alice Archer", pg)
    desk.lazy("team", "join", desk.conninfo)
    repo = git_repo(tmp_path / "src" / "app", "git@github.com:acme/app.git")
    shared = laptop.session(repo, "one session synced to both machines", "the same on both")
    desk.projects.mkdir(parents=True)
    (desk.projects / shared.path.parent.name).mkdir()
    (desk.projects / shared.path.parent.name / shared.path.name).write_bytes(
        shared.path.read_bytes()
    )
    laptop.session(repo, "only on the laptop", "yes")
    desk.session(repo, "only on the desk", "yes")
    laptop.capture()
    desk.capture()
    pg.sql(SLOW)
    children = [_push_child(laptop), _push_child(desk)]
    procs.extend(children)
    for c in children:
        _, err = c.communicate(timeout=120)
        assert c.returncode == 0, err
    assert pushed(pg, "alice") == (3, 6)  # the shared one once, each machine's own once


def test_a_password_given_once_is_used_never_kept_or_shown(pg: Postgres, tmp_path: Path) -> None:
    [alice] = fresh_team(pg, tmp_path, ("alice", "Alice Archer"))
    r = alice.lazy("team", "join", alice.conninfo + " password=hunter2")
    assert "was used once and not kept" in r.stderr and "hunter2" not in r.stdout + r.stderr
    kept = (alice.lazy_home / "team.json").read_text()
    assert "hunter2" not in kept and "user=alice" in kept
    assert oct((alice.lazy_home / "team.json").stat().st_mode & 0o777) == "0o600"
    assert "hunter2" not in alice.lazy("team", "status").stdout
