"""The tasks a surface lists, redacted: those promoted from one Builder, or those of the
Builders under a set of folders."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lazy.model import Task
from lazy.projects import is_under
from lazy.store.queries import builder_projects
from lazy.store.tasks import list_tasks
from lazy.usage.report import range_usage
from lazy.view.reading import task as shown
from lazy.view.redaction import redactor


def tasks_of_builder(conn: sqlite3.Connection, bid: str, *, home: Path | None = None) -> list[Task]:
    """What was promoted from the Builder ``bid``, by range."""
    redact = redactor(home)
    return with_cost(conn, [shown(t, redact) for t in list_tasks(conn, builder_id=bid)], home)


def tasks_under(
    conn: sqlite3.Connection, folders: list[str] | None, *, home: Path | None = None
) -> list[Task]:
    """Newest first, the tasks whose Builder's project is one of ``folders`` or lies below
    one (None: every task)."""
    redact = redactor(home)
    items = list_tasks(conn)
    if folders is not None:
        projects = builder_projects(conn)
        items = [t for t in items if _under(projects.get(t.builder_id), folders)]
    return with_cost(conn, [shown(t, redact) for t in items], home)


def with_cost(conn: sqlite3.Connection, tasks: list[Task], home: Path | None = None) -> list[Task]:
    """Each task with what the model responses of its range cost (derived from the usage
    rows, so a re-read or a price change shows at once)."""
    return [
        t.model_copy(
            update={"usage": range_usage(conn, t.builder_id, t.from_message, t.to_message, home)}
        )
        for t in tasks
    ]


def _under(project: str | None, folders: list[str]) -> bool:
    return project is not None and any(is_under(project, f) for f in folders)
