"""`lazy capture --hook`: what Claude Code's hooks run (SessionStart, Stop, PreCompact,
SessionEnd; see lazy.agents.claude.hooks). The hook's JSON on stdin names the session's
transcript; that file, and its subagents' files under ``<session dir>/subagents/``, are
captured incrementally, then the index is caught up if its writer is free right now.

A hook must never slow or fail its agent: it always exits 0, prints nothing on stdout
(Claude Code adds a SessionStart hook's stdout to the model's context), waits for a busy
store only briefly, and bounds its whole run (``BUDGET``, then ``HARD``). What it could not
do is left to the next hook or the daemon's sweep: capture is idempotent and resumes where
the store's last commit left it. Every failure is recorded in the store's capture log, or,
when the store cannot be opened or written, in ``$LAZY_HOME/hook-failures.log`` (JSON lines).
"""

from __future__ import annotations

import contextlib
import io
import os
import select
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from lazy.os.private import open_private, private_dir
from lazy.store import Store, StoreError, now_iso
from lazy.store.db import explain

FALLBACK_LOG = "hook-failures.log"
FALLBACK_MAX = 1024 * 1024  # bytes; then it is rotated to .1 (the one before is dropped)
BUSY_MS = 2000  # a write waits this long for another process's, then the hook gives up
BUDGET = 10.0  # seconds: the capture is interrupted (what it committed stays)
HARD = BUDGET + 5.0  # seconds: the process exits, whatever it is doing
MAX_INPUT = 1024 * 1024  # bytes of hook JSON read from stdin
STDIN_WAIT = 2.0  # seconds the hook's JSON may take to arrive
INDEX_MAX = 5000  # queued index changes a hook takes on; more is left to the daemon/CLI


@dataclass
class HookInput:
    event: str
    session_id: str | None
    transcript: Path
    cwd: str | None


class BadInput(Exception):
    """The hook's stdin is not what Claude Code sends."""


def parse_input(raw: bytes) -> HookInput:
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise BadInput(f"the hook's stdin is not JSON ({e})") from e
    if not isinstance(data, dict):
        raise BadInput("the hook's stdin is not a JSON object")
    path = data.get("transcript_path")
    if not isinstance(path, str) or not path:
        raise BadInput("the hook's JSON has no transcript_path")
    sid, event, cwd = data.get("session_id"), data.get("hook_event_name"), data.get("cwd")
    transcript = Path(path).expanduser()
    if not transcript.is_absolute() and isinstance(cwd, str):
        transcript = Path(cwd) / transcript
    if not transcript.name.endswith(".jsonl"):
        raise BadInput(f"the hook's transcript_path is not a session file (.jsonl): {path}")
    return HookInput(
        event=event if isinstance(event, str) else "",
        session_id=sid if isinstance(sid, str) else None,
        transcript=transcript,
        cwd=cwd if isinstance(cwd, str) else None,
    )


def session_files(transcript: Path) -> list[Path]:
    """The transcript, then its subagents' files (``<dir>/<session id>/subagents/``)."""
    sub = transcript.with_name(transcript.name.removesuffix(".jsonl")) / "subagents"
    try:
        agents = sorted(p for p in sub.iterdir() if p.name.endswith(".jsonl") and p.is_file())
    except OSError:
        agents = []
    return [transcript, *agents]


