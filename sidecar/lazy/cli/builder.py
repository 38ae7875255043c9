"""`lazy builder`: Claude Code in this terminal, captured while it runs; `lazy builder list`."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

import click

from lazy.agents import AGENTS, Agent
from lazy.capture.terminal_session import INTERVAL, Supervisor, Ticker, log_path_for, report
from lazy.cli.common import all_projects_option, json_option, open_store, resolve
from lazy.cli.conversations import list_command, tool_option
from lazy.cli.output import echo
from lazy.config import lazy_home
from lazy.projects import project_of
from lazy.store.queries import NotFound, builder_info

CLAUDE_ARGS = "lazy.claude_args"


class _Launcher(click.Group):
    """`lazy builder [options] [-- <claude args>]`: what follows `--` goes to Claude Code,
    never taken for a subcommand."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            ctx.meta[CLAUDE_ARGS] = args[cut + 1 :]
            args = args[:cut]
        return super().parse_args(ctx, args)


@click.group(cls=_Launcher, invoke_without_command=True)
@click.option(
    "--resume",
    "target",
    metavar="BUILDER_ID|ALIAS",
    help="Resume a conversation: a Builder id or unique prefix, or an alias (`lazy alias`).",
)
@click.option(
    "--capture-interval",
    type=click.FloatRange(min=0.1),
    default=INTERVAL,
    show_default=True,
    help="Seconds between captures while Claude Code runs.",
)
@click.option(
    "--claude",
    "claude_bin",
    envvar="LAZY_CLAUDE",
    metavar="PATH",
    help="The Claude Code executable (default: `claude` on PATH; env LAZY_CLAUDE).",
)
@click.pass_context
def builder(
    ctx: click.Context, target: str | None, capture_interval: float, claude_bin: str | None
) -> None:
    """Start Claude Code in this terminal, its session captured as it is written.

    Everything after `--` is passed to Claude Code. While it runs, this project's sessions
    are captured every 30 seconds (and once more when it exits), so the conversation is in
    the store even with no VS Code and no `lazy daemon`. When a capture failed during the
    session, the reasons are printed once after Claude Code exits, each with its machine
    detail, with the commands to check and recover; every capture is logged under
    $LAZY_HOME/builder/. Lazy's own one-shots are never taken for the session you ran, and
    an alias follows its conversation when Claude Code resumes it under a new session id.
    The exit status is Claude Code's.

    \b
    lazy builder                              # a new conversation
    lazy builder --resume 4f8c2a1b            # resume a stored conversation
    lazy builder --resume reviewer            # ... by its alias
    lazy builder -- --model sonnet            # Claude Code's own options after --
    lazy builder list                         # the same table as `lazy conversations`
    """
    if ctx.invoked_subcommand is not None:
        return
    claude = claude_bin or shutil.which("claude")
    if not claude:
        raise click.ClickException(
            "Claude Code (`claude`) is not on PATH: install it "
            "(npm install -g @anthropic-ai/claude-code) or name it with --claude / LAZY_CLAUDE"
        )
    cwd = os.getcwd()
    session, alias = _resume_target(target, cwd) if target else (None, None)
    home = lazy_home()
    started = time.time()
    sup = Supervisor(home, project_of(cwd), started, log_path_for(home, started))
    argv = [claude, *(["--resume", session] if session else []), *ctx.meta.get(CLAUDE_ARGS, [])]
    with Ticker(sup, capture_interval):
        try:
            proc = subprocess.Popen(argv)
        except OSError as e:
            raise click.ClickException(f"cannot start {claude}: {e}") from e
        # Ctrl-C belongs to Claude Code (it is in the same terminal): lazy waits it out
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            code = proc.wait()
        finally:
            signal.signal(signal.SIGINT, previous)
    sup.tick()  # what was written after the last tick
    said = report(list(sup.failures.values()), sup.log_path)
    if said:
        echo(said, err=True, nl=False)
    if alias is not None:
        _follow(alias, cwd, session, sup.launched_session())
    ctx.exit(code)


def terminal_agent() -> Agent:
    """The agent `lazy builder` runs in a terminal: the first that resumes there."""
    return next(a for a in AGENTS if a.resumes_in_terminal)


def _resume_target(target: str, cwd: str) -> tuple[str, str | None]:
    """The Claude session id to resume, and the alias it came from (None for an id)."""
    from lazy.aliases.registry import default_session_registry
    from lazy.aliases.resolve import AmbiguousAlias, resolve_alias, resume_target

    try:
        hit = resolve_alias(default_session_registry(), cwd, target, agent=terminal_agent().name)
    except ValueError:
        hit = None  # not an alias's name (a uuid prefix starts with a digit): an id
    except AmbiguousAlias as e:  # not with agent given; kept for a clear message anyway
        raise click.ClickException(str(e)) from e
    if hit is not None:
        return hit[1], target
    with open_store() as store:
        bid = resolve(store, target)
        info = builder_info(store.conn, bid)
        runs = terminal_agent()
        if info.tool != runs.name:
            raise click.ClickException(
                f"{info.short_id} is a {info.tool} conversation;"
                f" lazy builder runs {runs.display_name}"
            )
        try:
            return resume_target(store.conn, bid)[1], None
        except NotFound as e:
            raise click.ClickException(f"{info.short_id}: {e}") from e


def _follow(alias: str, cwd: str, before: str | None, after: str | None) -> None:
    """Claude Code may resume under a new session id: the alias follows it."""
    if after is None or after == before:
        return
    from lazy.aliases.registry import default_session_registry

    default_session_registry().bind("claude", cwd, alias, after)
    echo(f"alias {alias!r} now names session {after[:8]}", err=True)


@builder.command("list")
@all_projects_option
@json_option
@click.option("--limit", type=int, default=None, help="Show at most this many.")
@tool_option
def builder_list(
    all_projects: bool, as_json: bool, limit: int | None, tools: tuple[str, ...]
) -> None:
    """The same table as `lazy conversations`."""
    list_command(all_projects, as_json, limit, tools)
