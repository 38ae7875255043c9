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
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from lazy.agents import TOOLS
from lazy.builders.regroup import refresh
from lazy.capture.reread import reread
from lazy.cli.output import emit_json as emit_json
from lazy.cli.output import err as err
from lazy.cli.output import out as out
from lazy.cli.output import shown as shown
from lazy.model import QuarantineInfo
from lazy.projects import project_of
from lazy.store import Store, StoreError
from lazy.store.db import explain
from lazy.store.queries import Ambiguous, NotFound
from lazy.view.terminal import one_line

F = TypeVar("F", bound=Callable[..., Any])


class AgentChoice(click.Choice[str]):
    """An agent's name (``--tool``): the registered agents, read when the value is parsed
    (an agent a test registers after this module is imported is a choice too)."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(TOOLS)

    @choices.setter
    def choices(self, value: object) -> None:
        pass  # click's __init__ sets them: they are the registry's


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
    items: list[QuarantineInfo], what: str = "bad line(s)", limit: int = 20
) -> None:
    """What capture set aside: file, line and reason, the first ``limit`` of them."""
    if not items:
        return
    out.print(shown(f"  {len(items)} {what} quarantined:", style="yellow"))
    for q in items[:limit]:
        out.print(shown(f"    {q.file}:{q.line}: {q.reason}", style="yellow"))
    if len(items) > limit:
        out.print(shown(f"    … and {len(items) - limit} more", style="yellow"))


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


def is_tty() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def store_failure(e: StoreError) -> click.ClickException:
    """The CLI's words for a store failure: what and where, the machine detail, the fix."""
    fix = f"\nfix: {e.fix}" if e.fix else ""
    return click.ClickException(f"{e}{fix}")


def tell_tightened(store: Store) -> None:
    """Say what opening the store made private (it was readable by others until now)."""
    done = store.tightened
    if done.changed:
        err.print(
            shown(
                f"lazy: {len(done.changed)} file(s) and folder(s) under {store.home} were"
                " readable by other users; made private (0600/0700)",
                "yellow",
            )
        )
    for path, why in done.failed:
        err.print(shown(f"lazy: could not make {path} private: {why}", "yellow"))


@contextmanager
def open_store() -> Iterator[Store]:
    try:
        store = Store.open()
    except StoreError as e:
        raise store_failure(e) from e
    tell_tightened(store)
    try:
        # Sessions a reader change reads differently are re-derived from the raw archive
        # (once), and captures interrupted before they regrouped (a killed hook, a crash)
        # are finished here, so every surface shows every stored conversation as read today.
        try:
            for sid, why in reread(store).failed:
                err.print(
                    shown(
                        f"lazy: session {sid} was not re-read from the store's raw archive"
                        f" after an upgrade ({why}); it is shown as stored"
                    )
                )
            refresh(store)
        except StoreError as e:
            if e.kind != "corrupt":
                raise
            # a damaged store is still read (what it shows may be incomplete), never written
            err.print(shown(f"lazy: {e}", "yellow"))
        yield store
    except StoreError as e:
        raise store_failure(e) from e
    except sqlite3.Error as e:
        raise store_failure(explain(e, store.path)) from e
    finally:
        store.close()


def resolve(store: Store, ident: str) -> str:
    """The Builder ``ident`` names (an alias bound here or above, a Builder or session id or
    a unique prefix of one, an alias bound elsewhere), or a clear error: unknown, with what
    was tried, or ambiguous with its candidates."""
    from lazy.aliases.registry import default_session_registry
    from lazy.aliases.resolve import resolve_conversation

    try:
        return resolve_conversation(
            store.conn, ident, registry=default_session_registry(), cwd=os.getcwd()
        )
    except (Ambiguous, NotFound) as e:
        raise unresolved(ident, e) from e


def unresolved(ident: str, e: Ambiguous | NotFound) -> click.ClickException:
    """The CLI's words for an id that names no one conversation."""
    if isinstance(e, NotFound):
        tried = getattr(e, "tried", None)
        said = f": tried it as {', and as '.join(tried)}" if tried else ""
        lines = [f"no conversation {ident!r} in the store{said}"]
        lines += [f"  ({one_line(x)}, not in the store)" for x in getattr(e, "elsewhere", [])]
        lines.append("See `lazy conversations --all-projects` and `lazy alias list --all-scopes`.")
        return click.ClickException("\n".join(lines))
    lines = [f"{ident!r} is ambiguous; it matches {len(e.candidates)} conversations:"]
    for bid, started, summary in e.candidates:
        lines.append(one_line(f"  {bid}  {when(started)}  {(summary or '')[:60]}"))
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
