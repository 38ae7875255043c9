"""Doctor's look at team sync: whether this machine's pushes to the team database succeed and
keep up. It reads the push record (team.json) and the store, and never waits on the server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from lazy.doctor.context import Context
from lazy.doctor.report import Check, Status
from lazy.store.messages import messages_since
from lazy.team.state import StateError, load

TITLE = "Team sync is healthy"
FAILING_FOR = timedelta(days=1)  # pushes failing this long: a failure, not a warning
LAGGING_FOR = timedelta(hours=6)  # stored messages unpushed with no push this long: a warning


def _age(iso: str | None, now: datetime) -> timedelta | None:
    if not iso:
        return None
    try:
        return now - datetime.fromisoformat(iso)
    except ValueError:
        return None


def team_check(ctx: Context, now: datetime | None = None) -> Check:
    now = now or datetime.now(UTC)
    try:
        state = load(ctx.home)
    except StateError as e:
        return Check(TITLE, "fail", [str(e)], "lazy team join <conninfo>")
    if state is None:
        return Check(TITLE, "ok", ["this machine has not joined a team (nothing to sync)"])
    from lazy.team.conninfo import where  # psycopg: only on a machine that joined a team

    at = where(state.conninfo)
    if state.failing_since:
        age = _age(state.failing_since, now) or timedelta(0)
        detail = [f"pushes to {at} failing since {state.failing_since}", f"{state.last_error}"]
        status: Status = "fail" if age >= FAILING_FOR else "warn"
        return Check(TITLE, status, detail, "lazy team status (then lazy team push)")
    unpushed = messages_since(ctx.store.conn, state.watermark) if ctx.store else 0
    last = state.last_push
    if last is None:
        detail = [f"joined {at}; nothing pushed yet", f"{unpushed} message(s) to push"]
        return Check(TITLE, "warn" if unpushed else "ok", detail, "lazy team push")
    since = _age(last.at, now) or timedelta(0)
    detail = [
        f"last push to {at} at {last.at}: {last.builders} Builder(s), {last.messages} message(s)",
        f"{unpushed} message(s) stored since",
    ]
    if unpushed and since >= LAGGING_FOR:
        return Check(TITLE, "warn", [*detail, "behind: no push for over 6 hours"], "lazy team push")
    return Check(TITLE, "ok", detail)
