"""Doctor's "Team sync is healthy": read from the push record (team.json) and the store, never
from the server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from fabricate.claude import Session
from lazy.doctor.context import Context
from lazy.doctor.team import team_check
from lazy.store import Store
from lazy.team.state import LastPush, TeamState, save
from support.agent_sessions import invoke

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
DB = "host=/run/pg port=5432 dbname=team user=alice"


def _ctx(home: Path, store: Store) -> Context:
    return Context(home=home, store=store)


def _at(hours: float) -> str:
    return (NOW - timedelta(hours=hours)).isoformat(timespec="seconds")


def test_not_joined_is_nothing_to_sync(store: Store, tmp_path: Path) -> None:
    c = team_check(_ctx(tmp_path / "lazy", store), NOW)
    assert c.status == "ok" and "not joined a team" in c.detail[0]


def test_failing_pushes_warn_then_fail_after_a_day(store: Store, tmp_path: Path) -> None:
    home = tmp_path / "lazy"
    save(
        TeamState(conninfo=DB, failing_since=_at(2), last_error="cannot reach the team database"),
        home,
    )
    c = team_check(_ctx(home, store), NOW)
    assert c.status == "warn" and "alice@/run/pg:5432/team" in c.detail[0]
    assert "cannot reach" in c.detail[1] and c.fix and "lazy team status" in c.fix
    save(TeamState(conninfo=DB, failing_since=_at(25), last_error="refused"), home)
    assert team_check(_ctx(home, store), NOW).status == "fail"


def test_a_recent_push_is_ok_and_an_old_one_with_work_waiting_warns(tmp_path: Path) -> None:
    home = tmp_path / "lazy"  # the conftest's LAZY_HOME: the in-process CLI imports into it
    Session(tmp_path / "home" / ".claude" / "projects", "/w/app").turn("a prompt", "a reply")
    invoke("import-conversation", "--all-projects", "--yes")
    store = Store.open(home)
    try:
        save(TeamState(conninfo=DB, last_push=LastPush(at=_at(1), builders=2, messages=9)), home)
        ok = team_check(_ctx(home, store), NOW)
        assert ok.status == "ok" and "2 Builder(s), 9 message(s)" in ok.detail[0]
        assert "2 message(s) stored since" in ok.detail[1]
        save(TeamState(conninfo=DB, last_push=LastPush(at=_at(7), builders=2, messages=9)), home)
        late = team_check(_ctx(home, store), NOW)
        assert late.status == "warn" and "behind" in late.detail[-1]
        save(TeamState(conninfo=DB, watermark=10**9, last_push=LastPush(at=_at(7))), home)
        assert team_check(_ctx(home, store), NOW).status == "ok"  # nothing waiting: not behind
    finally:
        store.close()
