"""The store: one SQLite database under LAZY_HOME, the system of record."""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from lazy.store.schema import migrate

BUSY_TIMEOUT_MS = 60_000


def lazy_home() -> Path:
    return Path(os.environ.get("LAZY_HOME") or Path.home() / ".lazy").expanduser()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def fetch_row(conn: sqlite3.Connection, sql: str, args: tuple[object, ...]) -> sqlite3.Row | None:
    """One row, its columns by name (on its own cursor: the connection's rows stay tuples)."""
    cur = conn.cursor()
    cur.row_factory = sqlite3.Row
    row: sqlite3.Row | None = cur.execute(sql, args).fetchone()
    return row


def parse_iso(value: str | None) -> datetime | None:
    """An ISO 8601 time as the agents write it (``…Z``); one without a zone is UTC. None
    when there is none or it does not parse."""
    if not value:
        return None
    try:
        t = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


class StoreError(Exception):
    """A store failure with the machine detail kept for the user."""

    def __init__(self, message: str, code: str, detail: str):
        super().__init__(f"{message} [{code}: {detail}]")
        self.message = message
        self.code = code
        self.detail = detail


def explain(exc: BaseException) -> StoreError:
    """Turn a sqlite/OS error into a message a person can act on."""
    detail = str(exc)
    code = getattr(exc, "sqlite_errorname", None) or type(exc).__name__
    low = detail.lower()
    if isinstance(exc, OSError) and exc.errno is not None:
        import errno

        code = errno.errorcode.get(exc.errno, code)
    if "disk i/o error" in low or "full" in low or code in ("ENOSPC", "EFBIG"):
        return StoreError("could not write to the store: is the disk full?", code, detail)
    if "locked" in low or "busy" in low:
        return StoreError("the store is busy (another lazy process is writing)", code, detail)
    if "malformed" in low or "not a database" in low:
        return StoreError("the store file is damaged; run `lazy doctor`", code, detail)
    if code == "SQLITE_CANTOPEN" or "unable to open" in low:
        return StoreError(
            "cannot open the store: is $LAZY_HOME a writable directory holding store.db?",
            code,
            detail,
        )
    return StoreError("store operation failed", code, detail)


