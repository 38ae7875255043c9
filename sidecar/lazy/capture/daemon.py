"""`lazy daemon`: live capture with no editor open. The same watcher and sweep as the
sidecar's (lazy.capture.live), headless, one instance per store.

Files in ``$LAZY_HOME``:

* ``daemon.pid``: the running daemon's pid and process create time (lazy.os.pidfile); a stale
  one (dead pid, or a pid reused by another process) is taken over by the next start;
* ``daemon.json``: its status, rewritten after every sweep (and failure): since when it
  runs, the last sweep's time and result, failures with their machine detail;
* ``daemon.log``: what it logs, rotated at ``LOG_MAX`` bytes (``daemon.log.1``, ``.2``).

``start`` runs ``lazy daemon run --ready-fd N`` detached (a new session, stdio to the log)
and reads on that pipe how its start went: the pid taken, then the first sweep done, or why
it could not start.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import orjson

from lazy.capture.live import Failure, LiveCapture, PerThread, Sweep
from lazy.os.clock import now_iso
from lazy.os.pidfile import Held, Holder, PidFile
from lazy.os.private import private_dir, private_opener
from lazy.store import Store, StoreError
from lazy.team.sync import SweepPusher
from lazy.view.terminal import TerminalFormatter

PID_FILE = "daemon.pid"
STATUS_FILE = "daemon.json"
LOG_FILE = "daemon.log"
LOG_MAX = 1024 * 1024  # bytes per log file
LOG_KEEP = 2  # rotated files kept
STOP_GRACE = 10.0  # seconds a sweep in progress gets to finish after SIGTERM
FAILURES_KEPT = 20  # of one sweep's failures, written to the status
STORE_CACHE_MIB = 16

log = logging.getLogger("lazy.daemon")
JsonDict = dict[str, Any]


def pid_file(home: Path) -> PidFile:
    return PidFile(home / PID_FILE)


def _failure(f: Failure) -> JsonDict:
    return asdict(f)


def _write_json(path: Path, data: JsonDict) -> None:
    """Replace ``path`` in one step: a reader sees the old status or the new, never half."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(orjson.dumps(data, option=orjson.OPT_INDENT_2))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def read_json(path: Path) -> JsonDict | None:
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


# ---- the daemon itself ----------------------------------------------------------------------


class _Log(logging.handlers.RotatingFileHandler):
    """daemon.log, bounded. Detached, the process's own stdout and stderr (tracebacks,
    anything a library prints) point at the log too, and follow it when it rotates."""

    def __init__(self, path: Path, detached: bool) -> None:
        super().__init__(path, maxBytes=LOG_MAX, backupCount=LOG_KEEP, encoding="utf-8")
        self.detached = detached
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))

    def _open(self) -> Any:
        # daemon.log quotes what capture met (paths, errors with transcript text): 0600
        return open(self.baseFilename, self.mode, encoding=self.encoding, opener=private_opener)

    def doRollover(self) -> None:
        super().doRollover()
        if self.detached and self.stream is not None:
            for fd in (1, 2):
                os.dup2(self.stream.fileno(), fd)


