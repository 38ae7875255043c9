"""Live capture, shared by the sidecar (while VS Code is open) and the daemon (headless): the
agents' source roots watched, what grows captured within a second or two, a full sweep every
``SWEEP`` seconds as the safety net, and whoever runs it told what changed or failed.

A changed file the store already knows is captured incrementally, on its own; anything new
(and OpenCode's database, which is not one file per session) goes through the same
discovery an import uses, so lazy's one-shots stay out. Several processes on one store
cooperate through the store: capture is idempotent and every write is its own transaction.
When told which Builders changed (``on_change``), that comes from the store, not from this
process's own captures: the store's files are watched too, and every change, whoever wrote
it (another window, the daemon, an import, a hook), is told as the Builders of the messages
added since the last telling.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import watchfiles

from lazy.agents import TOOLS, agent
from lazy.capture.bulk_import import plan, run_import
from lazy.capture.discovery import discover_tool, roots_of
from lazy.capture.reread import reread
from lazy.capture.source_file import capture_file
from lazy.index.indexer import SearchIndex
from lazy.store import Store, StoreError, source_files
from lazy.store.messages import builders_grown_since, last_id
from lazy.store.sessions import builders_of

log = logging.getLogger("lazy.capture.live")

SWEEP = 30.0  # seconds between full sweeps
DEBOUNCE = 0.25  # seconds: changes this close together are one telling
_SESSION_FILES = (".jsonl", ".jsonl.zst", ".jsonl.gz")


def now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass(frozen=True)
class Failure:
    """One capture failure, with its machine detail."""

    file: str
    line: int | None
    reason: str
    code: str  # a stable machine code: "read-error", "bad-line", "refused", "sweep-error", ...
    detail: str  # the underlying error
    at: str


@dataclass
class Sweep:
    """What one full sweep did."""

    at: str  # when it ended
    seconds: float
    imported: list[str] = field(default_factory=list)  # sessions new to the store
    updated: list[str] = field(default_factory=list)  # sessions that grew
    failures: list[Failure] = field(default_factory=list)
    error: Failure | None = None  # the sweep itself failed (it is tried again next time)

    @property
    def captured(self) -> int:
        return len(self.imported) + len(self.updated)


class PerThread:
    """A store connection and a search index handle per thread, kept for as long as the
    process runs: the watcher, the sweeper and (in the sidecar) the request workers each
    write through their own connection."""

    def __init__(self, home: Path, cache_mib: int) -> None:
        self.home = home
        self.cache_mib = cache_mib
        self._local = threading.local()

    def store(self) -> Store:
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            store = self._local.store = Store.open(self.home, cache_mib=self.cache_mib)
            try:  # the sessions a reader change reads differently, re-derived once
                for sid, why in reread(store).failed:
                    log.warning(
                        "session %s was not re-read from the raw archive after an upgrade: %s",
                        sid,
                        why,
                    )
            except StoreError as e:  # the store is busy or failing: the next process tries
                log.warning("stored sessions not re-read after a reader change: %s", e)
        return store

    def index(self) -> SearchIndex:
        """This thread's index, caught up with the store (another process holding the
        writer does it instead)."""
        ix: SearchIndex | None = getattr(self._local, "index", None)
        if ix is None:
            ix = self._local.index = SearchIndex.open(self.home)
            if ix.rebuilt:
                log.warning("rebuilding the search index from the store: %s", ix.rebuilt)
        ix.catch_up(self.store())
        return ix


class LiveCapture:
    """The watcher and the sweeper, two daemon threads, until :meth:`stop`.

    ``store`` gives the calling thread's connection; ``index`` catches the search index up
    after a capture here. ``on_change`` (Builder ids, debounced) turns on watching the store
    for changes by anyone; ``on_failure`` hears of every failure as it happens, ``on_sweep``
    of every sweep when it ends.
    """

    def __init__(
        self,
        home: Path,
        store: Callable[[], Store],
        *,
        extra_roots: Mapping[str, list[Path]] | None = None,
        index: Callable[[], object] | None = None,
        on_change: Callable[[list[str]], None] | None = None,
        on_failure: Callable[[Failure], None] | None = None,
        on_sweep: Callable[[Sweep], None] | None = None,
        sweep_every: float = SWEEP,
    ) -> None:
        self.home = home
        self.store = store
        self.extra_roots = dict(extra_roots or {})
        self.index = index
        self.on_change = on_change
        self.on_failure = on_failure
        self.on_sweep = on_sweep
        self.sweep_every = sweep_every
        self.roots: dict[str, list[Path]] = {}
        self.last_sweep_at: str | None = None
        self.captured = 0  # sessions captured here since start
        self.last_failure: Failure | None = None
        self._stop = threading.Event()
        self._halt = threading.Event()  # the watch stops: to quit, or to watch other dirs
        self._kick = threading.Event()  # a sweep is wanted now
        self._watching: list[Path] = []
        self._pending: set[str] = set()
        self._told = 0
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    @property
    def live(self) -> bool:
        return any(t.is_alive() for t in self._threads) and not self._stop.is_set()

    def start(self) -> None:
        if self.on_change is not None:
            self._told = last_id(self.store().conn)  # messages up to it are known to the listener
        for name in TOOLS:  # the roots only: the first sweep, in its thread, lists the files
            self.roots[name] = roots_of(name, self.extra_roots.get(name))
        for target, name in ((self._sweeper, "lazy-sweep"), (self._watcher, "lazy-watch")):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self) -> None:
        self._stop.set()
        self._halt.set()
        self._kick.set()

    def join(self, timeout: float) -> bool:
        """Wait for both threads to end (after :meth:`stop`); False if one is still busy."""
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in self._threads)

    # -- the two loops ---------------------------------------------------------------------

    def _sweeper(self) -> None:
        while not self._stop.is_set():
            self._kick.clear()
            started = time.monotonic()
            try:
                result = self.sweep()
            except Exception as e:  # a sweep never takes its process down
                failure = self._failed("", None, "the sweep failed", "sweep-error", repr(e))
                result = Sweep(now(), time.monotonic() - started, error=failure)
            if self.on_sweep is not None:
                self.on_sweep(result)
            if self._watch_list() != self._watching:
                self._halt.set()  # a root appeared (or went): watch what is there now
            self._kick.wait(self.sweep_every)

    def _watch_list(self) -> list[Path]:
        dirs = {r for roots in self.roots.values() for r in roots if r.is_dir()}
        if self.on_change is not None and self.home.is_dir():
            dirs.add(self.home)  # the store: changes by anyone
        return sorted(dirs)

    def _watcher(self) -> None:
        while not self._stop.is_set():
            self._halt.clear()
            self._watching = self._watch_list()
            if not self._watching:
                self._halt.wait()  # nothing to watch yet: the sweeps look for it
                continue
            try:
                self._watch(self._watching)
            except Exception as e:
                self._failed("", None, "the file watcher stopped", "watch-error", repr(e))
                return

    def _watch(self, dirs: list[Path]) -> None:
        watching = False
        for changes in watchfiles.watch(
            *dirs,
            watch_filter=None,
            stop_event=self._halt,
            debounce=100,
            step=50,
            rust_timeout=1000,
            yield_on_timeout=True,  # the first yield says the watch is in place
            raise_interrupt=False,
        ):
            if not watching:
                # what was written before the watch was in place, after the last sweep
                # looked, is found by one more sweep now
                watching = True
                self._kick.set()
            if changes:
                self._changed({Path(p) for _, p in changes})

    # -- work ------------------------------------------------------------------------------

    def _agent_of(self, path: Path) -> str | None:
        for name, roots in self.roots.items():
            if any(path.is_relative_to(r) for r in roots):
                return name
        return None

    def _changed(self, paths: set[Path]) -> None:
        store = self.store()
        sweep = False
        sessions: set[str] = set()
        stored = any(p.parent == self.home and p.name.startswith("store.db") for p in paths)
        for path in sorted(paths):
            name = self._agent_of(path)
            if name is None:
                continue
            if agent(name).reads == "records":  # not one file per session: discovery lists them
                sweep = True
                continue
            if not path.name.endswith(_SESSION_FILES):
                continue
            if not source_files.known(store.conn, str(path)):
                sweep = True  # new: discovery decides (lazy's own one-shots stay out)
                continue
            r = capture_file(store, path, agent=name)
            if r.status == "error":
                self._failed(str(path), None, r.reason or "capture failed", r.code or "error", "")
            for q in r.quarantined:
                self._failed(q.origin or str(path), q.line_no, q.reason, "bad-line", "")
            if r.messages_added or r.messages_updated:
                sessions |= r.sessions or {r.session_id}
        if sessions or (stored and self.on_change is not None):
            self._captured(sessions)
        if sweep:
            self._kick.set()

    def sweep(self) -> Sweep:
        """Discover every agent's sessions and capture what the store lacks."""
        started = time.monotonic()
        store = self.store()
        result = Sweep(now(), 0.0)
        sessions: set[str] = set()
        for name in TOOLS:
            try:
                sessions |= self._sweep_agent(store, name, result)
            except StoreError:
                raise  # the store's failure: the whole sweep fails, and is tried again
            except Exception as e:  # this agent's sources: the next agent's still swept
                f = self._failed("", None, f"the {name} sweep failed", "sweep-error", repr(e))
                result.failures.append(f)
        self.last_sweep_at = result.at = now()
        result.seconds = time.monotonic() - started
        self._captured(sessions)
        return result

    def _sweep_agent(self, store: Store, name: str, result: Sweep) -> set[str]:
        """One agent's part of a sweep: the sessions it captured."""
        d = discover_tool(name, list(self.extra_roots.get(name, [])), None)
        self.roots[name] = d.roots
        p = plan(store, d)
        todo = p.missing + p.behind
        if not todo:
            return set()
        report = run_import(store, d, todo)
        for q in report.quarantined:
            f = self._failed(q.file, q.line, q.reason, "bad-line", "")
            result.failures.append(f)
        for s in report.refused:
            result.failures.append(self._failed(s.path or "", None, s.reason, "refused", ""))
        for s in report.skipped:
            if not s.reason.startswith("empty"):  # missing or unreadable
                f = self._failed(s.path, None, "the file could not be read", "read-error", s.reason)
                result.failures.append(f)
        result.imported += report.imported
        result.updated += report.updated
        return set(todo)

    def _captured(self, sessions: set[str]) -> None:
        """Index what was captured here, and queue the Builders of every message added to
        the store since the last telling (here or by anyone else) for one telling."""
        if sessions and self.index is not None:
            self.index()
        with self._lock:
            self.captured += len(sessions)
        if self.on_change is None:
            return
        conn = self.store().conn
        rows = builders_grown_since(conn, self._told)
        grown: set[str] = set()
        if sessions:  # captured here: grown messages count too, not only new ones
            grown = builders_of(conn, sessions)
        with self._lock:
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
        if changed and self.on_change is not None:
            self.on_change(changed)

    def _failed(self, file: str, line: int | None, reason: str, code: str, detail: str) -> Failure:
        failure = Failure(file=file, line=line, reason=reason, code=code, detail=detail, at=now())
        self.last_failure = failure
        log.warning("capture failed: %s %s: %s %s", file, line or "", reason, detail)
        if self.on_failure is not None:
            self.on_failure(failure)
        return failure
