"""Pushing on every sweep, for the sidecar and the daemon, once this machine has joined a team.

A push runs in a thread of its own, one at a time, so a slow or unreachable server never holds
up capture; after a failure the next sweeps do not retry at once but after a backoff (one
minute, doubling to half an hour), and the failure is in team.json for `lazy team status` and
`lazy doctor`. Connections come from psycopg's pool, kept for as long as the process runs.
psycopg and the push are imported on the first push: a sidecar of a machine with no team
starts without them."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from lazy.store import Store, StoreError
from lazy.team.state import StateError, TeamState, load

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from lazy.team.schema import Conn

log = logging.getLogger("lazy.team.sync")

FIRST_BACKOFF = 60.0
LAST_BACKOFF = 1800.0


class SweepPusher:
    def __init__(self, home: Path) -> None:
        self.home = home
        self._busy = threading.Lock()
        self._retry_at = 0.0
        self._backoff = FIRST_BACKOFF
        self._pool: ConnectionPool[Conn] | None = None  # made on the first push
        self._pool_for = ""
        self.thread: threading.Thread | None = None

    def __call__(self, *_: object) -> None:
        """After a sweep: start a push when a team is joined and none is running."""
        if time.monotonic() < self._retry_at:
            return
        try:
            state = load(self.home)
        except StateError as e:
            log.warning("team push skipped: %s", e)
            return
        if state is None or not self._busy.acquire(blocking=False):
            return
        self.thread = threading.Thread(
            target=self._push, args=(state,), name="lazy-team-push", daemon=True
        )
        self.thread.start()

    def _connections(self, conninfo: str) -> ConnectionPool[Conn]:
        from lazy.team.db import pool

        if self._pool is None or self._pool_for != conninfo:  # joined elsewhere meanwhile
            if self._pool is not None:
                self._pool.close()
            self._pool, self._pool_for = pool(conninfo), conninfo
        return self._pool

    def _push(self, state: TeamState) -> None:
        from lazy.team.db import TeamError
        from lazy.team.push import run

        try:
            store = Store.open(self.home)
            try:
                plan = run(
                    store.conn, state, home=self.home, pool=self._connections(state.conninfo)
                )
            finally:
                store.close()
            if plan.builders:
                log.info(
                    "team push: %d Builder(s), %d message(s)", len(plan.builders), plan.messages
                )
            self._backoff, self._retry_at = FIRST_BACKOFF, 0.0
        except (TeamError, StoreError) as e:
            log.warning("team push failed (next try in %.0f s): %s", self._backoff, e)
            self._retry_at = time.monotonic() + self._backoff
            self._backoff = min(self._backoff * 2, LAST_BACKOFF)
        except Exception:  # a bug: said, and capture goes on
            log.exception("team push failed")
            self._retry_at = time.monotonic() + self._backoff
        finally:
            self._busy.release()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
