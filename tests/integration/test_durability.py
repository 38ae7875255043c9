"""Durability of what capture stored (reliability.md §1.1-1.3, test plan A.8, A.11, B.13):
rewrites merge and never delete, stale or truncated copies are refused, a deleted source
leaves its Builder whole, capture is idempotent and incremental, and a kill -9 at any
moment of an import loses and duplicates nothing."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import (
    builder_rows,
    child,
    duplicate_keys,
    import_all,
    integrity,
    message_rows,
    numbering_gaps,
    ro_connect,
    scalar,
    unnumbered,
)

from fabricate.claude import SessionWriter, make_session, session_id, session_path
from lazy.capture.source_file import capture_file
from lazy.store import Store
from lazy.store.queries import list_builders, resolve_builder
from support import poll, stored_line
from support.search import env_for, lazy_json

SID = session_id(1, "durability")
REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("LAZY_CORPUS", REPO.parent / "shared" / "corpus")) / "claude-code"


def _keys(store: Store, sid: str) -> list[str]:
    """The session's message keys in Builder order."""
    bid = resolve_builder(store.conn, sid)
    return [
        r[0]
        for r in store.conn.execute(
            "SELECT key FROM messages WHERE session_id=? AND builder_id=? ORDER BY number",
            (sid, bid),
        )
    ]


def _texts_by_key(store: Store, sid: str) -> dict[str, str]:
    return dict(
        store.conn.execute("SELECT key, text FROM messages WHERE session_id=?", (sid,)).fetchall()
    )


def _log(store: Store) -> list[tuple[Any, ...]]:
    return store.conn.execute("SELECT level, path, session_id, code FROM capture_log").fetchall()


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# ---- rewrites ---------------------------------------------------------------------------------


def test_rewrite_with_a_new_prefix_is_merged_by_id_and_deletes_nothing(
    store: Store, projects: Path
) -> None:
    """Compaction/resume rewrite the file: a shorter version whose head differs."""
    w = SessionWriter(SID)
    w.header()
    turns = [w.turn() for _ in range(6)]
    path = _write(session_path(projects, SID), w.data())
    assert capture_file(store, path).messages_added == 24
    before = _texts_by_key(store, SID)

    summary = b'{"type":"summary","summary":"Reliability checks","leafUuid":"x"}\n'
    new = [w.turn() for _ in range(2)]
    rewritten = summary + b"".join(b"".join(t) for t in turns[3:] + new)
    assert len(rewritten) < path.stat().st_size
    path.write_bytes(rewritten)

    res = capture_file(store, path)
    assert res.status == "captured"
    assert (res.messages_added, res.messages_updated) == (8, 0), res
    generation = scalar(store.conn, "SELECT generation FROM source_files WHERE path=?", str(path))
    assert generation == 1, "the rewrite was not noticed (generation not bumped)"
    after = _texts_by_key(store, SID)
    lost = {k: v for k, v in before.items() if after.get(k) != v}
    assert not lost, f"{len(lost)} stored message(s) deleted or changed by a rewrite"
    assert _keys(store, SID) == w.keys, "Builder order is not the union in conversation order"
    assert not numbering_gaps(store.conn)
    chunks = store.conn.execute("SELECT DISTINCT generation FROM raw_chunks").fetchall()
    assert sorted(chunks) == [(0,), (1,)], "the raw archive of the first version was dropped"


def test_rewrite_that_blanks_every_message_keeps_the_stored_text(
    store: Store, projects: Path
) -> None:
    """claude-code#40352: compaction blanked 4,252 of 4,319 messages in place."""
    w = make_session(SID, 4)
    path = _write(session_path(projects, SID), w.data())
    capture_file(store, path)
    before = message_rows(store.conn)
    blanked = w.data()
    for m in w.messages:
        blanked = blanked.replace(m.text.encode(), b"")
    path.write_bytes(blanked)
    res = capture_file(store, path)
    assert res.status in ("captured", "unchanged"), res
    assert message_rows(store.conn) == before, "a blanked rewrite overwrote stored messages"


# ---- strict-prefix refusal ---------------------------------------------------------------------


def _prefix_cut(w: SessionWriter, turns: int) -> bytes:
    """The file up to the middle of turn ``turns`` (its prompt and first assistant line)."""
    per_turn = 11
    lines = w.lines[: 2 + per_turn * turns + 3]
    return b"".join(lines)


