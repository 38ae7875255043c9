"""`lazy mcp install|uninstall|status`: lazy's server in each agent's own MCP configuration.

One entry named ``lazy`` running ``<this lazy> mcp`` (with ``LAZY_HOME`` when it is set, so
the agent reads the same store):

* Claude Code: ``mcpServers.lazy`` in ``~/.claude.json`` (``$CLAUDE_CONFIG_DIR/.claude.json``;
  user scope), or in the project's ``.mcp.json`` (project scope);
* Codex CLI: ``[mcp_servers.lazy]`` in ``$CODEX_HOME/config.toml`` (default ``~/.codex``), or
  the project's ``.codex/config.toml`` (Codex reads it in trusted projects);
* OpenCode: ``mcp.lazy`` (``type: local``) in ``$XDG_CONFIG_HOME/opencode/opencode.json``
  (default ``~/.config``), or the project's ``opencode.json``.

Everything else in those files is kept: JSON is loaded and written back with its keys in
their order; TOML through tomlkit, comments and layout kept. A file that does not parse is
refused, never overwritten; writes are atomic (the hooks' ``write_atomic``). Installing
twice changes nothing.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import tomlkit
import tomlkit.exceptions

from lazy.agents.claude.hooks import runnable, this_lazy, write_atomic

AGENTS = ("claude", "codex", "opencode")
SCOPES = ("user", "project")
NAME = "lazy"
Action = Literal["added", "replaced", "removed", "kept", "absent"]


class ConfigRefused(Exception):
    """An agent's config file that cannot be used as it is; it is left untouched."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def config_path(agent: str, scope: str, project: Path) -> Path:
    if agent == "claude":
        if scope == "project":
            return project / ".mcp.json"
        base = os.environ.get("CLAUDE_CONFIG_DIR")
        return (Path(base).expanduser() if base else Path.home()) / ".claude.json"
    if agent == "codex":
        if scope == "project":
            return project / ".codex" / "config.toml"
        return (
            Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()
            / "config.toml"
        )
    if agent == "opencode":
        if scope == "project":
            return project / "opencode.json"
        xdg = os.environ.get("XDG_CONFIG_HOME")
        return (Path(xdg) if xdg else Path.home() / ".config") / "opencode" / "opencode.json"
    raise ValueError(f"unknown agent {agent!r}")


def entry(agent: str, lazy: Path, env: dict[str, str]) -> dict[str, Any]:
    """The server as ``agent`` writes one."""
    if agent == "claude":
        return {"type": "stdio", "command": str(lazy), "args": ["mcp"], "env": env}
    if agent == "codex":
        return {"command": str(lazy), "args": ["mcp"], **({"env": env} if env else {})}
    return {
        "type": "local",
        "command": [str(lazy), "mcp"],
        "enabled": True,
        **({"environment": env} if env else {}),
    }


def wanted_env() -> dict[str, str]:
    home = os.environ.get("LAZY_HOME")
    return {"LAZY_HOME": str(Path(home).expanduser().resolve())} if home else {}


def _key(agent: str) -> str:
    return {"claude": "mcpServers", "codex": "mcp_servers", "opencode": "mcp"}[agent]


# ---- reading and writing one file ----------------------------------------------------------


def _load(agent: str, path: Path) -> tuple[Any, str | None]:
    """The document (a dict, or a tomlkit document) and its text (None: no file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return (tomlkit.document() if agent == "codex" else {}), None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigRefused(path, f"cannot be read: {e}") from e
    if agent == "codex":
        try:
            return tomlkit.parse(text), text
        except tomlkit.exceptions.ParseError as e:
            raise ConfigRefused(path, f"not valid TOML ({e}); lazy leaves it as it is") from e
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as e:
        raise ConfigRefused(
            path,
            f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); lazy leaves it as it is",
        ) from e
    if not isinstance(data, dict):
        raise ConfigRefused(path, "not a JSON object")
    return data, text


def _render(agent: str, doc: Any) -> str:
    if agent == "codex":
        return tomlkit.dumps(doc)
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _servers(agent: str, path: Path, doc: Any, create: bool) -> Any:
    key = _key(agent)
    servers = doc.get(key)
    if servers is None and create:
        servers = doc[key] = tomlkit.table(is_super_table=True) if agent == "codex" else {}
    if servers is not None and not isinstance(servers, dict):
        raise ConfigRefused(path, f"{key!r} is not a table of servers")
    return servers


def _plain(value: Any) -> Any:
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if callable(unwrap) else value


@dataclass
class Change:
    agent: str
    scope: str
    path: Path
    before: str | None  # the file's text (None: no file)
    after: str  # what it would hold
    action: Action

    @property
    def changed(self) -> bool:
        return self.action in ("added", "replaced", "removed")


def plan_install(agent: str, scope: str, project: Path, lazy: Path | None = None) -> Change:
    path = config_path(agent, scope, project)
    doc, before = _load(agent, path)
    servers = _servers(agent, path, doc, create=True)
    want = entry(agent, lazy or this_lazy(), wanted_env())
    have = servers.get(NAME)
    if have is not None and _plain(have) == want:
        return Change(agent, scope, path, before, before or "", "kept")
    servers[NAME] = want
    action: Action = "added" if have is None else "replaced"
    return Change(agent, scope, path, before, _render(agent, doc), action)


def plan_uninstall(agent: str, scope: str, project: Path) -> Change:
    path = config_path(agent, scope, project)
    doc, before = _load(agent, path)
    servers = _servers(agent, path, doc, create=False)
    if not servers or NAME not in servers:
        return Change(agent, scope, path, before, before or "", "absent")
    del servers[NAME]
    if not servers:
        del doc[_key(agent)]
    # tomlkit leaves the blank line that came before the removed table
    after = _render(agent, doc).rstrip("\n") + "\n"
    return Change(agent, scope, path, before, after, "removed")


def apply(change: Change) -> None:
    if change.changed:
        write_atomic(change.path, change.after)


@dataclass
class Status:
    agent: str
    scope: str
    path: Path
    installed: bool
    command: str | None  # the command its entry runs
    current: bool  # the entry is the one install would write now
    runs: bool  # its program exists and is executable


def status(agent: str, scope: str, project: Path, lazy: Path | None = None) -> Status:
    path = config_path(agent, scope, project)
    doc, _ = _load(agent, path)
    servers = _servers(agent, path, doc, create=False)
    have = _plain(servers.get(NAME)) if servers else None
    if not isinstance(have, dict):
        return Status(agent, scope, path, False, None, False, False)
    argv = _argv(agent, have)
    want = entry(agent, lazy or this_lazy(), wanted_env())
    return Status(
        agent, scope, path, True, shlex.join(argv) if argv else None, have == want,
        bool(argv) and runnable(argv[0]),
    )  # fmt: skip


def _argv(agent: str, e: dict[str, Any]) -> list[str]:
    if agent == "opencode":
        cmd = e.get("command")
        return [str(x) for x in cmd] if isinstance(cmd, list) else []
    cmd, args = e.get("command"), e.get("args") or []
    return [str(cmd), *map(str, args)] if isinstance(cmd, str) else []
