"""`lazy capture --hook` (issue 6): what Claude Code's hooks run. It captures the transcript the
hook's JSON names (and its subagents), indexes what it added, and never fails or holds up
its agent: exit 0 always, nothing on stdout, a bounded run, failures in the store's capture
log or, when the store is unusable, in $LAZY_HOME/hook-failures.log."""

from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from harness import LAZY, ro_connect, scalar

from lazy.capture import hook_entry
from lazy.store import Store
from support.claude_session import Session
from support.search import IndexView, env_for, message_ids, run_lazy, write_sessions

BOUND = 5.0  # seconds a hook may take on a broken store (it must not sit on a busy timeout)


def hook(
    lazy_home: Path, user_home: Path, payload: bytes | dict[str, Any]
) -> subprocess.CompletedProcess[bytes]:
    data = payload if isinstance(payload, bytes) else orjson.dumps(payload)
    return subprocess.run(
        [LAZY, "capture", "--hook"],
        input=data,
        env=env_for(lazy_home, user_home),
        capture_output=True,
        timeout=60,
        check=False,
    )


def event(s: Session, name: str = "Stop") -> dict[str, Any]:
    return {
        "session_id": s.id,
        "transcript_path": str(s.path),
        "cwd": s.cwd,
        "hook_event_name": name,
    }


def capture_log(lazy_home: Path) -> list[tuple[Any, ...]]:
    conn = ro_connect(lazy_home)
    assert conn is not None, "no store"
    with conn:
        return conn.execute(
            "SELECT level, path, session_id, reason, code, detail FROM capture_log ORDER BY id"
        ).fetchall()


def fallback(lazy_home: Path) -> list[dict[str, Any]]:
    path = lazy_home / "hook-failures.log"
    assert path.is_file(), f"no {path}"
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def keys(lazy_home: Path) -> dict[str, list[str]]:
    conn = ro_connect(lazy_home)
    assert conn is not None
    out: dict[str, list[str]] = {}
    with conn:
        for sid, key in conn.execute(
            "SELECT session_id, key FROM messages ORDER BY session_id, seq"
        ):
            out.setdefault(sid, []).append(key)
    return out


def with_subagent(s: Session, agent: str = "a1b2c3d4") -> Path:
    """A subagent file under ``<session dir>/subagents/``, as Claude Code 2.1 writes it."""
    helper = Session(s.path.parent.parent / "scratch", s.cwd, session_id=s.id)
    helper.turn("look at the parser for the subagent", "the parser is fine")
    path = s.path.parent / s.id / "subagents" / f"agent-{agent}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(
        helper.path.read_bytes().replace(
            b'"isSidechain":false', f'"isSidechain":true,"agentId":"{agent}"'.encode()
        )
    )
    return path


def test_a_turn_is_captured_with_its_subagent_as_an_import_would(
    lazy_home: Path, user_home: Path, projects: Path, tmp: Path
) -> None:
    s = Session(projects, "/w/hooked")
    s.turn("first question about hooks", "first answer")
    with_subagent(s)
    p = hook(lazy_home, user_home, event(s))
    assert p.returncode == 0 and p.stdout == b"", p
    s.turn("second question", "second answer")
    p = hook(lazy_home, user_home, event(s, "SessionEnd"))
    assert p.returncode == 0 and p.stdout == b"", p
    by_hook = keys(lazy_home)
    assert len(by_hook[s.id]) == 4 and len(by_hook) == 2  # the main session and its subagent

    fresh = tmp / "fresh"
    run_lazy(fresh, user_home, "import-conversation", "--all", "--all-projects",
             "--source", str(projects), "--yes")  # fmt: skip
    assert by_hook == keys(fresh)
    assert capture_log(lazy_home) == []


def test_a_missing_transcript_is_logged_with_its_path(lazy_home: Path, user_home: Path) -> None:
    gone = "/nowhere/projects/-w-x/0b4c3d2e-1111-2222-3333-444455556666.jsonl"
    p = hook(lazy_home, user_home, {"session_id": "0b4c3d2e", "transcript_path": gone,
                                    "hook_event_name": "Stop"})  # fmt: skip
    assert p.returncode == 0 and p.stdout == b""
    [(level, path, sid, reason, code, _)] = capture_log(lazy_home)
    assert (level, path, sid, code) == ("warning", gone, "0b4c3d2e", "ENOENT")
    assert gone in reason
    # a new session's SessionStart comes before its file exists: nothing to say
    p = hook(lazy_home, user_home, {"session_id": "x", "transcript_path": gone,
                                    "hook_event_name": "SessionStart"})  # fmt: skip
    assert p.returncode == 0 and len(capture_log(lazy_home)) == 1


