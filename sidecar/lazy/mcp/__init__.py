"""`lazy mcp`: the store served to coding agents over MCP (stdio), read-only.

``server`` builds the FastMCP server and its four tools; ``service`` is what each tool does,
over the same functions the CLI and the sidecar call; ``pages`` renders messages and cuts a
read under a token budget; ``results`` holds the tools' structured outputs; ``install``
writes each agent's MCP configuration.
"""
