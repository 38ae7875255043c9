"""The store: one SQLite database under LAZY_HOME, the system of record."""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from lazy.config import lazy_home
from lazy.os.clock import now_iso
from lazy.os.private import Tightened, private_dir, tighten_home, touch_private, wide
from lazy.store.integrity import SHOWN, identity, quick_check, stamp, stamped, unstamp
from lazy.store.schema import SCHEMA_VERSION, migrate

BUSY_TIMEOUT_MS = 60_000


def fetch_row(conn: sqlite3.Connection, sql: str, args: tuple[object, ...]) -> sqlite3.Row | None:
    """One row, its columns by name (on its own cursor: the connection's rows stay tuples)."""
    cur = conn.cursor()
    cur.row_factory = sqlite3.Row
    row: sqlite3.Row | None = cur.execute(sql, args).fetchone()
    return row


class StoreError(Exception):
    """A store failure with the machine detail kept for the user.

    ``kind`` tells the failures apart, since each has its own fix (and the wrong fix loses
    data: a read-only store is not a damaged one): ``readonly``, ``full``, ``locked``,
    ``corrupt``, ``notadb``, ``schema``, ``missing`` or ``other``. ``fix`` is what to do."""

    def __init__(
        self,
        message: str,
        code: str,
        detail: str,
        *,
        kind: str = "other",
        fix: str | None = None,
        path: Path | None = None,
    ):
        super().__init__(f"{message} [{code}: {detail}]")
        self.message = message
        self.code = code
        self.detail = detail
        self.kind = kind
        self.fix = fix
        self.path = path


def recover_fix(path: Path) -> str:
    return (
        f"`lazy doctor --recover-store` copies what can still be read out of {path} into a new"
        " store, re-derives every conversation from the raw archive, and keeps the damaged"
        " file beside it (never deleted); then `lazy doctor --reimport-conversations --yes`"
        " adds back what is still on disk"
    )


def not_writable(home: Path) -> OSError | None:
    """Why lazy cannot write under ``home`` (read-only mount, no permission, an immutable
    file), or None. Probes with a real create and an open for writing: ``os.access`` says
    yes to root on a read-only mount and knows nothing of ``chattr +i``."""
    probe = home / f".lazy-write-probe-{os.getpid()}"
    try:
        os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        pass
    except OSError as e:
        if e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return e
        return None
    with contextlib.suppress(OSError):
        os.unlink(probe)
    for name in ("store.db", "store.db-wal", "store.db-shm"):
        try:
            os.close(os.open(home / name, os.O_RDWR))
        except FileNotFoundError:
            continue
        except OSError as e:
            if e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                return e
    return None


def readonly_error(home: Path, e: OSError, detail: str = "") -> StoreError:
    why = {
        errno.EROFS: "is on a read-only file system",
        errno.EPERM: "is immutable or not permitted to be written (chattr +i?)",
        errno.EACCES: "is not writable by this user",
    }.get(e.errno or 0, "cannot be written")
    where = e.filename or home
    return StoreError(
        f"{where} {why}: lazy can read nothing new into its store {home / 'store.db'};"
        " the store itself is not damaged",
        errno.errorcode.get(e.errno or 0, "EACCES"),
        detail or (e.strerror or str(e)),
        kind="readonly",
        fix=(
            f"make {home} writable again (remount it read-write, `chmod u+w`, `chattr -i`),"
            " or point LAZY_HOME at a writable copy; do not move store.db aside: it holds"
            " conversations whose source files may be gone"
        ),
        path=home / "store.db",
    )


