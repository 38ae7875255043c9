"""`lazy doctor`: the health sweep, and the repairs it points at."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import click
from rich.progress import SpinnerColumn, TextColumn
from rich.table import Table
from rich.text import Text

from lazy.agents import TOOL_NAMES, TOOLS
from lazy.capture.bulk_import import plan
from lazy.capture.discovery import discover_tool
from lazy.cli.common import (
    current_project,
    emit_json,
    is_tty,
    json_option,
    open_store,
    out,
    progress,
    shown,
    store_failure,
    when,
)
from lazy.cli.conversation_import import bulk_import
from lazy.cli.search import searchable
from lazy.doctor import housekeeping, scaffolding
from lazy.doctor import recover as recovery
from lazy.doctor.checks import CHECKS, report, run_checks
from lazy.doctor.context import open_context
from lazy.doctor.repairs import one_at_a_time
from lazy.doctor.report import MARKS, Check
from lazy.index.indexer import SearchIndex
from lazy.memories.harness import import_memory, plan_memory
from lazy.model import ImportReport
from lazy.store import Store, StoreError, lazy_home
from lazy.store.queries import deleted_paths

STYLES = {"ok": "bold green", "info": "bold blue", "warn": "bold yellow", "fail": "bold red"}
SUMMARY_WIDTH = 60  # characters of a summary shown in a listing


def print_checks(checks: list[Check]) -> None:
    for c in checks:
        head = Text()
        head.append(MARKS[c.status], style=STYLES[c.status])
        head.append(f" {c.title}")
        out.print(head)
        for line in c.detail:  # paths, ids, summaries and errors quoting them
            out.print(shown(f"  {line}", multiline=False), soft_wrap=True)
        if c.fix and c.status != "ok":
            said = "optional" if c.status == "info" else "fix"
            out.print(shown(f"  {said}: {c.fix}", "cyan", multiline=False), soft_wrap=True)
    fails = sum(c.status == "fail" for c in checks)
    warns = sum(c.status == "warn" for c in checks)
    if fails or warns:
        style = "bold red" if fails else "bold yellow"
        out.print(shown(f"{fails} failure(s), {warns} warning(s).", style=style))
    else:
        out.print(Text("Every check passed.", style="bold green"))


def _sweep(as_json: bool) -> None:
    ctx = open_context()
    try:
        with progress(SpinnerColumn(), TextColumn("{task.description}")) as bar:
            task = bar.add_task("checking")
            checks = []
            for entry in CHECKS:
                bar.update(task, description=f"checking: {entry[0]}")
                checks += run_checks(ctx, (entry,))
    finally:
        ctx.close()
    result = report(checks)
    if as_json:
        emit_json(result)
    else:
        print_checks(checks)
    if result.status == "fail":
        raise SystemExit(1)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SUMMARY_WIDTH else text[: SUMMARY_WIDTH - 1] + "…"


# ---- --clean-local-command-conversations ---------------------------------------------------


def _print_scaffolding(found: scaffolding.Survey, delete_empty: bool) -> None:
    if not found.found:
        out.print("No stored conversation carries local-command scaffolding.")
    if found.cleanable:
        t = Table(box=None, header_style="bold", pad_edge=False)
        t.add_column("session", no_wrap=True)
        t.add_column("started", no_wrap=True)
        t.add_column("drops", justify="right", no_wrap=True)
        t.add_column("summary today", no_wrap=True)
        t.add_column("summary after", no_wrap=True)
        for s in found.cleanable:
            t.add_row(
                s.short_id,
                when(s.started_at),
                str(s.drops),
                shown(_short(s.summary) or "(no words)"),
                shown(_short(s.summary_after) or "(no words)"),
            )
        drops = sum(s.drops for s in found.cleanable)
        out.print(
            f"{len(found.cleanable)} conversation(s) carry local-command scaffolding;"
            f" cleaning drops {drops} message(s) and leaves everything else as it is:"
        )
        out.print(t)
    if found.empty:
        out.print(
            f"{len(found.empty)} conversation(s) are nothing but scaffolding"
            " (no conversation behind the listing entry):"
        )
        for s in found.empty:
            out.print(f"  {s.short_id}  {when(s.started_at)}")
        if not delete_empty:
            out.print(
                "They are left exactly as they are;"
                " --delete-empty-local-command-conversations deletes them."
            )
    for sid, why in found.unreadable:
        out.print(
            shown(f"  {sid[:8]} could not be re-read from the archive: {why}", style="yellow")
        )


def _scaffolding_json(
    found: scaffolding.Survey, applied: scaffolding.Applied | None, dry_run: bool
) -> dict[str, Any]:
    return {
        "conversations": [asdict(s) for s in found.cleanable],
        "empty": [asdict(s) for s in found.empty],
        "unreadable": [{"session_id": s, "reason": r} for s, r in found.unreadable],
        "dry_run": dry_run,
        "applied": asdict(applied) if applied is not None else None,
    }


def _clean(delete_empty: bool, dry_run: bool, yes: bool, as_json: bool) -> None:
    with open_store() as store:
        found = scaffolding.survey(store)
        if not as_json:
            _print_scaffolding(found, delete_empty)
        if not found.found or dry_run:
            if dry_run and found.found and not as_json:
                out.print("Dry run: nothing changed.")
            if as_json:
                emit_json(_scaffolding_json(found, None, dry_run))
            return
        clean_ok = delete_ok = False
        refusal = None
        empty = found.empty if delete_empty else []
        if found.cleanable:
            if yes:
                clean_ok = True
            elif is_tty():
                question = f"Clean {len(found.cleanable)} conversation(s)?"
                clean_ok = click.confirm(question, default=False, err=as_json)
            elif not as_json:
                out.print("Not a terminal: nothing changed. Re-run with --yes to clean them.")
        if empty:
            # approving the rewrite is not approving a delete: asked on its own
            if yes:
                delete_ok = True
            elif is_tty():
                question = (
                    f"Delete {len(empty)} conversation(s) that are nothing but scaffolding?"
                    " Deletion is permanent."
                )
                delete_ok = click.confirm(question, default=False, err=as_json)
            else:
                refusal = (
                    f"not a terminal: refusing to delete {len(empty)} conversation(s)"
                    " without --yes."
                )
        applied = None
        if clean_ok or delete_ok:
            clean = {s.builder_id for s in found.cleanable} if clean_ok else set()
            delete = {s.builder_id for s in empty} if delete_ok else set()
            applied = scaffolding.apply(store, clean, delete)
            searchable(store)  # the dropped and deleted messages leave the search index
            if not as_json:
                _print_applied(applied, clean, delete)
        elif is_tty() and not as_json:
            out.print("Nothing changed.")
        if as_json:
            emit_json(_scaffolding_json(found, applied, False))
    if refusal:
        raise click.ClickException(refusal)


def _print_applied(applied: scaffolding.Applied, clean: set[str], delete: set[str]) -> None:
    if applied.cleaned:
        out.print(
            f"Cleaned {len(applied.cleaned)} conversation(s):"
            f" dropped {applied.dropped} scaffolding message(s)."
        )
    if applied.deleted:
        out.print(
            f"Deleted {len(applied.deleted)} conversation(s) that were nothing but scaffolding."
        )
    left = (clean - set(applied.cleaned)) | (delete - set(applied.deleted))
    if left:
        out.print(
            shown(
                f"{len(left)} changed since they were listed and were left as they are;"
                " run it again to see them.",
                style="yellow",
            )
        )


# ---- --purge-housekeeping-conversations -----------------------------------------------------


def _approved(question: str, yes: bool, as_json: bool, *, nothing: str, rerun: str) -> bool:
    """--yes, or a terminal's answer (default no); a non-terminal is told to re-run."""
    if yes:
        return True
    if is_tty():
        ok = click.confirm(question, default=False, err=as_json)
        if not ok and not as_json:
            out.print(f"Nothing {nothing}.")
        return ok
    if not as_json:
        out.print(f"Not a terminal: nothing {nothing}. Re-run with --yes to {rerun}.")
    return False


