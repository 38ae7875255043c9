"""The `lazy` command line."""

from __future__ import annotations

import importlib
import io
import logging
import sys
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import IO, Any, TextIO, cast

import click

from lazy import __version__
from lazy.view.terminal import TerminalFormatter, for_terminal

# Each command's module is imported when the command runs (or --help lists it): `lazy sidecar`
# starts in the time the extension waits for it, without the CLI's rich and capture imports.
COMMANDS = {
    "import-conversation": "lazy.cli.conversation_import:import_conversation",
    "conversations": "lazy.cli.conversations:conversations",
    "builder": "lazy.cli.builder:builder",
    "show": "lazy.cli.conversations:show",
    "import": "lazy.cli.memory_import:import_group",
    "get": "lazy.cli.memories:get",
    "ls": "lazy.cli.memories:ls",
    "search": "lazy.cli.search:search_command",
    "index": "lazy.cli.search:index_group",
    "init": "lazy.cli.init:init",
    "alias": "lazy.cli.alias:alias",
    "doctor": "lazy.cli.doctor:doctor",
    "capture": "lazy.cli.capture:capture",
    "hooks": "lazy.cli.hooks:hooks_group",
    "daemon": "lazy.cli.daemon:daemon_group",
    "ask": "lazy.cli.ask:ask",
    "tasks": "lazy.cli.tasks:tasks",
    "agent-image": "lazy.cli.agent_image:agent_image_group",
    "config": "lazy.cli.config:config_group",
    "usage": "lazy.cli.usage:usage",
    "mcp": "lazy.cli.mcp:mcp_group",
    "export": "lazy.cli.export:export",
    "team": "lazy.cli.team:team",
}


class _Shown(io.TextIOBase):
    """A text stream that shows the controls of what is written to it."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(for_terminal(text))

    def flush(self) -> None:
        self.stream.flush()


@contextmanager
def _shown_errors() -> Iterator[None]:
    """A usage or command error quotes what it was given (an id, a path, a transcript's
    summary): it is printed here, its controls shown, and the exit is click's as before."""
    try:
        yield
    except click.ClickException as e:
        e.show(file=cast(IO[str], _Shown(sys.stderr)))
        raise click.exceptions.Exit(e.exit_code) from e


class LazyGroup(click.Group):
    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with _shown_errors():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with _shown_errors():
            return super().invoke(ctx)

    def list_commands(self, ctx: click.Context) -> list[str]:
        from lazy.agents import TOOLS

        return sorted({*super().list_commands(ctx), *COMMANDS, *TOOLS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        where = COMMANDS.get(cmd_name)
        if where is None:
            return super().get_command(ctx, cmd_name) or _agent_command(cmd_name)
        module, attr = where.split(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command) and command.name == cmd_name, where
        return command


def _agent_command(name: str) -> click.Command | None:
    """`lazy <agent> ...`, for each registered agent (`lazy claude import`)."""
    from lazy.agents import TOOLS

    if name not in TOOLS:
        return None
    from lazy.cli.memory_import import agent_group

    return agent_group(name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lazy")
def cli() -> None:
    """lazy: durable, searchable memory of your coding-agent conversations.

    The store lives in $LAZY_HOME (default ~/.lazy). Commands act on the project of the
    current directory; --all-projects widens.
    """


@cli.command("sidecar")
def sidecar() -> None:
    """Serve the store to the VS Code extension over stdio (JSON-RPC, LSP framing).

    The extension starts it; it captures the agents' sessions live while it runs. stdout is
    the protocol: logs go to stderr.
    """
    from lazy.server.startup import attrs_code_cache

    with attrs_code_cache():
        from lazy.server.app import main as serve  # pygls is loaded only for the sidecar
    serve()


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    text = warnings.formatwarning(message, category, filename, lineno, line)
    (file or sys.stderr).write(for_terminal(text))


def _show_uncaught(kind: type[BaseException], e: BaseException, tb: TracebackType | None) -> None:
    sys.stderr.write(for_terminal("".join(traceback.format_exception(kind, e, tb))))


def show_stderr_safely() -> None:
    """What Python itself writes on stderr (a traceback, a warning, a log record with no
    handler) quotes the values it was about, so it shows their controls too."""
    last = logging.StreamHandler(sys.stderr)  # as logging's own: WARNING and up, the message
    last.setLevel(logging.WARNING)
    last.setFormatter(TerminalFormatter())
    logging.lastResort = last
    warnings.showwarning = _show_warning
    sys.excepthook = _show_uncaught


def main() -> None:
    show_stderr_safely()
    cli()


if __name__ == "__main__":
    main()
