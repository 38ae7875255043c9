"""The `lazy` command line."""

from __future__ import annotations

import click

from lazy import __version__
from lazy.cli.agent_import import import_group, tool_groups
from lazy.cli.conversations import builder, conversations, show
from lazy.cli.importing import import_conversation
from lazy.cli.memories import get, ls
from lazy.cli.search import index_group, search_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lazy")
def cli() -> None:
    """lazy: durable, searchable memory of your coding-agent conversations.

    The store lives in $LAZY_HOME (default ~/.lazy). Commands act on the project of the
    current directory; --all-projects widens.
    """


cli.add_command(import_conversation)
cli.add_command(conversations)
cli.add_command(builder)
cli.add_command(show)
cli.add_command(import_group)
for _group in tool_groups:
    cli.add_command(_group)
cli.add_command(get)
cli.add_command(ls)
cli.add_command(search_command)
cli.add_command(index_group)


@cli.command("sidecar")
def sidecar() -> None:
    """Serve the store to the VS Code extension over stdio (JSON-RPC, LSP framing).

    The extension starts it; it captures the agents' sessions live while it runs. stdout is
    the protocol: logs go to stderr.
    """
    from lazy.server.app import main as serve  # pygls is loaded only for the sidecar

    serve()


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