def _purge(dry_run: bool, yes: bool, as_json: bool) -> None:
    with open_store() as store:
        found = housekeeping.survey(store)
        deleted: list[str] | None = None
        if not as_json:
            _print_housekeeping(found)
        if found and not dry_run:
            question = f"Delete {len(found)} housekeeping conversation(s)?"
            if _approved(question, yes, as_json, nothing="deleted", rerun="delete them"):
                deleted = housekeeping.purge(store, {h.builder_id for h in found})
                searchable(store)
                if not as_json:
                    out.print(f"Deleted {len(deleted)} conversation(s).")
                    _on_disk_note(store, deleted)
        elif found and not as_json:
            out.print("Dry run: nothing deleted.")
    if as_json:
        emit_json(
            {
                "conversations": [asdict(h) for h in found],
                "dry_run": dry_run,
                "deleted": deleted,
            }
        )


def _import_memory(dry_run: bool, yes: bool, as_json: bool) -> None:
    project = current_project()
    with open_store() as store:
        found = plan_memory(store, project)
        done: tuple[int, int] | None = None
        if not as_json:
            if not found.new:
                out.print(f"No Claude Code memory records of {project} to import.")
            for r in found.new:
                out.print(f"  {r.name}  {when(r.modified)}  {r.path}")
            for u in found.problems:
                out.print(shown(f"  unreadable: {u.path}: {u.reason}", style="yellow"))
        if found.new and not dry_run:
            question = f"Import {len(found.new)} memory record(s) into lazy shared memory?"
            if _approved(question, yes, as_json, nothing="imported", rerun="import them"):
                done = import_memory(store, found)
                searchable(store)
                if not as_json:
                    out.print(f"imported {sum(done)} memory record(s).")
        elif found.new and not as_json:
            out.print("Dry run: nothing imported.")
    if as_json:
        emit_json(
            {
                "project": project,
                "records": [{"name": r.name, "path": str(r.path)} for r in found.new],
                "unreadable": [asdict(u) for u in found.problems],
                "dry_run": dry_run,
                "imported": None if done is None else {"new": done[0], "changed": done[1]},
            }
        )


