"""`lazy import-conversation`: bringing an agent's history into the store as conversations."""

from __future__ import annotations

from pathlib import Path

import click
from rich.progress import (
    BarColumn,
    DownloadColumn,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)
from rich.table import Table

from lazy.agents import Agent, agent
from lazy.agents.discovery import Candidate, Discovery
from lazy.capture.bulk_import import Plan, plan, run_import
from lazy.capture.discovery import discover_tool
from lazy.cli.common import (
    AgentChoice,
    all_projects_option,
    current_project,
    emit_json,
    err,
    is_tty,
    json_option,
    open_store,
    out,
    print_quarantined,
    progress,
    scope,
    shown,
    when,
)
from lazy.cli.conversations import print_builders, show_command
from lazy.cli.memory_import import NAMES
from lazy.cli.search import searchable
from lazy.model import ImportReport
from lazy.store import Store
from lazy.view.reading import list_builders


def _nothing_found(d: Discovery, project: str | None, tool: str) -> None:
    where = "\n".join(f"  {r}{'' if r.is_dir() else '  (does not exist)'}" for r in d.roots)
    scope_note = f" for {project}" if project else ""
    out.print(f"No {NAMES[tool]} sessions found{scope_note}. Looked in:\n{where}")
    widen = ", or pass --all-projects to take every project" if project else ""
    out.print(f"Point lazy elsewhere with --source DIR ({_hint(agent(tool))}{widen}.")


def _hint(a: Agent) -> str:
    """Where --source should point for ``a``, and what moves its default roots."""
    return f"{a.source_hint}) or set {' or '.join(a.env)}" if a.env else f"{a.source_hint})"


def _oneshot_note(d: Discovery) -> None:
    if d.oneshots:
        err.print(f"ignored {len(d.oneshots)} machine-generated lazy one-shot(s)")