def test_stale_copy_at_another_path_is_refused(store: Store, projects: Path) -> None:
    w = make_session(SID, 5)
    path = _write(session_path(projects, SID), w.data())
    capture_file(store, path)
    rows, builders = message_rows(store.conn), builder_rows(store.conn)

    stale = _write(projects / "-old-copy" / f"{SID}.jsonl", _prefix_cut(w, 2))
    res = capture_file(store, stale)
    assert res.status == "refused", f"a stale strict-prefix copy was not refused: {res}"
    assert res.reason and "strict prefix" in res.reason
    assert ("refused", str(stale), SID, "STRICT_PREFIX") in _log(store)
    assert message_rows(store.conn) == rows and builder_rows(store.conn) == builders
    again = capture_file(store, stale)
    assert again.status == "refused"
    assert _log(store).count(("refused", str(stale), SID, "STRICT_PREFIX")) == 1, (
        "an unchanged refused file is logged again on every pass"
    )


def test_same_path_truncated_to_a_valid_prefix_is_refused(store: Store, projects: Path) -> None:
    w = make_session(SID, 5)
    path = _write(session_path(projects, SID), w.data())
    capture_file(store, path)
    rows = message_rows(store.conn)

    path.write_bytes(_prefix_cut(w, 3))
    res = capture_file(store, path)
    assert res.status == "refused", f"a truncated file shortened the stored conversation: {res}"
    assert ("refused", str(path), SID, "STRICT_PREFIX") in _log(store)
    assert message_rows(store.conn) == rows, "stored messages changed after a refused truncation"

    # Claude Code goes on appending to the truncated file: still never shorter than stored
    path.write_bytes(w.data())
    res = capture_file(store, path)
    assert res.status in ("captured", "unchanged") and res.messages_added == 0, res
    assert message_rows(store.conn) == rows


def test_diverged_copy_is_stored_even_when_shorter(store: Store, projects: Path) -> None:
    w = make_session(SID, 5)
    path = _write(session_path(projects, SID), w.data())
    capture_file(store, path)
    before = _texts_by_key(store, SID)

    # the same first two turns, then a different third one (another branch of the talk)
    prefix = b"".join(w.lines[: 2 + 11 * 2])
    other = SessionWriter(SID, seed=99)
    other.turn(prompt="a different third turn")
    assert len(prefix + other.data()) < path.stat().st_size
    copy = _write(projects / "-branch" / f"{SID}.jsonl", prefix + other.data())

    res = capture_file(store, copy)
    assert res.status == "captured", f"a diverged copy was refused: {res.reason}"
    assert res.messages_added == 4
    after = _texts_by_key(store, SID)
    assert all(after.get(k) == v for k, v in before.items())
    assert "a different third turn" in after.values()
    assert not numbering_gaps(store.conn)


# ---- a deleted source --------------------------------------------------------------------------


def test_builder_stays_readable_after_its_source_is_deleted(
    projects: Path, lazy_home: Path, user_home: Path
) -> None:
    w = make_session(SID, 4)
    path = _write(session_path(projects, SID), w.data())
    report = import_all(lazy_home, user_home, projects)
    assert report["imported"] == [SID]
    shown = lazy_json(lazy_home, user_home, "conversations", "show", SID)
    numbers = sorted(n for m in shown["messages"] for n in (m["number"], *m["absorbed"]))
    assert numbers == list(range(1, 17))

    shutil.rmtree(path.parent)  # the 30-day sweep
    again = import_all(lazy_home, user_home, projects)
    assert again["found"] == 0
    assert lazy_json(lazy_home, user_home, "conversations", "show", SID) == shown, (
        "the transcript changed after its source file was deleted"
    )
    listed = lazy_json(lazy_home, user_home, "conversations", "--all-projects")
    assert [b["id"] for b in listed["builders"]] == [SID]
    with Store.open(lazy_home) as store:
        rows = message_rows(store.conn)
        assert capture_file(store, path).status == "missing"
        assert message_rows(store.conn) == rows


# ---- idempotency and incremental reads ----------------------------------------------------------


def test_capture_is_idempotent(store: Store, projects: Path) -> None:
    w = make_session(SID, 5)
    path = _write(session_path(projects, SID), w.data())
    first = capture_file(store, path)
    assert first.messages_added == 20
    rows, builders = message_rows(store.conn), builder_rows(store.conn)
    entries = scalar(store.conn, "SELECT COUNT(*) FROM entries")

    assert capture_file(store, path).status == "unchanged"
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # touched, not changed
    res = capture_file(store, path)
    assert (res.messages_added, res.messages_updated) == (0, 0), res
    copy = _write(projects / "-copy" / f"{SID}.jsonl", w.data())  # the same session elsewhere
    res = capture_file(store, copy)
    assert (res.messages_added, res.messages_updated) == (0, 0), res
    assert message_rows(store.conn) == rows, "re-capturing the same bytes changed messages"
    assert builder_rows(store.conn) == builders
    assert scalar(store.conn, "SELECT COUNT(*) FROM entries") == entries
    assert not duplicate_keys(store.conn)


