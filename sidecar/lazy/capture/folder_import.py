"""An import of the agents' sessions for a set of folders (a workspace), in steps: what it
would find (nothing written), and the import itself, which looks between steps of
``PER_STEP`` sessions whether it should stop. The sidecar's import/preview and import/run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from lazy.capture.bulk_import import Plan, plan, run_import
from lazy.capture.discovery import discover_tool
from lazy.model import ImportReport
from lazy.store import Store
from lazy.store.queries import builders_of_sessions

PER_STEP = 20  # sessions imported between two looks at a cancellation


@dataclass
class Imported:
    reports: dict[str, ImportReport]  # per agent
    changed: set[str]  # the Builders the import wrote to
    cancelled: bool  # stopped between two steps


def plans(
    store: Store,
    agents: list[str],
    folders: list[str] | None,
    extra_roots: Mapping[str, list[Path]],
) -> dict[str, Plan]:
    """Per agent, what an import of the sessions of ``folders`` (None: every project) would
    do; a workspace of several folders imports each folder's sessions, in one plan."""
    projects: list[str | None] = [None] if folders is None else list(folders)
    out: dict[str, Plan] = {}
    for agent in agents:
        for project in projects:
            d = discover_tool(agent, list(extra_roots.get(agent, [])), project)
            planned = plan(store, d)
            if agent in out:  # several folders: one plan per agent, their sessions together
                out[agent].discovery.sessions.update(d.sessions)
                out[agent].missing += planned.missing
                out[agent].imported += planned.imported
                out[agent].behind += planned.behind
            else:
                out[agent] = planned
    return out


def preview(planned: dict[str, Plan]) -> dict[str, ImportReport]:
    """What the plans found, per agent; nothing written."""
    return {
        agent: ImportReport(
            found=pl.found,
            missing=len(pl.missing),
            already_imported=len(pl.imported),
            ignored_oneshots=len(pl.discovery.oneshots),
            dry_run=True,
        )
        for agent, pl in planned.items()
    }


def import_in_steps(
    store: Store,
    planned: dict[str, Plan],
    *,
    stop: Callable[[], bool],
    report: Callable[[int, int], None],
) -> Imported:
    """Import what the plans miss or have behind, ``PER_STEP`` sessions at a time; before
    each step, ``stop()`` may end it; after each, ``report(done, total)``."""
    todo = [(agent, sid) for agent, pl in planned.items() for sid in pl.missing + pl.behind]
    reports = {
        agent: ImportReport(found=pl.found, already_imported=len(pl.imported))
        for agent, pl in planned.items()
    }
    done = 0
    changed: set[str] = set()
    cancelled = False
    report(0, len(todo))
    for agent, pl in planned.items():
        ids = [sid for a, sid in todo if a == agent]
        for i in range(0, len(ids), PER_STEP):
            if stop():
                cancelled = True
                break
            step = ids[i : i + PER_STEP]
            run_import(store, pl.discovery, step, report=reports[agent])
            done += len(step)
            report(done, len(todo))
            changed |= builders_of_sessions(store.conn, step)
    for r in reports.values():
        # each step's run_import re-reports the sources that could not be listed: once each
        unique = {(q.file, q.line, q.reason): q for q in r.quarantined}
        r.quarantined = list(unique.values())
    return Imported(reports, changed, cancelled)
