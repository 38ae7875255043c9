"""Capture under bad input (reliability.md §1.2-1.5, test plan A): torn tails, corrupt
lines, huge lines, broken Unicode, empty and conversation-free files, files that vanish or
cannot be read, and a store on a full disk. Every test also checks that nothing else is
lost: the other lines of the file, and the other files of an import."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import resource
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from harness import LAZY, child, import_all, integrity, numbering_gaps, scalar, unzstd

from fabricate.claude import SessionWriter, dumps, make_session, session_id, session_path
from lazy.capture.bulk_import import run_import
from lazy.capture.discovery import discover_tool
from lazy.capture.source_file import capture_file
from lazy.store import Store
from lazy.store.queries import list_builders, resolve_builder
from support import stored_line
from support.search import env_for, lazy_json

SID = session_id(1, "bad-input")


def _texts(store: Store, sid: str) -> list[str]:
    return [m.text for m in stored_line(store.conn, resolve_builder(store.conn, sid))]


def _assert_transcript(store: Store, w: SessionWriter, *, where: str) -> None:
    """The Builder of ``w`` holds exactly its messages, in order, numbered 1..n."""
    bid = resolve_builder(store.conn, w.session_id)
    got = [(m.number, m.role) for m in stored_line(store.conn, bid)]
    want = [(i, m.role) for i, m in enumerate(w.messages, 1)]
    assert got == want, f"{where}: transcript is not the file's {len(want)} messages in order"
    keys = [
        r[0]
        for r in store.conn.execute(
            "SELECT key FROM messages WHERE session_id=? ORDER BY number", (w.session_id,)
        )
    ]
    assert keys == w.keys, f"{where}: stored message keys differ from the file's"
    assert not numbering_gaps(store.conn), f"{where}: numbering gaps {numbering_gaps(store.conn)}"


def _file_row(store: Store, path: Path) -> tuple[int, int, int]:
    row = store.conn.execute(
        "SELECT read_offset, lines_read, generation FROM source_files WHERE path=?", (str(path),)
    ).fetchone()
    assert row is not None, f"{path} has no source_files row"
    return int(row[0]), int(row[1]), int(row[2])


# ---- torn tail ---------------------------------------------------------------------------


@pytest.mark.parametrize("torn", ["user-line", "assistant-continuation"])
def test_truncated_last_line_is_read_once_when_complete(
    store: Store, projects: Path, torn: str
) -> None:
    w = make_session(SID, 3)
    path = session_path(projects, SID)
    head = w.data()
    if torn == "user-line":
        head += w.snapshot()
        line, rest = w.user("the prompt the writer was still writing"), b""
    else:  # thinking line complete, the text line of the same API message torn
        first, line, rest = w.assistant("the answer the writer was still writing", tool="toolu_x")
        head += first
    half = len(line) // 2
    path.parent.mkdir(parents=True)
    path.write_bytes(head + line[:half])

    res = capture_file(store, path)
    assert res.status == "captured"
    assert res.bytes_read == len(head), "capture consumed bytes of the unterminated last line"
    offset, lines, _ = _file_row(store, path)
    assert offset == len(head), (
        f"read_offset {offset} is not the torn line's first byte {len(head)}: the next pass"
        " would skip the rest of the record"
    )
    assert lines == head.count(b"\n")
    assert not res.quarantined, f"a torn tail must wait, not be quarantined: {res.quarantined}"

    with path.open("ab") as f:
        f.write(line[half:] + rest)
    res2 = capture_file(store, path)
    assert res2.status == "captured"
    assert res2.bytes_read == len(line) + len(rest)
    if torn == "user-line":
        assert (res2.messages_added, res2.messages_updated) == (1, 0)
    else:
        assert (res2.messages_added, res2.messages_updated) == (0, 1), (
            "the completed line should extend the message its first line started, not add one"
        )
    res3 = capture_file(store, path)
    assert (res3.status, res3.messages_added, res3.messages_updated) == ("unchanged", 0, 0)
    _assert_transcript(store, w, where="after the torn line was completed")
    assert _texts(store, SID)[-1].endswith("still writing")


# ---- corrupt lines -------------------------------------------------------------------------


def test_invalid_json_mid_file_is_quarantined_and_the_rest_imported(
    store: Store, projects: Path
) -> None:
    w = make_session(SID, 2)
    before = w.data()
    bad = (
        b'{"parentUuid":"0ae44287-6fb8-4325-acd4-934696671e09","isSidechain":false,'
        b'"type":"user","message":{"role":"user","content":"a record cut off he'
    )
    for _ in range(2):
        w.turn()
    after = w.data()[len(before) :]
    path = session_path(projects, SID)
    path.parent.mkdir(parents=True)
    path.write_bytes(before + bad + b"\n" + after)
    bad_line_no = before.count(b"\n") + 1

    res = capture_file(store, path)
    assert res.status == "captured"
    assert [(q.line_no, q.offset) for q in res.quarantined] == [(bad_line_no, len(before))], (
        f"capture result should report line {bad_line_no} of {path} as quarantined"
    )
    assert res.quarantined[0].reason.startswith("invalid JSON"), res.quarantined[0].reason
    rows = store.conn.execute(
        "SELECT path, line_no, byte_offset, reason, raw, raw_size FROM quarantine"
    ).fetchall()
    assert len(rows) == 1, rows
    qpath, line_no, offset, reason, raw, raw_size = rows[0]
    assert (qpath, line_no, offset) == (str(path), bad_line_no, len(before))
    assert reason.startswith("invalid JSON") and "column" in reason, reason
    assert unzstd(raw) == bad and raw_size == len(bad), "quarantine must keep the raw bytes"
    log = store.conn.execute(
        "SELECT level, path, reason, code FROM capture_log WHERE code='BAD_LINE'"
    ).fetchall()
    assert [(lv, p, c) for lv, p, _, c in log] == [("warning", str(path), "BAD_LINE")], log
    assert f"line {bad_line_no}" in log[0][2] and reason in log[0][2], (
        f"the capture log should name line {bad_line_no} and why: {log[0][2]!r}"
    )
    _assert_transcript(store, w, where="lines after the bad one")


def test_spliced_and_nul_prefixed_records_are_recovered(store: Store, projects: Path) -> None:
    """The corruption Claude Code leaves after an unclean shutdown (claude-code#81843): a
    record cut off with the next record on the same line, and a run of NULs before a
    valid record. Test plan A.3 expects every valid record imported, the bad bytes kept."""
    w = SessionWriter(SID)
    w.header()
    w.turn()
    head = w.data()
    spliced = w.user("the record after a truncated splice")
    nul = w.user("the record after a NUL run")
    w.assistant("both records above were recovered")
    tail = w.data()[len(head) + len(spliced) + len(nul) :]
    cut = b'{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"us'
    path = session_path(projects, SID)
    path.parent.mkdir(parents=True)
    path.write_bytes(head + cut + spliced + b"\0" * 4096 + nul + tail)

    res = capture_file(store, path)
    assert res.status == "captured"
    texts = _texts(store, SID)
    missing = [
        t
        for t in ("the record after a truncated splice", "the record after a NUL run")
        if t not in texts
    ]
    assert not missing, (
        f"valid records lost to line-level quarantine in {path}: {missing};"
        f" quarantined: {[(q.line_no, q.reason) for q in res.quarantined]}"
    )
    _assert_transcript(store, w, where="after recovering the spliced and NUL-prefixed records")


# ---- a huge line -----------------------------------------------------------------------------


def test_50mb_line_is_quarantined_with_its_bytes_and_bounded_memory(
    lazy_home: Path, projects: Path
) -> None:
    w = make_session(SID, 2)
    before = w.data()
    payload = base64.b64encode(random.Random(5).randbytes(38 * 1024 * 1024)).decode()
    huge = dumps(
        {
            "parentUuid": None,
            "isSidechain": False,
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_01screenshot",
                        "content": [
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": payload,
                                },
                            }
                        ],
                    }
                ],
            },
            "uuid": "9b1c3d1e-0000-4000-8000-00000000beef",
            "timestamp": "2026-04-18T13:19:12.767Z",
            "sessionId": SID,
        }
    )
    del payload
    for _ in range(2):
        w.turn()
    path = session_path(projects, SID)
    path.parent.mkdir(parents=True)
    with path.open("wb") as f:
        f.write(before)
        f.write(huge)
        f.write(w.data()[len(before) :])
    raw = huge[:-1]
    assert len(raw) > 50 * 1024 * 1024
    line_no = before.count(b"\n") + 1

    proc = subprocess.run(
        child("capture", str(lazy_home), str(path)),
        env=env_for(lazy_home, lazy_home.parent / "user-home"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "error" not in out, out
    assert out["status"] == "captured"
    assert [(q["line_no"], q["size"]) for q in out["quarantined"]] == [(line_no, len(raw))]
    reason = out["quarantined"][0]["reason"]
    assert f"{len(raw):,}" in reason and "bytes" in reason, (
        f"the reason should name the line's size: {reason!r}"
    )
    assert out["messages_added"] == len(w.messages), "the lines around the huge one were lost"
    peak_mb = out["maxrss_kb"] / 1024
    assert peak_mb < 600, f"capturing a 50 MB line peaked at {peak_mb:.0f} MB RSS"

    with Store.open(lazy_home) as store:
        row = store.conn.execute(
            "SELECT line_no, raw_size, raw, reason FROM quarantine WHERE path=?", (str(path),)
        ).fetchone()
        assert row is not None, "the huge line is not in the quarantine table"
        assert (row[0], row[1]) == (line_no, len(raw))
        assert raw.startswith(unzstd(row[2])), "quarantine did not keep the huge line's head"
        # the line itself is kept verbatim in the raw archive, in pieces never held whole
        pieces = store.conn.execute(
            "SELECT data FROM raw_chunks WHERE line_size=? ORDER BY start", (len(raw),)
        ).fetchall()
        kept = b"".join(unzstd(p[0]) for p in pieces)
        assert len(pieces) > 1 and hashlib.sha256(kept).digest() == hashlib.sha256(huge).digest(), (
            "the raw archive did not keep the huge line's bytes verbatim"
        )
        assert row[3] == reason
        _assert_transcript(store, w, where="around a 50 MB line")
        cols = [r[1] for r in store.conn.execute("PRAGMA table_info(messages)")]
        longest = max(
            scalar(store.conn, f"SELECT MAX(LENGTH({c})) FROM messages") or 0 for c in cols
        )
        assert longest < 1024 * 1024, "base64 from the huge line leaked into a message row"


# ---- broken Unicode ---------------------------------------------------------------------------


def _write_session_with(projects: Path, special: list[bytes]) -> tuple[SessionWriter, Path]:
    """A session with ``special`` lines (already-built user lines) between two turns."""
    w = make_session(SID, 1)
    lines = w.data()
    lines += b"".join(special)
    lines += b"".join(w.turn())
    path = session_path(projects, SID)
    path.parent.mkdir(parents=True)
    path.write_bytes(lines)
    return w, path


def _user_line(w: SessionWriter, text: str, patch: Callable[[bytes], bytes]) -> bytes:
    line = w.user(text)
    w.lines[-1] = patch(line)
    return w.lines[-1]


def test_invalid_utf8_is_imported_with_replacement_and_reported(
    store: Store, projects: Path
) -> None:
    w = make_session(SID, 1)
    head = w.data()
    latin1 = _user_line(w, "café au lait", lambda b: b.replace("café".encode(), b"caf\xe9"))
    overlong = _user_line(w, "slash OVERLONG here", lambda b: b.replace(b"OVERLONG", b"\xc0\xaf"))
    w.turn()
    path = session_path(projects, SID)
    path.parent.mkdir(parents=True)
    path.write_bytes(w.data())
    assert b"caf\xe9 au" in latin1 and b"\xc0\xaf" in overlong

    res = capture_file(store, path)
    assert res.status == "captured"
    texts = _texts(store, SID)
    assert "caf\ufffd au lait" in texts, "invalid UTF-8 byte not imported as U+FFFD"
    assert any(t.startswith("slash \ufffd") and t.endswith(" here") for t in texts), texts
    n = head.count(b"\n")
    reported = {q.line_no: q.reason for q in res.quarantined}
    assert set(reported) == {n + 1, n + 2}, f"invalid UTF-8 lines not reported: {reported}"
    assert all("invalid UTF-8" in r and "U+FFFD" in r for r in reported.values()), reported
    raws = dict(store.conn.execute("SELECT line_no, raw FROM quarantine").fetchall())
    assert unzstd(raws[n + 1]) == latin1[:-1], "the raw bytes of the repaired line are lost"
    _assert_transcript(store, w, where="after invalid UTF-8")


def test_escaped_lone_surrogate_is_imported_with_replacement_and_reported(
    store: Store, projects: Path, lazy_home: Path, user_home: Path
) -> None:
    w = make_session(SID, 1)
    n = w.data().count(b"\n")
    _user_line(w, "cut emoji SURR here", lambda b: b.replace(b"SURR", b"\\ud83d"))
    _user_line(w, "whole emoji PAIR here", lambda b: b.replace(b"PAIR", b"\\ud83d\\ude00"))
    w.turn()
    path = session_path(projects, SID)
    path.parent.mkdir(parents=True)
    path.write_bytes(w.data())

    res = capture_file(store, path)
    assert res.status == "captured"
    texts = _texts(store, SID)
    assert "cut emoji \ufffd here" in texts, "lone surrogate not replaced by U+FFFD"
    assert "whole emoji \U0001f600 here" in texts, "a valid surrogate pair was damaged"
    assert [(q.line_no, "surrogate" in q.reason) for q in res.quarantined] == [(n + 1, True)], (
        f"only the lone surrogate's line should be reported: {res.quarantined}"
    )
    _assert_transcript(store, w, where="after a lone surrogate")
    shown = lazy_json(lazy_home, user_home, "conversations", "show", SID)
    assert "cut emoji \ufffd here" in [m["text"] for m in shown["messages"]]


def test_line_separators_inside_strings_do_not_split_records(store: Store, projects: Path) -> None:
    seps = "\u2028 \u2029 \x85 \x0b \x0c \x1c \x1d \x1e \r"
    w = make_session(SID, 1)
    _user_line(w, f"raw [{seps}] end", lambda b: b)
    _user_line(w, "escaped [ESC] end", lambda b: b.replace(b"ESC", b"\\u2028\\u2029"))
    w.turn()
    path = session_path(projects, SID)
    path.parent.mkdir(parents=True)
    data = w.data()
    assert "\u2028".encode() in data and b"\xc2\x85" in data
    path.write_bytes(data)

    res = capture_file(store, path)
    assert res.status == "captured"
    assert not res.quarantined, res.quarantined
    _, lines, _ = _file_row(store, path)
    assert lines == data.count(b"\n"), "line count differs from the number of b'\\n'"
    texts = _texts(store, SID)
    assert f"raw [{seps}] end" in texts
    assert "escaped [\u2028\u2029] end" in texts
    _assert_transcript(store, w, where="with U+2028 inside strings")


# ---- files with no conversation ---------------------------------------------------------------


def _no_builders(store: Store, lazy_home: Path, user_home: Path) -> None:
    assert list_builders(store.conn) == []
    assert scalar(store.conn, "SELECT COUNT(*) FROM messages") == 0
    listed = lazy_json(lazy_home, user_home, "conversations", "--all-projects")
    assert listed == {"builders": []}, listed


def test_empty_file_makes_no_builder(
    store: Store, projects: Path, lazy_home: Path, user_home: Path
) -> None:
    path = session_path(projects, SID)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    res = capture_file(store, path)
    assert res.status == "empty"
    assert (res.messages_added, res.bytes_read, res.quarantined) == (0, 0, [])
    _no_builders(store, lazy_home, user_home)
    report = import_all(lazy_home, user_home, projects)
    assert report["imported"] == [] and report["messages_added"] == 0, report
    _no_builders(store, lazy_home, user_home)


def test_file_of_only_snapshots_makes_no_builder(
    store: Store, projects: Path, lazy_home: Path, user_home: Path
) -> None:
    w = SessionWriter(SID)
    for _ in range(5):
        w.snapshot()
    path = session_path(projects, SID)
    path.parent.mkdir(parents=True)
    path.write_bytes(w.data())
    res = capture_file(store, path)
    assert res.status in ("captured", "unchanged", "empty"), res.status
    assert res.messages_added == 0 and not res.quarantined
    _no_builders(store, lazy_home, user_home)
    report = import_all(lazy_home, user_home, projects)
    assert report["imported"] == [], report
    _no_builders(store, lazy_home, user_home)


# ---- files that vanish or cannot be read ----------------------------------------------------


def test_file_deleted_between_discovery_and_read(store: Store, projects: Path) -> None:
    writers = [make_session(session_id(i, "vanish"), 2) for i in range(3)]
    paths = [w.write(session_path(projects, w.session_id)) for w in writers]
    d = discover_tool("claude", [projects], None, default_roots=False)
    assert set(d.sessions) == {w.session_id for w in writers}
    gone = writers[1]
    paths[1].unlink()

    report = run_import(store, d, list(d.sessions))
    assert [(s.session_id, s.path) for s in report.skipped] == [(gone.session_id, str(paths[1]))]
    assert "[ENOENT]" in report.skipped[0].reason, report.skipped[0].reason
    assert sorted(report.imported) == sorted(w.session_id for w in writers if w is not gone)
    log = store.conn.execute("SELECT level, path, session_id, code FROM capture_log").fetchall()
    assert log == [("error", str(paths[1]), gone.session_id, "ENOENT")], log
    for w in writers:
        if w is not gone:
            _assert_transcript(store, w, where=f"other files of the import ({w.session_id})")
    assert capture_file(store, paths[1]).status == "missing"


def test_unreadable_file_is_an_error_with_eacces(tmp: Path, projects: Path) -> None:
    """As root permissions do not stop reads, so the capture runs in a child that drops to
    uid 65534 (nobody) before opening the store; the store dir is nobody's."""
    w = make_session(SID, 2)
    path = w.write(session_path(projects, SID))
    home = tmp / "nobody-home"
    home.mkdir()
    args = child("capture", str(home), str(path))
    if os.geteuid() == 0:
        tmp.chmod(0o755)  # mkdtemp made it 0700: nobody could not reach the store
        for p in (tmp / "claude", projects, path.parent):
            p.chmod(0o755)
        os.chown(home, 65534, 65534)
        path.chmod(0o600)
        args += ["--drop-to", "65534"]
    else:
        path.chmod(0o000)
    proc = subprocess.run(
        args, env=env_for(home, tmp / "user-home"), capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out.get("status"), out.get("code")) == ("error", "EACCES"), out
    with Store.open(home) as store:
        log = store.conn.execute("SELECT level, path, code, detail FROM capture_log").fetchall()
        assert [(lv, p, c) for lv, p, c, _ in log] == [("error", str(path), "EACCES")], log
        assert "Permission denied" in log[0][3]
        assert list_builders(store.conn) == []


# ---- a full disk ---------------------------------------------------------------------------------


def _fsize_limit(limit: int) -> Callable[[], None]:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    return apply


def _assert_store_clean_after_failure(lazy_home: Path, w: SessionWriter, path: Path) -> None:
    with Store.open(lazy_home) as store:
        assert integrity(store.conn) == "ok"
        assert scalar(store.conn, "SELECT COUNT(*) FROM messages") == 0, (
            "a partial session is visible"
        )
        assert scalar(store.conn, "SELECT COUNT(*) FROM raw_chunks") == 0
        offset = scalar(store.conn, "SELECT read_offset FROM source_files WHERE path=?", str(path))
        assert offset in (None, 0), f"read_offset {offset} advanced past rows never written"
        assert list_builders(store.conn) == []
        res = capture_file(store, path)
        assert res.status == "captured" and res.messages_added == len(w.messages), res
        _assert_transcript(store, w, where="after the disk had room again")


def test_full_disk_is_a_clear_error_and_leaves_no_partial_session(
    lazy_home: Path, projects: Path
) -> None:
    w = make_session(SID, 60, pad=20_000)  # ~1.3 MB of text: more than the limit allows
    path = w.write(session_path(projects, SID))
    Store.open(lazy_home).close()
    limit = (lazy_home / "store.db").stat().st_size + 256 * 1024

    proc = subprocess.run(
        child("capture", str(lazy_home), str(path), "--fsize-limit", str(limit)),
        env=env_for(lazy_home, lazy_home.parent / "user-home"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    err = out.get("error")
    assert err is not None, f"capture succeeded past a {limit}-byte file size limit: {out}"
    assert err["type"] == "StoreError", f"a raw {err['type']} escaped instead of StoreError: {err}"
    assert "the disk is full" in err["message"] and "store.db" in err["message"], err
    assert err["code"] and err["detail"], f"no machine code/detail kept: {err}"
    assert f"[{err['code']}: {err['detail']}]" in err["str"]
    _assert_store_clean_after_failure(lazy_home, w, path)


def test_full_disk_during_cli_import_is_a_clear_error(
    lazy_home: Path, user_home: Path, projects: Path
) -> None:
    w = make_session(SID, 60, pad=20_000)
    path = w.write(session_path(projects, SID))
    Store.open(lazy_home).close()
    limit = (lazy_home / "store.db").stat().st_size + 256 * 1024
    proc = subprocess.run(
        [
            LAZY,
            "import-conversation",
            "--all",
            "--all-projects",
            "--source",
            str(projects),
            "--json",
        ],
        env=env_for(lazy_home, user_home),
        cwd=user_home,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=_fsize_limit(limit),
    )
    assert proc.returncode != 0, f"import reported success on a full disk: {proc.stdout}"
    assert "Traceback" not in proc.stderr, f"a traceback instead of a message:\n{proc.stderr}"
    assert "the disk is full" in proc.stderr and "store.db" in proc.stderr, proc.stderr
    _assert_store_clean_after_failure(lazy_home, w, path)


def test_full_disk_mid_file_then_capture_completes_the_file(
    lazy_home: Path, projects: Path
) -> None:
    """A file read in several batches (past 64 MB; here a small batch size stands in) hits a
    full disk after some batches committed: once space frees, capture must finish it."""
    w = make_session(SID, 60, pad=20_000)
    path = w.write(session_path(projects, SID))
    Store.open(lazy_home).close()
    limit = (lazy_home / "store.db").stat().st_size + 1024 * 1024
    proc = subprocess.run(
        child(
            "capture",
            str(lazy_home),
            str(path),
            "--fsize-limit",
            str(limit),
            "--batch",
            str(128 * 1024),
        ),
        env=env_for(lazy_home, lazy_home.parent / "user-home"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out.get("error", {}).get("type") == "StoreError", out
    with Store.open(lazy_home) as store:
        assert integrity(store.conn) == "ok"
        offset = scalar(store.conn, "SELECT read_offset FROM source_files WHERE path=?", str(path))
        assert offset is not None and 0 < offset < path.stat().st_size, (
            f"expected some batches committed before the disk filled (read_offset {offset})"
        )
        res = capture_file(store, path)
        assert res.messages_added + res.messages_updated > 0, (
            f"capture after the disk freed returned {res.status!r} and read {res.bytes_read}"
            f" bytes: the file stays cut at byte {offset} of {path.stat().st_size}"
        )
        _assert_transcript(store, w, where="after a full disk cut a multi-batch capture short")