def explain(exc: BaseException, path: Path | None = None) -> StoreError:
    """Turn a sqlite/OS error on the store at ``path`` into a message a person can act on,
    naming the file."""
    path = path or lazy_home() / "store.db"
    home = path.parent
    detail = str(exc)
    code = getattr(exc, "sqlite_errorname", None) or type(exc).__name__
    low = detail.lower()
    if isinstance(exc, OSError) and exc.errno is not None:
        code = errno.errorcode.get(exc.errno, code)
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return readonly_error(home, exc, detail)
    if code in ("SQLITE_READONLY", "SQLITE_CANTOPEN") or code.startswith("SQLITE_READONLY"):
        ro = not_writable(home) if home.is_dir() else None
        if ro is not None:
            return readonly_error(home, ro, f"{code}: {detail}")
    full = "database or disk is full" in low or "disk i/o error" in low  # SQLite's words
    if code in ("SQLITE_FULL", "ENOSPC", "EFBIG", "EDQUOT") or full:
        free = _free(home)
        return StoreError(
            f"could not write to {path}: the disk is full or a file size limit stops it"
            f"{free}; what was stored before is kept",
            code,
            detail,
            kind="full",
            fix=f"free space on the file system of {home} (or lift `ulimit -f`), then run"
            " the command again: capture resumes where it stopped",
            path=path,
        )
    if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "is locked" in low:
        return StoreError(
            f"{path} is locked (busy): another process holds its write lock",
            code,
            detail,
            kind="locked",
            fix=f"wait for it to finish (`fuser {path}` names it), then run the command again",
            path=path,
        )
    if code == "SQLITE_NOTADB" or "not a database" in low:
        return StoreError(
            f"{path} is not an SQLite database",
            code,
            detail,
            kind="notadb",
            fix=recover_fix(path),
            path=path,
        )
    if code.startswith("SQLITE_CORRUPT") or "malformed" in low:
        return StoreError(
            f"{path} is damaged; lazy writes nothing into it",
            code,
            detail,
            kind="corrupt",
            fix=recover_fix(path),
            path=path,
        )
    if code == "SQLITE_CANTOPEN" or "unable to open" in low:
        why = (
            "it is a folder, not a database file (move it aside)"
            if path.is_dir()
            else f"is {home} a directory this user can write?"
        )
        return StoreError(
            f"cannot open {path}: {why}",
            code,
            detail,
            kind="other",
            path=path,
        )
    return StoreError(f"{path}: store operation failed", code, detail, path=path)


def _code(e: BaseException) -> str:
    return str(getattr(e, "sqlite_errorname", None) or type(e).__name__)


def _free(home: Path) -> str:
    try:
        st = os.statvfs(home)
    except (OSError, AttributeError):
        return ""
    return f" ({st.f_bavail * st.f_frsize / 2**20:,.0f} MiB free there)"


