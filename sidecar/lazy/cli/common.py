"""What every command shares: the store, the project scope, output helpers."""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TypeVar

import click
import orjson
from pydantic import BaseModel
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from lazy.builders import refresh
from lazy.capture.projects import project_of
from lazy.model import QuarantineInfo
from lazy.store import Store, StoreError
from lazy.store.db import explain
from lazy.store.queries import Ambiguous, NotFound, resolve_builder

# Piped output keeps long lines whole rather than folding them at 80 columns.
out = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
# soft wrap: a warning naming a path is one line to copy, wrapped by the terminal, not by rich
err = Console(stderr=True, highlight=False, soft_wrap=True)

F = TypeVar("F", bound=Callable[..., Any])


def progress(*columns: ProgressColumn | str) -> Progress:
    """A progress display on stderr: shown only on a terminal, gone once done."""
    return Progress(*columns, console=err, transient=True, disable=not err.is_terminal)


def counting(label: str) -> Progress:
    """A progress display counting items (``label`` may name ``{task.description}``)."""
    return progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())


def facts_table(rows: list[tuple[str, str]]) -> Table:
    """Name / value pairs, names in bold, no header."""
    t = Table(box=None, show_header=False)
    t.add_column(style="bold")
    t.add_column()
    for name, value in rows:
        t.add_row(name, value)
    return t


def print_quarantined(
    items: list[QuarantineInfo], what: str = "bad line(s)", shown: int = 20
) -> None:
    """What capture set aside: file, line and reason, the first ``shown`` of them."""
    if not items:
        return
    out.print(Text(f"  {len(items)} {what} quarantined:", style="yellow"))
    for q in items[:shown]:
        out.print(Text(f"    {q.file}:{q.line}: {q.reason}", style="yellow"))
    if len(items) > shown:
        out.print(Text(f"    … and {len(items) - shown} more", style="yellow"))


def all_projects_option(f: F) -> F:
    return click.option(
        "--all-projects",
        is_flag=True,
        help="Every project in the store, not just the current directory's.",
    )(f)


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")(f)


def current_project() -> str:
    return project_of(os.getcwd())


def scope(all_projects: bool) -> list[str] | None:
    return None if all_projects else [current_project()]


def emit_json(value: BaseModel | dict[str, Any] | list[Any]) -> None:
    data = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")


def is_tty() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


@contextmanager
def open_store() -> Iterator[Store]:
    try:
        store = Store.open()
        # Captures interrupted before they regrouped (a killed hook, a crash) are finished
        # here, so every surface shows every stored conversation.
        refresh(store)
    except StoreError as e:
        raise click.ClickException(str(e)) from e
    except sqlite3.Error as e:
        raise click.ClickException(str(explain(e))) from e
    try:
        yield store
    except StoreError as e:
        raise click.ClickException(str(e)) from e
    except sqlite3.Error as e:
        raise click.ClickException(str(explain(e))) from e
    finally:
        store.close()


def resolve(store: Store, ident: str) -> str:
    """A Builder id, or a clear error: unknown, or ambiguous with its candidates."""
    try:
        return resolve_builder(store.conn, ident)
    except (Ambiguous, NotFound) as e:
        raise unresolved(ident, e) from e


def unresolved(ident: str, e: Ambiguous | NotFound) -> click.ClickException:
    """The CLI's words for an id that names no one conversation."""
    if isinstance(e, NotFound):
        return click.ClickException(
            f"no conversation {ident!r} in the store (see `lazy conversations --all-projects`)"
        )
    lines = [f"{ident!r} is ambiguous; it matches {len(e.candidates)} conversations:"]
    for bid, started, summary in e.candidates:
        lines.append(f"  {bid}  {when(started)}  {(summary or '')[:60]}")
    lines.append("Give more of the id.")
    return click.ClickException("\n".join(lines))


def when(ts: str | None) -> str:
    """An ISO timestamp in local time, to the minute."""
    if not ts:
        return "?"
    try:
        return (
            datetime.fromisoformat(ts.replace("Z", "+00:00"))
            .astimezone()
            .strftime("%Y-%m-%d %H:%M")
        )
    except (ValueError, OverflowError):  # not ISO, or past the years local time can hold
        return ts[:16]
