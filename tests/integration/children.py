"""Child programs the integration tests start as separate processes.

    python children.py capture HOME PATH [--fsize-limit BYTES] [--drop-to UID] [--batch BYTES]
    python children.py capture-loop HOME PATH DONE READY
    python children.py writer HOME PATH DONE ROUNDS TURNS READY...
    python children.py import-progress HOME SOURCE BATCH

Each prints one JSON object as its last line on stdout (``import-progress`` first prints
the path of each file it is done with). Processes wait on each other through marker files,
the store's state and these progress lines, polled with deadlines; never by sleeping.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import resource
import signal
import sqlite3
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: fabricate

import lazy.builders.regroup  # noqa: F401  (imported up front: capture_file imports it lazily)
import lazy.capture.source_file as source_file
from fabricate.claude import SessionWriter
from lazy.store import Store, StoreError


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _result(res: source_file.CaptureResult) -> dict[str, Any]:
    return {
        "status": res.status,
        "messages_added": res.messages_added,
        "messages_updated": res.messages_updated,
        "bytes_read": res.bytes_read,
        "reason": res.reason,
        "code": res.code,
        "quarantined": [
            {"line_no": q.line_no, "offset": q.offset, "reason": q.reason, "size": q.raw_size}
            for q in res.quarantined
        ],
    }


def capture(argv: list[str]) -> int:
    home, path = Path(argv[0]), Path(argv[1])
    opts = dict(zip(argv[2::2], argv[3::2], strict=True))
    if "--drop-to" in opts:
        uid = int(opts["--drop-to"])
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    if "--batch" in opts:
        source_file.BATCH = int(opts["--batch"])
    store = Store.open(home)
    if "--fsize-limit" in opts:
        # Disk full, the root-free way: writes past this size fail with EFBIG.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        limit = int(opts["--fsize-limit"])
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    out: dict[str, Any]
    try:
        out = _result(source_file.capture_file(store, path))
    except StoreError as e:
        out = {
            "error": {
                "type": type(e).__name__,
                "str": str(e),
                "message": e.message,
                "code": e.code,
                "detail": e.detail,
            }
        }
    except Exception as e:  # reported, so the test can say what escaped
        out = {"error": {"type": type(e).__name__, "str": str(e)}}
    out["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    _emit(out)
    with contextlib.suppress(sqlite3.Error):
        store.close()
    return 0


def capture_loop(argv: list[str]) -> int:
    """Capture ``path`` over and over until ``done`` exists, then once more."""
    home, path, done, ready = (Path(a) for a in argv[:4])
    statuses: dict[str, int] = {}
    added = 0
    try:
        store = Store.open(home)
        ready.touch()
        while True:
            finished = done.exists()  # read before the capture: the last pass sees every byte
            if path.exists():
                res = source_file.capture_file(store, path)
                statuses[res.status] = statuses.get(res.status, 0) + 1
                added += res.messages_added
            if finished:
                break
        store.close()
    except Exception as e:  # reported as JSON: the test names what escaped
        ready.touch()  # let the writer go on; the test fails on this child's report
        _emit({"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()})
        return 0
    _emit({"statuses": statuses, "messages_added": added})
    return 0


def _read_offset(home: Path, path: Path) -> int:
    db = home / "store.db"
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return -1
    try:
        row = conn.execute(
            "SELECT read_offset FROM source_files WHERE path = ?", (str(path),)
        ).fetchone()
    except sqlite3.OperationalError:
        return -1
    finally:
        conn.close()
    return -1 if row is None else int(row[0])


def writer(argv: list[str]) -> int:
    """Append turns to a session file, as Claude Code does, while others capture it.

    Each round writes some turns in random-sized flushed pieces and then half of the next
    line, and waits (polling the store) until a capturer has stored everything up to that
    half line, so every round really races a capture against a torn tail.
    """
    home, path, done = Path(argv[0]), Path(argv[1]), Path(argv[2])
    rounds, turns = int(argv[3]), int(argv[4])
    ready = [Path(a) for a in argv[5:]]
    deadline = time.monotonic() + 60
    while not all(r.exists() for r in ready):
        if time.monotonic() > deadline:
            _emit({"error": "capturers never became ready"})
            return 1
        time.sleep(0.005)
    rng = random.Random(7)
    w = SessionWriter(path.stem)
    pending = b"".join(w.header())
    offset = 0
    max_wait = 0.0
    with open(path, "ab") as f:
        for _ in range(rounds):
            for _ in range(turns):
                pending += b"".join(w.turn(pad=rng.randint(0, 3000)))
            # keep the last line back, write all before it plus a torn half of it
            cut = pending.rstrip(b"\n").rfind(b"\n") + 1
            line = pending[cut:]
            half = rng.randint(1, len(line) - 2)
            body, pending = pending[:cut] + line[:half], line[half:]
            pos = 0
            while pos < len(body):
                n = rng.randint(1, 8192)
                f.write(body[pos : pos + n])
                f.flush()
                pos += n
            offset += cut
            t0 = time.monotonic()
            while _read_offset(home, path) != offset:
                if time.monotonic() - t0 > 30:
                    _emit({"error": f"no capturer reached offset {offset}"})
                    return 1
                time.sleep(0.002)
            max_wait = max(max_wait, time.monotonic() - t0)
            offset += half
        f.write(pending)
        f.flush()
    done.touch()
    _emit(
        {
            "messages": [m.key for m in w.messages],
            "size": path.stat().st_size,
            "max_wait": max_wait,
        }
    )
    return 0


def import_progress(argv: list[str]) -> int:
    """A bulk import of every session under SOURCE that prints each file's path as it is
    done (run_import's progress callback), so a test can kill it at a chosen file."""
    from lazy.agents.discovery import Candidate
    from lazy.capture.bulk_import import run_import
    from lazy.capture.discovery import discover_tool

    home, source, batch = Path(argv[0]), Path(argv[1]), int(argv[2])
    source_file.BATCH = batch
    store = Store.open(home)
    d = discover_tool("claude", [source], None, default_roots=False)

    def progress(c: Candidate) -> None:
        sys.stdout.write(f"{c.path}\n")
        sys.stdout.flush()

    report = run_import(store, d, list(d.sessions), on_file=progress)
    store.close()
    _emit({"done": True, "messages_added": report.messages_added})
    return 0


def main() -> int:
    cmd, argv = sys.argv[1], sys.argv[2:]
    return {
        "capture": capture,
        "capture-loop": capture_loop,
        "writer": writer,
        "import-progress": import_progress,
    }[cmd](argv)


if __name__ == "__main__":
    sys.exit(main())
