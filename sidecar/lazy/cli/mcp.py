"""`lazy mcp`: the MCP server agents call (stdio), and its registration in each agent."""

from __future__ import annotations

import click


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
    """
    if ctx.invoked_subcommand is None:
        from lazy.mcp.server import serve

        serve()
