"""Promoting a range of a Builder's messages to a backlog task.

Everything that can refuse a promotion is checked before anyone writes a prompt
(``check_range``, ``check_code``, ``check_parent``) and checked again in the transaction
that creates the task, where another process may have promoted meanwhile. A range is
always named: never the whole conversation by default.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from lazy.model import BuilderInfo, MessageView, Task
from lazy.os.clock import now_iso
from lazy.store import Store
from lazy.store.queries import short_id
from lazy.store.tasks import code_exists, exact_task, insert_task, last_number, overlapping
from lazy.tasks.listing import with_cost
from lazy.usage.report import range_usage
from lazy.view.messages import as_text
from lazy.view.reading import builder_info, message_page

CODE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
SLUG_WORDS = 5
SLUG_CHARS = 40
GOAL_CHARS = 120


class PromoteError(ValueError):
    """A promotion refused; ``field`` names what was wrong (from, to, code, parent, prompt)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(message)


class AlreadyPromoted(PromoteError):
    """The exact range was promoted before, as ``task``."""

    def __init__(self, task: Task) -> None:
        self.task = task
        super().__init__(
            "range",
            f"messages {task.from_message}–{task.to_message} of this conversation were"
            f" already promoted, as task {task.code} ({task.goal})",
        )


@dataclass
class Plan:
    """A range that may be promoted: its messages, and the earlier tasks it overlaps."""

    builder: BuilderInfo
    first: int
    last: int
    messages: list[MessageView]
    overlaps: list[Task]


def check_range(conn: sqlite3.Connection, bid: str, first: int, last: int) -> Plan:
    """The plan for promoting messages ``first``..``last`` of Builder ``bid``, or why not."""
    total = last_number(conn, bid)
    if first > last:
        raise PromoteError("from", f"the range {first}–{last} runs backwards: from is after to")
    for field, n in (("from", first), ("to", last)):
        if not 1 <= n <= total:
            raise PromoteError(
                field,
                f"message {n} is not in conversation {short_id(bid)}: it has messages 1–{total}",
            )
    exact = exact_task(conn, bid, first, last)
    if exact is not None:
        raise AlreadyPromoted(exact)
    return Plan(
        builder=builder_info(conn, bid),
        first=first,
        last=last,
        messages=message_page(conn, bid, None, first, last - first + 1),
        overlaps=overlapping(conn, bid, first, last),
    )


def valid_code(code: str) -> str:
    """``code`` stripped, when it is one a task may have (else PromoteError)."""
    code = code.strip()
    if not CODE_RE.fullmatch(code):
        raise PromoteError(
            "code",
            f"task code {code!r} must be 1–64 letters, digits, '.', '_' or '-',"
            " starting with a letter or digit",
        )
    return code


def check_code(conn: sqlite3.Connection, code: str) -> str:
    code = valid_code(code)
    if code_exists(conn, code):
        raise PromoteError("code", f"there is already a task {code}")
    return code


def check_parent(conn: sqlite3.Connection, parent: str | None) -> str | None:
    """The parent's code, or None for none (an empty answer)."""
    parent = (parent or "").strip()
    if not parent:
        return None
    if not code_exists(conn, parent):
        raise PromoteError("parent", f"there is no task {parent} to be the parent")
    return parent


def overlap_note(plan: Plan, task: Task) -> str:
    """One line saying which messages ``plan`` shares with an earlier task."""
    lo, hi = max(plan.first, task.from_message), min(plan.last, task.to_message)
    shared = f"message {lo}" if lo == hi else f"messages {lo}–{hi}"
    return (
        f"{shared} already went into task {task.code}"
        f" (messages {task.from_message}–{task.to_message}: {task.goal})"
    )


def default_goal(messages: list[MessageView]) -> str:
    """What the human said first in the range, its first line (any message's, when the
    range holds none of theirs)."""
    said = [m for m in messages if m.role == "user" and m.text.strip()]
    for m in said or [m for m in messages if m.text.strip()]:
        line = m.text.strip().splitlines()[0].strip()
        return line if len(line) <= GOAL_CHARS else line[: GOAL_CHARS - 1].rstrip() + "…"
    return "Untitled task"


def unique_slug(goal: str, taken: Callable[[str], bool]) -> str:
    """A short slug of the goal's first words, made unique (``taken``) with -2, -3, ..."""
    words = re.findall(r"[a-z0-9]+", goal.lower())[:SLUG_WORDS]
    base = "-".join(words)[:SLUG_CHARS].strip("-") or "task"
    code, n = base, 1
    while taken(code):
        n += 1
        code = f"{base}-{n}"
    return code


def default_code(conn: sqlite3.Connection, goal: str) -> str:
    return unique_slug(goal, lambda code: code_exists(conn, code))


def seed(messages: list[MessageView]) -> str:
    """The prompt a promotion starts from: the messages verbatim, numbered and labelled."""
    parts = []
    for m in messages:
        head = f"#{m.number} {m.role}" + (f" {m.tool_name}" if m.tool_name else "")
        body = as_text(m, outputs=False)
        parts.append(f"{head}\n{body}".rstrip())
    return "\n\n".join(parts) + "\n"


def create(
    store: Store, plan: Plan, *, goal: str, code: str, parent: str | None, prompt: str
) -> Task:
    """Write the task down, in the backlog. Every check is made again in the transaction:
    another process may have taken the range or the code since ``plan`` was made."""
    if not prompt.strip():
        raise PromoteError("prompt", "the prompt is empty")
    if not goal.strip():
        raise PromoteError("goal", "the goal is empty")
    with store.write() as c:
        check_range(c, plan.builder.id, plan.first, plan.last)
        task = Task(
            code=check_code(c, code),
            goal=goal.strip(),
            prompt=prompt,
            parent=check_parent(c, parent),
            created_at=now_iso(),
            builder_id=plan.builder.id,
            from_message=plan.first,
            to_message=plan.last,
            usage=range_usage(c, plan.builder.id, plan.first, plan.last),
        )
        insert_task(c, task)
    return task


def promote(
    store: Store,
    bid: str,
    first: int,
    last: int,
    *,
    goal: str | None = None,
    code: str | None = None,
    parent: str | None = None,
    prompt: str | None = None,
) -> tuple[Task, list[Task]]:
    """Promote messages ``first``..``last`` of the Builder ``bid`` without asking: each of
    goal, code and prompt left out or blank falls back to its default, as `lazy
    conversations promote --yes` does. The task and the earlier tasks it overlaps;
    AlreadyPromoted, or PromoteError naming what was refused."""
    plan = check_range(store.conn, bid, first, last)
    goal = (goal or "").strip() or default_goal(plan.messages)
    code = (code or "").strip() or default_code(store.conn, goal)
    prompt = prompt if prompt and prompt.strip() else seed(plan.messages)
    task = create(store, plan, goal=goal, code=code, parent=parent, prompt=prompt)
    return task, with_cost(store.conn, plan.overlaps)  # each with its range's cost, as listed