def import_sessions(
    store: Store, d: Discovery, ids: list[str], report: ImportReport
) -> ImportReport:
    files = [c for sid in ids for c in d.files_of(sid)]
    total = sum(c.size for c in files)
    with progress(
        TextColumn("[bold]importing"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    ) as bar:
        task = bar.add_task("import", total=total)

        def advance(c: Candidate) -> None:
            bar.advance(task, c.size)

        report = run_import(store, d, ids, on_file=advance, report=report)
    searchable(store)  # what was imported is searchable when the command returns
    return report


def print_summary(report: ImportReport) -> None:
    parts = [f"imported {len(report.imported)} conversation(s)"]
    if report.updated:
        parts.append(f"updated {len(report.updated)}")
    parts.append(f"{report.messages_added} new message(s)")
    out.print(", ".join(parts) + ".")
    for s in report.skipped:
        out.print(shown(f"  skipped {s.session_id[:8]}: {s.reason} ({s.path})", style="yellow"))
    for s in report.refused:
        out.print(shown(f"  refused {s.session_id[:8]}: {s.reason}", style="yellow"))
    print_quarantined(report.quarantined)


def _list_table(p: Plan) -> Table:
    t = Table(box=None, header_style="bold")
    for col in ("session", "modified", "size", "state", "cwd"):
        t.add_column(col, no_wrap=col != "cwd")
    state = {s: "imported" for s in p.imported} | {s: "missing" for s in p.missing}
    state |= {s: "empty" for s in p.empty} | {s: "deleted" for s in p.deleted}
    for sid, c in sorted(p.discovery.sessions.items(), key=lambda kv: -kv[1].mtime_ns):
        from datetime import UTC, datetime

        mod = datetime.fromtimestamp(c.mtime_ns / 1e9, UTC).isoformat()
        t.add_row(sid, when(mod), f"{c.size:,}", state[sid], c.cwd or "")
    return t


def _report(p: Plan, report: ImportReport) -> ImportReport:
    report.found = p.found
    report.missing = len(p.missing) + len(p.deleted)
    report.already_imported = len(p.imported)
    report.ignored_oneshots = max(report.ignored_oneshots, len(p.discovery.oneshots))
    return report


@click.command("import-conversation")
@click.argument("session", required=False, metavar="[SESSION_ID]")
@click.option("--yes", "-y", is_flag=True, help="Import without asking (non-interactive callers).")
@click.option("--list", "list_", is_flag=True, help="List the sessions on disk and their state.")
@click.option("--all", "all_", is_flag=True, help="Re-import everything, incl. already imported.")
@click.option("--show-imported", is_flag=True, help="Show the conversations already imported.")
@click.option("--show", "show_id", metavar="ID", help="Show a full conversation transcript.")
@click.option(
    "--source",
    "sources",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Also scan this dir (a Claude projects dir or .jsonl files); repeatable.",
)
@click.option(
    "--tool",
    type=AgentChoice(),
    default="claude",
    show_default=True,
    help="Whose history: Claude Code, Codex CLI or OpenCode.",
)
@all_projects_option
@json_option
def import_conversation(
    session: str | None,
    yes: bool,
    list_: bool,
    all_: bool,
    show_imported: bool,
    show_id: str | None,
    sources: tuple[Path, ...],
    tool: str,
    all_projects: bool,
    as_json: bool,
) -> None:
    """Bring agent history into the store as conversations, per session or in bulk.

    Claude Code (the default): every Claude projects dir for this repo (under
    $CLAUDE_CONFIG_DIR and ~/.claude, sessions whose cwd is in the repo or one of its
    worktrees). --tool codex: rollouts under $CODEX_HOME (~/.codex); --tool opencode:
    $XDG_DATA_HOME/opencode (its database and older JSON storage); both filtered to this
    repo by each session's cwd. Plus any --source. When a session is in several places the
    most complete copy is used. lazy's own machine-generated one-shots are never imported.

    \b
    lazy import-conversation              # preview + import all new sessions
    lazy import-conversation --yes        # import all new sessions, no prompt
    lazy import-conversation --list       # list available sessions
    lazy import-conversation bc77e1b1     # import one session (id can be shortened)
    lazy import-conversation --all        # re-import everything (incl. already imported)
    lazy import-conversation --show-imported     # show already-imported conversations
    lazy import-conversation --show bc77e1b1     # show a full conversation transcript
    lazy import-conversation --tool codex --yes  # Codex CLI sessions of this repo

    Without a session id or --all it previews and asks (default no); on a non-terminal
    without --yes it prints what it would do and writes nothing.
    """
    if show_id:
        show_command(show_id, as_json)
        return
    if show_imported:
        _show_imported(all_projects, as_json)
        return
    project = None if all_projects else current_project()
    d = discover_tool(tool, list(sources), project)
    with open_store() as store:
        if session:
            _import_one(store, d, session, list(sources), tool, as_json)
            return
        p = plan(store, d)
        if list_:
            _list(p, project, tool, as_json)
            return
        report = bulk_import(
            store, p, project=project, tool=tool, all_=all_, yes=yes, as_json=as_json
        )
    if as_json:
        emit_json(report)


def _show_imported(all_projects: bool, as_json: bool) -> None:
    """`--show-imported`: the conversations already in the store."""
    with open_store() as store:
        builders = list_builders(store.conn, scope(all_projects))
    if as_json:
        emit_json({"builders": [b.model_dump(mode="json") for b in builders]})
    else:
        print_builders(builders, all_projects)


def _list(p: Plan, project: str | None, tool: str, as_json: bool) -> None:
    """`--list`: the sessions on disk and their state."""
    d = p.discovery
    if as_json:
        emit_json(
            {
                "sessions": [
                    {
                        "session_id": sid,
                        "path": str(c.path),
                        "size": c.size,
                        "cwd": c.cwd,
                        "state": "imported"
                        if sid in p.imported
                        else "empty"
                        if sid in p.empty
                        else "deleted"
                        if sid in p.deleted
                        else "missing",
                    }
                    for sid, c in d.sessions.items()
                ],
                "ignored_oneshots": len(d.oneshots),
            }
        )
    elif p.found:
        out.print(_list_table(p))
    else:
        _nothing_found(d, project, tool)
    _oneshot_note(d)


def bulk_import(
    store: Store,
    p: Plan,
    *,
    project: str | None,
    tool: str,
    all_: bool = False,
    yes: bool = False,
    as_json: bool = False,
) -> ImportReport:
    """The bulk path of `lazy import-conversation` (no session id): say what is on disk and
    missing from the store, ask (default no; a non-terminal without ``yes`` is told what would
    be done, and nothing is written), import. ``all_`` imports everything without asking.
    Prints for a person unless ``as_json``; returns the report either way.
    `lazy doctor --reimport-conversations` is this same path."""
    d = p.discovery
    report = _report(p, ImportReport())
    if not p.found:
        if not as_json:
            _nothing_found(d, project, tool)
            _oneshot_note(d)
        return report
    if all_:
        ids = list(d.sessions)
    else:
        missing = len(p.missing) + len(p.deleted)
        line = (
            f"Found {p.found} session(s) on disk; {missing} missing from the store,"
            f" {len(p.imported)} already imported."
        )
        if p.deleted:
            line += (
                f" ({len(p.deleted)} of the missing were deleted from the store by lazy doctor;"
                " importing brings them back.)"
            )
        if p.behind:
            line += f" {len(p.behind)} imported one(s) have grown since and will be caught up."
        if p.empty:
            line += f" ({len(p.empty)} empty, skipped.)"
        if not as_json:
            out.print(line)
        _oneshot_note(d)
        ids = p.missing + p.deleted + p.behind
        if not ids:
            if not as_json:
                out.print("Nothing to import.")
            return report
        if not yes:
            if not is_tty():
                report.dry_run = True
                if not as_json:
                    out.print(f"Would import {len(ids)} conversation(s):")
                    for sid in ids:
                        grown = " (grown: catch up)" if sid in p.behind else ""
                        out.print(f"  {sid}  {d.sessions[sid].path}{grown}")
                    out.print("Not a terminal: nothing written. Re-run with --yes to import.")
                return report
            question = f"Import {missing} conversation(s) into the store?"
            if p.behind:
                question = (
                    f"Import {missing} conversation(s) and catch up {len(p.behind)} into the store?"
                )
            if not click.confirm(question, default=False):
                report.dry_run = True
                out.print("Nothing imported.")
                return report
    report = import_sessions(store, d, ids, report)
    if not as_json:
        print_summary(report)
    return report


def _import_one(
    store: Store, d: Discovery, ident: str, sources: list[Path], tool: str, as_json: bool
) -> None:
    """Import one session named by id or unique prefix, found anywhere lazy looks."""

    def matches(disc: Discovery) -> tuple[list[str], list[str]]:
        return (
            sorted(s for s in disc.sessions if s.startswith(ident)),
            sorted(s for s in disc.oneshots if s.startswith(ident)),
        )

    found, oneshots = matches(d)
    if not found and not oneshots:
        d = discover_tool(tool, sources, None)  # not in this project: look everywhere
        found, oneshots = matches(d)
    if not found and oneshots:
        raise click.ClickException(
            f"{oneshots[0]} is a machine-generated lazy one-shot; lazy never imports those."
        )
    if not found:
        roots = ", ".join(str(r) for r in d.roots)
        raise click.ClickException(f"session {ident!r} not found on disk (looked in {roots}).")
    if len(found) > 1:
        listing = "\n".join(f"  {s}  {d.sessions[s].path}" for s in found)
        raise click.ClickException(
            f"{ident!r} is ambiguous; it matches {len(found)} sessions:\n{listing}\n"
            "Give more of the id."
        )
    report = ImportReport(found=1)
    report = import_sessions(store, d, found, report)
    if as_json:
        emit_json(report)
    else:
        print_summary(report)
