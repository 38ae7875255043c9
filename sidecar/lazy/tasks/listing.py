"""The tasks a surface lists, redacted: those promoted from one Builder, or those of the
Builders under a set of folders."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lazy.model import Task
from lazy.projects import is_under
from lazy.store.queries import builder_projects
from lazy.store.tasks import list_tasks
from lazy.view.reading import task as shown
from lazy.view.redaction import redactor


def tasks_of_builder(conn: sqlite3.Connection, bid: str, *, home: Path | None = None) -> list[Task]:
    """What was promoted from the Builder ``bid``, by range."""
    redact = redactor(home)
    return [shown(t, redact) for t in list_tasks(conn, builder_id=bid)]


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
    return [shown(t, redact) for t in items]


def _under(project: str | None, folders: list[str]) -> bool:
    return project is not None and any(is_under(project, f) for f in folders)
