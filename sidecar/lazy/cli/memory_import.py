"""`lazy import <agent>` (aliases `lazy claude import`, ...): every message of
an agent's sessions as a memory at <tree-root>/<slug>/<sessions-node-name>/<session>/msg_<id>."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from lazy.agents import TOOL_NAMES, TOOLS, Agent, agent
from lazy.agents.discovery import Candidate
from lazy.cli.common import counting, emit_json, open_store, out, print_quarantined, shown
from lazy.cli.search import searchable
from lazy.memories.session_import import Options, run
from lazy.memories.tree import (
    DEFAULT_NODE_NAME,
    DEFAULT_TREE_ROOT,
    TreeError,
    check_node_name,
    parse_path,
)
from lazy.model import AgentImportReport, SessionImport, SessionSkip
from lazy.store import Store

NAMES = TOOL_NAMES


SKIP_LABELS = {
    "project": "outside --project",
    "temp_cwd": "run in a temp dir",
    "since": "before --since",
    "until": "after --until",
    "no_start": "with no start time",
    "trivial": "trivial (< 2 user messages)",
    "empty": "with no conversation in them",
}


def _when(value: str | None, flag: str) -> datetime | None:
    """An ISO 8601 date or time; one without a zone is local time."""
    if value is None:
        return None
    try:
        t = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError as e:
        raise click.BadParameter(
            f"{value!r} is not an ISO 8601 date or time (e.g. 2026-03-01 or 2026-03-01T09:30:00Z)",
            param_hint=flag,
        ) from e
    return t if t.tzinfo else t.astimezone()


def _options(agent_name: str, kw: dict[str, Any]) -> Options:
    try:
        tree_root = parse_path(kw["tree_root"], "--tree-root")
        node_name = check_node_name(kw["sessions_node_name"])
    except TreeError as e:
        raise click.UsageError(str(e)) from e
    project = kw["project"]
    since, until = _when(kw["since"], "--since"), _when(kw["until"], "--until")
    if since and until and since > until:
        raise click.UsageError(f"--since {kw['since']} is after --until {kw['until']}")
    return Options(
        sources=list(kw["sources"]),
        project=str(Path(project).expanduser().resolve()) if project else None,
        since=since,
        until=until,
        tree_root=tree_root,
        node_name=node_name,
        full=kw["full_transcript"],
        include_temp_cwd=kw["include_temp_cwd"],
        include_trivial=kw["include_trivial"],
        include_sidechains=kw.get("include_sidechains", False),
        dry_run=kw["dry_run"],
    )


def _run(agent_name: str, o: Options, verbose: bool, as_json: bool) -> AgentImportReport:
    if o.dry_run:  # the real store is only read, for its slugs
        return _with_progress(None, agent_name, o, verbose, as_json)
    with open_store() as store:
        report = _with_progress(store, agent_name, o, verbose, as_json)
        searchable(store)  # what was captured is searchable when the command returns
    return report


def _with_progress(
    store: Store | None, agent_name: str, o: Options, verbose: bool, as_json: bool
) -> AgentImportReport:
    with counting("[bold]{task.description}") as bar:
        task = bar.add_task("reading sessions", total=None)

        def progress(what: str, item: Any) -> None:
            if what == "capture" and isinstance(item, Candidate):
                bar.advance(task)
            elif what == "session":
                if bar.tasks[task].description != "importing messages":
                    bar.update(task, description="importing messages", completed=0, total=None)
                bar.advance(task)
                if verbose and not as_json:
                    bar.console.print(_session_line(item), highlight=False, soft_wrap=True)

        return run(store, agent_name, o, progress)


def _session_line(item: SessionImport | SessionSkip) -> Text:
    if isinstance(item, SessionSkip):
        return shown(f"  skip  {item.session_id}: {item.reason}", style="dim")
    line = shown(f"  {item.session_id}  ", style="bold")
    line.append(f"{item.messages} message(s): ")
    line.append(f"+{item.inserted}", style="green")
    line.append(f" ~{item.updated}", style="yellow")
    line.append(f" ={item.skipped}", style="dim")
    line.append(f"  {item.node}", style="cyan")
    return line


def _summary(r: AgentImportReport, o: Options) -> None:
    name = NAMES[r.tool]
    if not r.found:
        where = "\n".join(
            f"  {s}{'' if Path(s).is_dir() else '  (does not exist)'}" for s in r.sources
        )
        out.print(f"No {name} sessions found. Looked in:\n{where}")
        out.print("Point lazy elsewhere with --source DIR.")
        return
    mode = "full transcript" if r.content_mode == "full_transcript" else "user + assistant text"
    head = "Dry run: would import" if r.dry_run else "Imported"
    top = [x for x in r.sessions if x.parent_session_id is None]
    subs = len(r.sessions) - len(top)
    with_subs = f" and {subs} subagent session(s)" if subs else ""
    out.print(
        f"{head} {len(top)} of {r.found} {name} session(s){with_subs} ({mode}) under {o.tree_root}."
    )
    if r.sessions:
        t = Table(box=None, header_style="bold")
        for col in ("memories", "inserted", "updated", "unchanged"):
            t.add_column(col, justify="right")
        t.add_row(
            str(sum(s.messages for s in r.sessions)),
            str(r.inserted),
            str(r.updated),
            str(r.skipped),
        )
        out.print(t)
    if r.dry_run:
        out.print(
            "Nothing written: without reconciling, every message counts as a would-be insert."
        )
    if r.skipped_sessions:
        reasons: dict[str, int] = {}
        for s in r.skipped_sessions:
            reasons[SKIP_LABELS[s.kind]] = reasons.get(SKIP_LABELS[s.kind], 0) + 1
        parts = ", ".join(f"{n} {k}" for k, n in sorted(reasons.items()))
        out.print(
            shown(
                f"Left out {len(r.skipped_sessions)} session(s): {parts} (-v lists them).",
                style="dim",
            )
        )
    for e in r.errors:
        out.print(shown(f"  could not read {e.path}: {e.reason}", style="yellow"))
    print_quarantined(r.quarantined, "bad line(s)/record(s)")
    if r.sessions and not r.dry_run:
        first = r.sessions[0]
        out.print(f"Browse: lazy ls {first.node.rsplit('/', 2)[0]}")


def _command(agent_name: str, command_name: str) -> click.Command:
    def callback(**kw: Any) -> None:
        o = _options(agent_name, kw)
        report = _run(agent_name, o, kw["verbose"], kw["as_json"])
        if kw["as_json"]:
            emit_json(report)
        else:
            _summary(report, o)

    return click.Command(
        command_name,
        callback=callback,
        params=_params(agent(agent_name)),
        help=f"""Import {NAMES[agent_name]} sessions: one memory per message.

        Each message becomes a memory at
        <tree-root>/<project_slug>/<sessions-node-name>/<session_id>/msg_<message_id>,
        readable with `lazy get <path>` and browsable with `lazy ls <path>`. Re-running
        inserts only new messages and rewrites changed ones: (tree, name) is the identity.
        The sessions are also captured into the store as conversations (`lazy conversations`).

        \b
        lazy import {agent_name}                          # every session, default source
        lazy import {agent_name} --project ~/dev/app      # one project's sessions
        lazy import {agent_name} --since 2026-01-01 --dry-run --full-transcript
        """,
        short_help=f"Import {NAMES[agent_name]} sessions as per-message memories.",
    )


def _params(a: Agent) -> list[click.Parameter]:
    params: list[click.Parameter] = [
        click.Option(
            ["--source", "sources"],
            multiple=True,
            type=click.Path(path_type=Path),
            help=f"Read this dir instead of the default ({a.roots_said}); repeatable.",
        ),
        click.Option(
            ["--project"],
            metavar="CWD",
            help="Only sessions whose cwd is this dir or below it.",
        ),
        click.Option(
            ["--since"], metavar="ISO", help="Only sessions started at or after this time."
        ),
        click.Option(
            ["--until"], metavar="ISO", help="Only sessions started at or before this time."
        ),
        click.Option(
            ["--tree-root"],
            default=DEFAULT_TREE_ROOT,
            show_default=True,
            help="Tree root for <slug>/<sessions-node-name> nodes: labels [A-Za-z0-9_-] joined by /,"
            " optionally starting with ~ for your home (~/projects).",
        ),
        click.Option(
            ["--sessions-node-name"],
            default=DEFAULT_NODE_NAME,
            show_default=True,
            help="Per-project node the sessions go under; [a-z0-9_]+.",
        ),
        click.Option(
            ["--full-transcript"],
            is_flag=True,
            help="Also keep reasoning, tool calls and tool results, as memories of their own"
            " (default: user + assistant text only).",
        ),
        click.Option(
            ["--include-temp-cwd"],
            is_flag=True,
            help="Include sessions run in a system temp dir (/tmp, /private/var/folders/...).",
        ),
        click.Option(
            ["--include-trivial"],
            is_flag=True,
            help="Include sessions with fewer than 2 user messages (one-shots, warm-ups, aborts).",
        ),
    ]
    if not a.subagent_sessions:  # its subagents are part of their parent session
        params.append(
            click.Option(
                ["--include-sidechains"],
                is_flag=True,
                help="Include subagent sessions (agent-*.jsonl).",
            )
        )
    params += [
        click.Option(
            ["--dry-run"],
            is_flag=True,
            help="Parse and report what would be imported; write nothing.",
        ),
        click.Option(
            ["-v", "--verbose"], is_flag=True, help="A line per session as it is imported."
        ),
        click.Option(["--json", "as_json"], is_flag=True, help="Print the report as JSON."),
    ]
    return params


class _PerAgent(click.Group):
    """A command per registered agent (read live: an agent a test registers is seen)."""

    def __init__(self, name: str, make: Callable[[str], click.Command], **kw: Any) -> None:
        super().__init__(name, **kw)
        self.make = make

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *TOOLS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in TOOLS:
            return self.make(cmd_name)
        return super().get_command(ctx, cmd_name)


def _import_group() -> None:
    pass


import_group = _PerAgent(
    "import",
    lambda agent_name: _command(agent_name, agent_name),
    callback=_import_group,
    help=f"Import an agent's sessions as per-message memories ({', '.join(TOOLS)}).",
)


def agent_group(agent_name: str) -> click.Group:
    """`lazy <agent> ...`: the agent's own commands (`lazy claude import`)."""
    group = click.Group(agent_name, help=f"{NAMES[agent_name]} commands.")
    group.add_command(_command(agent_name, "import"))
    return group
