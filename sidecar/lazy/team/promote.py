"""Promoting part of a teammate's conversation to a task on the team database.

As in the seed's Lazy Teams: the fields start empty and each falls back to its default — the
goal from what was said first in the range, a code from the goal (unique in the project), the
prompt from the messages themselves — so a promotion needs only the range. What can refuse it
(no such Builder visible, a range it does not have, the exact range already promoted, a taken
code) is checked before anyone types; the overlap with other tasks cannot be warned of up
front, so it is reported once the task exists, naming who made the other task."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from psycopg import errors

from lazy.model import MessageView
from lazy.tasks.promote import PromoteError, default_goal, seed, unique_slug, valid_code
from lazy.team import browse
from lazy.team.schema import Conn


@dataclass(frozen=True)
class TeamTask:
    code: str
    goal: str
    prompt: str
    parent: str | None
    by: str  # who created it (a member's name)
    created_at: datetime | None
    builder_id: str
    from_message: int
    to_message: int


@dataclass
class TeamPlan:
    builder: browse.TeamBuilder
    first: int
    last: int
    messages: list[MessageView]
    project_id: int
    member_id: int  # whose Builder

    @property
    def default_goal(self) -> str:
        return default_goal(self.messages)

    @property
    def default_prompt(self) -> str:
        return seed(self.messages)


_TASK = (
    "SELECT t.code, t.goal, t.prompt, t.parent, m.name, t.created_at, t.builder_id,"
    " t.from_message, t.to_message FROM lazy_team.tasks t"
    " JOIN lazy_team.members m ON m.id = t.created_by"
)


def _task(r: tuple[object, ...]) -> TeamTask:
    return TeamTask(
        code=str(r[0]),
        goal=str(r[1]),
        prompt=str(r[2]),
        parent=None if r[3] is None else str(r[3]),
        by=str(r[4]),
        created_at=r[5] if isinstance(r[5], datetime) else None,
        builder_id=str(r[6]),
        from_message=int(str(r[7])),
        to_message=int(str(r[8])),
    )


def check(team: Conn, ident: str, first: int, last: int, member: str | None = None) -> TeamPlan:
    b = browse.find(team, ident, member)
    row = team.execute(
        "SELECT b.member_id, b.project_id FROM lazy_team.builders b"
        " JOIN lazy_team.members m ON m.id = b.member_id WHERE m.email = %s AND b.builder_id = %s",
        (b.email, b.builder_id),
    ).fetchone()
    assert row is not None
    member_id, project_id = int(row[0]), int(row[1])
    total = b.message_count
    if first > last:
        raise PromoteError("from", f"the range {first}–{last} runs backwards: from is after to")
    for field, n in (("from", first), ("to", last)):
        if not 1 <= n <= total:
            raise PromoteError(
                field, f"message {n} is not in {b.builder_id[:8]}: it has messages 1–{total}"
            )
    exact = team.execute(
        _TASK + " WHERE t.builder_member = %s AND t.builder_id = %s AND t.from_message = %s"
        " AND t.to_message = %s",
        (member_id, b.builder_id, first, last),
    ).fetchone()
    if exact is not None:
        t = _task(exact)
        raise PromoteError(
            "range",
            f"messages {first}–{last} of {b.builder_id[:8]} were already promoted, as task"
            f" {t.code} by {t.by} ({t.goal})",
        )
    views = team.execute(
        "SELECT view FROM lazy_team.messages WHERE member_id = %s AND builder_id = %s"
        " AND line = '' AND number BETWEEN %s AND %s ORDER BY number",
        (member_id, b.builder_id, first, last),
    ).fetchall()
    messages = [MessageView.model_validate(v[0]) for v in views]
    return TeamPlan(b, first, last, messages, project_id, member_id)


def _code_taken(team: Conn, project_id: int, code: str) -> bool:
    return (
        team.execute(
            "SELECT 1 FROM lazy_team.tasks WHERE project_id = %s AND code = %s", (project_id, code)
        ).fetchone()
        is not None
    )


def check_code(team: Conn, plan: TeamPlan, code: str) -> str:
    code = valid_code(code)
    if _code_taken(team, plan.project_id, code):
        raise PromoteError("code", f"there is already a task {code} in {plan.builder.project}")
    return code


def default_code(team: Conn, plan: TeamPlan, goal: str) -> str:
    """A slug of the goal, unique among the project's tasks."""
    return unique_slug(goal, lambda code: _code_taken(team, plan.project_id, code))


def create(
    team: Conn,
    plan: TeamPlan,
    *,
    goal: str | None = None,
    code: str | None = None,
    parent: str | None = None,
    prompt: str | None = None,
) -> tuple[TeamTask, list[TeamTask]]:
    """The task (each field left empty falling back to its default) and the other tasks that
    share messages with it, reported now that it exists."""
    goal = (goal or "").strip() or plan.default_goal
    code = check_code(team, plan, code) if code and code.strip() else default_code(team, plan, goal)
    prompt = prompt if prompt and prompt.strip() else plan.default_prompt
    try:
        with team.transaction():
            row = team.execute(
                "INSERT INTO lazy_team.tasks (project_id, code, goal, prompt, parent,"
                " builder_member, builder_id, from_message, to_message)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
                (
                    plan.project_id,
                    code,
                    goal,
                    prompt.replace("\x00", ""),
                    (parent or "").strip() or None,
                    plan.member_id,
                    plan.builder.builder_id,
                    plan.first,
                    plan.last,
                ),
            ).fetchone()
    except errors.UniqueViolation as e:  # another member took the range or the code meanwhile
        what = "code" if "code" in str(e) else "range"
        raise PromoteError(
            what, f"refused: the {what} was just taken by another promotion"
        ) from None
    assert row is not None
    created = team.execute(_TASK + " WHERE t.id = %s", (row[0],)).fetchone()
    assert created is not None
    overlaps = team.execute(
        _TASK + " WHERE t.builder_member = %s AND t.builder_id = %s AND t.id <> %s"
        " AND t.from_message <= %s AND t.to_message >= %s ORDER BY t.from_message",
        (plan.member_id, plan.builder.builder_id, row[0], plan.last, plan.first),
    ).fetchall()
    return _task(created), [_task(r) for r in overlaps]


def overlap_note(task: TeamTask, other: TeamTask) -> str:
    lo, hi = max(task.from_message, other.from_message), min(task.to_message, other.to_message)
    shared = f"message {lo}" if lo == hi else f"messages {lo}–{hi}"
    return (
        f"{shared} also went into {other.by}'s task {other.code}"
        f" (messages {other.from_message}–{other.to_message}: {other.goal})"
    )


def tasks(team: Conn, project: str | None = None) -> list[TeamTask]:
    q = _TASK + " JOIN lazy_team.projects p ON p.id = t.project_id"
    args: list[str] = []
    if project:
        q += " WHERE p.key = %s"
        args.append(project)
    return [_task(r) for r in team.execute(q + " ORDER BY t.created_at DESC", args).fetchall()]