class Store:
    """A connection to the store. Writes go through :meth:`write` (``BEGIN IMMEDIATE``)."""

    def __init__(self, home: Path, conn: sqlite3.Connection):
        self.home = home
        self.path = home / "store.db"
        self.conn = conn
        self._bulk = False
        self._bulk_tx: Bulk | None = None
        self._savepoints = 0
        self.checked = False  # passed quick_check (or its stamp): writes may go ahead
        self._vouched: list[int] | None = None  # store.db as it was when it passed
        self.damaged: StoreError | None = None  # failed it: nothing is written
        self.tightened = Tightened()  # what opening it made private

    @classmethod
    def open(
        cls, home: Path | None = None, *, cache_mib: int = 64, busy_ms: int = BUSY_TIMEOUT_MS
    ) -> Store:
        """``busy_ms``: how long a write waits for another process's; a hook, which must
        never hold its agent up, waits less than the default."""
        home = home or lazy_home()
        db = home / "store.db"
        try:
            private_dir(home)
            # An old store, or one made under a wide umask: a few stats find it; then
            # everything under LAZY_HOME is made private (invariant 10).
            names = ("", "store.db", "store.db-wal", "store.db-shm", "index")
            tightened = tighten_home(home) if any(wide(home / n) for n in names) else Tightened()
            if not db.exists():
                # SQLite creates its -wal and -shm with the database file's mode: 0600 here
                # makes all three private, whatever the umask.
                touch_private(db)
            conn = sqlite3.connect(
                db,
                isolation_level=None,  # we issue BEGIN IMMEDIATE ourselves
                timeout=busy_ms / 1000,
                check_same_thread=False,
            )
        except (sqlite3.Error, OSError) as e:
            raise explain(e, db) from e
        store = cls(home, conn)
        store.tightened = tightened
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
            if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                store.writable()  # turning WAL on writes the header
                conn.execute("PRAGMA journal_mode = WAL")
            # The store is the only lasting copy once Claude Code sweeps its files.
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            # Bulk imports insert into uuid-keyed b-trees in random order: a larger page
            # cache keeps them from thrashing. A long-lived reader asks for less.
            conn.execute(f"PRAGMA cache_size = -{cache_mib * 1024}")
            if sys.platform == "darwin":
                conn.execute("PRAGMA fullfsync = ON")
            current = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"{db} is schema v{current}, newer than this lazy (v{SCHEMA_VERSION}):"
                    " a newer lazy wrote it",
                    "SCHEMA_NEWER",
                    f"user_version {current}",
                    kind="schema",
                    fix="upgrade lazy (pip install -U lazy-builders, or update the extension);"
                    " this one leaves the store as it is",
                    path=db,
                )
            if current < SCHEMA_VERSION:
                store.writable()  # a migration is a write
                migrate(conn)
        except StoreError:
            conn.close()
            raise
        except (sqlite3.Error, OSError) as e:
            conn.close()
            raise explain(e, db) from e
        return store

    def writable(self) -> None:
        """Raise unless the store may be written: it passed ``quick_check`` (this process's,
        or one remembered for the file as it is). Checked once, before the first write."""
        if self.damaged is not None:
            raise self.damaged
        if self.checked:
            return
        if not stamped(self.home):
            try:
                problems = quick_check(self.conn)
            except sqlite3.DatabaseError as e:
                problems = [f"quick_check could not run [{_code(e)}: {e}]"]
            if problems:
                unstamp(self.home)
                shown = "; ".join(problems[:SHOWN])
                more = f" (and {len(problems) - SHOWN} more)" if len(problems) > SHOWN else ""
                self.damaged = StoreError(
                    f"{self.path} fails SQLite's quick_check: lazy writes nothing into a"
                    f" damaged store. Run `lazy doctor`; {recover_fix(self.path)}",
                    "SQLITE_CORRUPT",
                    shown + more,
                    kind="corrupt",
                    fix=recover_fix(self.path),
                    path=self.path,
                )
                raise self.damaged
            stamp(self.home)
        self._vouched = identity(self.path)
        self.checked = True

    def _error(self, e: sqlite3.Error | OSError) -> StoreError:
        err = explain(e, self.path)
        if err.kind in ("corrupt", "notadb"):
            self.checked = False  # the stamp no longer vouches for it: the next one checks
            self.damaged = err
            unstamp(self.home)
        return err

    def close(self) -> None:
        before = identity(self.path) if self.checked else None
        self.conn.close()
        if self.checked and self.damaged is None and before == self._vouched:
            # Nothing changed the file while this process had it open, but its own close
            # (the checkpoint of the last connection): vouched for as that left it. Had
            # anything else changed it (another process's checkpoint, or not SQLite at
            # all), the next process to write checks it again.
            stamp(self.home)

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
        self.writable()
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
                    raise self._error(e) from e
                raise
            conn.execute(f"RELEASE {name}")
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise self._error(e) from e
        try:
            yield conn
            conn.execute("COMMIT")
        except sqlite3.Error as e:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise self._error(e) from e
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
        self.writable()
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise self._error(e) from e
        try:
            yield conn
        except sqlite3.Error as e:
            raise self._error(e) from e
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
        self.writable()
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
            raise self.store._error(e) from e
        self.started = time.monotonic()

    def commit(self) -> None:
        try:
            self.store.conn.execute("COMMIT")
        except sqlite3.Error as e:
            raise self.store._error(e) from e

    def tick(self) -> None:
        """Commit once the transaction is ``seconds`` old. The next one begins only at the
        next write, so reading and parsing the next file leave the lock free for others."""
        conn = self.store.conn
        if conn.in_transaction and time.monotonic() - self.started >= self.seconds:
            self.commit()


def log_in(
    c: sqlite3.Connection,
    level: str,
    reason: str,
    *,
    session_id: str | None = None,
    code: str | None = None,
    detail: str | None = None,
) -> None:
    """A capture log row written in the caller's transaction (with what it records: it is
    rolled back with it)."""
    c.execute(
        "INSERT INTO capture_log(at, level, session_id, reason, code, detail)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (now_iso(), level, session_id, reason, code, detail),
    )


@contextmanager
def savepoint(c: sqlite3.Connection, name: str) -> Iterator[Callable[[], None]]:
    """A savepoint in the caller's transaction, released at the end of the block; the block
    gets the function that rolls back to it."""

    def rollback() -> None:
        c.execute(f"ROLLBACK TO {name}")

    c.execute(f"SAVEPOINT {name}")
    try:
        yield rollback
    finally:
        c.execute(f"RELEASE {name}")
