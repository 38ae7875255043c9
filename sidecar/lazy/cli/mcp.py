"""`lazy mcp`: the MCP server agents call (stdio), and its registration in each agent."""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.table import Table
from rich.text import Text

from lazy.cli.common import F, emit_json, json_option, out, shown

if TYPE_CHECKING:
    from lazy.mcp.install import Change


@click.group("mcp", invoke_without_command=True)
@click.pass_context
def mcp_group(ctx: click.Context) -> None:
    """Serve lazy's history to coding agents over MCP (stdio), read-only.

    With no subcommand, serves on stdin/stdout: the agent starts it (see `lazy mcp install`).
    stdout is the protocol; logs go to stderr. Tools: lazy_conversation_search (the query
    language of `lazy search`), lazy_conversation_list (as `lazy conversations`),
    lazy_conversation_read (as `lazy show`, paged under a token budget) and
    lazy_conversation_ask (as `lazy ask`). Scoped to the project of the directory the agent
    starts it in; every tool takes all_projects=true.

    \b
    lazy mcp                         # serve (what the agents run)
    lazy mcp install                 # register it in Claude Code, Codex and OpenCode
    lazy mcp status                  # where it is registered
    """
    if ctx.invoked_subcommand is None:
        from lazy.mcp.server import serve

        serve()


# ---- registration in each agent ---------------------------------------------------------------


def _agents(agent: str) -> tuple[str, ...]:
    from lazy.mcp.install import AGENTS

    return AGENTS if agent == "all" else (agent,)


def _project() -> Path:
    from lazy.projects import project_of

    return Path(project_of(os.getcwd()))


def _options(f: F) -> F:
    f = click.option(
        "--scope",
        type=click.Choice(["user", "project"]),
        default="user",
        show_default=True,
        help="user: the agent's own config in your home; project: the project's config file"
        " (shared through the repository).",
    )(f)
    return click.option(
        "--agent",
        type=click.Choice(["claude", "codex", "opencode", "all"]),
        default="all",
        show_default=True,
        help="Which agent's configuration.",
    )(f)


def _diff(c: Change) -> str:
    name = str(c.path)
    return "".join(
        difflib.unified_diff(
            (c.before or "").splitlines(keepends=True),
            c.after.splitlines(keepends=True),
            fromfile=name if c.before is not None else "/dev/null",
            tofile=name,
        )
    )


_SAID = {
    "added": "added lazy's MCP server to",
    "replaced": "updated lazy's MCP server in",
    "removed": "removed lazy's MCP server from",
    "kept": "already installed in",
    "absent": "no lazy MCP server in",
}


def _run(plans: list[Callable[[], Change]], dry_run: bool, as_json: bool) -> None:
    from lazy.mcp.install import ConfigRefused, apply

    changes: list[Change] = []
    for plan in plans:
        try:
            c = plan()
            if not dry_run:
                apply(c)
        except ConfigRefused as e:
            raise click.ClickException(f"{e.path}: {e.reason}") from e
        except OSError as e:
            raise click.ClickException(f"{e.filename or ''}: could not be written: {e}") from e
        changes.append(c)
    if as_json:
        emit_json(
            {
                "dry_run": dry_run,
                "changes": [
                    {"agent": c.agent, "scope": c.scope, "config": str(c.path), "action": c.action}
                    for c in changes
                ],
            }
        )
        return
    for c in changes:
        if dry_run and c.changed:
            diff = shown(_diff(c))
            diff.no_wrap = True
            out.print(diff, end="")
            out.print(shown(f"(dry run: {c.path} not written)", style="dim"))
            continue
        out.print(shown(f"{c.agent}: {_SAID[c.action]} {c.path}"))


@mcp_group.command("install")
@_options
@click.option("--dry-run", is_flag=True, help="Show the change to each file; write nothing.")
@json_option
def install(agent: str, scope: str, dry_run: bool, as_json: bool) -> None:
    """Register `lazy mcp` in each agent's own MCP configuration (idempotent).

    One server named `lazy` running `<this lazy> mcp` (with LAZY_HOME when it is set), in
    Claude Code's ~/.claude.json (project: .mcp.json), Codex's $CODEX_HOME/config.toml
    (project: .codex/config.toml) and OpenCode's ~/.config/opencode/opencode.json (project:
    opencode.json). Everything else in those files is kept; a file that does not parse is
    refused and left as it is; writes are atomic. Installing again changes nothing.

    \b
    lazy mcp install                       # every agent, your user configuration
    lazy mcp install --agent codex --dry-run
    lazy mcp install --scope project       # this project's files
    """
    from lazy.mcp.install import plan_install

    project = _project()
    _run([partial(plan_install, a, scope, project) for a in _agents(agent)], dry_run, as_json)


@mcp_group.command("uninstall")
@_options
@click.option("--dry-run", is_flag=True, help="Show the change to each file; write nothing.")
@json_option
def uninstall(agent: str, scope: str, dry_run: bool, as_json: bool) -> None:
    """Remove lazy's MCP server from each agent's configuration; nothing else is touched."""
    from lazy.mcp.install import plan_uninstall

    project = _project()
    _run([partial(plan_uninstall, a, scope, project) for a in _agents(agent)], dry_run, as_json)


@mcp_group.command("status")
@click.option(
    "--agent",
    type=click.Choice(["claude", "codex", "opencode", "all"]),
    default="all",
    show_default=True,
    help="Which agent's configuration.",
)
@json_option
def status(agent: str, as_json: bool) -> None:
    """Where lazy's MCP server is registered (user and project scope), the command each
    entry runs, and whether that command still exists."""
    from lazy.mcp.install import SCOPES, ConfigRefused
    from lazy.mcp.install import status as status_of

    project = _project()
    try:
        found = [status_of(a, s, project) for a in _agents(agent) for s in SCOPES]
    except ConfigRefused as e:
        raise click.ClickException(f"{e.path}: {e.reason}") from e
    if as_json:
        emit_json(
            {
                "servers": [
                    {
                        "agent": s.agent, "scope": s.scope, "config": str(s.path),
                        "installed": s.installed, "command": s.command, "current": s.current,
                        "command_exists": s.runs,
                    }
                    for s in found
                ]
            }
        )  # fmt: skip
        return
    t = Table(box=None)
    for col in ("agent", "scope", "lazy server", "command", "config"):
        t.add_column(col, style="bold" if col == "agent" else "")
    for s in found:
        if not s.installed:
            mark = Text("missing", style="dim")
        elif not s.runs:
            mark = Text("broken: command gone", style="red")
        else:
            mark = shown("installed" if s.current else "installed (other lazy)", style="green")
        t.add_row(s.agent, s.scope, mark, shown(s.command or ""), shown(str(s.path)))
    out.print(t)
    if not any(s.installed and s.runs for s in found):
        out.print("Run `lazy mcp install` so your agents can search and read their history.")
