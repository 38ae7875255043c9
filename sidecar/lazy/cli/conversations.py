"""`lazy conversations`, `lazy builder list`, `lazy show`: reading what is stored."""

from __future__ import annotations

import click
from rich.table import Table
from rich.text import Text

from lazy.cli.common import (
    AgentChoice,
    F,
    all_projects_option,
    current_project,
    emit_json,
    json_option,
    open_store,
    out,
    resolve,
    scope,
    shown,
    when,
)
from lazy.cli.promote import promote
from lazy.cli.search import run_search
from lazy.model import BuilderInfo, MessageView, Task, Transcript
from lazy.projects import project_label
from lazy.store.tasks import list_tasks
from lazy.view.messages import call_lines
from lazy.view.reading import list_builders, transcript
from lazy.view.reading import task as shown_task

ROLE_STYLE = {
    "user": "bold cyan",
    "assistant": "bold green",
    "reasoning": "magenta",
    "tool_call": "yellow",
    "tool_result": "dim",
    "system": "dim italic",
}


def builders_table(builders: list[BuilderInfo]) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("id", no_wrap=True, min_width=8)
    table.add_column("tool", no_wrap=True)
    table.add_column("start", no_wrap=True, min_width=16)
    table.add_column("project", no_wrap=True, max_width=20)
    table.add_column("msgs", justify="right", no_wrap=True)
    table.add_column("summary", overflow="ellipsis", no_wrap=True, max_width=100)
    for b in builders:
        extra = ""
        if b.sidechains:
            extra += f" +{len(b.sidechains)} subagent(s)"
        if b.forked_from:
            extra += f" (fork of {b.forked_from[:8]})"
        summary = shown(b.summary or "(no words)", multiline=False)
        if extra:
            summary.append(extra, style="dim")
        table.add_row(
            b.short_id,
            b.tool,
            when(b.started_at),
            project_label(b.project),
            str(b.message_count),
            summary,
        )
    return table


def print_builders(builders: list[BuilderInfo], all_projects: bool) -> None:
    if not builders:
        where = "the store" if all_projects else f"project {current_project()}"
        out.print(f"No conversations in {where}.")
        if not all_projects:
            out.print("Try --all-projects, or `lazy import-conversation` to bring history in.")
        return
    out.print(builders_table(builders))


def tool_option(f: F) -> F:
    return click.option(
        "--tool",
        "tools",
        multiple=True,
        type=AgentChoice(),
        help="Only this agent's conversations; repeatable.",
    )(f)


def list_command(
    all_projects: bool, as_json: bool, limit: int | None, tools: tuple[str, ...] = ()
) -> None:
    with open_store() as store:
        builders = list_builders(store.conn, scope(all_projects), limit, list(tools) or None)
    if as_json:
        emit_json({"builders": [b.model_dump(mode="json") for b in builders]})
    else:
        print_builders(builders, all_projects)


def _message(m: MessageView, width: int = 0) -> Text:
    head = Text()
    head.append(f"#{m.number} ", style="bold")
    head.append(m.role, style=ROLE_STYLE.get(m.role, ""))
    if m.tool_name:
        head.append_text(shown(f" {m.tool_name}", "yellow", multiline=False))
    head.append_text(shown(f"  {when(m.timestamp)}", "dim", multiline=False))
    body = m.text
    if m.role in ("tool_call", "tool_result", "reasoning", "system") and body.count("\n") > 6:
        lines = body.splitlines()
        body = "\n".join(lines[:6]) + f"\n… ({len(lines) - 6} more lines)"
    head.append("\n")
    head.append_text(shown(body, "dim" if m.role in ("tool_result", "system") else ""))
    for call in call_lines(m):
        head.append("\n")
        head.append_text(shown(f"→ {call}", "yellow", multiline=False))
    return head


def print_transcript(t: Transcript, promoted: list[Task]) -> None:
    b = t.builder
    head = shown(b.id, "bold", multiline=False)
    head.append_text(
        shown(
            f"  {project_label(b.project)}  {when(b.started_at)} → {when(b.updated_at)}"
            f"  {b.message_count} messages",
            multiline=False,
        )
    )
    if b.forked_from:
        head.append_text(shown(f"  fork of {b.forked_from}", "dim", multiline=False))
    out.print(head)
    if len(b.session_ids) > 1:
        out.print(shown(f"joined from {len(b.session_ids)} session files", style="dim"))
    out.print()
    for m in t.messages:
        out.print(_message(m))
        out.print()
    for side in t.sidechains:
        out.print(
            shown(
                f"── subagent {side.agent_id or side.session_id} ({len(side.messages)} messages)",
                "bold magenta",
                multiline=False,
            )
        )
        for m in side.messages:
            out.print(_message(m))
            out.print()
    if promoted:
        out.print(Text("Promoted from this conversation:", style="bold"))
        for task in promoted:
            line = Text("  ")
            line.append(task.code, style="bold")
            line.append(f"  #{task.from_message}–{task.to_message}  ", style="cyan")
            line.append_text(shown(task.goal, multiline=False))
            out.print(line)


def show_command(ident: str, as_json: bool) -> None:
    with open_store() as store:
        bid = resolve(store, ident)
        t = transcript(store.conn, bid)
        promoted = [shown_task(t) for t in list_tasks(store.conn, builder_id=bid)]
    if as_json:
        emit_json(t)
    else:
        print_transcript(t, promoted)


@click.group(invoke_without_command=True)
@all_projects_option
@json_option
@click.option("--limit", type=int, default=None, help="Show at most this many.")
@tool_option
@click.pass_context
def conversations(
    ctx: click.Context, all_projects: bool, as_json: bool, limit: int | None, tools: tuple[str, ...]
) -> None:
    """List stored conversations (Builders), newest first.

    One row per Builder: a conversation from its start or /clear to the next /clear, however
    many session files compaction, resume and subagents split it into, from Claude Code,
    Codex CLI or OpenCode. Columns: short id, tool, start, project, messages, summary (the
    first thing you said).

    \b
    lazy conversations                      # this project's, newest first
    lazy conversations --all-projects       # every project
    lazy conversations --tool codex         # only Codex CLI conversations
    lazy conversations show 4f8c2a1b        # read one in full
    lazy conversations search "retention"   # search message text
    """
    if ctx.invoked_subcommand is None:
        list_command(all_projects, as_json, limit, tools)


@conversations.command("show")
@click.argument("ident", metavar="ID")
@json_option
def conversations_show(ident: str, as_json: bool) -> None:
    """Read one conversation in full, messages numbered from 1.

    ID is the Builder id or any of its session ids, or a unique prefix of one; an
    ambiguous prefix is an error that lists the candidates.
    """
    show_command(ident, as_json)


@conversations.command("search")
@click.argument("words", nargs=-1, required=True)
@all_projects_option
@json_option
@click.option(
    "--limit", type=int, default=10, show_default=True, help="Most conversations to show."
)
def conversations_search(
    words: tuple[str, ...], all_projects: bool, as_json: bool, limit: int
) -> None:
    """Search conversations: the same as `lazy search in:conversations ...` (see its --help
    for the query language), results grouped by conversation."""
    run_search("in:conversations " + " ".join(words), all_projects, limit, as_json)


@click.command("show")
@click.argument("ident", metavar="BUILDER_ID")
@json_option
def show(ident: str, as_json: bool) -> None:
    """Read one Builder in full (same as `lazy conversations show`)."""
    show_command(ident, as_json)


conversations.add_command(promote)
