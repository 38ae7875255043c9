"""What the checks of `lazy doctor` look at: the store, when it opens, and where it lives."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lazy.config import lazy_home
from lazy.store import Store, StoreError
from lazy.store.db import explain
from lazy.store.schema import migrate

if TYPE_CHECKING:
    from lazy.agents.discovery import Discovery

# A check that needs the write lock (a trial of a repair) waits this long for another
# process's: a store locked for longer is the store check's finding, not a minute per check.
BUSY_MS = 5000


class StoreUnavailable(Exception):
    """A check needs the store, and it could not be opened (the store check says why)."""


@dataclass
class Context:
    home: Path  # LAZY_HOME
    store: Store | None  # None when it could not be opened
    exists: bool = True  # False: no store yet; an empty one stands in, in memory
    problem: str | None = None  # why it could not be opened, with the machine detail
    fix: str | None = None  # what fixes that
    error: StoreError | None = None  # the failure itself, its kind among others
    # who captures live as the checks run ("VS Code": the sidecar's watcher), when it is
    # not the hooks or the daemon: those are then worth a line, not a warning
    live: str | None = None
    _discovered: dict[str, Discovery] = field(default_factory=dict)

    def discovery(self, agent: str) -> Discovery:
        """The agent's sessions in its default places, found once for every check."""
        if agent not in self._discovered:
            from lazy.capture.discovery import discover_tool

            self._discovered[agent] = discover_tool(agent)
        return self._discovered[agent]

    @property
    def path(self) -> Path:
        return self.home / "store.db"

    def need_store(self) -> Store:
        if self.store is None:
            raise StoreUnavailable(self.problem or "the store could not be opened")
        return self.store

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


def open_context(home: Path | None = None) -> Context:
    """The store as the checks see it. Nothing is created: with no store yet, an empty one
    in memory answers the checks (everything on disk is then missing from it)."""
    home = home or lazy_home()
    if not (home / "store.db").exists():
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        migrate(conn)
        return Context(home, Store(home, conn), exists=False)
    try:
        return Context(home, Store.open(home, busy_ms=BUSY_MS))
    except (StoreError, sqlite3.Error, OSError) as e:
        return unavailable(home, e)


def unavailable(home: Path, e: Exception) -> Context:
    """The context of a store that could not be opened, saying why and what fixes it:
    each failure its own fix (read-only is not damaged: moving a store aside to re-import
    loses every conversation whose source file is gone)."""
    err = e if isinstance(e, StoreError) else explain(e, home / "store.db")
    return Context(home, None, problem=str(err), fix=err.fix, error=err)


def context_of(home: Path, store: Callable[[], Store], *, live: str | None = None) -> Context:
    """The checks' context over a store a long-running process keeps open (``store()``
    gives this thread's connection), ``live`` naming who captures live meanwhile; a failure
    to open the store is the store check's to say."""
    try:
        ctx = Context(home, store())
    except (StoreError, RuntimeError, sqlite3.Error) as e:
        ctx = unavailable(home, e)
    ctx.live = live
    return ctx