def test_bad_stdin_is_logged_and_exits_0(lazy_home: Path, user_home: Path) -> None:
    cases = [
        (b"this is not json {", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (orjson.dumps({"session_id": "abc", "hook_event_name": "Stop"}), "no transcript_path"),
        (orjson.dumps({"transcript_path": "/etc/passwd"}), "not a session file"),
        (b"", "not JSON"),
    ]
    for raw, _ in cases:
        p = hook(lazy_home, user_home, raw)
        assert p.returncode == 0 and p.stdout == b"", p
    logged = capture_log(lazy_home)
    assert len(logged) == len(cases)
    for (level, _, _, reason, code, detail), (raw, why) in zip(logged, cases, strict=True):
        assert (level, code) == ("error", "BAD_HOOK_INPUT")
        assert why in reason, reason
        assert detail == raw.decode()


def test_a_damaged_store_costs_the_hook_no_time_and_is_in_the_fallback_log(
    lazy_home: Path, user_home: Path, projects: Path
) -> None:
    s = Session(projects, "/w/broken")
    s.turn("a turn the store cannot take", "lost for now, captured later")
    lazy_home.mkdir()
    (lazy_home / "store.db").write_bytes(b"this is not a database, it is garbage" * 200)
    started = time.monotonic()
    p = hook(lazy_home, user_home, event(s))
    took = time.monotonic() - started
    assert p.returncode == 0 and p.stdout == b"", p
    assert took < BOUND, f"the hook took {took:.1f} s on a damaged store"
    [record] = fallback(lazy_home)
    assert record["path"] == str(s.path) and record["session_id"] == s.id
    assert record["code"] == "SQLITE_NOTADB" and "not a database" in record["detail"]
    assert "store could not be opened" in record["reason"]


def test_a_directory_where_the_store_should_be(
    lazy_home: Path, user_home: Path, projects: Path
) -> None:
    s = Session(projects, "/w/broken")
    s.turn("a turn", "an answer")
    (lazy_home / "store.db").mkdir(parents=True)
    started = time.monotonic()
    p = hook(lazy_home, user_home, event(s))
    assert p.returncode == 0 and p.stdout == b"", p
    assert time.monotonic() - started < BOUND
    [record] = fallback(lazy_home)
    assert record["code"] == "SQLITE_CANTOPEN" and "unable to open" in record["detail"]
    assert record["event"] == "Stop"


def test_a_locked_store_is_given_up_on_and_logged_aside(
    lazy_home: Path, user_home: Path, projects: Path
) -> None:
    """Another process holds the write lock: the hook waits its short busy timeout, not the
    store's minute, and says so where it can (the capture log is locked too)."""
    s = Session(projects, "/w/locked")
    s.turn("a turn while the store is locked", "answer")
    Store.open(lazy_home).close()
    holder = sqlite3.connect(lazy_home / "store.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        p = hook(lazy_home, user_home, event(s))
        took = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert p.returncode == 0 and p.stdout == b"", p
    assert took < 2 * BOUND, f"the hook took {took:.1f} s on a locked store"
    [record] = fallback(lazy_home)
    assert record["code"] == "SQLITE_BUSY" and "busy" in record["reason"]
    assert record["path"] == str(s.path)
    # the next hook, with the store free, captures what the locked one could not
    p = hook(lazy_home, user_home, event(s))
    assert p.returncode == 0 and len(keys(lazy_home)[s.id]) == 2


def test_what_the_hook_adds_is_indexed_when_the_index_is_in_use(
    lazy_home: Path, user_home: Path, projects: Path
) -> None:
    [first] = write_sessions(projects, "hk", sessions=1, turns=2)
    run_lazy(lazy_home, user_home, "import-conversation", "--all-projects", "--source",
             str(projects), "--yes")  # fmt: skip
    run_lazy(lazy_home, user_home, "index", "rebuild")
    s = Session(projects, first.cwd, session_id=first.session_id)
    s.last = None
    s.n = 100  # later timestamps
    s.turn("zqhookedtokenone in the parser", "zqhookedtokentwo and the tests")
    p = hook(lazy_home, user_home, event(s))
    assert p.returncode == 0, p
    view = IndexView(lazy_home)
    assert view.counts(["zqhookedtokenone", "zqhookedtokentwo", first.tokens[0]]) == {
        "zqhookedtokenone": 1,
        "zqhookedtokentwo": 1,
        first.tokens[0]: 1,
    }
    assert set(view.doc_ids()) == message_ids(lazy_home)
    conn = ro_connect(lazy_home)
    assert conn is not None
    with conn:
        assert scalar(conn, "SELECT COUNT(*) FROM index_queue") == 0


def test_a_fresh_index_is_left_to_others(lazy_home: Path, user_home: Path, projects: Path) -> None:
    """No index yet: filling it from the whole store is no job for a hook."""
    s = Session(projects, "/w/noindex")
    s.turn("a turn", "an answer")
    assert hook(lazy_home, user_home, event(s)).returncode == 0
    assert len(keys(lazy_home)[s.id]) == 2
    assert not (lazy_home / "index").exists()


def test_the_budget_interrupts_a_long_capture_and_the_next_hook_finishes_it(
    lazy_home: Path, projects: Path
) -> None:
    """In-process, with a budget far too short for a 20,000-message session: the capture is
    interrupted (what it committed stays), the timeout is logged, and the next hook, with
    the normal budget, captures the rest exactly once."""
    s = Session(projects, "/w/long")
    with s.path.open("ab") as f:
        for i in range(10_000):
            for obj in (
                s.line("user", message={"role": "user", "content": f"question {i} " + "x" * 200}),
                s.line("assistant", message={"id": f"msg_{i}", "type": "message",
                       "role": "assistant", "model": "m",
                       "content": [{"type": "text", "text": f"answer {i}"}]}),
            ):  # fmt: skip
                f.write(orjson.dumps(obj) + b"\n")
    payload = orjson.dumps(event(s))
    done = hook_entry.run(io.BytesIO(payload), lazy_home, budget=0.05, hard=120)
    assert done == "timeout"
    [(level, path, sid, reason, code, detail)] = capture_log(lazy_home)
    assert (level, path, sid, code) == ("error", str(s.path), s.id, "HOOK_TIMEOUT")
    assert "gave up" in reason and "interrupt" in detail.lower()
    done = hook_entry.run(io.BytesIO(payload), lazy_home)
    assert done == "captured"
    assert len(keys(lazy_home)[s.id]) == 20_000


def test_a_hook_regroups_what_an_interrupted_one_captured(lazy_home: Path, projects: Path) -> None:
    """A hook interrupted after its capture committed but before the regrouping (as the
    budget can): the next hook finds nothing new in the file and still puts the session in
    its Builder."""
    from lazy.capture.source_file import capture_file

    s = Session(projects, "/w/regroup")
    s.turn("first question", "first answer")
    with Store.open(lazy_home) as store:
        capture_file(store, s.path, regroup=False, agent="claude")  # committed, not regrouped
        assert scalar(store.conn, "SELECT COUNT(*) FROM builders") == 0
    assert hook_entry.run(io.BytesIO(orjson.dumps(event(s))), lazy_home) == "captured"
    with Store.open(lazy_home) as store:
        assert scalar(store.conn, "SELECT builder_id FROM sessions WHERE id=?", s.id) == s.id
    assert hook_entry.run(io.BytesIO(orjson.dumps(event(s))), lazy_home) == "unchanged"


def test_help_says_where_the_fallback_log_is(lazy_home: Path, user_home: Path) -> None:
    p = run_lazy(lazy_home, user_home, "capture", "--help")
    assert "hook-failures.log" in p.stdout and "exits 0" in p.stdout.replace("\n", " ")
    p = run_lazy(lazy_home, user_home, "capture", ok=False)
    assert p.returncode == 2 and "--hook" in p.stderr


def test_a_hook_that_cannot_finish_exits_0_at_its_hard_bound(lazy_home: Path) -> None:
    """Stuck where nothing can be interrupted (here: a read that never returns): the watchdog
    records why and ends the process, with status 0, at the hard bound (shortened here)."""
    program = f"""
import time
from pathlib import Path
from lazy.capture import hook_entry
class Stuck:
    def isatty(self):
        return False

    def fileno(self):
        raise OSError("not a file")

    def read(self, n):
        time.sleep(600)

hook_entry.run(Stuck(), Path({str(lazy_home)!r}), budget=0.2, hard=1.0)
"""
    started = time.monotonic()
    p = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, timeout=60, check=False
    )
    took = time.monotonic() - started
    assert p.returncode == 0 and p.stdout == b"", p
    assert 1.0 <= took < BOUND
    [record] = fallback(lazy_home)
    assert record["code"] == "HOOK_TIMEOUT" and "did not finish within 1 s" in record["reason"]


def test_stdin_left_open_after_the_json_is_not_waited_on() -> None:
    """Some Claude Code releases keep a hook's stdin open: the JSON is taken once whole, and
    a document that never completes is given up on after the wait."""
    for sent, wait in ((b'{"transcript_path": "/p/x.jsonl", "hook_event_name": "Stop"}', 30.0),
                       (b'{"transcript_path": "/p/x.jsonl",', 0.2)):  # fmt: skip
        r, w = os.pipe()
        try:
            os.write(w, sent)  # and the write end stays open
            with os.fdopen(r, "rb", buffering=0) as stream:
                started = time.monotonic()
                got = hook_entry.read_stdin(stream, wait=wait)
                took = time.monotonic() - started
        finally:
            os.close(w)
        assert got == sent
        if wait > 1:
            assert took < 5 and hook_entry.parse_input(got).event == "Stop"
        else:
            assert took >= wait
            with pytest.raises(hook_entry.BadInput, match="not JSON"):
                hook_entry.parse_input(got)


def test_the_hook_path_does_not_load_pydantic(
    lazy_home: Path, user_home: Path, projects: Path
) -> None:
    """A hook runs after every turn: the surface models (pydantic) cost more to import than the
    capture itself, and the hook has no use for them."""
    s = Session(projects, "/w/light")
    s.turn("a turn", "an answer")
    p = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "lazy.cli.main", "capture", "--hook"],
        input=orjson.dumps(event(s)),
        env=env_for(lazy_home, user_home),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert p.returncode == 0 and len(keys(lazy_home)[s.id]) == 2
    imported = {line.rsplit("|", 1)[-1].strip() for line in p.stderr.decode().splitlines()}
    assert "lazy.capture.source_file" in imported and "tantivy" in imported
    assert not {m for m in imported if m.startswith(("pydantic", "rich"))}
