"""The OpenCode reader on stores shaped like the ones the real CLI writes.

The database is created with the exact DDL OpenCode 1.18.33 runs (copied from a real
opencode.db, see tests/agents/opencode/FINDINGS_opencode.md); the JSON trees are written the
way 1.1.65 writes them (pretty-printed full records) and the oldest per-project layout the
storage migration #1 reads. The synthetic corpus samples cover the drifted legacy shapes.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from fabricate.opencode import (
    CWD,
    T0,
    Conv,
    create_db,
    text,
    tool,
    write_json,
    write_oldest_tree,
    write_v1_tree,
)
from lazy.agents.opencode.db import BUSY_TIMEOUT_S
from lazy.agents.opencode.reader import read
from lazy.agents.opencode.records import Record, SessionRef, iso_ms
from lazy.agents.opencode.storage import list_sessions, load_session
from lazy.blocks import TOOL_OUTPUT_KEPT
from lazy.model import ONESHOT_MARKER, MessagePart, ReadBatch
from support import CORPUS, require

OC_CORPUS = (
    CORPUS / "opencode" / "jazzyalex__agent-sessions" / "Resources" / "Fixtures" / "stage0"
    / "agents" / "opencode"
)  # fmt: skip

PARENT = "ses_dd348188affeNkQB7UR8az74Ne"
CHILD = "ses_dd347ce40ffecknrga15LTC0Is"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(40))).decode()
BIG = "x" * (TOOL_OUTPUT_KEPT + 500)


# ---- building sessions ------------------------------------------------------------------------


def every_part_type() -> tuple[Conv, Conv]:
    """A parent session touching every part type, and the child session its task tool ran."""
    c = Conv(PARENT)
    c.user(
        text("look at this"),
        {
            "type": "file",
            "mime": "image/png",
            "filename": "shot.png",
            "url": f"data:image/png;base64,{PNG}",
        },
        {"type": "file", "mime": "text/plain", "filename": "a.py", "url": f"file://{CWD}/a.py"},
        {"type": "agent", "name": "plan"},
        text("Called the Read tool with the following input: a.py", synthetic=True),
        text("!ls", ignored=True),
    )
    c.assistant(
        {"type": "step-start", "snapshot": "4b825dc6"},
        {"type": "reasoning", "text": "pondering the request", "time": {"start": T0, "end": T0}},
        text("running it", time={"start": T0, "end": T0}),
        tool(
            "bash",
            "toolu_bash1",
            "completed",
            {"command": "echo hi > out.txt", "description": "Write hi"},
            output="(no output)",
            metadata={"output": "(no output)", "exit": 0, "truncated": False},
            title="echo hi > out.txt",
            time={"start": T0, "end": T0},
        ),
        tool("read", "toolu_read1", "error", {"filePath": "/nope"}, error="File not found: /nope"),
        tool(
            "write",
            "toolu_write1",
            "completed",
            {"filePath": "big.txt", "content": BIG},
            output=BIG,
        ),
        tool("bash", "toolu_run1", "running", {"command": "sleep 9"}, time={"start": T0}),
        tool("bash", "toolu_pend1", "pending", {}, raw=""),
        {"type": "patch", "hash": "4b825dc6", "files": [f"{CWD}/out.txt"]},
        {"type": "snapshot", "snapshot": "4b825dc6"},
        {"type": "retry", "attempt": 1, "error": {"name": "APIError"}, "time": {"created": T0}},
        {"type": "step-finish", "reason": "stop", "tokens": {"input": 1}, "cost": 0.1},
    )
    c.user(
        text("delegate this"),
        {"type": "subtask", "agent": "general", "description": "Probe subtask", "prompt": "do it"},
    )
    c.assistant(
        tool(
            "task",
            "toolu_task1",
            "completed",
            {"description": "Probe subtask", "prompt": "do it", "subagent_type": "general"},
            output=f'<task id="{CHILD}" state="completed">\n<task_result>\nchild answer\n</task_result>\n</task>',
            metadata={"parentSessionId": PARENT, "sessionId": CHILD, "truncated": False},
        ),
        finish="tool-calls",
    )
    c.user({"type": "compaction", "auto": True, "overflow": False})
    c.assistant(text("Summary: we wrote out.txt."), summary=True, agent="compaction")
    c.user(text("The user interrupted; continue.", synthetic=True))
    c.assistant({"type": "future-thing", "x": 1}, text("after compaction"))
    child = Conv(CHILD, parent=PARENT, title="Probe subtask (@general subagent)")
    child.info["time"] = {"created": T0 + 30_000, "updated": T0 + 31_000}
    child.user(text("do it"), agent="general")
    child.assistant(text("child answer"), agent="general")
    return c, child


def listed(data_dir: Path) -> dict[str, SessionRef]:
    refs, problems = list_sessions(data_dir)
    assert problems == []
    return {r.session_id: r for r in refs}


def loaded(data_dir: Path, ref: SessionRef) -> tuple[list[Record], ReadBatch]:
    records, problems = load_session(data_dir, ref)
    assert problems == []
    return records, read(records)


def kinds(part: MessagePart) -> list[str]:
    return [b["type"] for b in part.blocks]


# ---- every part type, the database and the JSON tree alike -------------------------------------


def check_parent(batch: ReadBatch, records: list[Record]) -> None:
    parts = batch.parts[PARENT]
    assert len(parts) == 8  # one per message, in message order
    u1, a1, u2, a2, ask, summary, synth, a4 = parts
    assert [p.key for p in parts] == [p.uuid for p in parts]
    assert [r.id for r in records if r.kind == "message"] == [p.key for p in parts]

    assert u1.role == "user" and not u1.meta
    assert u1.blocks == [
        {"type": "text", "text": "look at this"},
        {
            "type": "image",
            "media_type": "image/png",
            "filename": "shot.png",
            "bytes": len(PNG) * 3 // 4,
            "sha256": u1.blocks[1]["sha256"],
        },
        {
            "type": "file",
            "filename": "a.py",
            "media_type": "text/plain",
            "url": f"file://{CWD}/a.py",
        },
        {"type": "agent", "name": "plan"},
    ]  # the synthetic and the ignored text are left out
    assert len(u1.blocks[1]["sha256"]) == 16 and PNG not in str(u1.blocks)
    assert u1.model == "claude-sonnet-4-5" and u1.provider == "anthropic"
    assert u1.agent_mode == "build" and u1.usage is None
    assert u1.timestamp == iso_ms(T0 + 1000) and u1.line_no == 0

    assert a1.role == "assistant" and not a1.meta
    assert kinds(a1) == [
        "thinking",
        "text",
        *("tool_use", "tool_result"),
        *("tool_use", "tool_result"),
        *("tool_use", "tool_result"),
        "tool_use",
        "tool_use",
        "patch",
    ]  # step-start, snapshot, retry, step-finish: no block
    assert a1.blocks[0] == {"type": "thinking", "text": "pondering the request"}
    assert a1.blocks[2] == {
        "type": "tool_use",
        "id": "toolu_bash1",
        "name": "bash",
        "input": {"command": "echo hi > out.txt", "description": "Write hi"},
    }
    assert a1.blocks[3] == {
        "type": "tool_result",
        "tool_use_id": "toolu_bash1",
        "text": "(no output)",
        "is_error": False,
        "exit_code": 0,  # the part's metadata.exit
        "duration_ms": 0,  # its time.end - time.start
    }
    assert a1.blocks[5] == {
        "type": "tool_result",
        "tool_use_id": "toolu_read1",
        "text": "File not found: /nope",
        "is_error": True,
    }
    big_in, big_out = a1.blocks[6], a1.blocks[7]
    assert big_in["input"]["content"].startswith("x" * TOOL_OUTPUT_KEPT + "…")
    assert len(big_in["input"]["content"]) < len(BIG)
    assert len(big_out["text"]) == TOOL_OUTPUT_KEPT and big_out["chars"] == len(BIG)
    assert a1.blocks[8]["id"] == "toolu_run1" and a1.blocks[9]["input"] == {}
    assert a1.blocks[10] == {"type": "patch", "files": [f"{CWD}/out.txt"]}
    assert a1.model == "claude-sonnet-4-5" and a1.provider == "anthropic"
    assert a1.usage == {
        "total": 62,
        "input": 28,
        "output": 34,
        "reasoning": 0,
        "cache": {"write": 0, "read": 0},
    }

    assert u2.blocks[1] == {
        "type": "subtask",
        "agent": "general",
        "description": "Probe subtask",
        "prompt": "do it",
    }
    assert kinds(a2) == ["tool_use", "tool_result"] and a2.blocks[0]["name"] == "task"

    # compaction: the request and its summary answer are harness, not conversation
    assert ask.role == "system" and ask.meta
    assert ask.blocks == [{"type": "compaction", "auto": True}]
    assert summary.role == "system" and summary.meta and summary.agent_mode == "compaction"
    assert summary.blocks == [{"type": "text", "text": "Summary: we wrote out.txt."}]
    assert synth.role == "system" and synth.meta
    assert synth.blocks == [{"type": "text", "text": "The user interrupted; continue."}]

    assert a4.blocks == [{"type": "text", "text": "after compaction"}] and not a4.meta
    assert batch.unknown_types == {"future-thing": 1}

    f = batch.facts[PARENT]
    assert f.cwd == CWD and f.title == "Probe title" and f.version == "1.18.33"
    assert f.provider == "anthropic"
    assert f.first_timestamp == iso_ms(T0 + 1000)
    assert f.last_timestamp is not None and f.last_timestamp > f.first_timestamp
    assert f.first_user_seen and not f.oneshot
    assert f.head_uuid == u1.key and f.tail_uuid == a4.key
    assert batch.spawns == {(PARENT, CHILD)}
    assert PARENT not in batch.sidechain_of
    assert batch.lines == len(records) and batch.quarantine == []


def check_child(batch: ReadBatch) -> None:
    assert batch.sidechain_of == {CHILD: (PARENT, CHILD)}
    parts = batch.parts[CHILD]
    assert [(p.role, p.agent_mode) for p in parts] == [
        ("user", "general"),
        ("assistant", "general"),
    ]
    assert batch.facts[CHILD].title == "Probe subtask (@general subagent)"


def test_database_every_part_type(tmp_path: Path) -> None:
    parent, child = every_part_type()
    data = tmp_path / "opencode"
    create_db(data / "opencode.db", parent, child)
    refs = listed(data)
    assert list(refs) == [PARENT, CHILD]  # oldest first
    ref = refs[PARENT]
    db = str(data / "opencode.db")
    assert ref.location == db and ref.parent_id is None and ref.directory == CWD
    assert (ref.title, ref.version, ref.created_ms) == ("Probe title", "1.18.33", T0)
    assert refs[CHILD].parent_id == PARENT

    records, batch = loaded(data, ref)
    assert [r.kind for r in records[:3]] == ["session", "message", "part"]
    session = orjson.loads(records[0].data)
    assert session["id"] == PARENT and session["directory"] == CWD
    assert session["time"] == {"created": T0, "updated": T0 + 60_000}
    assert session["model"]["providerID"] == "anthropic"  # JSON columns come back as JSON
    assert records[0].origin == f"{db}#session/{PARENT}"
    part = next(r for r in records if r.kind == "part")
    obj = orjson.loads(part.data)
    assert obj["id"] == part.id and obj["sessionID"] == PARENT and obj["messageID"]
    assert part.data == orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    assert part.origin == f"{db}#part/{part.id}"
    check_parent(batch, records)

    _, child_batch = loaded(data, refs[CHILD])
    check_child(child_batch)


def test_json_tree_every_part_type(tmp_path: Path) -> None:
    parent, child = every_part_type()
    data = tmp_path / "opencode"
    write_v1_tree(data, parent, child)
    refs = listed(data)
    assert list(refs) == [PARENT, CHILD]
    path = data / "storage" / "session" / "global" / f"{PARENT}.json"
    assert refs[PARENT].location == str(path)
    records, batch = loaded(data, refs[PARENT])
    assert records[0].data == path.read_bytes()  # verbatim
    assert all(Path(r.origin).is_file() for r in records)
    check_parent(batch, records)
    _, child_batch = loaded(data, refs[CHILD])
    check_child(child_batch)


def test_oldest_layout(tmp_path: Path) -> None:
    parent, child = every_part_type()
    data = tmp_path / "opencode"
    root = write_oldest_tree(data, parent, child)
    refs = listed(data)
    assert refs[PARENT].location == str(root / "info" / f"{PARENT}.json")
    records, batch = loaded(data, refs[PARENT])
    check_parent(batch, records)


def test_database_copy_wins_over_json_left_behind(tmp_path: Path) -> None:
    parent, child = every_part_type()
    only_json = Conv("ses_aaaa00000000only1json")
    only_json.user(text("old question"))
    only_old = Conv("ses_bbbb00000000only1old")
    only_old.user(text("oldest question"))
    data = tmp_path / "opencode"
    create_db(data / "opencode.db", parent, child)
    write_v1_tree(data, parent, child, only_json)  # what the v1.2 migration leaves behind
    write_oldest_tree(data, parent, only_json, only_old)  # what migration #1 left behind
    refs, problems = list_sessions(data)
    assert problems == []
    ids = [r.session_id for r in refs]
    assert sorted(ids) == sorted([PARENT, CHILD, only_json.sid, only_old.sid])  # each once
    by = {r.session_id: r for r in refs}
    assert by[PARENT].location == by[CHILD].location == str(data / "opencode.db")
    assert "/storage/session/global/" in by[only_json.sid].location
    assert "/project/home-u-proj/storage/session/info/" in by[only_old.sid].location
    _, batch = loaded(data, by[only_old.sid])
    assert batch.parts[only_old.sid][0].blocks == [{"type": "text", "text": "oldest question"}]


def test_oneshot_marker_and_empty_session(tmp_path: Path) -> None:
    c = Conv("ses_cccc00000000oneshot01")
    c.user(text(f"{ONESHOT_MARKER} summarize"))
    empty = Conv("ses_dddd00000000empty0001")
    data = tmp_path / "opencode"
    create_db(data / "opencode.db", c, empty)
    refs = listed(data)
    _, batch = loaded(data, refs[c.sid])
    assert batch.facts[c.sid].oneshot and batch.facts[c.sid].first_user_seen
    records, batch = loaded(data, refs[empty.sid])
    assert [r.kind for r in records] == ["session"] and batch.parts == {}
    f = batch.facts[empty.sid]
    assert f.first_timestamp == iso_ms(T0) and not f.first_user_seen


def test_iso_timestamps() -> None:
    assert iso_ms(1796046579574) == "2026-11-30T13:49:39.574Z"
    assert iso_ms(5) == "1970-01-01T00:00:00.005Z"
    assert iso_ms(None) is None and iso_ms("x") is None and iso_ms(10**30) is None


# ---- the corpus (synthetic, drifted shapes) ------------------------------------------------------


def stage_corpus(tmp_path: Path, name: str) -> Path:
    src = OC_CORPUS / name
    require(src.is_dir(), f"corpus missing: {src}")
    data = tmp_path / "opencode"
    shutil.copytree(src, data / "storage")
    return data


def test_corpus_v2_tree(tmp_path: Path) -> None:
    data = stage_corpus(tmp_path, "storage_v2")
    refs = listed(data)
    assert list(refs) == ["s_stage0_small", "s_stage0_large"]
    assert refs["s_stage0_small"].directory == "/tmp/repo"
    assert refs["s_stage0_large"].version == "1.3.17"

    records, batch = loaded(data, refs["s_stage0_small"])
    assert [r.kind for r in records] == ["session", "message", "part", "message", "part", "part"]
    user, answer = batch.parts["s_stage0_small"]
    # part files naming neither session nor message belong to the directory's message
    assert user.role == "user" and user.blocks == [{"type": "text", "text": "Hello"}]
    assert kinds(answer) == ["tool_use", "tool_result", "text"]
    assert answer.blocks[1]["text"] == "a.txt\nb.txt\n"
    assert answer.model == "gpt-4o-mini" and answer.provider == "openai"  # from model{}

    _, batch = loaded(data, refs["s_stage0_large"])
    a1, a2 = batch.parts["s_stage0_large"][1], batch.parts["s_stage0_large"][3]
    assert kinds(a1) == [
        "tool_use",
        "tool_result",
        "file",
        "thinking",
        "compaction",
        "patch",
    ]  # the synthetic text is left out; real content keeps the message conversation
    assert not a1.meta and a1.role == "assistant"
    assert a1.blocks[2] == {
        "type": "file",
        "filename": "error.log",
        "media_type": "text/plain",
        "url": "file:///tmp/large/error.log",
    }
    assert a1.usage == {"input": 120, "output": 16} and a1.agent_mode == "opencode"
    assert a2.blocks == [{"type": "text", "text": "Ok"}]
    f = batch.facts["s_stage0_large"]
    assert f.cwd == "/tmp/large" and f.title == "OpenCode Large" and f.provider == "openai"


def test_corpus_legacy_tree(tmp_path: Path) -> None:
    data = stage_corpus(tmp_path, "storage_legacy")
    refs = listed(data)
    # the file is ses_s_stage0_drift.json; the record's own id is what messages name
    assert list(refs) == ["s_stage0_drift"]
    records, batch = loaded(data, refs["s_stage0_drift"])
    assert [r.kind for r in records] == ["session", "message", "message", "part", "part"]
    user, answer = batch.parts["s_stage0_drift"]
    assert user.blocks == [] and user.model == "gpt-4o-mini" and user.provider == "openai"
    assert answer.blocks == [
        {
            "type": "tool_use",
            "id": "call_legacy_1",
            "name": "bash",
            "input": {"command": "cat README.md", "cwd": "/tmp/drift"},
        },
        {
            "type": "tool_result",
            "tool_use_id": "call_legacy_1",
            "text": "# Title\n\nBody\n",
            "is_error": False,
            "duration_ms": 500,
        },
        {"type": "text", "text": "Read README and extracted the title."},
    ]  # flat part files, "success" status
    assert batch.facts["s_stage0_drift"].version == "0.1"


# ---- change stamps ------------------------------------------------------------------------------


def test_database_stamp_follows_changes(tmp_path: Path) -> None:
    parent, child = every_part_type()
    data = tmp_path / "opencode"
    db = data / "opencode.db"
    create_db(db, parent, child)
    first = listed(data)
    assert listed(data)[PARENT].stamp == first[PARENT].stamp  # same data, same stamp
    con = sqlite3.connect(db)
    try:
        mid = parent.messages[-1][0]["id"]
        con.execute(
            'INSERT INTO part VALUES (\'prt_zzzz\', ?, ?, ?, ?, \'{"type":"text","text":"more"}\')',
            (mid, PARENT, T0 + 99_000, T0 + 99_000),
        )
        con.commit()
        second = listed(data)
        assert second[PARENT].stamp != first[PARENT].stamp
        assert second[CHILD].stamp == first[CHILD].stamp  # untouched
        # an answer completed in place: same rows, same time_updated, longer data
        row = con.execute("SELECT data FROM message WHERE id=?", (mid,)).fetchone()
        grown = json.dumps({**json.loads(row[0]), "finish": "stop-and-more"})
        con.execute("UPDATE message SET data=? WHERE id=?", (grown, mid))
        con.commit()
        assert listed(data)[PARENT].stamp != second[PARENT].stamp
    finally:
        con.close()


def test_json_stamp_follows_changes(tmp_path: Path) -> None:
    parent, child = every_part_type()
    data = tmp_path / "opencode"
    write_v1_tree(data, parent, child)
    first = listed(data)[PARENT].stamp
    assert listed(data)[PARENT].stamp == first
    info, parts = parent.messages[0]
    part_file = data / "storage" / "part" / info["id"] / f"{parts[0]['id']}.json"
    write_json(part_file, {**parts[0], "text": "edited"})
    later = time.time_ns() + 10**9  # an edit within the clock's granularity still shows
    os.utime(part_file, ns=(later, later))
    second = listed(data)[PARENT].stamp
    assert second != first
    write_json(part_file.with_name("prt_zzzz.json"), {**parts[0], "id": "prt_zzzz"})
    assert listed(data)[PARENT].stamp != second  # one more file


# ---- bad input ----------------------------------------------------------------------------------


def test_database_part_without_its_message(tmp_path: Path) -> None:
    parent, child = every_part_type()
    data = tmp_path / "opencode"
    db = data / "opencode.db"
    create_db(db, parent, child)
    con = sqlite3.connect(db)
    try:
        con.execute(
            'INSERT INTO part VALUES (\'prt_orphan\', \'msg_gone\', ?, ?, ?, \'{"type":"text","text":"lost"}\')',
            (PARENT, T0, T0),
        )
        mid = parent.messages[1][0]["id"]
        con.execute("UPDATE message SET data='{\"role\":' WHERE id=?", (mid,))  # torn JSON
        con.commit()
    finally:
        con.close()
    ref = listed(data)[PARENT]
    records, problems = load_session(data, ref)
    reasons = {q.origin: q.reason for q in problems}
    assert (
        reasons[f"{db}#part/prt_orphan"]
        == "part prt_orphan names message msg_gone, which is missing"
    )
    assert "not readable JSON" in reasons[f"{db}#message/{mid}"]
    lost_parts = {p["id"] for p in parent.messages[1][1]}
    for pid in lost_parts:  # the torn message's parts have no message to belong to
        assert f"message {mid}, which is missing" in reasons[f"{db}#part/{pid}"]
    assert not {r.id for r in records} & (lost_parts | {"prt_orphan", mid})
    batch = read(records)
    assert len(batch.parts[PARENT]) == 7  # the rest still loads


def test_json_part_without_its_message(tmp_path: Path) -> None:
    parent, child = every_part_type()
    data = tmp_path / "opencode"
    root = write_oldest_tree(data, parent, child)
    info, parts = parent.messages[2]
    (root / "message" / PARENT / f"{info['id']}.json").unlink()
    records, problems = load_session(data, listed(data)[PARENT])
    assert len(problems) == len(parts)
    for q, p in zip(problems, parts, strict=True):
        assert q.reason == f"part {p['id']} names message {info['id']}, which is missing"
        assert q.origin == str(root / "part" / PARENT / info["id"] / f"{p['id']}.json")
        assert q.raw == Path(q.origin).read_bytes()
    assert len(read(records).parts[PARENT]) == 7


def test_flat_legacy_part_naming_a_missing_message(tmp_path: Path) -> None:
    data = stage_corpus(tmp_path, "storage_legacy")
    stray = {
        "id": "prt_9",
        "sessionID": "s_stage0_drift",
        "messageID": "m_gone",
        "type": "text",
        "text": "?",
    }
    path = write_json(data / "storage" / "part" / "prt_9.json", stray, indent=False)
    _, problems = load_session(data, listed(data)["s_stage0_drift"])
    assert [(q.reason, q.origin) for q in problems] == [
        ("part prt_9 names message m_gone, which is missing", str(path))
    ]


def test_corrupt_json_file_names_file_and_line(tmp_path: Path) -> None:
    parent, child = every_part_type()
    data = tmp_path / "opencode"
    write_v1_tree(data, parent, child)
    info, parts = parent.messages[0]
    bad = data / "storage" / "message" / PARENT / f"{info['id']}.json"
    lines = bad.read_text().splitlines()
    lines[2] = lines[2].replace(":", " ")  # line 3: a key without its colon
    bad.write_text("\n".join(lines))
    records, problems = load_session(data, listed(data)[PARENT])
    first = problems[0]
    assert first.origin == str(bad) and first.line_no == 3
    assert str(bad) in first.reason and "line 3" in first.reason
    assert first.raw == bad.read_bytes()
    # its parts now name a missing message; every other message still loads
    assert [q.reason for q in problems[1:]] == [
        f"part {p['id']} names message {info['id']}, which is missing" for p in parts
    ]
    batch = read(records)
    assert len(batch.parts[PARENT]) == 7 and batch.quarantine == []


def test_truncated_json_files(tmp_path: Path) -> None:
    parent, child = every_part_type()
    data = tmp_path / "opencode"
    write_v1_tree(data, parent, child)
    info, parts = parent.messages[1]
    torn = data / "storage" / "part" / info["id"] / f"{parts[2]['id']}.json"
    whole = torn.read_bytes()
    torn.write_bytes(whole[: len(whole) // 2])
    records, problems = load_session(data, listed(data)[PARENT])
    assert [q.origin for q in problems] == [str(torn)]
    assert problems[0].line_no > 1 and problems[0].raw == whole[: len(whole) // 2]
    a1 = read(records).parts[PARENT][1]
    assert "text" not in kinds(a1) and "thinking" in kinds(a1)  # only the torn part is missing

    # a session file cut short: listing reports it and lists the others
    sfile = data / "storage" / "session" / "global" / f"{CHILD}.json"
    sfile.write_bytes(b"")
    refs, problems = list_sessions(data)
    assert [r.session_id for r in refs] == [PARENT]
    assert [q.origin for q in problems] == [str(sfile)]


def test_corrupt_database(tmp_path: Path) -> None:
    _, child = every_part_type()
    data = tmp_path / "opencode"
    write_v1_tree(data, child)
    db = data / "opencode.db"
    db.write_bytes(b"this is not a database\n" * 300)
    refs, problems = list_sessions(data)
    assert [r.session_id for r in refs] == [CHILD]  # the JSON tree still lists
    assert len(problems) == 1 and problems[0].origin == str(db)
    assert str(db) in problems[0].reason and "not a database" in problems[0].reason
    ghost = SessionRef(PARENT, str(db), None, None, None, None, None, None, "0")
    records, problems = load_session(data, ghost)
    assert records == [] and "not a database" in problems[0].reason


def test_fresh_database_without_tables(tmp_path: Path) -> None:
    data = tmp_path / "opencode"
    data.mkdir()
    sqlite3.connect(data / "opencode.db").close()  # created, not yet migrated
    assert list_sessions(data) == ([], [])
    assert list_sessions(tmp_path / "nothing") == ([], [])


def test_session_gone_from_database(tmp_path: Path) -> None:
    _, child = every_part_type()
    data = tmp_path / "opencode"
    create_db(data / "opencode.db", child)
    ref = SessionRef(PARENT, str(data / "opencode.db"), None, None, None, None, None, None, "0")
    records, problems = load_session(data, ref)
    assert records == [] and PARENT in problems[0].reason


@pytest.fixture
def writer_lock(tmp_path: Path) -> Any:
    """A connection holding an open exclusive write transaction, closed whatever happens."""
    cons: list[sqlite3.Connection] = []

    def hold(db: Path) -> sqlite3.Connection:
        con = sqlite3.connect(db, isolation_level=None)
        cons.append(con)
        con.execute("BEGIN EXCLUSIVE")
        return con

    yield hold
    for con in cons:
        con.close()


def test_locked_wal_database_reads_last_commit(tmp_path: Path, writer_lock: Any) -> None:
    parent, child = every_part_type()
    data = tmp_path / "opencode"
    db = data / "opencode.db"
    create_db(db, parent, child, wal=True)
    before = listed(data)
    con = writer_lock(db)
    con.execute(
        'INSERT INTO part VALUES (\'prt_uncommitted\', ?, ?, ?, ?, \'{"type":"text","text":"x"}\')',
        (parent.messages[0][0]["id"], PARENT, T0 + 9, T0 + 9),
    )
    start = time.monotonic()
    during = listed(data)
    records, problems = load_session(data, during[PARENT])
    assert time.monotonic() - start < BUSY_TIMEOUT_S  # WAL readers do not wait for the writer
    assert problems == [] and during[PARENT].stamp == before[PARENT].stamp
    assert "prt_uncommitted" not in {r.id for r in records}
    assert len(read(records).parts[PARENT]) == 8


def test_locked_rollback_journal_database_fails_cleanly(tmp_path: Path, writer_lock: Any) -> None:
    parent, child = every_part_type()
    data = tmp_path / "opencode"
    db = data / "opencode.db"
    create_db(db, parent, child, wal=False)
    ref = listed(data)[PARENT]
    writer_lock(db).execute("DELETE FROM part")
    start = time.monotonic()
    refs, problems = list_sessions(data)
    records, load_problems = load_session(data, ref)
    assert time.monotonic() - start < 2 * BUSY_TIMEOUT_S + 5  # bounded: no hang
    assert refs == [] and records == []
    for q in (*problems, *load_problems):
        assert q.origin == str(db) and "locked" in q.reason