class _State:
    """What ``daemon.json`` says, kept up to date from the capture threads."""

    def __init__(self, home: Path, me: Holder, live: Callable[[], LiveCapture | None]):
        self.path = home / STATUS_FILE
        self.me = me
        self.live = live
        self.sweeps = 0
        self.failures = 0
        self.last_sweep: JsonDict | None = None
        self.first = threading.Event()
        self._lock = threading.Lock()

    def data(self, stopped: bool = False) -> JsonDict:
        capture = self.live()
        last = capture.last_failure if capture else None
        return {
            "pid": self.me.pid,
            "create_time": self.me.create_time,
            "nonce": self.me.nonce,
            "started_at": self.me.started_at,
            "updated_at": now_iso(),
            "stopped_at": now_iso() if stopped else None,
            "roots": [str(r) for rs in (capture.roots.values() if capture else []) for r in rs],
            "sweeps": self.sweeps,
            "captured": capture.captured if capture else 0,
            "failures": self.failures,
            "last_failure": _failure(last) if last else None,
            "last_sweep": self.last_sweep,
        }

    def write(self, stopped: bool = False) -> None:
        with self._lock:
            try:
                _write_json(self.path, self.data(stopped))
            except OSError as e:
                log.error("could not write %s: %s", self.path, e)

    def swept(self, sweep: Sweep) -> None:
        shown = sweep.failures[:FAILURES_KEPT]
        self.sweeps += 1
        self.last_sweep = {
            "at": sweep.at,
            "seconds": round(sweep.seconds, 3),
            "captured": sweep.captured,
            "imported": len(sweep.imported),
            "updated": len(sweep.updated),
            "failures": [_failure(f) for f in shown],
            "more_failures": len(sweep.failures) - len(shown),
            "error": _failure(sweep.error) if sweep.error else None,
        }
        if sweep.captured or sweep.failures or sweep.error:
            log.info(
                "sweep: %d session(s) captured (%d new, %d grown), %d failure(s)%s in %.1f s",
                sweep.captured,
                len(sweep.imported),
                len(sweep.updated),
                len(sweep.failures),
                f", the sweep failed: {sweep.error.detail}" if sweep.error else "",
                sweep.seconds,
            )
        self.write()
        self.first.set()

    def failed(self, failure: Failure) -> None:
        self.failures += 1  # (logged by the capture itself)
        if self.first.is_set():
            self.write()  # failures between sweeps show at once; a sweep's, when it ends


def _tell(fd: int | None, message: JsonDict) -> None:
    """One line to the `lazy daemon start` waiting on the ready pipe (if it still is)."""
    if fd is None:
        return
    with contextlib.suppress(OSError):
        os.write(fd, orjson.dumps(message) + b"\n")


def run(home: Path, *, ready_fd: int | None = None, foreground: bool = True) -> int:
    """The daemon, until SIGTERM or SIGINT. Returns its exit status."""
    home = private_dir(Path(os.path.abspath(home)))
    lazy_log = logging.getLogger("lazy")
    lazy_log.setLevel(logging.INFO)
    lazy_log.addHandler(_Log(home / LOG_FILE, detached=not foreground))
    if foreground:
        h = logging.StreamHandler(sys.stderr)
        h.setFormatter(TerminalFormatter("%(asctime)s %(levelname)s %(message)s"))
        lazy_log.addHandler(h)
    pid = pid_file(home)
    try:
        me = pid.acquire()
    except Held as e:
        _tell(ready_fd, {"state": "already", "pid": e.holder.pid, "since": e.holder.started_at})
        log.info(
            "not started: already running (pid %d since %s)", e.holder.pid, e.holder.started_at
        )
        return 0 if ready_fd is not None else 1
    except (OSError, TimeoutError) as e:
        _fail(ready_fd, f"could not take {pid.path}", type(e).__name__, str(e))
        return 1
    _tell(ready_fd, {"state": "started", "pid": me.pid})
    stopping = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopping.set())
    capture: LiveCapture | None = None
    try:
        try:
            Store.open(home).close()  # a store that cannot be opened stops the start, clearly
        except StoreError as e:
            _fail(ready_fd, f"the store cannot be opened: {e.message}", e.code, e.detail)
            return 1
        state = _State(home, me, lambda: capture)
        per = PerThread(home, STORE_CACHE_MIB)

        pusher = SweepPusher(home)

        def swept(sweep: Sweep) -> None:
            state.swept(sweep)
            pusher(sweep)  # a team joined: what the sweep captured is pushed too
            if not pid.owned():  # the pid file was removed or taken: one daemon per store
                holder = pid.holder()
                if holder is not None:
                    log.error("pid %d now holds %s: stopping", holder.pid, pid.path)
                    stopping.set()
                else:  # removed: ours again (its status keeps the new record's nonce)
                    with contextlib.suppress(Held, OSError, TimeoutError):
                        state.me = pid.acquire()
                        state.write()

        capture = LiveCapture(
            home, per.store, index=per.index, on_failure=state.failed, on_sweep=swept
        )
        log.info("started: pid %d, store %s", me.pid, home)
        capture.start()
        while not (state.first.is_set() or stopping.is_set()):
            state.first.wait(0.2)
        if state.first.is_set():
            _tell(ready_fd, {"state": "ready", "status": state.data()})
            log.info("watching %s", ", ".join(state.data()["roots"]) or "nothing yet")
        if ready_fd is not None:
            with contextlib.suppress(OSError):
                os.close(ready_fd)
            ready_fd = None
        while not stopping.wait(0.5):
            pass
        log.info("stopping")
        capture.stop()
        if not capture.join(STOP_GRACE):
            log.warning("a sweep was still running after %.0f s; it is cut short", STOP_GRACE)
        pusher.close()
        state.write(stopped=True)
        return 0
    finally:
        pid.release()
        if ready_fd is not None:
            with contextlib.suppress(OSError):
                os.close(ready_fd)
        log.info("stopped")