def _print_housekeeping(found: list[housekeeping.Housekeeping]) -> None:
    if not found:
        out.print("No stored conversation looks like one of lazy's own housekeeping one-shots.")
        return
    t = Table(box=None, header_style="bold", pad_edge=False)
    t.add_column("session", no_wrap=True)
    t.add_column("started", no_wrap=True)
    t.add_column("kind", no_wrap=True)
    t.add_column("why")
    for h in found:
        t.add_row(h.short_id, when(h.started_at), h.kind, shown(h.why))
    out.print(
        f"{len(found)} conversation(s) look like lazy's own one-shots, stored before the marker:"
    )
    out.print(t)
    out.print(
        "Deletion is not recoverable from lazy (Claude Code prunes the raw JSONL on disk"
        " over time), so read the list."
    )


def _on_disk_note(store: Store, deleted: list[str]) -> None:
    if not deleted:
        return
    on_disk = [p for p in deleted_paths(store.conn, deleted) if Path(p).exists()]
    if on_disk:
        out.print(
            f"{len(on_disk)} of their session files are still on disk, with no marker:"
            " `lazy doctor --reimport-conversations` would import them again."
        )


# ---- --recover-store ------------------------------------------------------------------------


def _recover(yes: bool, as_json: bool) -> None:
    home = lazy_home()
    try:
        found = recovery.survey(home)
    except StoreError as e:
        raise store_failure(e) from e
    said: dict[str, Any] = {"store": str(found.path), "problems": found.problems, "applied": None}
    if not found.problems:
        if not as_json:
            out.print(f"{found.path} passes SQLite's quick_check: there is nothing to recover.")
        else:
            emit_json(said)
        return
    if not as_json:
        out.print(shown(f"{found.path} is damaged:", "bold"))
        for p in found.problems[:5]:
            out.print(shown(f"  {p}"), soft_wrap=True)
        if len(found.problems) > 5:
            out.print(f"  … and {len(found.problems) - 5} more")
        counted = "" if found.conversations is None else f" ({found.conversations:,} counted)"
        out.print(
            f"Recovering copies every row that can still be read{counted} into a new store,"
            " re-derives every conversation from the raw archive, moves the damaged file to"
            f" {found.path.name}{recovery.LABEL} (with its -wal and -shm; nothing is deleted)"
            " and rebuilds the search index."
        )
    if not _approved("Recover the store?", yes, as_json, nothing="changed", rerun="recover it"):
        if as_json:
            emit_json(said)
        return
    try:
        done = recovery.recover(home)
    except StoreError as e:
        raise store_failure(e) from e
    with open_store() as store:
        n = SearchIndex.open(store.home).rebuild(store)
    lost = done.salvaged.lost
    said["applied"] = {
        "aside": str(done.aside),
        "conversations": done.conversations,
        "messages": done.messages,
        "rederived": done.rederived,
        "kept_as_copied": done.kept,
        "failed": [{"session_id": s, "reason": r} for s, r in done.failed],
        "copied": done.salvaged.copied,
        "lost": lost,
        "unreadable": done.salvaged.unreadable,
        "indexed": n,
    }
    if as_json:
        emit_json(said)
        return
    out.print(
        f"Recovered {done.conversations:,} conversation(s), {done.messages:,} message(s)"
        f" ({done.rederived:,} session(s) re-derived from the raw archive); index rebuilt."
    )
    out.print(f"The damaged store is kept at {done.aside}.")
    if done.salvaged.unreadable:
        out.print(shown(f"Nothing could be read out of it: {done.salvaged.unreadable}", "yellow"))
    for table, lines in lost.items():
        for w in lines:
            out.print(shown(f"  {table}: {w}", "yellow"), soft_wrap=True)
    for sid in done.kept:
        out.print(shown(f"  {sid}: archive incomplete, kept as copied", "yellow"))
    for sid, reason in done.failed:
        out.print(shown(f"  {sid}: could not be re-derived ({reason}), kept as copied", "yellow"))
    out.print("`lazy doctor --reimport-conversations --yes` adds back what is still on disk.")