def _stage_corpus(dest: Path) -> int:
    """Copy the real Claude Code files of the shared corpus, if present."""
    if not CORPUS.is_dir():
        return 0
    n = 0
    for src in sorted(CORPUS.rglob("*.jsonl")):
        rel = src.relative_to(CORPUS)
        target = dest / "corpus" / "__".join(rel.parts[:-1]).replace("/", "-") / rel.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        n += 1
    return n


def test_cli_import_all_twice_is_idempotent(
    projects: Path, lazy_home: Path, user_home: Path
) -> None:
    for i in range(4):
        w = make_session(session_id(i, "idem"), 3 + i)
        _write(session_path(projects, w.session_id), w.data())
    real = _stage_corpus(projects)
    first = import_all(lazy_home, user_home, projects)
    assert len(first["imported"]) >= 4 and first["messages_added"] > 0
    with Store.open(lazy_home) as store:
        rows, builders = message_rows(store.conn), builder_rows(store.conn)
    second = import_all(lazy_home, user_home, projects)
    assert (second["imported"], second["updated"], second["messages_added"]) == ([], [], 0), (
        f"a second `import-conversation --all` changed something: {second}"
    )
    with Store.open(lazy_home) as store:
        assert message_rows(store.conn) == rows, "message rows differ after a second import"
        assert builder_rows(store.conn) == builders
        assert not duplicate_keys(store.conn)
        assert integrity(store.conn) == "ok"
    assert real == 0 or len(rows) > 1000, "the real corpus files were not imported"


def test_incremental_capture_reads_only_the_appended_bytes(store: Store, projects: Path) -> None:
    w = make_session(SID, 120, pad=24_000)
    path = _write(session_path(projects, SID), w.data())
    assert path.stat().st_size > 3_000_000
    capture_file(store, path)
    n = len(w.messages)

    line = w.user("one more line at the end of a big file")
    with path.open("ab") as f:
        f.write(line)
    res = capture_file(store, path)
    assert res.status == "captured"
    assert res.bytes_read == len(line), (
        f"read {res.bytes_read} bytes to pick up a {len(line)}-byte append"
    )
    assert (res.messages_added, res.messages_updated) == (1, 0)
    last = stored_line(store.conn, resolve_builder(store.conn, SID))[-1]
    assert (last.number, last.text) == (n + 1, w.messages[-1].text)
    assert _keys(store, SID) == w.keys


# ---- kill -9 during an import -------------------------------------------------------------------

# Capture batch size in the children: a ~200 KB file is then read in several batches, as a
# file past the real batch size would be.
SMALL_BATCH = 64 * 1024
SESSIONS = 60

Reference = tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]


@pytest.fixture(scope="module")
def big_source(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Reference]]:
    """SESSIONS sessions (~12 MB) in three projects, and a clean import of them."""
    root = tmp_path_factory.mktemp("kill-source")
    projects = root / "projects"
    for i in range(SESSIONS):
        w = make_session(session_id(i, "kill"), 10 + i % 7, pad=3000 + 500 * (i % 5))
        _write(session_path(projects, w.session_id, cwd=f"/home/dev/p{i % 3}"), w.data())
    clean_home = root / "clean"
    report = import_all(clean_home, root / "user", projects)
    assert len(report["imported"]) == SESSIONS
    with Store.open(clean_home) as store:
        ref = message_rows(store.conn), builder_rows(store.conn)
    yield projects, ref
    shutil.rmtree(root, ignore_errors=True)


def _cursor_problems(conn: sqlite3.Connection) -> list[str]:
    """A file's cursor must sit exactly at the end of what its raw chunks archived."""
    bad = []
    for path, offset, gen, status in conn.execute(
        "SELECT path, read_offset, generation, status FROM source_files"
    ).fetchall():
        end = conn.execute(
            "SELECT COALESCE(MAX(end), 0) FROM raw_chunks c JOIN source_files f ON f.id = c.file_id"
            " WHERE f.path = ? AND c.generation = ?",
            (path, gen),
        ).fetchone()[0]
        if status == "ok" and end != offset:
            bad.append(f"{path}: read_offset {offset} but archived up to {end}")
        if status == "ok" and os.path.exists(path) and offset > os.path.getsize(path):
            bad.append(f"{path}: read_offset {offset} beyond the file's end")
    return bad


