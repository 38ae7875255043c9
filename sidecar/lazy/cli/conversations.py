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
from lazy.cli.transcript_view import Fold, layout, write
from lazy.cli.usage import priced
from lazy.model import BuilderInfo
from lazy.projects import project_label
from lazy.store.tasks import list_tasks
from lazy.usage.report import annotate, money, with_usage
from lazy.view.reading import list_builders, transcript
from lazy.view.reading import task as shown_task


def _named(builders: list[BuilderInfo]) -> list[BuilderInfo]:
    """Each with its alias (`lazy alias`), from the session registry."""
    if not builders:
        return builders
    from lazy.aliases.registry import default_session_registry
    from lazy.aliases.resolve import label_builders

    return label_builders(default_session_registry(), builders)


def _cut(text: str, style: str = "") -> Text:
    """One line that is cut with an ellipsis, never wrapped, when its column shrinks."""
    t = shown(text, style, multiline=False)
    t.no_wrap, t.overflow = True, "ellipsis"
    return t


def builders_table(builders: list[BuilderInfo]) -> Table:
    """id, tool and msgs keep their width at any terminal width; the summary shrinks first,
    then the project and the alias (rich narrows the widest of the columns that may wrap,
    and these cells are cut, not wrapped)."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("id", no_wrap=True, min_width=8)
    table.add_column("tool", no_wrap=True)
    table.add_column("start", no_wrap=True, min_width=16)
    aliases = any(b.alias for b in builders)
    if aliases:
        table.add_column("alias", max_width=16)
    table.add_column("project", max_width=20)
    table.add_column("msgs", justify="right", no_wrap=True)
    costs = any(b.usage and b.usage.total.responses for b in builders)
    if costs:
        table.add_column("cost", justify="right", no_wrap=True)
    table.add_column("summary", max_width=100)
    for b in builders:
        extra = ""
        if b.sidechains:
            extra += f" +{len(b.sidechains)} subagent(s)"
        if b.forked_from:
            extra += f" (fork of {b.forked_from[:8]})"
        summary = _cut(b.summary or "(no words)")
        if extra:
            summary.append(extra, style="dim")
        row: list[str | Text] = [b.short_id, b.tool, when(b.started_at)]
        if aliases:
            row.append(_cut(b.alias or "", "bold magenta"))
        row += [_cut(project_label(b.project)), str(b.message_count)]
        if costs:
            row.append(money(b.usage.total) if b.usage and b.usage.total.responses else "")
        row.append(summary)
        table.add_row(*row)
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
        with priced():
            with_usage(store.conn, builders)
    builders = _named(builders)
    if as_json:
        emit_json({"builders": [b.model_dump(mode="json") for b in builders]})
    else:
        print_builders(builders, all_projects)


def show_command(
    ident: str, as_json: bool, *, full: bool = False, thinking: bool = False, paging: bool = True
) -> None:
    with open_store() as store:
        bid = resolve(store, ident)
        t = transcript(store.conn, bid)
        annotate(
            store.conn, t.builder, [*t.messages, *(m for s in t.sidechains for m in s.messages)]
        )
        promoted = [shown_task(t) for t in list_tasks(store.conn, builder_id=bid)]
    t = t.model_copy(update={"builder": _named([t.builder])[0]})
    if as_json:
        emit_json(t)
    else:
        write(layout(t, promoted, Fold(full=full, thinking=thinking)), paging=paging)


def show_options(f: F) -> F:
    """--json, --full, --thinking, --no-pager: how `show` prints a transcript."""
    for option in (
        click.option(
            "--no-pager",
            "no_pager",
            is_flag=True,
            help="On a terminal, print straight to it: no $LAZY_PAGER / $PAGER / less.",
        ),
        click.option(
            "--thinking", is_flag=True, help="Show thinking in full (folded to one line otherwise)."
        ),
        click.option(
            "--full",
            is_flag=True,
            help="Everything unfolded: every output whole, thinking, harness text, and each"
            " subagent's messages inline at its call.",
        ),
        click.option(
            "--json",
            "as_json",
            is_flag=True,
            help="Print the message view model as JSON: every input and output whole.",
        ),
    ):
        f = option(f)
    return f


SHOW_HELP = """

    ID is an alias (`lazy alias`), a Builder id or any of its session ids, or a unique
    prefix of one; an ambiguous prefix is an error that lists the candidates.

    Each message is numbered from 1 (the numbers `lazy conversations promote` takes) and
    shown by parts: its text as rendered Markdown; each tool call on one line (`$ command`,
    `Read path`, `Edit path (+3 -1)` ...) with its result under it, an output folded to its
    first lines, an edit as a coloured diff, TodoWrite as a checklist, a subagent at the
    call that spawned it (its type, messages and answer; --full: its messages inline);
    thinking and harness text (IDE events, system reminders, injected instructions) folded
    to one line each. On a terminal the transcript goes through a pager as git does
    ($LAZY_PAGER, else $PAGER, else `less` with LESS=FRX; `cat` or empty: none; --no-pager);
    piped, it is plain text: not wrapped, not padded, every control character shown.
    --json prints the whole model, nothing folded or cut.

    \b
    lazy show 4f8c2a1b                  # read it (through the pager)
    lazy show reviewer --thinking       # by its alias, thinking expanded
    lazy show 4f8c2a1b --full | less    # everything, plain text
    lazy show 4f8c2a1b --json           # the message view model, in full
    """


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
    Codex CLI or OpenCode. Columns: short id, tool, start, alias (when one has one: `lazy
    alias`), project, messages, summary (the first thing you said). On a narrow terminal the
    summary is cut first, then the project and alias; id, tool and messages stay whole.

    \b
    lazy conversations                      # this project's, newest first
    lazy conversations --all-projects       # every project
    lazy conversations --tool codex         # only Codex CLI conversations
    lazy conversations show 4f8c2a1b        # read one (alias or id)
    lazy conversations search "retention"   # search message text
    """
    if ctx.invoked_subcommand is None:
        list_command(all_projects, as_json, limit, tools)


@conversations.command("show", help="Read one conversation, message by message." + SHOW_HELP)
@click.argument("ident", metavar="ID")
@show_options
def conversations_show(
    ident: str, as_json: bool, full: bool, thinking: bool, no_pager: bool
) -> None:
    show_command(ident, as_json, full=full, thinking=thinking, paging=not no_pager)


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


@click.command(
    "show", help="Read one Builder, message by message (`lazy conversations show`)." + SHOW_HELP
)
@click.argument("ident", metavar="ID")
@show_options
def show(ident: str, as_json: bool, full: bool, thinking: bool, no_pager: bool) -> None:
    show_command(ident, as_json, full=full, thinking=thinking, paging=not no_pager)


conversations.add_command(promote)