# ---- --reimport-conversations ---------------------------------------------------------------


def _reimport(yes: bool, as_json: bool) -> None:
    reports: dict[str, ImportReport] = {}
    with open_store() as store:
        for tool in TOOLS:
            if not as_json:
                out.print(shown(TOOL_NAMES[tool], "bold"))
            p = plan(store, discover_tool(tool))
            reports[tool] = bulk_import(store, p, project=None, tool=tool, yes=yes, as_json=as_json)
    if as_json:
        emit_json({"reports": {t: r.model_dump(mode="json") for t, r in reports.items()}})


@click.command("doctor")
@click.option(
    "--reimport-conversations",
    "reimport",
    is_flag=True,
    help="Import the sessions on disk that never reached the store (Claude Code, Codex CLI,"
    " OpenCode; every project): the bulk path of `lazy import-conversation`, with its"
    " preview and confirmation.",
)
@click.option(
    "--clean-local-command-conversations",
    "clean",
    is_flag=True,
    help="Put the conversations stored with local-command scaffolding back through today's"
    " reader (as a fresh import would read them). Lists them, then asks on a terminal"
    " (default no).",
)
@click.option(
    "--delete-empty-local-command-conversations",
    "delete_empty",
    is_flag=True,
    help="With --clean-local-command-conversations: also delete the conversations that are"
    " nothing but scaffolding. Confirmed on its own on a terminal (default no); without a"
    " terminal it needs --yes.",
)
@click.option(
    "--purge-housekeeping-conversations",
    "purge",
    is_flag=True,
    help="Delete the conversations that are lazy's own one-shots stored before the marker"
    " (classified by how their only message opens). Lists them, then asks on a terminal"
    " (default no).",
)
@click.option(
    "--import-memory",
    "import_memory_",
    is_flag=True,
    help="Import this repo's Claude Code harness memory records (`memory/` of its Claude"
    " projects dirs) into lazy's shared memory, searchable with `in:memories`; only those"
    " the store does not hold as they are. Lists them, then asks on a terminal (default no).",
)
@click.option("--dry-run", is_flag=True, help="With a clean, purge or memory import: list, stop.")
@click.option(
    "--yes", "-y", is_flag=True, help="With a repair: apply it without asking (non-interactive)."
)
@click.option(
    "--recover-store",
    "recover_store",
    is_flag=True,
    help="Recover a damaged store (one failing SQLite's quick_check, or not a database):"
    " copy what can still be read into a new store, re-derive every conversation from the"
    " raw archive, keep the damaged file beside it as store.db.damaged, rebuild the index."
    " Says what it found, then asks on a terminal (default no).",
)
@json_option
def doctor(
    reimport: bool,
    clean: bool,
    delete_empty: bool,
    purge: bool,
    import_memory_: bool,
    recover_store: bool,
    dry_run: bool,
    yes: bool,
    as_json: bool,
) -> None:
    """Check lazy's health, and repair what the checks point at.

    One line per check (✓ ok, ! warning, ✗ failure), its detail under it, and for a warning
    or failure the command that fixes it; exit status 1 when any check fails. The checks:
    the store's integrity and schema (read-only, full, locked, damaged, newer, not a
    database: each with its own fix), the search index caught up and undamaged, the store
    private (0600/0700), conversation capture live (sessions of every agent on disk, in every
    project, that never reached the store: a failure for any written in the last 24h, a
    warning for older ones; sessions written in the last 5 minutes are in flight; lazy's
    one-shots are never counted), how many messages carry redactions and whether the agents'
    own files hold live-looking credentials (counts, never values), the Claude Code hooks
    installed and the capture daemon running (capture without VS Code), housekeeping
    conversations and local-command scaffolding stored by older releases, the credential,
    Docker and the agent image (for lazy ask), Python and the dependencies' versions, free
    disk where the store lives ($LAZY_HOME). The sweep changes no conversation: all it
    writes is the tightening of modes under $LAZY_HOME and the record of checks passed.

    \b
    lazy doctor                                    # the health sweep
    lazy doctor --json                             # the same, as JSON
    lazy doctor --reimport-conversations           # preview, then confirm
    lazy doctor --reimport-conversations --yes     # recover without prompting
    lazy doctor --clean-local-command-conversations              # lists, changes nothing
    lazy doctor --clean-local-command-conversations --dry-run    # lists and stops
    lazy doctor --clean-local-command-conversations --yes        # applies
    lazy doctor --clean-local-command-conversations --delete-empty-local-command-conversations
    lazy doctor --purge-housekeeping-conversations          # lists, deletes nothing
    lazy doctor --purge-housekeeping-conversations --yes    # deletes
    lazy doctor --import-memory                    # this repo's Claude Code memory records
    lazy doctor --recover-store                    # a damaged store: what can be read

    Without --yes a repair lists what it would do and, on a terminal, asks (default no); on
    a non-terminal it is told to re-run with --yes and changes nothing.
    """
    if sum((reimport, clean, purge, import_memory_, recover_store)) > 1:
        raise click.UsageError(one_at_a_time())
    if delete_empty and not clean:
        raise click.UsageError(
            "--delete-empty-local-command-conversations goes with"
            " --clean-local-command-conversations"
        )
    if (dry_run or yes) and not (reimport or clean or purge or import_memory_ or recover_store):
        raise click.UsageError("--dry-run and --yes go with a repair flag (see --help)")
    if dry_run and yes:
        raise click.UsageError("--dry-run lists and stops; --yes applies: give one of them")
    if dry_run and (reimport or recover_store):
        flag = "--reimport-conversations" if reimport else "--recover-store"
        raise click.UsageError(f"{flag} previews on its own; --dry-run goes with a clean or purge")
    if recover_store:
        _recover(yes, as_json)
    elif reimport:
        _reimport(yes, as_json)
    elif clean:
        _clean(delete_empty, dry_run, yes, as_json)
    elif purge:
        _purge(dry_run, yes, as_json)
    elif import_memory_:
        _import_memory(dry_run, yes, as_json)
    else:
        _sweep(as_json)
