"""The team operations a long-running surface calls (the sidecar's team/* methods): each opens
its own connection from this machine's team.json and answers in domain values. A machine that
has not joined a team gets a TeamError of kind ``not-joined``."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from lazy.model import BuilderInfo, MessageView
from lazy.store.messages import messages_since
from lazy.team import browse
from lazy.team import promote as team_promote
from lazy.team.conninfo import where
from lazy.team.db import TeamError, connect
from lazy.team.push import Plan, run
from lazy.team.state import StateError, TeamState, load


def joined(home: Path) -> TeamState:
    try:
        state = load(home)
    except StateError as e:
        raise TeamError(str(e), "not-joined") from e
    if state is None:
        raise TeamError(
            "this machine has not joined a team: run `lazy team join <conninfo>`", "not-joined"
        )
    return state


@dataclass(frozen=True)
class Status:
    state: TeamState | None
    database: str | None
    unpushed: int


def status(home: Path, conn: sqlite3.Connection) -> Status:
    try:
        state = load(home)
    except StateError:
        state = None
    if state is None:
        return Status(None, None, 0)
    return Status(state, where(state.conninfo), messages_since(conn, state.watermark))


def builders(
    home: Path, *, project: str | None, member: str | None, limit: int
) -> list[browse.TeamBuilder]:
    state = joined(home)
    with connect(state.conninfo, "team/builders") as team:
        return browse.conversations(team, project=project, member=member, limit=limit)


@dataclass(frozen=True)
class Page:
    builder: browse.TeamBuilder
    info: BuilderInfo
    messages: list[MessageView]  # the page
    total: int


def page(home: Path, ident: str, email: str | None, start: int, count: int) -> Page:
    """Messages ``start``.. (``count`` of them) of a teammate's Builder; marked seen."""
    state = joined(home)
    with connect(state.conninfo, "team/page") as team:
        b = browse.find(team, ident, email)
        info, messages = browse.transcript(team, b, start=start, count=count)
    return Page(b, info, messages, b.message_count)


def search(
    home: Path, query: str, *, project: str | None, member: str | None, limit: int
) -> list[browse.TeamHit]:
    state = joined(home)
    with connect(state.conninfo, "team/search") as team:
        return browse.search(team, query, project=project, member=member, limit=limit)


def push(home: Path, conn: sqlite3.Connection, *, dry_run: bool) -> Plan:
    return run(conn, joined(home), home=home, dry_run=dry_run)


def promote(
    home: Path,
    ident: str,
    email: str | None,
    first: int,
    last: int,
    *,
    goal: str | None,
    code: str | None,
    parent: str | None,
    prompt: str | None,
) -> tuple[team_promote.TeamPlan, team_promote.TeamTask, list[str]]:
    """The task made (each empty field its default) and a line per other task it overlaps;
    PromoteError naming the field refused."""
    state = joined(home)
    with connect(state.conninfo, "team/promote") as team:
        plan = team_promote.check(team, ident, first, last, email)
        task, others = team_promote.create(
            team, plan, goal=goal, code=code, parent=parent, prompt=prompt
        )
    return plan, task, [team_promote.overlap_note(task, o) for o in others]