def _fail(fd: int | None, reason: str, code: str, detail: str) -> None:
    _tell(fd, {"state": "failed", "reason": reason, "code": code, "detail": detail})
    log.error("%s [%s: %s]", reason, code, detail)


# ---- controlling it ----------------------------------------------------------------------------


def status(home: Path) -> JsonDict:
    """Whether the daemon runs, since when, and what its last sweep did."""
    pid = pid_file(home)
    holder = pid.read()
    running = holder is not None and holder.alive()
    st = read_json(home / STATUS_FILE)
    current = st is not None and holder is not None and st.get("nonce") == holder.nonce
    out: JsonDict = {
        "running": running,
        "pid": holder.pid if running and holder else None,
        "since": holder.started_at if running and holder else None,
        "store": str(home),
        "log": str(home / LOG_FILE),
        "stale_pid": holder.pid if holder is not None and not running else None,
        "sweeps": 0,
        "captured": 0,
        "failures": 0,
        "last_sweep": None,
        "last_failure": None,
        "stopped_at": None,
    }
    if st is not None and (current or not running):
        # running: this run's status; not running: what the last run left
        for key in ("sweeps", "captured", "failures", "last_sweep", "last_failure", "stopped_at"):
            out[key] = st.get(key, out[key])
        if not running:
            out["last_pid"] = st.get("pid")
            out["last_started_at"] = st.get("started_at")
    return out


def start(home: Path, on_started: Callable[[int], None] | None = None) -> JsonDict:
    """Start the daemon detached; returns once it has swept once, or could not start.

    ``{"state": "ready" | "already" | "failed", ...}``."""
    home = private_dir(Path(os.path.abspath(home)))
    holder = pid_file(home).holder()
    if holder is not None:
        return {"state": "already", "pid": holder.pid, "since": holder.started_at}
    r, w = os.pipe()
    logfile = home / LOG_FILE
    with open(logfile, "ab", opener=private_opener) as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "lazy.cli.main", "daemon", "run", "--ready-fd", str(w)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,  # no terminal, no signals from the shell that started it
            pass_fds=(w,),
            cwd=home,
            env={**os.environ, "LAZY_HOME": str(home)},
        )
    os.close(w)
    last: JsonDict = {}
    with os.fdopen(r, "rb") as ready:
        for line in ready:  # until the daemon closes the pipe (or exits)
            with contextlib.suppress(orjson.JSONDecodeError):
                last = orjson.loads(line)
            if last.get("state") == "started" and on_started is not None:
                on_started(int(last["pid"]))
    if last.get("state") == "ready":
        return last
    if last.get("state") in ("already", "failed"):
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)  # it exits right after saying so
        return last
    try:
        code = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        code = None
    return {
        "state": "failed",
        "reason": f"the daemon exited before its first sweep (exit status {code})",
        "code": "DAEMON_EXITED",
        "detail": _tail(logfile),
    }


def _tail(path: Path, lines: int = 15) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.fstat(f.fileno()).st_size - 8192))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def stop(home: Path, timeout: float = 30.0) -> JsonDict:
    """SIGTERM to the daemon, then wait for it to exit and remove its pid file.

    ``{"state": "stopped" | "not-running" | "timeout", ...}``."""
    pid = pid_file(home)
    holder = pid.read()
    if holder is None or not holder.alive():
        stale = pid.remove_stale()
        return {"state": "not-running", "stale_pid": stale.pid if stale else None}
    with contextlib.suppress(ProcessLookupError):
        os.kill(holder.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while holder.alive():
        if time.monotonic() > deadline:
            return {"state": "timeout", "pid": holder.pid}
        time.sleep(0.05)
    pid.remove_stale()  # a clean exit removed it already
    return {"state": "stopped", "pid": holder.pid}
