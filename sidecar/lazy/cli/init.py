"""`lazy init`: start using lazy in a repo, inheriting the Claude Code history it already has."""

from __future__ import annotations

import click

from lazy.capture.bulk_import import Plan, plan
from lazy.capture.discovery import discover_tool
from lazy.cli.common import current_project, err, is_tty, open_store, out
from lazy.cli.conversation_import import import_sessions, print_summary
from lazy.memories.harness import MemoryPlan, import_memory, plan_memory
from lazy.model import ImportReport


def _ask(question: str) -> bool:
    """A [Y/n] question on the terminal: Enter is yes."""
    answer = click.prompt(f"  {question} [Y/n]", default="", show_default=False, prompt_suffix=" ")
    return answer.strip().lower() in ("", "y", "yes")


def _skipped(e: Exception) -> None:
    why = e.format_message() if isinstance(e, click.ClickException) else str(e)
    err.print(f"(Skipped Claude Code history import: {why})", markup=False, highlight=False)


@click.command("init")
@click.option(
    "--non-interactive",
    is_flag=True,
    help="Ask nothing and import nothing (the offer is only ever a question).",
)
def init(non_interactive: bool) -> None:
    """Start using lazy in this repo; offer to inherit its Claude Code history.

    When the repo already has Claude Code sessions the store does not hold, or harness
    memory records (the `memory/` dir of its Claude projects dirs) with no lazy
    counterpart, one offer covers both: a [Y/n] question per kind, asked only when there
    is something of that kind. Skipped under --non-interactive and on a non-terminal:
    never a silent write. A failure of detection or import prints a note and never fails
    init. Later: `lazy import-conversation` and `lazy doctor --import-memory`.
    """
    project = current_project()
    out.print(f"lazy: {project}")
    offer: tuple[Plan, MemoryPlan] | None = None
    try:
        with open_store() as store:
            offer = (
                plan(store, discover_tool("claude", None, project)),
                plan_memory(store, project),
            )
    except (click.ClickException, OSError, ValueError) as e:
        _skipped(e)
    if offer is not None:
        _inherit(project, *offer, interactive=is_tty() and not non_interactive)
    out.print(
        "Capture: the VS Code extension captures while it runs; without it, "
        "`lazy hooks install` or `lazy daemon start`. Check with `lazy doctor`."
    )


def _inherit(project: str, sessions: Plan, memory: MemoryPlan, *, interactive: bool) -> None:
    n_sessions, n_records = len(sessions.missing), len(memory.new)
    if not n_sessions and not n_records:
        return
    out.print("This repo already has Claude Code history from before lazy.")
    if n_sessions:
        out.print(f"  Found {n_sessions} existing Claude Code session(s) for this repo.")
    if n_records:
        out.print(
            f"  Found {n_records} Claude Code harness memory record(s) with no lazy counterpart."
        )
    both = "both" if n_sessions and n_records else "it"
    out.print(f"  Lazy can import {both}, so you inherit your project's history instead of")
    out.print("  starting from scratch.")
    if not interactive:
        out.print(
            "  (Not asking: non-interactive. Import later with `lazy import-conversation`"
            " and `lazy doctor --import-memory`.)"
        )
        return
    take_sessions = n_sessions > 0 and _ask(
        f"Import {n_sessions} conversation(s) as builder memory?"
    )
    take_memory = n_records > 0 and _ask(
        f"Import {n_records} memory record(s) into lazy shared memory?"
    )
    try:
        with open_store() as store:
            if take_sessions:
                print_summary(
                    import_sessions(store, sessions.discovery, sessions.missing, ImportReport())
                )
            if take_memory:
                inserted, updated = import_memory(store, memory)
                out.print(f"imported {inserted + updated} memory record(s).")
    except (click.ClickException, OSError, ValueError) as e:
        _skipped(e)
