"""`lazy import codex|opencode` on damaged sources, run as a user runs it (a child process,
bounded by a timeout): what cannot be read is reported by file (and line), everything else
is imported, and nothing hangs."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import LAZY

from fabricate.codex import Rollout
from fabricate.opencode import create_db, oc_conv, write_oldest_tree, write_v1_tree
from support.search import env_for

TIMEOUT_S = 20  # far above a healthy run (about a second): reaching it means a hang


@pytest.fixture
def homes(tmp: Path) -> dict[str, Path]:
    return {
        "lazy": tmp / "lazy-home",
        "user": tmp / "user-home",
        "codex": tmp / "codex-home",
        "xdg": tmp / "xdg",
    }


def run_lazy(homes: dict[str, Path], *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    env = env_for(
        homes["lazy"],
        homes["user"],
        CODEX_HOME=str(homes["codex"]),
        XDG_DATA_HOME=str(homes["xdg"]),
    )
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [LAZY, *args],
            env=env,
            cwd=homes["user"],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as e:  # subprocess.run has killed and reaped the child
        pytest.fail(f"`lazy {' '.join(args)}` still running after {TIMEOUT_S}s (a hang): {e}")
    return proc, time.monotonic() - start


def imported(homes: dict[str, Path], tool: str, *args: str) -> dict[str, Any]:
    proc, _ = run_lazy(homes, "import", tool, "--json", *args)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def contents(homes: dict[str, Path]) -> list[str]:
    con = sqlite3.connect(f"file:{homes['lazy'] / 'store.db'}?mode=ro", uri=True)
    try:
        return [r[0] for r in con.execute("SELECT content FROM memories ORDER BY temporal, name")]
    finally:
        con.close()


# ---- Codex --------------------------------------------------------------------------------


def test_corrupt_line_mid_rollout_is_reported_by_file_and_line(homes: dict[str, Path]) -> None:
    r = Rollout(homes["codex"])
    first = r.turn("q1", "a1")
    r.write(b'{"timestamp":"2026-03-01T10:00:30.000Z","type":"response_item","payload":{"ty\n')
    r.turn("q2", "a2")
    r.turn("q3", "a3")
    bad_line = 1 + len(first) + 1  # session_meta, turn one, then the damaged line
    proc, _ = run_lazy(homes, "import", "codex", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert f"{r.path}:{bad_line}: invalid JSON" in proc.stdout
    rep = imported(homes, "codex")
    assert len(rep["quarantined"]) == 1
    q = rep["quarantined"][0]
    assert (q["file"], q["line"]) == (str(r.path), bad_line)
    assert "invalid JSON" in q["reason"]
    assert rep["inserted"] == 6 and rep["errors"] == []
    assert contents(homes) == ["q1", "a1", "q2", "a2", "q3", "a3"]


def test_truncated_last_line_waits_for_its_end(homes: dict[str, Path]) -> None:
    r = Rollout(homes["codex"])
    r.turn("q1", "a1", events=False)
    lines = r.turn_lines("q2", "the second answer", events=False)
    answer = next(i for i, x in enumerate(lines) if b"the second answer" in x)
    whole = b"".join(lines[: answer + 1])
    cut = len(whole) - len(lines[answer]) // 2
    r.write(whole[:cut])  # the answer's line is half written
    rep = imported(homes, "codex")
    assert rep["quarantined"] == [] and rep["errors"] == []
    assert rep["inserted"] == 3
    assert contents(homes) == ["q1", "a1", "q2"]
    r.write(whole[cut:], lines[answer + 1 :])
    rep = imported(homes, "codex")
    assert (rep["inserted"], rep["updated"], rep["skipped"]) == (1, 0, 3)
    assert rep["quarantined"] == []
    assert contents(homes) == ["q1", "a1", "q2", "the second answer"]


def test_dangling_symlink_rollout_is_reported_and_the_rest_imported(
    homes: dict[str, Path],
) -> None:
    good = Rollout(homes["codex"])
    good.turn("q1", "a1")
    good.turn("q2", "a2")
    bad = good.path.with_name(
        "rollout-2026-03-01T11-00-00-019c0000-0000-7000-8000-0000000000aa.jsonl"
    )
    bad.symlink_to(good.path.with_name("deleted-meanwhile.jsonl"))
    rep = imported(homes, "codex")
    assert [s["session_id"] for s in rep["sessions"]] == [good.id]
    assert rep["inserted"] == 4
    reported = [e["path"] for e in rep["errors"]] + [q["file"] for q in rep["quarantined"]]
    assert str(bad) in reported, f"the unreadable rollout is not reported: {rep}"


def test_a_rollout_failing_the_same_way_each_pass_is_one_counted_log_row(
    homes: dict[str, Path],
) -> None:
    """A damaged compressed rollout fails alike on every pass (every daemon sweep, every
    30 s): each report names it, the capture log keeps one row for it, counting the passes."""
    good = Rollout(homes["codex"])
    good.turn("q1", "a1")
    bad = good.path.with_name(
        "rollout-2026-03-01T11-00-00-019c0000-0000-7000-8000-0000000000bb.jsonl.zst"
    )
    bad.write_bytes(b"\x28\xb5\x2f\xfd not a zstd frame past its magic")
    args = ("import-conversation", "--tool", "codex", "--yes", "--all-projects", "--json")

    def logged(sql: str) -> list[tuple[Any, ...]]:
        con = sqlite3.connect(f"file:{homes['lazy'] / 'store.db'}?mode=ro", uri=True)
        try:
            return con.execute(sql, (str(bad),)).fetchall()
        finally:
            con.close()

    for n in (1, 2, 3):
        proc, _ = run_lazy(homes, *args)
        assert proc.returncode == 0, proc.stderr
        rep = json.loads(proc.stdout)
        assert [s["path"] for s in rep["skipped"]] == [str(bad)], rep  # said on every pass
        rows = logged("SELECT level, code FROM capture_log WHERE path=?")
        assert rows == [("error", "EIO")], f"pass {n}: one row, not one a pass: {rows}"
    assert logged("SELECT count, at < last_at FROM capture_log WHERE path=?") == [(3, 1)]


def test_fifo_in_the_rollouts_dir_does_not_hang_the_import(homes: dict[str, Path]) -> None:
    good = Rollout(homes["codex"])
    good.turn("q1", "a1")
    good.turn("q2", "a2")
    fifo = good.path.with_name(
        "rollout-2026-03-01T11-00-00-019c0000-0000-7000-8000-0000000000bb.jsonl"
    )
    os.mkfifo(fifo)
    rep = imported(homes, "codex")  # a blocking open() of the fifo would never return
    assert [s["session_id"] for s in rep["sessions"]] == [good.id]
    assert rep["inserted"] == 4
    reported = [e["path"] for e in rep["errors"]] + [q["file"] for q in rep["quarantined"]]
    assert str(fifo) in reported, f"the fifo is not reported: {rep}"


# ---- OpenCode -----------------------------------------------------------------------------


def oc_tree(homes: dict[str, Path], *sids: str) -> tuple[Path, list[Any]]:
    data = homes["xdg"] / "opencode"
    convs = [oc_conv(sid, cwd=f"/home/u/dev/{sid[-4:]}") for sid in sids]
    write_v1_tree(data, *convs)
    return data, convs


@pytest.mark.parametrize("layout", ["v1", "oldest"])
def test_opencode_part_whose_message_is_missing(homes: dict[str, Path], layout: str) -> None:
    data = homes["xdg"] / "opencode"
    c = oc_conv("ses_missingmsgmissingmsg0001", cwd="/home/u/dev/one")
    other = oc_conv("ses_othersessionothersess02", cwd="/home/u/dev/two")
    if layout == "v1":  # storage/{session,message,part} as OpenCode 1.1 writes it
        write_v1_tree(data, c, other)
        messages = data / "storage" / "message" / c.sid
        part_dir = data / "storage" / "part"
    else:  # project/<dir>/storage/session/{info,message,part}, before migration #1
        root = write_oldest_tree(data, c, other)
        messages = root / "message" / c.sid
        part_dir = root / "part" / c.sid
    info, parts = c.messages[1]  # the first answer: reasoning, text and tool parts
    (messages / f"{info['id']}.json").unlink()
    rep = imported(homes, "opencode")
    by_id = {s["session_id"]: s for s in rep["sessions"]}
    assert by_id[c.sid]["inserted"] == 3  # its other three messages
    assert by_id[other.sid]["inserted"] == 4
    assert f"{c.sid} answer 0" not in contents(homes)
    problems = {q["file"]: q["reason"] for q in rep["quarantined"]}
    want = {
        str(part_dir / info["id"] / f"{p['id']}.json"): (
            f"part {p['id']} names message {info['id']}, which is missing"
        )
        for p in parts
    }
    assert problems == want


def test_opencode_part_file_that_does_not_parse(homes: dict[str, Path]) -> None:
    data, (c,) = oc_tree(homes, "ses_brokenpartbrokenpart0001")
    info, parts = c.messages[3]  # the second answer
    text_part = next(p for p in parts if p["type"] == "text")
    bad = data / "storage" / "part" / info["id"] / f"{text_part['id']}.json"
    lines = bad.read_text().splitlines()
    lines[3] = lines[3].replace(":", "", 1)  # line 4 loses its colon
    bad.write_text("\n".join(lines))
    rep = imported(homes, "opencode")
    (q,) = rep["quarantined"]
    assert q["file"] == str(bad) and q["line"] == 4
    assert rep["inserted"] == 3  # the damaged answer's only text was that part
    assert f"{c.sid} answer 0" in contents(homes)
    # the text report names it too (a dry run reads the sources again; a re-import of an
    # unchanged session does not)
    proc, _ = run_lazy(homes, "import", "opencode", "--dry-run")
    assert f"{bad}:4:" in proc.stdout


def test_opencode_db_that_is_not_a_database(homes: dict[str, Path], tmp: Path) -> None:
    data, (c,) = oc_tree(homes, "ses_besidethebaddbbesideth01")
    db = data / "opencode.db"
    db.write_bytes(b"this is not a database\n" * 300)
    elsewhere = tmp / "other-opencode"
    create_db(elsewhere / "opencode.db", oc_conv("ses_inanotherdatadirinanot01"))
    rep = imported(homes, "opencode", "--source", str(data), "--source", str(elsewhere))
    (q,) = rep["quarantined"]
    assert q["file"] == str(db) and "not a database" in q["reason"]
    assert {s["session_id"] for s in rep["sessions"]} == {
        c.sid,
        "ses_inanotherdatadirinanot01",
    }
    assert rep["inserted"] == 8
    proc, _ = run_lazy(homes, "import", "opencode", "--source", str(data))
    assert proc.returncode == 0 and str(db) in proc.stdout and "not a database" in proc.stdout


@pytest.fixture
def writer_lock() -> Iterator[list[sqlite3.Connection]]:
    held: list[sqlite3.Connection] = []
    yield held
    for con in held:
        con.close()


def test_opencode_db_under_a_write_lock(
    homes: dict[str, Path], tmp: Path, writer_lock: list[sqlite3.Connection]
) -> None:
    data = homes["xdg"] / "opencode"
    create_db(data / "opencode.db", oc_conv("ses_lockedlockedlockedlocke01"), wal=False)
    elsewhere = tmp / "json-opencode"
    write_v1_tree(elsewhere, oc_conv("ses_unlockedunlockedunlocke01"))
    con = sqlite3.connect(data / "opencode.db", isolation_level=None)
    writer_lock.append(con)
    con.execute("BEGIN EXCLUSIVE")  # OpenCode mid-write, on a rollback-journal database
    proc, took = run_lazy(
        homes, "import", "opencode", "--json", "--source", str(data), "--source", str(elsewhere)
    )
    assert proc.returncode == 0, proc.stderr
    assert took < 30  # bounded by the busy timeout, not the writer
    rep = json.loads(proc.stdout)
    assert [s["session_id"] for s in rep["sessions"]] == ["ses_unlockedunlockedunlocke01"]
    assert any(
        q["file"] == str(data / "opencode.db") and "locked" in q["reason"]
        for q in rep["quarantined"]
    ), rep
    con.execute("ROLLBACK")
    rep = imported(homes, "opencode", "--source", str(data))
    assert [s["session_id"] for s in rep["sessions"]] == ["ses_lockedlockedlockedlocke01"]
    assert rep["inserted"] == 4 and rep["quarantined"] == []