def _short_files(conn: sqlite3.Connection) -> list[tuple[str, int, int]]:
    """Files the store has read only part of: (path, read_offset, size on disk)."""
    out = []
    for path, offset in conn.execute("SELECT path, read_offset FROM source_files").fetchall():
        try:
            size = os.path.getsize(path)
        except OSError:
            continue
        if offset < size:
            out.append((path, offset, size))
    return out


def _assert_consistent(home: Path, total: int, where: str) -> int:
    """What a kill left: an intact store, no duplicate, cursors matching the archive."""
    conn = ro_connect(home)
    if conn is None:
        return 0  # killed before the store was created
    try:
        assert integrity(conn) == "ok", f"store damaged by a kill {where}"
        assert not duplicate_keys(conn), f"duplicate messages after a kill {where}"
        assert not _cursor_problems(conn), f"{where}: {_cursor_problems(conn)}"
        n = int(scalar(conn, "SELECT COUNT(*) FROM messages"))
        assert n <= total, f"{n} messages stored after a kill {where}, the files hold {total}"
        return n
    except sqlite3.OperationalError as e:
        if "no such table" in str(e):
            return 0  # killed while the schema was being created
        raise
    finally:
        conn.close()


def _kill_after_files(
    procs: list[subprocess.Popen[str]], argv: list[str], env: dict[str, str], files: int
) -> bool:
    """Start an import-progress child and SIGKILL it once it reports ``files`` files done.
    True when it was killed there rather than having finished."""
    p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    procs.append(p)
    assert p.stdout is not None
    done = 0
    while done < files:
        line = p.stdout.readline()  # paced by the child's own progress
        if not line or line.startswith("{"):
            break  # it finished (or died) first
        done += 1
    killed = done == files and p.poll() is None
    if killed:
        os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=60)
    if not killed:
        err = p.stderr.read() if p.stderr else ""
        assert p.returncode == 0, f"the import died by itself: {err}"
    return killed


def _kill_once_committed(
    procs: list[subprocess.Popen[str]], argv: list[str], env: dict[str, str], home: Path, total: int
) -> bool:
    """Start an import and SIGKILL it once all its messages are committed but it is still
    running (regrouping Builders). True when it was killed there."""
    p = subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    procs.append(p)

    def committed() -> bool:
        if p.poll() is not None:
            return True
        conn = ro_connect(home)
        if conn is None:
            return False
        try:
            return int(scalar(conn, "SELECT COUNT(*) FROM messages")) >= total
        except sqlite3.OperationalError:
            return False
        finally:
            conn.close()

    poll(committed, timeout=120, what="the import to commit every message")
    killed = p.poll() is None
    if killed:
        os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=60)
    return killed


def test_kill_9_during_import_loses_and_duplicates_nothing(
    big_source: tuple[Path, Reference], tmp: Path, procs: list[subprocess.Popen[str]]
) -> None:
    """SIGKILL a bulk import after 1, 3, ... files, each run resuming what the last left,
    and once more after its last commit; then `lazy import-conversation --all` must equal a
    clean import.

    Mid-import moments are picked from the child's per-file progress rather than from the
    store's row counts: an import commits about once a second, which hides its progress
    from other connections until then. The last moment is picked from the row counts."""
    projects, (ref_rows, ref_builders) = big_source
    total = len(ref_rows)
    home = tmp / "lazy-home"
    user = tmp / "user-home"
    env = env_for(home, user)
    argv = child("import-progress", str(home), str(projects), str(SMALL_BATCH))
    points = [1, 3, 9, 18, 30, 42, 54]
    kills, progress = 0, []
    for files in points:
        kills += _kill_after_files(procs, argv, env, files)
        progress.append(_assert_consistent(home, total, f"after {files} file(s)"))
    assert kills >= 5, f"only {kills} of {len(points)} runs were still going when killed"
    if _kill_once_committed(procs, argv, env, home, total):
        progress.append(_assert_consistent(home, total, "after the last commit"))

    report = import_all(home, user, projects)
    assert report["skipped"] == [] and report["refused"] == [], report
    with Store.open(home) as store:
        assert integrity(store.conn) == "ok"
        assert not duplicate_keys(store.conn)
        rows = message_rows(store.conn)
        stuck = _short_files(store.conn)
        assert len(rows) == total, (
            f"{len(rows)} messages after re-import, a clean import has {total} (stored after"
            f" each kill: {progress}); files a kill cut short and the re-import never"
            f" finished: {stuck}"
        )
        assert rows == ref_rows, "messages differ from a clean import's"
        assert builder_rows(store.conn) == ref_builders, "Builders differ from a clean import's"
        assert not numbering_gaps(store.conn) and unnumbered(store.conn) == 0
        assert not _cursor_problems(store.conn)
        assert not stuck


