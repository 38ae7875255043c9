"""Live capture while the editor is open: the agents' source roots watched, what grows
captured within a second or two, a full sweep every ``SWEEP`` seconds as the safety net,
and the extension told what changed (``builders/didChange``) or failed (``capture/didFail``).

A changed file the store already knows is captured incrementally, on its own; anything new
(and OpenCode's database, which is not one file per session) goes through the same
discovery an import uses, so lazy's one-shots stay out. Two sidecars on one store cooperate
through the store: capture is idempotent and every write is its own transaction. What the
extension is told comes from the store, not from this sidecar's own captures: the store's
files are watched too, and every change, whoever wrote it (the other window, an import, a
hook), is told as the Builders of the messages added since the last telling.
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime
from pathlib import Path

import watchfiles

from lazy.capture.discovery import discover_tool, roots_of
from lazy.capture.importer import plan, run_import
from lazy.capture.pipeline import capture_file
from lazy.server.app import Sidecar
from lazy.server.protocol import (
    TOOLS,
    BuildersDidChange,
    CaptureFailure,
    CaptureStatusResult,
    NoParams,
)
from lazy.server.rpc import request

log = logging.getLogger("lazy.server.capture")

SWEEP = 30.0  # seconds between full sweeps
DEBOUNCE = 0.25  # seconds: changes this close together are one notification
_SESSION_FILES = (".jsonl", ".jsonl.zst", ".jsonl.gz")


def _now() -> str:
    return datetime.now(UTC).isoformat()


class LiveCapture:
    def __init__(self, ls: Sidecar) -> None:
        self.ls = ls
        self.roots: dict[str, list[Path]] = {}
        self.last_sweep_at: str | None = None
        self.captured = 0
        self.last_failure: CaptureFailure | None = None
        self._stop = threading.Event()
        self._kick = threading.Event()  # a sweep is wanted now
        self._pending: set[str] = set()
        self._told = 0
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    @property
    def live(self) -> bool:
        return any(t.is_alive() for t in self._threads) and not self._stop.is_set()

    def start(self) -> None:
        row = self.ls.store().conn.execute("SELECT COALESCE(MAX(id), 0) FROM messages").fetchone()
        self._told = int(row[0])  # messages up to this id are known to the extension
        for tool in TOOLS:  # the roots only: the first sweep, in its thread, lists the files
            self.roots[tool] = roots_of(tool, self.ls.extra_roots.get(tool))
        for target, name in ((self._sweeper, "lazy-sweep"), (self._watcher, "lazy-watch")):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self) -> None:
        self._stop.set()
        self._kick.set()

    # -- the two loops ---------------------------------------------------------------------

    def _sweeper(self) -> None:
        while not self._stop.is_set():
            self._kick.clear()
            try:
                self.sweep()
            except Exception as e:  # a sweep never takes the sidecar down
                self._failed("", None, "the sweep failed", "sweep-error", repr(e))
            self._kick.wait(SWEEP)

    def _watcher(self) -> None:
        watched = [r for roots in self.roots.values() for r in roots if r.is_dir()]
        watched.append(self.ls.home)  # the store: changes by anyone
        watching = False
        try:
            for changes in watchfiles.watch(
                *watched,
                watch_filter=None,
                stop_event=self._stop,
                debounce=100,
                step=50,
                rust_timeout=1000,
                yield_on_timeout=True,  # the first yield says the watch is in place
                raise_interrupt=False,
            ):
                if not watching:
                    # what was written before the watch was in place, after the first sweep
                    # looked, is found by one more sweep now
                    watching = True
                    self._kick.set()
                if changes:
                    self._changed({Path(p) for _, p in changes})
        except Exception as e:
            self._failed("", None, "the file watcher stopped", "watch-error", repr(e))

    # -- work ------------------------------------------------------------------------------

    def _tool_of(self, path: Path) -> str | None:
        for tool, roots in self.roots.items():
            if any(path.is_relative_to(r) for r in roots):
                return tool
        return None

    def _changed(self, paths: set[Path]) -> None:
        store = self.ls.store()
        sweep = False
        sessions: set[str] = set()
        stored = any(p.parent == self.ls.home and p.name.startswith("store.db") for p in paths)
        for path in sorted(paths):
            tool = self._tool_of(path)
            if tool is None:
                continue
            if tool == "opencode" or not path.name.endswith(_SESSION_FILES):
                sweep = sweep or tool == "opencode"
                continue
            known = store.conn.execute(
                "SELECT 1 FROM source_files WHERE path=?", (str(path),)
            ).fetchone()
            if not known:
                sweep = True  # new: discovery decides (lazy's own one-shots stay out)
                continue
            r = capture_file(store, path, tool=tool)
            if r.status == "error":
                self._failed(str(path), None, r.reason or "capture failed", r.code or "error", "")
            for q in r.quarantined:
                self._failed(q.origin or str(path), q.line_no, q.reason, "bad-line", "")
            if r.messages_added or r.messages_updated:
                sessions |= r.sessions or {r.session_id}
        if sessions or stored:
            self._captured(sessions)
        if sweep:
            self._kick.set()

    def sweep(self) -> None:
        store = self.ls.store()
        sessions: set[str] = set()
        for tool in TOOLS:
            d = discover_tool(tool, list(self.ls.extra_roots.get(tool, [])), None)
            self.roots[tool] = d.roots
            p = plan(store, d)
            todo = p.missing + p.behind
            if todo:
                report = run_import(store, d, todo)
                for q in report.quarantined:
                    self._failed(q.file, q.line, q.reason, "bad-line", "")
                for s in report.refused:
                    self._failed(s.path or "", None, s.reason, "refused", "")
                sessions |= set(todo)
        self.last_sweep_at = _now()
        self._captured(sessions)

    def _captured(self, sessions: set[str]) -> None:
        """Index what was captured here, and queue the Builders of every message added to
        the store since the last telling (here or by anyone else) for one notification."""
        conn = self.ls.store().conn
        # "+builder_id": by the id range, not by walking the whole builder_id index (at a
        # million messages that scan took half a second and filled the page cache)
        rows = conn.execute(
            "SELECT builder_id, MAX(id) FROM messages WHERE id > ? AND +builder_id IS NOT NULL"
            " GROUP BY +builder_id",
            (self._told,),
        ).fetchall()
        grown: set[str] = set()
        if sessions:  # captured here: grown messages count too, not only new ones
            marks = ",".join("?" * len(sessions))
            grown = {
                r[0]
                for r in conn.execute(
                    f"SELECT DISTINCT builder_id FROM sessions WHERE id IN ({marks})"
                    " AND builder_id IS NOT NULL",
                    sorted(sessions),
                )
            }
            self.ls.index_caught_up()
        with self._lock:
            self.captured += len(sessions)
            self._told = max([self._told, *(r[1] for r in rows)])
            self._pending |= {r[0] for r in rows} | grown
            if not self._pending:
                return
            if self._timer is None:
                self._timer = threading.Timer(DEBOUNCE, self._flush)
                self._timer.daemon = True
                self._timer.start()

    def _flush(self) -> None:
        with self._lock:
            changed, self._pending, self._timer = sorted(self._pending), set(), None
        if changed:
            self.ls.notify(
                "builders/didChange", BuildersDidChange(builder_ids=changed, reason="captured")
            )

    def _failed(self, file: str, line: int | None, reason: str, code: str, detail: str) -> None:
        failure = CaptureFailure(
            file=file, line=line, reason=reason, code=code, detail=detail, at=_now()
        )
        self.last_failure = failure
        log.warning("capture failed: %s %s: %s %s", file, line or "", reason, detail)
        self.ls.notify("capture/didFail", failure)

    def status(self) -> CaptureStatusResult:
        return CaptureStatusResult(
            live=self.live,
            roots=[str(r) for roots in self.roots.values() for r in roots],
            last_sweep_at=self.last_sweep_at,
            captured=self.captured,
            last_failure=self.last_failure,
        )


def register(ls: Sidecar) -> None:
    @request(ls, "capture/status")
    def capture_status(ls: Sidecar, _: NoParams) -> CaptureStatusResult:
        if ls.capture is None:
            return CaptureStatusResult(live=False, roots=[], last_sweep_at=None, captured=0)
        return ls.capture.status()