class Fallback:
    """The log of last resort, for what the store could not take."""

    def __init__(self, home: Path) -> None:
        self.path = home / FALLBACK_LOG

    def write(self, record: dict[str, Any]) -> None:
        line = orjson.dumps({"at": now_iso(), **record}) + b"\n"
        try:
            private_dir(self.path.parent)
            with contextlib.suppress(OSError):
                if self.path.stat().st_size > FALLBACK_MAX:
                    self.path.replace(self.path.with_name(FALLBACK_LOG + ".1"))
            # one write of a whole line in append mode: hooks running at once do not interleave
            fd = open_private(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        except OSError as e:  # nowhere left but stderr (Claude Code shows it in verbose mode)
            sys.stderr.write(f"lazy capture --hook: {record} (and {FALLBACK_LOG}: {e})\n")


class Watchdog:
    """Bounds the hook's time: past ``budget`` the store's statements are interrupted (the
    capture fails with SQLITE_INTERRUPT and rolls back its open batch); at ``hard`` it records
    why in the fallback log and ends the process.

    The interrupting is SQLite's progress handler, asked every PROGRESS_STEPS VM steps of any
    statement, rather than ``interrupt()`` from this thread: that is a no-op when it lands
    between statements, so a capture busy parsing when the budget ran out went on to the end."""

    PROGRESS_STEPS = 1000

    def __init__(self, fallback: Fallback, context: dict[str, Any], budget: float, hard: float):
        self.fallback = fallback
        self.context = context  # what the hook is working on, for the record
        self.budget = budget
        self.hard = hard
        self.started = time.monotonic()
        self.expired = False
        self.conn: Any = None  # the store's connection while capture may be interrupted
        self._done = threading.Event()

    def start(self) -> None:
        threading.Thread(target=self._run, name="lazy-hook-watchdog", daemon=True).start()

    def interruptible(self, conn: Any) -> None:
        """From here on, ``conn``'s statements stop once the budget has run out."""
        self.conn = conn
        conn.set_progress_handler(self._over_budget, self.PROGRESS_STEPS)

    def _over_budget(self) -> int:
        return 1 if self.expired else 0

    def settled(self) -> None:
        """No more interrupting: what follows (recording the outcome) must get through."""
        if self.conn is not None:
            self.conn.set_progress_handler(None, 0)
            self.conn = None

    def finish(self) -> None:
        self._done.set()

    def _run(self) -> None:
        if self._done.wait(self.budget):
            return
        self.expired = True
        if not self._done.wait(max(0.0, self.hard - (time.monotonic() - self.started))):
            self.fallback.write(
                {
                    **self.context,
                    "level": "error",
                    "code": "HOOK_TIMEOUT",
                    "reason": f"the hook did not finish within {self.hard:.0f} s and"
                    " exited; the next hook or the daemon's sweep captures the rest",
                }
            )
            os._exit(0)


def read_stdin(stream: IO[bytes], wait: float = STDIN_WAIT) -> bytes:
    """The hook's JSON: read until it is a whole JSON document, end of file, or ``wait``
    seconds (some Claude Code releases leave a hook's stdin open after writing it)."""
    if stream.isatty():
        raise BadInput("stdin is a terminal: `lazy capture --hook` reads a Claude Code hook's JSON")
    try:
        fd = stream.fileno()
    except (OSError, ValueError, io.UnsupportedOperation):
        return stream.read(MAX_INPUT)  # not a file (an in-process caller's buffer)
    data = b""
    deadline = time.monotonic() + wait
    while len(data) <= MAX_INPUT:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
        with contextlib.suppress(orjson.JSONDecodeError):
            orjson.loads(data)
            break  # whole: no need to wait for the end of the file
    return data


def run(stdin: IO[bytes], home: Path, *, budget: float = BUDGET, hard: float = HARD) -> str:
    """Capture what the hook names; never raises. Returns what it did, for the caller's
    tests and benchmarks (the CLI prints nothing)."""
    fallback = Fallback(home)
    context: dict[str, Any] = {}
    dog = Watchdog(fallback, context, budget, hard)
    dog.start()
    try:
        return _run(stdin, home, fallback, context, dog)
    except BaseException as e:  # a hook never fails its agent
        fallback.write(
            {
                **context,
                "level": "error",
                "code": type(e).__name__,
                "reason": "the hook failed",
                "detail": repr(e),
            }
        )
        return "failed"
    finally:
        dog.finish()


def _run(
    stdin: IO[bytes], home: Path, fallback: Fallback, context: dict[str, Any], dog: Watchdog
) -> str:
    bad: BadInput | None = None
    raw = b""
    hook: HookInput | None = None
    try:
        raw = read_stdin(stdin)
        hook = parse_input(raw)
        context.update(event=hook.event, session_id=hook.session_id, path=str(hook.transcript))
    except BadInput as e:
        bad = e
    try:
        store = Store.open(home, busy_ms=BUSY_MS)
    except StoreError as e:
        fallback.write(
            {
                **context,
                "level": "error",
                "code": e.code,
                "detail": e.detail,
                "reason": f"the store could not be opened: {e.message}",
            }
        )
        if bad is not None:
            fallback.write({"level": "error", "code": "BAD_HOOK_INPUT", "reason": str(bad),
                            "detail": raw[:500].decode("utf-8", "replace")})  # fmt: skip
        return "store-unavailable"
    with store:
        return _capture(store, hook, bad, raw, fallback, context, dog)


def _record(
    store: Store,
    fallback: Fallback,
    context: dict[str, Any],
    level: str,
    reason: str,
    code: str,
    detail: str | None = None,
    *,
    store_ok: bool = True,
) -> None:
    """In the store's capture log, else (the store busy or broken) in the fallback log."""
    if store_ok and store.log(
        level,
        reason,
        path=context.get("path"),
        session_id=context.get("session_id"),
        code=code,
        detail=detail,
    ):
        return
    fallback.write({**context, "level": level, "code": code, "reason": reason, "detail": detail})


def _capture(
    store: Store,
    hook: HookInput | None,
    bad: BadInput | None,
    raw: bytes,
    fallback: Fallback,
    context: dict[str, Any],
    dog: Watchdog,
) -> str:
    from lazy.builders.regroup import refresh
    from lazy.capture.source_file import capture_file

    if bad is not None or hook is None:
        detail = raw[:500].decode("utf-8", "replace")
        _record(store, fallback, context, "error", str(bad), "BAD_HOOK_INPUT", detail)
        return "bad-input"
    if not hook.transcript.is_file():
        if hook.event == "SessionStart":
            return "nothing-yet"  # a new session's file is written with its first message
        reason = f"the hook named a transcript that does not exist: {hook.transcript}"
        _record(store, fallback, context, "warning", reason, "ENOENT")
        return "missing"
    sessions: set[str] = set()
    dog.interruptible(store.conn)
    try:
        for path in session_files(hook.transcript):
            result = capture_file(store, path, regroup=False, agent="claude")
            sessions |= result.sessions
        # always: an earlier hook interrupted after its capture committed left the regrouping
        # to do (cheap when nothing is pending: no write lock is taken)
        regrouped = refresh(store)
    except (StoreError, sqlite3.Error) as caught:
        dog.settled()
        e = caught if isinstance(caught, StoreError) else explain(caught, store.path)
        busy = e.kind == "locked"
        if dog.expired:
            reason = (
                f"the hook gave up after {dog.budget:.0f} s; the next hook or the daemon's"
                " sweep captures the rest"
            )
            _record(store, fallback, context, "error", reason, "HOOK_TIMEOUT", str(e))
            return "timeout"
        reason = f"the hook could not capture: {e.message}"
        if busy:
            reason += f" for {BUSY_MS / 1000:.0f} s; the next hook or the daemon's sweep will"
        # a busy store would keep the capture log busy too: straight to the fallback
        _record(store, fallback, context, "error", reason, e.code, e.detail, store_ok=not busy)
        return "store-error"
    dog.settled()
    if sessions or regrouped:
        _index(store)
    return "captured" if sessions or regrouped else "unchanged"


def _index(store: Store) -> None:
    """Index what was added, if the index is in use and its writer is free now; a fresh or
    damaged index, or a long queue, is left to the daemon or the next search."""
    from lazy.index.indexer import SearchIndex, ready

    if not ready(store.home):
        return
    queued = store.conn.execute(
        "SELECT COUNT(*) FROM (SELECT 1 FROM index_queue LIMIT ?)", (INDEX_MAX + 1,)
    ).fetchone()[0]
    if queued > INDEX_MAX:
        return
    # 0 when another process holds the writer; checking the segments is left to the others
    SearchIndex.open(store.home, verify=False).catch_up(store)
