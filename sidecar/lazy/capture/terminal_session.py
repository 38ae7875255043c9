"""`lazy builder`: Claude Code runs in the terminal while its sessions are captured every
30 seconds, and what went wrong with capture is said once, after Claude Code has exited.

During the run the terminal belongs to Claude Code, so a failing capture has no voice but
the supervisor log; the report afterwards is its voice: each distinct reason once, with its
machine detail, at most five (then how many more), and the commands to check and recover.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from lazy.agents.discovery import Candidate, Discovery
from lazy.capture.bulk_import import plan, run_import
from lazy.capture.discovery import discover_tool
from lazy.index.indexer import SearchIndex
from lazy.os.private import private_dir, private_opener
from lazy.store import Store
from lazy.store.db import StoreError

log = logging.getLogger("lazy.builder")

INTERVAL = 30.0  # seconds between captures while Claude Code runs
SHOWN = 5  # distinct reasons the report lists before it says how many more
WIDTH = 80


@dataclass(frozen=True)
class Failure:
    reason: str  # the prose: what failed
    code: str  # the machine code: an SQLite error name, errno name, exception class
    detail: str = ""  # the underlying error, when one was wrapped

    def text(self) -> str:
        out = f"[builder] {self.reason} [{self.code}]"
        if self.detail and self.detail not in self.reason:
            out += f" (underlying error: {self.detail})"
        return out


@dataclass
class Supervisor:
    """Captures the Claude Code sessions of ``project`` written since ``since`` (epoch s)."""

    home: Path
    project: str
    since: float
    log_path: Path
    failures: dict[tuple[str, str], Failure] = field(default_factory=dict)
    recurrences: int = 0  # failures seen, counting repeats
    ticks: int = 0

    def _fail(self, f: Failure) -> None:
        self.recurrences += 1
        self.failures.setdefault((f.reason, f.code), f)
        self._log(f.text())

    def _log(self, line: str) -> None:
        try:
            private_dir(self.log_path.parent, within=self.home)
            with open(self.log_path, "a", encoding="utf-8", opener=private_opener) as out:
                out.write(f"{datetime.now(UTC).isoformat()} {line}\n")
        except OSError as e:  # the log is a convenience; the report still has the reasons
            log.warning("cannot write the supervisor log %s: %s", self.log_path, e)

    def recent(self, d: Discovery) -> list[str]:
        """Main sessions (one-shots never are) whose file, or a subagent's, changed since
        the launch."""
        floor = self.since - 2  # mtime granularity
        return [
            sid for sid in d.sessions if any(c.mtime_ns / 1e9 >= floor for c in d.files_of(sid))
        ]

    def tick(self) -> None:
        """One capture of this project's recent sessions; a failure is recorded, never
        raised."""
        self.ticks += 1
        try:
            d = discover_tool("claude", None, self.project)
            recent = set(self.recent(d))
            with Store.open(self.home) as store:
                p = plan(store, d)
                todo = [s for s in p.missing + p.behind if s in recent]
                report = run_import(store, d, todo) if todo else None
                if report is not None:
                    for s in report.skipped + report.refused:
                        if not s.reason.startswith("empty"):
                            self._fail(Failure(f"{s.path}: {s.reason}", "capture-error"))
                    for q in report.quarantined:
                        where = f"{q.file}:{q.line}" if q.line else q.file
                        self._fail(Failure(f"{where}: {q.reason}", "bad-line"))
                    self._log(f"captured {len(todo)} session(s): {', '.join(todo)}")
                    try:
                        SearchIndex.open(self.home).catch_up(store)
                    except Exception as e:  # the next sweep or search catches up
                        self._log(f"index not caught up: {e!r}")
        except StoreError as e:
            self._fail(Failure(f"Incremental capture failed: {e.message}", e.code, e.detail))
        except OSError as e:
            code = errno.errorcode.get(e.errno or 0, type(e).__name__)
            self._fail(Failure(f"Incremental capture failed: {e}", code))
        except Exception as e:  # a bug must not take Claude Code's terminal down
            self._fail(Failure(f"Incremental capture failed: {e}", type(e).__name__))

    def launched_session(self) -> str | None:
        """The session this launch ran: the newest main session of the project written since
        the launch. Lazy's one-shots are never it; a file lazy cannot read counts as real."""
        try:
            d = discover_tool("claude", None, self.project)
        except OSError:
            return None
        recent = self.recent(d)
        best: Candidate | None = None
        for sid in recent:
            c = d.sessions[sid]
            if best is None or c.mtime_ns > best.mtime_ns:
                best = c
        return best.session_id if best else None


class Ticker:
    """Runs ``tick`` every ``interval`` seconds on a daemon thread until stopped."""

    def __init__(self, supervisor: Supervisor, interval: float = INTERVAL) -> None:
        self.sup = supervisor
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lazy-builder", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sup.tick()

    def __enter__(self) -> Ticker:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _wrap(line: str, indent: str = "  ") -> list[str]:
    """Lines of at most WIDTH columns, continuations indented twice as far."""
    out: list[str] = []
    words = line.split(" ")
    current = indent
    for w in words:
        candidate = current + ("" if current.strip() == "" else " ") + w
        if len(candidate) > WIDTH and current.strip():
            out.append(current)
            current = indent * 2 + w
        else:
            current = candidate
    out.append(current)
    return out


def report(failures: list[Failure], log_path: Path) -> str:
    """What the terminal is told after Claude Code exits; empty when nothing failed."""
    if not failures:
        return ""
    lines = [
        "Conversation capture failed during this session — some or all of this session's",
        "history may not be in the lazy store, and `lazy builder --resume` may not be able to",
        "resume it:",
    ]
    for f in failures[:SHOWN]:
        lines += _wrap(f.text())
    hidden = len(failures) - SHOWN
    if hidden > 0:
        lines.append(f"  … and {hidden} more reason(s) not shown; the full list is in {log_path}")
    lines += [
        "Check `lazy daemon status`, then `lazy doctor` for details.",
        "`lazy doctor --reimport-conversations` can re-import from the session files on disk.",
    ]
    return "\n".join(lines) + "\n"


def log_path_for(home: Path, started: float) -> Path:
    stamp = datetime.fromtimestamp(started, UTC).strftime("%Y%m%dT%H%M%SZ")
    return home / "builder" / f"{stamp}-{os.getpid()}.log"
