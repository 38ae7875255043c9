"""`lazy hooks install|uninstall|status`: Claude Code hooks that capture each session as it
is written, with no editor and no daemon running."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from rich.table import Table
from rich.text import Text

from lazy.agents.claude import hooks as cc
from lazy.cli.common import emit_json, json_option, out, shown


def _settings_error(e: cc.SettingsError) -> click.ClickException:
    return click.ClickException(f"{e.path}: {e.reason} [{e.code}]")


def _diff(change: cc.Change) -> str:
    before = (change.before or "").splitlines(keepends=True)
    after = change.after.splitlines(keepends=True)
    name = str(change.path)
    return "".join(
        difflib.unified_diff(
            before, after, fromfile=name if change.before is not None else "/dev/null", tofile=name
        )
    )


def _as_json(change: cc.Change, dry_run: bool, command: str | None) -> None:
    emit_json(
        {
            "settings": str(change.path),
            "changed": change.changed,
            "dry_run": dry_run,
            "added": change.added,
            "replaced": change.replaced,
            "removed": change.removed,
            "kept": change.kept,
            "command": command,
        }
    )


def _show_dry_run(change: cc.Change) -> None:
    if not change.changed:
        out.print(f"Nothing to change in {change.path}.")
        return
    diff = shown(_diff(change))
    diff.no_wrap = True
    out.print(diff, end="")
    out.print(shown(f"(dry run: {change.path} not written)", style="dim"))


@click.group("hooks")
def hooks_group() -> None:
    """Claude Code hooks that capture each session as it is written.

    The hooks (SessionStart, Stop, PreCompact and SessionEnd) run `lazy capture --hook` in
    the user's Claude settings: $CLAUDE_CONFIG_DIR/settings.json, else
    ~/.claude/settings.json. Everything else in that file is kept as it is.
    """


@contextmanager
def _settings_errors(path: Path) -> Iterator[None]:
    """Settings refused (not JSON, a shape Claude Code would not read, an unknown lazy or a
    too-old claude) or not writable, as one-line errors naming the file."""
    try:
        yield
    except cc.SettingsError as e:
        raise _settings_error(e) from e
    except OSError as e:
        raise click.ClickException(f"{path}: could not be written: {e}") from e


def _write(change: cc.Change, dry_run: bool, as_json: bool) -> bool:
    """Write the change, unless --dry-run; False when the dry run's diff was shown instead
    (nothing more to say)."""
    if dry_run and not as_json:
        _show_dry_run(change)
        return False
    if not dry_run:
        cc.apply(change)
    return True


@hooks_group.command("install")
@click.option(
    "--dry-run", is_flag=True, help="Show the change to the settings file; write nothing."
)
@json_option
def install(dry_run: bool, as_json: bool) -> None:
    """Add lazy's capture hook to Claude Code's settings (idempotent).

    Each of SessionStart, Stop, PreCompact and SessionEnd gets one command hook running
    `<this lazy> capture --hook` (timeout 30 s). Installing again changes nothing; an
    earlier lazy's hook (another path) is replaced. The file is written atomically; one that
    is not valid JSON is refused and left untouched.

    The `claude` on PATH is asked its version: a Claude Code before 2.0 gets no SessionEnd
    hook (it would ignore the whole settings file), one before 1.0.65 none at all.
    """
    path = cc.settings_path()
    claude = cc.installed_claude()
    with _settings_errors(path):
        lazy = cc.this_lazy()
        events = cc.events_for(claude)
        change = cc.plan_install(path, lazy, events)
        if not _write(change, dry_run, as_json):
            return
    if as_json:
        _as_json(change, dry_run, cc.command_for(lazy))
        return
    if claude is not None and events != cc.EVENTS:
        out.print(
            shown(
                f"Claude Code {claude.version} ({claude.path}) does not know SessionEnd and"
                " would ignore a settings file naming it: its hook is left out (each turn's"
                " Stop captures the session; `lazy daemon start` catches the rest).",
                style="yellow",
            )
        )
    if not change.changed:
        out.print(f"Already installed in {path}: {', '.join(events)}.")
        return
    done = change.added + change.replaced
    if done:
        out.print(f"Installed lazy's capture hook for {', '.join(done)} in {path}.")
    if change.removed:
        out.print(f"Removed lazy's capture hook from {', '.join(change.removed)} in {path}.")
    if change.kept:
        out.print(f"Already there: {', '.join(change.kept)}.")
    out.print(shown(f"command: {cc.command_for(lazy)}", style="dim"))


@hooks_group.command("uninstall")
@click.option(
    "--dry-run", is_flag=True, help="Show the change to the settings file; write nothing."
)
@json_option
def uninstall(dry_run: bool, as_json: bool) -> None:
    """Remove lazy's capture hooks from Claude Code's settings; nothing else is touched."""
    path = cc.settings_path()
    with _settings_errors(path):
        change = cc.plan_uninstall(path)
        if not _write(change, dry_run, as_json):
            return
    if as_json:
        _as_json(change, dry_run, None)
        return
    if not change.changed:
        out.print(f"No lazy hooks in {path}: nothing to remove.")
        return
    out.print(f"Removed lazy's capture hook from {', '.join(change.removed)} in {path}.")


@hooks_group.command("status")
@json_option
def status(as_json: bool) -> None:
    """Which Claude Code events have lazy's capture hook, and whether its command still
    exists."""
    path = cc.settings_path()
    try:
        events = cc.status(path)
    except cc.SettingsError as bad:
        raise _settings_error(bad) from bad
    ok = all(e.installed and e.runnable for e in events)
    if as_json:
        emit_json(
            {
                "settings": str(path),
                "installed": ok,
                "events": [
                    {
                        "event": e.event,
                        "installed": e.installed,
                        "command": e.command,
                        "command_exists": e.runnable,
                    }
                    for e in events
                ],
            }
        )
        return
    out.print(f"Claude Code settings: {path}")
    t = Table(box=None)
    t.add_column("event", style="bold")
    t.add_column("lazy hook")
    t.add_column("command")
    for e in events:
        mark = Text("installed", style="green") if e.installed else Text("missing", style="red")
        if e.installed and not e.runnable:
            cmd = shown(f"{e.command} (no longer exists)", style="red")
        else:
            cmd = shown(e.command or "")
        t.add_row(e.event, mark, cmd)
    out.print(t)
    if not ok:
        out.print("Run `lazy hooks install` to capture every Claude Code session as it is written.")
