"""The `lazy` command line."""

from __future__ import annotations

import importlib

import click

from lazy import __version__

# Each command's module is imported when the command runs (or --help lists it): `lazy sidecar`
# starts in the time the extension waits for it, without the CLI's rich and capture imports.
COMMANDS = {
    "import-conversation": "lazy.cli.importing:import_conversation",
    "conversations": "lazy.cli.conversations:conversations",
    "builder": "lazy.cli.builder:builder",
    "show": "lazy.cli.conversations:show",
    "import": "lazy.cli.agent_import:import_group",
    "claude": "lazy.cli.agent_import:claude_group",
    "codex": "lazy.cli.agent_import:codex_group",
    "opencode": "lazy.cli.agent_import:opencode_group",
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
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        where = COMMANDS.get(cmd_name)
        if where is None:
            return super().get_command(ctx, cmd_name)
        module, attr = where.split(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command) and command.name == cmd_name, where
        return command


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


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