class Store:
    """A connection to the store. Writes go through :meth:`write` (``BEGIN IMMEDIATE``)."""

    def __init__(self, home: Path, conn: sqlite3.Connection):
        self.home = home
        self.path = home / "store.db"
        self.conn = conn
        self._bulk = False
        self._bulk_tx: Bulk | None = None
        self._savepoints = 0

    @classmethod
    def open(
        cls, home: Path | None = None, *, cache_mib: int = 64, busy_ms: int = BUSY_TIMEOUT_MS
    ) -> Store:
        """``busy_ms``: how long a write waits for another process's; a hook, which must
        never hold its agent up, waits less than the default."""
        home = home or lazy_home()
        try:
            home.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                home / "store.db",
                isolation_level=None,  # we issue BEGIN IMMEDIATE ourselves
                timeout=busy_ms / 1000,
                check_same_thread=False,
            )
            conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
            conn.execute("PRAGMA journal_mode = WAL")
            # The store is the only lasting copy once Claude Code sweeps its files.
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            # Bulk imports insert into uuid-keyed b-trees in random order: a larger page
            # cache keeps them from thrashing. A long-lived reader asks for less.
            conn.execute(f"PRAGMA cache_size = -{cache_mib * 1024}")
            if sys.platform == "darwin":
                conn.execute("PRAGMA fullfsync = ON")
            migrate(conn)
        except (sqlite3.Error, OSError) as e:
            raise explain(e) from e
        return cls(home, conn)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it lands, or none of it.

        Inside :meth:`bulk` it is a savepoint of the bulk transaction instead.
        """
        conn = self.conn
        if self._bulk:
            if not conn.in_transaction:  # the bulk transaction begins at its first write
                assert self._bulk_tx is not None
                self._bulk_tx.begin()
            self._savepoints += 1
            name = f"w{self._savepoints}"
            conn.execute(f"SAVEPOINT {name}")
            try:
                yield conn
            except BaseException as e:
                conn.execute(f"ROLLBACK TO {name}")
                conn.execute(f"RELEASE {name}")
                if isinstance(e, sqlite3.Error):
                    raise explain(e) from e
                raise
            conn.execute(f"RELEASE {name}")
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise explain(e) from e
        try:
            yield conn
            conn.execute("COMMIT")
        except sqlite3.Error as e:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise explain(e) from e
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    @contextmanager
    def trial(self) -> Iterator[sqlite3.Connection]:
        """A write transaction that is always rolled back: what a change would do, seen
        before anyone is asked to approve it. Holds the write lock while it lasts."""
        if self._bulk:
            raise RuntimeError("trial() inside bulk()")
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise explain(e) from e
        try:
            yield conn
        except sqlite3.Error as e:
            raise explain(e) from e
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")

    @contextmanager
    def bulk(self, seconds: float = 1.0) -> Iterator[Bulk]:
        """Group many small writes into transactions of about ``seconds`` each.

        A bulk import of thousands of small files would otherwise pay one fsync per file
        (synchronous=FULL); grouping keeps the write lock for at most ``seconds`` at a time,
        so other processes (hooks, a sidecar) still get their turn.
        """
        if self._bulk:
            raise RuntimeError("bulk() does not nest")
        bulk = Bulk(self, seconds)
        # Commits inside a bulk import skip their fsync: the source files are on disk the
        # whole time, and the checkpoint at the end makes everything durable before the
        # import reports done. Live capture keeps synchronous=FULL on every commit.
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.execute("PRAGMA wal_autocheckpoint = 16384")  # checkpoint every 64 MB, not 4
        self._bulk = True
        self._bulk_tx = bulk
        try:
            yield bulk
            self._bulk = False
            if self.conn.in_transaction:
                bulk.commit()
            self.conn.execute("PRAGMA synchronous = FULL")
            self.conn.execute("PRAGMA wal_checkpoint(FULL)")
        except BaseException:
            self._bulk = False
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        finally:
            self._bulk_tx = None
            self.conn.execute("PRAGMA synchronous = FULL")
            self.conn.execute("PRAGMA wal_autocheckpoint = 1000")

    def log(
        self,
        level: str,
        reason: str,
        *,
        path: str | None = None,
        session_id: str | None = None,
        code: str | None = None,
        detail: str | None = None,
    ) -> bool:
        """Record a capture failure or refusal; never raises (the log must not add failures).
        False when it could not be recorded (said on stderr).

        A file that fails the same way again (every sweep retries it) adds no row: its last
        row counts one more, with when it was seen last and the latest detail."""
        at = now_iso()
        try:
            with self.write() as c:
                last = None
                if path is not None:
                    last = c.execute(
                        "SELECT id, level, reason, code FROM capture_log WHERE path=?"
                        " ORDER BY id DESC LIMIT 1",
                        (path,),
                    ).fetchone()
                if last is not None and tuple(last[1:]) == (level, reason, code):
                    c.execute(
                        "UPDATE capture_log SET count = count + 1, last_at=?, detail=?,"
                        " session_id=COALESCE(?, session_id) WHERE id=?",
                        (at, detail, session_id, last[0]),
                    )
                else:
                    c.execute(
                        "INSERT INTO capture_log(at, last_at, level, path, session_id, reason,"
                        " code, detail) VALUES (?,?,?,?,?,?,?,?)",
                        (at, at, level, path, session_id, reason, code, detail),
                    )
        except StoreError as e:
            print(f"lazy: could not record in the capture log: {e}", file=sys.stderr)
            return False
        return True


class Bulk:
    """The open transaction of :meth:`Store.bulk`; :meth:`tick` commits when it is time."""

    def __init__(self, store: Store, seconds: float):
        self.store = store
        self.seconds = seconds
        self.started = 0.0

    def begin(self) -> None:
        try:
            self.store.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise explain(e) from e
        self.started = time.monotonic()

    def commit(self) -> None:
        try:
            self.store.conn.execute("COMMIT")
        except sqlite3.Error as e:
            raise explain(e) from e

    def tick(self) -> None:
        """Commit once the transaction is ``seconds`` old. The next one begins only at the
        next write, so reading and parsing the next file leave the lock free for others."""
        conn = self.store.conn
        if conn.in_transaction and time.monotonic() - self.started >= self.seconds:
            self.commit()
