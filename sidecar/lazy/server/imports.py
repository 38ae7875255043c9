"""import/preview and import/run: the agents' sessions brought in as conversations, as
``lazy import-conversation`` does, with ``$/progress`` and cancellation between sessions."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from lazy.capture.bulk_import import Plan, plan, run_import
from lazy.capture.discovery import discover_tool
from lazy.model import ImportReport
from lazy.server.app import Sidecar
from lazy.server.protocol import BuildersDidChange, ImportParams, ImportResult
from lazy.server.rpc import as_rpc_error, params_of, request
from lazy.store.db import StoreError

PER_STEP = 20  # sessions imported between two looks at a cancellation


def _plans(ls: Sidecar, p: ImportParams) -> dict[str, Plan]:
    # a workspace of several folders imports each folder's sessions; all_projects, everyone's
    projects: list[str | None] = [None] if p.all_projects else list(p.workspace_folders)
    store = ls.store()
    out: dict[str, Plan] = {}
    for tool in p.tools:
        for project in projects:
            d = discover_tool(tool, list(ls.extra_roots.get(tool, [])), project)
            planned = plan(store, d)
            if tool in out:  # several folders: one plan per agent, their sessions together
                out[tool].discovery.sessions.update(d.sessions)
                out[tool].missing += planned.missing
                out[tool].imported += planned.imported
                out[tool].behind += planned.behind
            else:
                out[tool] = planned
    return out


def _preview(plans: dict[str, Plan]) -> ImportResult:
    reports = {}
    for tool, pl in plans.items():
        reports[tool] = ImportReport(
            found=pl.found,
            missing=len(pl.missing),
            already_imported=len(pl.imported),
            ignored_oneshots=len(pl.discovery.oneshots),
            dry_run=True,
        )
    return ImportResult(dry_run=True, reports=reports)


def register(ls: Sidecar) -> None:
    @request(ls, "import/preview")
    def import_preview(ls: Sidecar, p: ImportParams) -> ImportResult:
        return _preview(_plans(ls, p))

    # async: pygls cancels this coroutine on $/cancelRequest; the import itself runs in a
    # thread that looks at ``stop`` between steps of PER_STEP sessions
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
    plans = _plans(ls, p)
    store = ls.store()
    todo = [(tool, sid) for tool, pl in plans.items() for sid in pl.missing + pl.behind]
    reports = {
        tool: ImportReport(found=pl.found, already_imported=len(pl.imported))
        for tool, pl in plans.items()
    }
    done = 0
    changed: set[str] = set()
    cancelled = False
    report(0, len(todo))
    for tool, pl in plans.items():
        ids = [sid for t, sid in todo if t == tool]
        for i in range(0, len(ids), PER_STEP):
            if stop.is_set():
                cancelled = True
                break
            step = ids[i : i + PER_STEP]
            run_import(store, pl.discovery, step, report=reports[tool])
            done += len(step)
            report(done, len(todo))
            changed |= _builders_of(store.conn, step)
    for report in reports.values():
        # each step's run_import re-reports the sources that could not be listed: once each
        unique = {(q.file, q.line, q.reason): q for q in report.quarantined}
        report.quarantined = list(unique.values())
    ls.index_caught_up()
    if changed:
        ls.notify(
            "builders/didChange", BuildersDidChange(builder_ids=sorted(changed), reason="imported")
        )
    return ImportResult(dry_run=False, cancelled=cancelled, reports=reports)


def _builders_of(conn: Any, session_ids: list[str]) -> set[str]:
    if not session_ids:
        return set()
    marks = ",".join("?" * len(session_ids))
    rows = conn.execute(
        f"SELECT DISTINCT builder_id FROM sessions WHERE id IN ({marks}) AND builder_id IS NOT NULL",
        session_ids,
    )
    return {r[0] for r in rows}