def _kill_capture_mid_file(
    procs: list[subprocess.Popen[str]], home: Path, path: Path, env: dict[str, str]
) -> int:
    """Kill a capture of ``path`` (the sidecar's path: one commit per batch) once part of the
    file, not all of it, is stored. Returns the read offset it left."""
    p = subprocess.Popen(
        child("capture", str(home), str(path), "--batch", str(SMALL_BATCH)),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    procs.append(p)
    size = path.stat().st_size

    def part_way() -> int | None:
        conn = ro_connect(home)
        if conn is None:
            return None
        try:
            row = conn.execute(
                "SELECT read_offset FROM source_files WHERE path=?", (str(path),)
            ).fetchone()
        except sqlite3.OperationalError:
            return None
        finally:
            conn.close()
        return row[0] if row is not None and 0 < row[0] < size // 2 else None

    poll(part_way, timeout=60, what="a capture half way through the file")
    assert p.poll() is None, "the capture finished before it could be killed"
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    offset = part_way()
    assert offset is not None, "the kill did not leave the file part read"
    return offset


def test_import_after_a_capture_killed_mid_file_finishes_the_file(
    tmp: Path, projects: Path, lazy_home: Path, user_home: Path, procs: list[subprocess.Popen[str]]
) -> None:
    """The sidecar's capture is killed between two batches of a big file; the next
    `lazy import-conversation --yes` (the plain import, no --all) must finish the file."""
    w = make_session(SID, 150, pad=20_000)
    path = _write(session_path(projects, SID), w.data())
    env = env_for(lazy_home, user_home)
    offset = _kill_capture_mid_file(procs, lazy_home, path, env)
    with Store.open(lazy_home) as store:
        assert integrity(store.conn) == "ok"
        assert 0 < len(message_rows(store.conn)) < len(w.messages)

    report = lazy_json(
        lazy_home,
        user_home,
        "import-conversation",
        "--yes",
        "--all-projects",
        "--source",
        str(projects),
    )
    with Store.open(lazy_home) as store:
        stuck = _short_files(store.conn)
        n = len(message_rows(store.conn))
        assert n == len(w.messages) and not stuck, (
            f"after a capture killed at byte {offset}, `import-conversation --yes` left"
            f" {n} of {len(w.messages)} messages and files unread past: {stuck};"
            f" its report: imported {report['imported']}, updated {report['updated']},"
            f" already imported {report['already_imported']}"
        )
        assert _keys(store, SID) == w.keys


def test_capture_after_a_capture_killed_mid_file_finishes_the_file(
    projects: Path, lazy_home: Path, user_home: Path, procs: list[subprocess.Popen[str]]
) -> None:
    """The sidecar restarts after the kill and captures the same, unchanged file again."""
    w = make_session(SID, 150, pad=20_000)
    path = _write(session_path(projects, SID), w.data())
    offset = _kill_capture_mid_file(procs, lazy_home, path, env_for(lazy_home, user_home))
    with Store.open(lazy_home) as store:
        res = capture_file(store, path)
        assert res.bytes_read == path.stat().st_size - offset, (
            f"the capture after the kill returned {res.status!r} and read {res.bytes_read}"
            f" bytes: the file stays cut at byte {offset} of {path.stat().st_size}"
        )
        assert _keys(store, SID) == w.keys


def test_plain_import_after_a_kill_before_regrouping_shows_every_conversation(
    big_source: tuple[Path, Reference], lazy_home: Path, user_home: Path
) -> None:
    """The state a kill between the last capture and the Builder refresh leaves (every file
    captured, no Builder regrouped): the next plain import must not leave it invisible."""
    projects, (ref_rows, ref_builders) = big_source
    with Store.open(lazy_home) as store:
        for path in sorted(projects.rglob("*.jsonl")):
            capture_file(store, path, regroup=False)
        assert len(message_rows(store.conn)) == len(ref_rows)
    lazy_json(
        lazy_home,
        user_home,
        "import-conversation",
        "--yes",
        "--all-projects",
        "--source",
        str(projects),
    )
    listed = lazy_json(lazy_home, user_home, "conversations", "--all-projects")
    assert len(listed["builders"]) == len(ref_builders), (
        f"{len(listed['builders'])} of {len(ref_builders)} conversations visible after"
        " `lazy import-conversation --yes`: captured sessions were never regrouped"
    )
    with Store.open(lazy_home) as store:
        assert list_builders(store.conn)
        assert unnumbered(store.conn) == 0
