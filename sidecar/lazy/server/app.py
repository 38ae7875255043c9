"""The sidecar: lazy's store, search index and live capture served to the VS Code
extension over stdio (``lazy sidecar``, pygls 2). stdout is the protocol; logs go to stderr
and, as ``window/logMessage``, to the extension's output channel.

This module is only the composition: the server (``server.sidecar``), LSP's lifecycle, and
each feature of ``server.features.FEATURES`` registering its methods of
``protocol.METHODS``. Requests run in worker threads, each with its own store connection and
index handle; notifications are sent from the event loop's thread.
"""

from __future__ import annotations

import gc
import logging
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from lazy.config import lazy_home
from lazy.server.features import FEATURES, capture
from lazy.server.sidecar import VERSION, Sidecar


def create_server(home: Path | None = None) -> Sidecar:
    ls = Sidecar(home or lazy_home())

    @ls.feature(lsp.INITIALIZE)
    def initialize(ls: Sidecar, params: lsp.InitializeParams) -> None:
        ls.configure(params)

    @ls.feature(lsp.INITIALIZED)
    def initialized(ls: Sidecar, _: lsp.InitializedParams) -> None:
        if ls.live_capture:
            capture.start(ls)
        ls.window_log_message(
            lsp.LogMessageParams(lsp.MessageType.Info, f"lazy sidecar {VERSION}: store {ls.home}")
        )

    @ls.feature(lsp.SHUTDOWN)
    def shutdown(ls: Sidecar, _: Any) -> None:
        capture.stop(ls)

    for register in FEATURES:
        register(ls)
    return ls


def main() -> None:
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    # pygls logs every message it sends at INFO: a 200-message page twice over, once on
    # stderr, would cost time and fill the extension's output channel
    logging.getLogger("pygls").setLevel(logging.WARNING)
    ls = create_server()
    # what start-up made (modules, the server) is kept out of the collector's sight, and it
    # runs less often: a page of 200 messages makes tens of thousands of short-lived objects,
    # and the full collections they set off walked everything else too (in-process, a
    # 50,000-message Builder's pages: p99 38 ms, 16 ms with both; bench/transcript.py)
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    ls.start_io()
