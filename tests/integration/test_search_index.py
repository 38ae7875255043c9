"""The search index under concurrency, kill -9, damage and a held writer lock (issue 4).

Every message carries a unique token: after the dust settles each token must hit exactly one
document, and the index must hold exactly one document per stored message."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import orjson
import pytest

from lazy.capture.source_file import capture_file
from lazy.index.indexer import STAMP, SearchIndex
from lazy.index.schema import SCHEMA_VERSION
from lazy.index.search import search
from lazy.store import Store
from support.claude_session import Session
from support.search import (
    REBUILDING,
    IndexView,
    Written,
    child,
    env_for,
    last_json,
    lazy_json,
    message_ids,
    poll,
    queued_ids,
    run_lazy,
    write_sessions,
)


def _capture_all(store: Store, written: list[Written]) -> None:
    for w in written:
        capture_file(store, w.path)


def _tokens(written: list[Written]) -> list[str]:
    return [t for w in written for t in w.tokens]


def _assert_exactly_once(home: Path, tokens: list[str]) -> None:
    """One document per placed message, each token in exactly one."""
    view = IndexView(home)
    ids = view.doc_ids()
    dup = [i for i, n in Counter(ids).items() if n > 1]
    assert not dup, f"messages indexed more than once: {dup[:10]}"
    assert set(ids) == message_ids(home)
    counts = view.counts(tokens)
    wrong = {t: n for t, n in counts.items() if n != 1}
    assert not wrong, f"{len(wrong)} tokens not in exactly one document: {list(wrong.items())[:5]}"


def _start(
    procs: list[subprocess.Popen[str]], argv: list[str], env: dict[str, str]
) -> subprocess.Popen[str]:
    p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    procs.append(p)
    return p


def _finish(p: subprocess.Popen[str], what: str) -> dict[str, object]:
    out, err = p.communicate(timeout=90)
    assert p.returncode == 0, f"{what} exited {p.returncode}\n{err}"
    result = last_json(out)
    assert "error" not in result, f"{what}: {result['error']}\n{result.get('traceback')}"
    return result


# ---- 1. two capturers and a searcher --------------------------------------------------------


def test_two_capturers_and_a_searcher_leave_every_message_indexed_once(
    tmp: Path, projects: Path, lazy_home: Path, procs: list[subprocess.Popen[str]]
) -> None:
    own_a = write_sessions(projects, "a", sessions=8, turns=20)
    own_b = write_sessions(projects, "b", sessions=8, turns=20)
    shared = write_sessions(projects, "c", sessions=4, turns=20)
    everything = own_a + own_b + shared
    tokens = _tokens(everything)
    (tmp / "tokens").write_text("\n".join(tokens))
    Store.open(lazy_home).close()  # migrated once, before the race
    env = env_for(lazy_home, tmp / "user-home")
    go, done = tmp / "go", tmp / "done"
    ready = [tmp / "ready-a", tmp / "ready-b", tmp / "ready-s"]
    # the shared files are captured by both, in opposite orders, so they really collide
    a_files = [str(w.path) for w in own_a + shared]
    b_files = [str(w.path) for w in shared[::-1] + own_b]
    cap_a = _start(procs, child("capture", str(lazy_home), str(ready[0]), str(go), *a_files), env)
    cap_b = _start(procs, child("capture", str(lazy_home), str(ready[1]), str(go), *b_files), env)
    searcher = _start(
        procs,
        child("search-loop", str(lazy_home), str(done), str(tmp / "tokens"), str(ready[2])),
        env,
    )
    poll(lambda: all(r.exists() for r in ready), timeout=60, what="the children to start")
    go.touch()
    got_a, got_b = _finish(cap_a, "capturer a"), _finish(cap_b, "capturer b")
    done.touch()
    looked = _finish(searcher, "the searcher")

    assert got_a["messages_added"] + got_b["messages_added"] == len(tokens)  # type: ignore[operator]
    # no token ever had two hits, not even mid-race
    assert looked["most"] == 1, looked
    assert looked["rounds"] >= 2, looked
    with Store.open(lazy_home) as store:
        ix = SearchIndex.open(lazy_home)
        ix.catch_up(store)  # the final catch-up
        status = ix.status(store)
        stored = store.conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    assert stored == len(tokens)
    assert (status.documents, status.lag) == (stored, 0)
    assert queued_ids(lazy_home) == set()
    _assert_exactly_once(lazy_home, tokens)


# ---- 2. kill -9 in the middle of indexing ---------------------------------------------------


def _populated(
    projects: Path, lazy_home: Path, sessions: int, turns: int, *, indexed_first: bool = True
) -> list[str]:
    """Sessions captured; with ``indexed_first`` into an index that was filled (empty)
    before, so catching up drains the queue in batches rather than filling afresh."""
    written = write_sessions(projects, "k", sessions=sessions, turns=turns)
    with Store.open(lazy_home) as store:
        if indexed_first:
            SearchIndex.open(lazy_home).catch_up(store)
        _capture_all(store, written)
    return _tokens(written)


def _assert_consistent_after_kill(lazy_home: Path) -> tuple[int, int]:
    """What survives a kill: no document twice, and every message that left the queue is
    in the index (the queue is only trimmed after the commit that covers it)."""
    view = IndexView(lazy_home)
    ids = view.doc_ids()
    assert len(ids) == len(set(ids)), "a document indexed twice"
    messages, queued = message_ids(lazy_home), queued_ids(lazy_home)
    lost = (messages - queued) - set(ids)
    assert not lost, f"{len(lost)} messages neither indexed nor queued: {sorted(lost)[:10]}"
    assert set(ids) <= messages
    return len(ids), len(queued)


@pytest.mark.parametrize("when", ["after-commits", "at-first-segment", "during-fill"])
def test_kill_during_catch_up_keeps_committed_documents_and_the_queue(
    tmp: Path, projects: Path, lazy_home: Path, procs: list[subprocess.Popen[str]], when: str
) -> None:
    # during-fill: a fresh index is filled from the whole store in one commit; the kill
    # lands before it, between it and the stamp that says so, or after
    fresh = when == "during-fill"
    tokens = _populated(projects, lazy_home, sessions=30, turns=50, indexed_first=not fresh)
    env = env_for(lazy_home, tmp / "user-home")
    p = _start(procs, child("catch-up", str(lazy_home), "100"), env)
    assert p.stdout is not None
    if fresh:
        line = p.stdout.readline()  # the fill's one progress report, before its commit
        assert line.startswith("progress "), line
    elif when == "after-commits":
        # three commits done and their rows dropped from the queue: kill during the next ones
        for _ in range(3):
            line = p.stdout.readline()
            assert line.startswith("progress "), line
    else:
        index = lazy_home / "index"
        poll(
            lambda: index.is_dir() and any(index.glob("*.store")),
            timeout=30,
            what="the first segment file",
            every=0.0005,
        )
    p.kill()
    p.wait()
    assert p.returncode == -9

    indexed, queued = _assert_consistent_after_kill(lazy_home)
    if not fresh:
        assert queued > 0, "the child finished before the kill: nothing was interrupted"
    if when == "after-commits":
        assert indexed >= 300  # the three completed commits
    # a search (this process) sees the committed documents
    assert IndexView(lazy_home).count(tokens[0]) == (1 if indexed else 0)

    with Store.open(lazy_home) as store:
        ix = SearchIndex.open(lazy_home)
        if not fresh:
            assert ix.rebuilt is None, f"a kill must not cost the index: {ix.rebuilt}"
        assert ix.catch_up(store) > 0 or fresh  # the dead child's lock is gone with it
        status = ix.status(store)
    assert (status.documents, status.lag) == (len(tokens), 0)
    _assert_exactly_once(lazy_home, tokens)


def test_kill_during_rebuild_keeps_the_old_index(
    tmp: Path, projects: Path, lazy_home: Path, user_home: Path, procs: list[subprocess.Popen[str]]
) -> None:
    tokens = _populated(projects, lazy_home, sessions=30, turns=50)
    with Store.open(lazy_home) as store:
        SearchIndex.open(lazy_home).catch_up(store)
    before = sorted(IndexView(lazy_home).doc_ids())
    p = _start(
        procs,
        [sys.executable, "-m", "lazy.cli.main", "index", "rebuild"],
        env_for(lazy_home, user_home),
    )
    fresh = poll(
        lambda: next(iter(lazy_home.glob("index.new-*")), None),
        timeout=30,
        what="the rebuild's new index",
        every=0.0005,
    )
    p.kill()
    p.wait()
    assert p.returncode == -9, "the rebuild finished before it could be killed"
    assert fresh.name == f"index.new-{p.pid}"
    assert sorted(IndexView(lazy_home).doc_ids()) == before
    found = lazy_json(lazy_home, user_home, "search", "--all-projects", tokens[-1])
    assert found["total_hits"] == 1
    run_lazy(lazy_home, user_home, "index", "rebuild")
    _assert_exactly_once(lazy_home, tokens)


# ---- 3. a deleted or damaged index ----------------------------------------------------------


def _garbage(path: Path, data: bytes) -> None:
    # replaced, not truncated in place: a file this process still maps must keep its bytes
    # (truncating a mapped file is a SIGBUS for whoever reads it next)
    tmp = path.with_name(path.name + ".garbage")
    tmp.write_bytes(data)
    tmp.replace(path)


def _garbage_segments(index: Path) -> None:
    for f in index.iterdir():
        if f.suffix in (".store", ".idx", ".term", ".pos", ".fast", ".fieldnorm"):
            _garbage(f, b"\x00garbage" * 64)


DAMAGE = {
    "deleted": lambda index: shutil.rmtree(index),
    "garbage meta.json": lambda index: _garbage(index / "meta.json", b"{not json"),
    "garbage segments": _garbage_segments,
    "other schema": lambda index: _garbage(
        index / STAMP, orjson.dumps({"schema": SCHEMA_VERSION + 1})
    ),
    "unreadable stamp": lambda index: _garbage(index / STAMP, b"\xff\xfe"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_index_is_rebuilt_by_the_next_search(
    projects: Path, lazy_home: Path, user_home: Path, damage: str
) -> None:
    written = write_sessions(projects, "d", sessions=4, turns=10)
    tokens = _tokens(written)
    with Store.open(lazy_home) as store:
        _capture_all(store, written)
        SearchIndex.open(lazy_home).catch_up(store)
    assert IndexView(lazy_home).count(tokens[3]) == 1
    DAMAGE[damage](lazy_home / "index")

    p = run_lazy(lazy_home, user_home, "search", "--all-projects", "--json", tokens[3])
    assert REBUILDING in p.stderr, p.stderr
    assert "Traceback" not in p.stderr
    assert orjson.loads(p.stdout)["total_hits"] == 1
    status = lazy_json(lazy_home, user_home, "index", "status")
    assert (status["documents"], status["lag"]) == (len(tokens), 0)
    _assert_exactly_once(lazy_home, tokens)


@pytest.mark.parametrize("damage", ["deleted", "other schema"])
def test_index_status_after_damage_leaves_the_index_complete(
    projects: Path, lazy_home: Path, user_home: Path, damage: str
) -> None:
    """`lazy index status` is the first command after the damage: it must say so, and the
    index must not end up empty-but-current (stamped, with nothing queued)."""
    written = write_sessions(projects, "e", sessions=3, turns=10)
    tokens = _tokens(written)
    with Store.open(lazy_home) as store:
        _capture_all(store, written)
        SearchIndex.open(lazy_home).catch_up(store)
    DAMAGE[damage](lazy_home / "index")

    p = run_lazy(lazy_home, user_home, "index", "status", "--json")
    assert "Traceback" not in p.stderr
    status = orjson.loads(p.stdout)
    assert REBUILDING in p.stderr or status["rebuilt"], (p.stdout, p.stderr)
    # either it rebuilt already, or it says how far behind the index is
    assert status["documents"] + status["lag"] == len(tokens), status
    found = lazy_json(lazy_home, user_home, "search", "--all-projects", tokens[5])
    assert found["total_hits"] == 1
    _assert_exactly_once(lazy_home, tokens)


def test_index_deleted_under_a_running_catch_up(
    tmp: Path, projects: Path, lazy_home: Path, user_home: Path, procs: list[subprocess.Popen[str]]
) -> None:
    """The index vanishes while a process is in the middle of writing it: that process
    must not die with a traceback, and the next search rebuilds and finds everything."""
    tokens = _populated(projects, lazy_home, sessions=10, turns=20)
    hold, release = tmp / "hold", tmp / "release"
    p = _start(
        procs,
        child("catch-up", str(lazy_home), "50", str(hold), str(release)),
        env_for(lazy_home, user_home),
    )
    poll(hold.exists, timeout=30, what="the child's first commit")
    shutil.rmtree(lazy_home / "index")
    release.touch()
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert "error" not in last_json(out), last_json(out)

    s = run_lazy(lazy_home, user_home, "search", "--all-projects", "--json", tokens[-1])
    assert REBUILDING in s.stderr and "Traceback" not in s.stderr
    assert orjson.loads(s.stdout)["total_hits"] == 1
    _assert_exactly_once(lazy_home, tokens)


# ---- 4. the writer lock -----------------------------------------------------------------------


def test_a_held_writer_lock_leaves_others_searching_and_the_queue_drains(
    tmp: Path, projects: Path, lazy_home: Path, procs: list[subprocess.Popen[str]]
) -> None:
    tokens = _populated(projects, lazy_home, sessions=10, turns=50)  # 1000 messages
    hold, release = tmp / "hold", tmp / "release"
    p = _start(
        procs,
        child("catch-up", str(lazy_home), "100", str(hold), str(release)),
        env_for(lazy_home, tmp / "user-home"),
    )
    try:
        poll(hold.exists, timeout=30, what="the child's first commit")
        with Store.open(lazy_home) as store:
            ix = SearchIndex.open(lazy_home)
            t0 = time.monotonic()
            assert ix.catch_up(store) == 0
            assert time.monotonic() - t0 < 5, "catch_up waited for the writer"
            status = ix.status(store)
            assert status.documents == 100  # the holder's one commit
            assert status.lag == len(tokens) - 100
            # searching works on what is committed: the first batch, not the rest
            from lazy.index.search import search

            first = search(ix, store.conn, tokens[0]).total_hits
            last = search(ix, store.conn, tokens[-1]).total_hits
            assert (first, last) == (1, 0)
    finally:
        release.touch()
    result = _finish(p, "the holder")
    assert result["indexed"] == len(tokens)
    assert queued_ids(lazy_home) == set()
    _assert_exactly_once(lazy_home, tokens)


# ---- grouping: a Builder holding all the best messages --------------------------------------


def test_a_builder_with_every_best_message_still_leaves_room_for_others(
    projects: Path, lazy_home: Path
) -> None:
    """Sixty messages of one Builder outrank everything else; the first page still shows
    ``limit`` Builders, found by looking deeper, each with its best messages."""
    heavy = Session(projects, "/w/heavy")
    for i in range(40):
        heavy.turn(f"retention retention {i}", f"retention retention again {i}")
    light = []
    for i in range(12):
        s = Session(projects, f"/w/light{i}")
        s.turn(f"a long prompt about many things, and once about retention ({i})", "ok")
        light.append(s)
    with Store.open(lazy_home) as store:
        for s in [heavy, *light]:
            capture_file(store, s.path)
        ix = SearchIndex.open(lazy_home)
        ix.catch_up(store)
        found = search(ix, store.conn, "retention", limit=10, per_builder=3)
        heavy_builder = store.conn.execute(
            "SELECT builder_id FROM sessions WHERE id=?", (heavy.id,)
        ).fetchone()[0]
    assert found.total_hits == 80 + 12
    assert len(found.groups) == 10
    assert found.groups[0].builder_id == heavy_builder
    assert len(found.groups[0].hits) == 3
    assert [len(g.hits) for g in found.groups[1:]] == [1] * 9
    assert all("retention" in h.snippet for g in found.groups for h in g.hits)
