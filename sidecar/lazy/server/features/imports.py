"""import/preview and import/run: the agents' sessions brought in as conversations, as
``lazy import-conversation`` does, with ``$/progress`` and cancellation between sessions."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from lazy.capture.bulk_import import Plan
from lazy.capture.folder_import import import_in_steps, plans, preview
from lazy.server.protocol import BuildersDidChange, ImportParams, ImportResult
from lazy.server.rpc import as_rpc_error, params_of, request
from lazy.server.sidecar import Sidecar
from lazy.store.db import StoreError


def _plans(ls: Sidecar, p: ImportParams) -> dict[str, Plan]:
    folders = None if p.all_projects else p.workspace_folders
    return plans(ls.store(), list(p.tools), folders, ls.extra_roots)


def register(ls: Sidecar) -> None:
    @request(ls, "import/preview")
    def import_preview(ls: Sidecar, p: ImportParams) -> ImportResult:
        return ImportResult(dry_run=True, reports=preview(_plans(ls, p)))

    # async: pygls cancels this coroutine on $/cancelRequest; the import itself runs in a
    # thread that looks at ``stop`` between steps of sessions
    @ls.feature("import/run")
    async def import_run(ls: Sidecar, raw: Any) -> Any:
        p = params_of("import/run", ImportParams, raw)
        stop = threading.Event()
        progress = await ls.start_progress("Importing conversations")

        def report(done: int, total: int) -> None:
            progress.report(done, total, "session(s)")

        work = asyncio.ensure_future(asyncio.to_thread(_run, ls, p, stop, report))
        try:
            try:
                result = await asyncio.shield(work)
            except asyncio.CancelledError:
                # the thread finishes its step and stops; the client still gets what was
                # imported until then, marked cancelled
                stop.set()
                result = await work
        except StoreError as e:
            raise as_rpc_error(e) from None
        finally:
            progress.end()
        return result.model_dump(mode="json")


def _run(ls: Sidecar, p: ImportParams, stop: threading.Event, report: Any) -> ImportResult:
    done = import_in_steps(ls.store(), _plans(ls, p), stop=stop.is_set, report=report)
    ls.index_caught_up()
    if done.changed:
        ls.notify(
            "builders/didChange",
            BuildersDidChange(builder_ids=sorted(done.changed), reason="imported"),
        )
    return ImportResult(dry_run=False, cancelled=done.cancelled, reports=done.reports)
