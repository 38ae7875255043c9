"""The sidecar's server object: a pygls ``LanguageServer`` that holds the store's home, a
store connection and an index handle per thread, live capture, and the ways back to the
client (notifications, ``$/progress``, log messages). Every feature module is typed against
it; none of them imports the composition root (``server.app``)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pydantic import BaseModel
from pygls.lsp.server import LanguageServer

from lazy.capture.live import LiveCapture, PerThread
from lazy.index.indexer import SearchIndex
from lazy.server.protocol import InitializationOptions
from lazy.server.rpc import BY_NAME, Wire, converter, params_of
from lazy.store import Store
from lazy.team.sync import SweepPusher

VERSION = "0.1.0"
STORE_CACHE_MIB = 16


class Sidecar(LanguageServer):
    def __init__(self, home: Path) -> None:
        super().__init__("lazy", VERSION, protocol_cls=Wire, converter_factory=converter)
        self.home = home
        self.extra_roots: dict[str, list[Path]] = {}
        self.live_capture = True
        self.capture: LiveCapture | None = None
        self.team_pusher: SweepPusher | None = None
        self.event_loop: asyncio.AbstractEventLoop | None = None
        # one connection per thread for as long as the sidecar runs: a smaller page cache
        # each than a one-off CLI import's (the OS caches the file anyway)
        self._per_thread = PerThread(home, STORE_CACHE_MIB)

    def configure(self, params: lsp.InitializeParams) -> None:
        """Take the extension's initializationOptions; from now on the client can be told."""
        self.event_loop = asyncio.get_running_loop()
        opts = params_of(
            "initialize (initializationOptions)",
            InitializationOptions,
            _options(params.initialization_options),
        )
        self.live_capture = opts.live_capture
        self.extra_roots = {
            agent: [Path(p) for p in paths] for agent, paths in opts.extra_roots.items()
        }
        logging.getLogger("lazy").addHandler(_ToClient(self))

    def store(self) -> Store:
        """This thread's connection to the store."""
        return self._per_thread.store()

    def index(self) -> SearchIndex:
        """This thread's handle on the index, caught up with the store."""
        return self._per_thread.index()

    def index_caught_up(self) -> None:
        """Index what was just captured; another process holding the writer does it."""
        self.index()

    def client_supports_progress(self) -> bool:
        caps = self.client_capabilities
        return bool(caps and caps.window and caps.window.work_done_progress)

    async def start_progress(self, title: str) -> ServerProgress:
        """A cancellable ``$/progress`` the sidecar starts (the client shows it, if it can)."""
        p = ServerProgress(self, asyncio.get_running_loop())
        if p.shown:
            await self.work_done_progress.create_async(p.token)
            self.work_done_progress.begin(
                p.token, lsp.WorkDoneProgressBegin(title=title, cancellable=True)
            )
        return p

    def notify(self, name: str, payload: BaseModel) -> None:
        """A notification of the protocol, from any thread."""
        assert BY_NAME[name].kind == "notification", name
        data = payload.model_dump(mode="json")
        if self.event_loop is None:
            return  # not initialized: no client to tell
        self.event_loop.call_soon_threadsafe(self.protocol.notify, name, data)


class ServerProgress:
    """One server-created ``$/progress``: reported from any thread, ended on the loop's."""

    def __init__(self, ls: Sidecar, loop: asyncio.AbstractEventLoop) -> None:
        self.ls = ls
        self.loop = loop
        self.token = str(uuid.uuid4())
        self.shown = ls.client_supports_progress()

    def report(self, done: int, total: int, what: str) -> None:
        """``done of total what``, from a worker thread."""
        if self.shown and total:
            report = lsp.WorkDoneProgressReport(
                message=f"{done} of {total} {what}", percentage=int(100 * done / total)
            )
            self.loop.call_soon_threadsafe(self.ls.work_done_progress.report, self.token, report)

    def end(self) -> None:
        if self.shown:
            self.ls.work_done_progress.end(self.token, lsp.WorkDoneProgressEnd(message="done"))


class _ToClient(logging.Handler):
    """lazy's warnings and errors also go to the extension's output channel
    (``window/logMessage``); stderr keeps everything."""

    def __init__(self, ls: Sidecar) -> None:
        super().__init__(logging.WARNING)
        self.ls = ls

    def emit(self, record: logging.LogRecord) -> None:
        loop = self.ls.event_loop
        if loop is None or loop.is_closed():
            return
        kind = lsp.MessageType.Warning if record.levelno < logging.ERROR else lsp.MessageType.Error
        params = lsp.LogMessageParams(kind, self.format(record))
        loop.call_soon_threadsafe(self.ls.window_log_message, params)


def _options(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    return dict(raw._asdict()) if hasattr(raw, "_asdict") else {}
