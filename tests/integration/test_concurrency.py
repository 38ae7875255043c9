"""Several lazy processes at once (reliability.md §2.2, test plan A.2 and C.20): capturers
racing a live writer on one growing session, and two imports of the same history."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import IO

import pytest
from harness import (
    LAZY,
    builder_rows,
    child,
    duplicate_keys,
    import_all,
    integrity,
    message_rows,
    numbering_gaps,
    unnumbered,
)

import lazy.capture.source_file as source_file
from fabricate.claude import SessionWriter, make_session, session_id, session_path
from lazy.agents.jsonl import read_complete as real_read_complete
from lazy.capture.source_file import capture_file
from lazy.store import Store
from lazy.store.queries import list_builders, resolve_builder
from support import stored_line
from support.search import env_for

SID = session_id(1, "concurrency")


def _finish(p: subprocess.Popen[str], what: str, timeout: float = 90) -> dict[str, object]:
    out, err = p.communicate(timeout=timeout)
    assert p.returncode == 0, f"{what} exited {p.returncode}\n{err}"
    lines = out.strip().splitlines()
    assert lines, f"{what} printed nothing\n{err}"
    result: dict[str, object] = json.loads(lines[-1])
    assert "error" not in result, f"{what}: {result['error']}\n{result.get('traceback', '')}"
    return result


def test_two_capturers_and_a_live_writer_store_every_message_once(
    tmp: Path, projects: Path, lazy_home: Path, procs: list[subprocess.Popen[str]]
) -> None:
    path = session_path(projects, SID)
    path.parent.mkdir(parents=True)
    done = tmp / "writer-done"
    ready = [tmp / "ready-a", tmp / "ready-b"]
    env = env_for(lazy_home, tmp / "user-home")

    def start(argv: list[str]) -> subprocess.Popen[str]:
        p = subprocess.Popen(
            argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        procs.append(p)
        return p

    capturers = [
        start(child("capture-loop", str(lazy_home), str(path), str(done), str(r))) for r in ready
    ]
    writer = start(
        child("writer", str(lazy_home), str(path), str(done), "16", "3", *map(str, ready))
    )
    wrote = _finish(writer, "the writer")
    stats = [_finish(c, f"capturer {i}") for i, c in enumerate(capturers)]
    keys = wrote["messages"]
    assert isinstance(keys, list) and len(keys) == 16 * 3 * 4

    captured = sum(s["statuses"].get("captured", 0) for s in stats)  # type: ignore[attr-defined]
    assert captured >= 8, f"only {captured} captures stored anything: no race happened {stats}"
    with Store.open(lazy_home) as store:
        assert integrity(store.conn) == "ok"
        assert not duplicate_keys(store.conn), duplicate_keys(store.conn)
        stored = [
            r[0]
            for r in store.conn.execute(
                "SELECT key FROM messages WHERE session_id=? ORDER BY seq", (SID,)
            )
        ]
        assert len(stored) == len(keys), f"{len(stored)} messages stored, the file has {len(keys)}"
        assert stored == keys, "messages stored out of file order"
        line = stored_line(store.conn, resolve_builder(store.conn, SID))
        assert [m.number for m in line] == list(range(1, len(keys) + 1)), (
            "the Builder is not numbered 1..n without gaps"
        )
        assert not numbering_gaps(store.conn) and unnumbered(store.conn) == 0
        offset = store.conn.execute(
            "SELECT read_offset FROM source_files WHERE path=?", (str(path),)
        ).fetchone()[0]
        assert offset == path.stat().st_size == wrote["size"]
    added = sum(int(s["messages_added"]) for s in stats)  # type: ignore[call-overload]
    assert added == len(keys), (
        f"every message is stored once, but the capture results report {added} added of"
        f" {len(keys)}: a capture that lost a race after committing a batch dropped its counts"
    )


def test_two_concurrent_imports_equal_one(
    tmp: Path, projects: Path, procs: list[subprocess.Popen[str]]
) -> None:
    for i in range(30):
        w = make_session(session_id(i, "twice"), 6 + i % 5, pad=2000)
        w.write(session_path(projects, w.session_id, cwd=f"/home/dev/p{i % 4}"))
    ref_home = tmp / "reference"
    report = import_all(ref_home, tmp / "user-home", projects)
    assert len(report["imported"]) == 30
    with Store.open(ref_home) as store:
        ref = message_rows(store.conn), builder_rows(store.conn)

    home = tmp / "lazy-home"
    env = env_for(home, tmp / "user-home")
    argv = [
        LAZY,
        "import-conversation",
        "--all",
        "--all-projects",
        "--source",
        str(projects),
        "--json",
    ]
    runs = []
    for _ in range(2):
        p = subprocess.Popen(
            argv, env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        procs.append(p)
        runs.append(p)
    reports = []
    for i, p in enumerate(runs):
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, f"import {i} failed next to another import:\n{err}"
        assert "Traceback" not in err, err
        reports.append(json.loads(out))
    imported = sorted(reports[0]["imported"] + reports[1]["imported"] + reports[0]["updated"])
    assert len(set(imported)) == 30, "some session was neither imported nor updated by either run"
    with Store.open(home) as store:
        assert integrity(store.conn) == "ok"
        assert not duplicate_keys(store.conn)
        assert message_rows(store.conn) == ref[0], "two imports at once stored other messages"
        assert builder_rows(store.conn) == ref[1], "two imports at once made other Builders"
        assert not numbering_gaps(store.conn) and unnumbered(store.conn) == 0
        assert len(list_builders(store.conn)) == 30


def test_capture_that_loses_a_race_midway_reports_what_it_stored(
    store: Store, lazy_home: Path, projects: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Capture A commits its first batch; before its second, Claude Code appends a turn and
    capture B (another process) stores it, so A's next write conflicts and A retries. What A
    already stored, and the bad line it quarantined, must still be in A's result and log."""
    w = SessionWriter(SID)
    w.header()
    w.turn()
    bad = b'{"type":"user","message":{"role":"user","content":"cut\n'
    first = w.data() + bad
    path = session_path(projects, SID)
    path.parent.mkdir(parents=True)
    path.write_bytes(first)
    w.turn()
    more = w.data()[len(first) - len(bad) :]

    other = Store.open(lazy_home)  # process B's connection
    real = real_read_complete
    state = {"calls": 0, "inside_b": False}
    results_b = []

    def racing(f: IO[bytes], start: int, limit: int = source_file.BATCH) -> bytes:
        if state["inside_b"]:
            return real(f, start, limit)
        state["calls"] += 1
        if state["calls"] == 2:  # A committed its first batch and reads on
            with path.open("ab") as out:
                out.write(more)
            state["inside_b"] = True
            try:
                results_b.append(capture_file(other, path))
            finally:
                state["inside_b"] = False
        return real(f, start, limit)

    monkeypatch.setattr(source_file, "read_complete", racing)
    try:
        res_a = capture_file(store, path)
    finally:
        other.close()
    assert state["calls"] >= 2 and results_b and results_b[0].messages_added == 4, results_b
    stored = store.conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    assert stored == 8
    assert res_a.messages_added == 4, (
        f"capture A stored 4 messages but reports {res_a.messages_added} ({res_a.status!r}):"
        " the retry after the conflict threw away the result of its committed batch"
    )
    bad_line = first.count(b"\n")
    assert [q.line_no for q in res_a.quarantined] == [bad_line], (
        f"line {bad_line} was quarantined by A but A's result does not report it"
    )
    log = store.conn.execute("SELECT reason FROM capture_log WHERE code='BAD_LINE'").fetchall()
    assert any(f"line {bad_line}" in r[0] for r in log), (
        f"no capture-log warning names quarantined line {bad_line}: {log}"
    )
