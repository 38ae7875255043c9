"""`lazy tasks [list|show]`: the backlog tasks promoted from conversations."""

from __future__ import annotations

import click
from rich.table import Table

from lazy.cli.common import (
    F,
    all_projects_option,
    current_project,
    emit_json,
    facts_table,
    json_option,
    open_store,
    out,
    resolve,
    scope,
    shown,
    when,
)
from lazy.model import Task
from lazy.store.queries import short_id
from lazy.store.tasks import get_task, list_tasks
from lazy.tasks.listing import with_cost
from lazy.usage.report import money
from lazy.view import reading


def _source(t: Task) -> str:
    return f"{short_id(t.builder_id)} #{t.from_message}–{t.to_message}"


def conversation_option(f: F) -> F:
    return click.option(
        "--conversation",
        "ident",
        metavar="ID",
        help="Only the tasks promoted from this conversation, by its range: an alias, a"
        " Builder or session id, or a unique prefix of one.",
    )(f)


def _list(all_projects: bool, as_json: bool, ident: str | None = None) -> None:
    with open_store() as store:
        if ident is not None:
            found = list_tasks(store.conn, builder_id=resolve(store, ident))
        else:
            found = list_tasks(store.conn, projects=scope(all_projects))
        tasks = with_cost(store.conn, [reading.task(t) for t in found])
    if as_json:
        emit_json({"tasks": [t.model_dump(mode="json") for t in tasks]})
        return
    if not tasks:
        where = "the store" if all_projects else f"project {current_project()}"
        if ident is not None:
            where = f"conversation {ident}"
        out.print(f"No tasks in {where}.")
        out.print("Promote messages of a conversation with `lazy conversations promote`.")
        return
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("code", no_wrap=True)
    table.add_column("goal", overflow="ellipsis", no_wrap=True, max_width=80)
    table.add_column("source", no_wrap=True)
    table.add_column("created", no_wrap=True)
    table.add_column("cost", justify="right", no_wrap=True)
    for t in tasks:
        cost = money(t.usage) if t.usage is not None and t.usage.responses else ""
        table.add_row(shown(t.code, "bold"), t.goal, _source(t), when(t.created_at), cost)
    out.print(table)


@click.group("tasks", invoke_without_command=True)
@all_projects_option
@json_option
@conversation_option
@click.pass_context
def tasks(ctx: click.Context, all_projects: bool, as_json: bool, ident: str | None) -> None:
    """Backlog tasks promoted from conversations (`lazy conversations promote`), newest
    first: code, goal, source (conversation short id and message range), created.

    \b
    lazy tasks                       # this project's tasks (same as `lazy tasks list`)
    lazy tasks --all-projects        # every project's
    lazy tasks --conversation reviewer   # those promoted from one conversation (alias or id)
    lazy tasks show retention-policy # one task: its fields and prompt
    """
    if ctx.invoked_subcommand is None:
        _list(all_projects, as_json, ident)


@tasks.command("list")
@all_projects_option
@json_option
@conversation_option
def tasks_list(all_projects: bool, as_json: bool, ident: str | None) -> None:
    """List tasks, newest first (the project of the current directory unless --all-projects);
    with --conversation, one conversation's, in the order of their ranges."""
    _list(all_projects, as_json, ident)


@tasks.command("show")
@click.argument("code")
@json_option
def tasks_show(code: str, as_json: bool) -> None:
    """One task by its code: its fields, then its prompt."""
    with open_store() as store:
        task = get_task(store.conn, code)
        if task is not None:
            task = with_cost(store.conn, [reading.task(task)])[0]
    if task is None:
        raise click.ClickException(f"no task {code!r} (see `lazy tasks --all-projects`)")
    if as_json:
        emit_json(task)
        return
    rows = [
        ("code", task.code),
        ("goal", task.goal),
        ("status", task.status),
        ("parent", task.parent or "(none)"),
        (
            "source",
            f"conversation {task.builder_id}, messages {task.from_message}–{task.to_message}",
        ),
        ("created", when(task.created_at)),
    ]
    if task.usage is not None and task.usage.responses:
        u = task.usage
        rows.append(
            ("cost", f"{money(u)} ({u.responses} model responses, {u.output:,} output tokens)")
        )
    out.print(facts_table(rows))
    out.print()
    out.print(shown(task.prompt))
