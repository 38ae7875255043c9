"""`lazy sidecar` started as VS Code starts it, spoken to by pytest-lsp's client with VS Code's
capabilities; results read back as plain JSON-like data."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from support.search import env_for, run_lazy

TIMEOUT = 30  # seconds for anything the sidecar is waited on for


def plain(value: Any) -> Any:
    """A result as JSON-like data (pygls hands custom results over as namedtuples)."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


async def start_sidecar(env: dict[str, str], folder: Path, **options: Any) -> LanguageClient:
    """A sidecar initialized with ``folder`` as the workspace and ``options`` as its
    initialization options."""
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "lazy.cli.main", "sidecar"], server_env=env
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    await client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            initialization_options=options,
            workspace_folders=[lsp.WorkspaceFolder(uri=folder.as_uri(), name=folder.name)],
        )
    )
    return client


async def call(
    client: LanguageClient, method: str, params: dict[str, Any], timeout: float = TIMEOUT
) -> Any:
    result = await asyncio.wait_for(client.protocol.send_request_async(method, params), timeout)
    return plain(result)


class World:
    """A user's home whose ~/.claude/projects the test writes sessions into, a LAZY_HOME they
    are imported into, and a repo the sidecar opens as its workspace."""

    def __init__(self, base: Path) -> None:
        self.lazy_home = base / "lazy"
        self.user_home = base / "home"
        self.repo = base / "work" / "repo"
        self.repo.mkdir(parents=True)
        self.projects = self.user_home / ".claude" / "projects"

    def import_all(self) -> None:
        run_lazy(self.lazy_home, self.user_home, "import-conversation", "--all-projects", "--yes")

    async def sidecar(self, **env: str) -> LanguageClient:
        """A sidecar on this store, live capture off, ``env`` added to its environment."""
        return await start_sidecar(
            env_for(self.lazy_home, self.user_home, **env), self.repo, live_capture=False
        )
