"""The Codex rollout reader (lazy.agents.codex.reader) and what capture stores of it: both line
formats, the doubled channels met once, harness text, calls paired with their output,
subagents and forks, a file read in two captures split mid-turn, compressed rollouts."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import zstandard

from fabricate import APP_CWD
from fabricate.claude import Session
from fabricate.codex import Call, Rollout
from fabricate.opencode import create_db, oc_conv
from lazy.agents import source_of
from lazy.agents.codex.reader import CodexReader, is_harness
from lazy.agents.jsonl import split_lines
from lazy.capture.source_file import capture_file
from lazy.memories.session_import import Options, run
from lazy.model import ReadBatch
from lazy.store import Store
from lazy.store.queries import resolve_builder
from lazy.view.reading import transcript
from support import CORPUS, require
from support.agent_sessions import invoke, report

CODEX_CORPUS = CORPUS / "codex"
LEGACY = CODEX_CORPUS / "Sinity__polylogue/tests/fixtures/codex/legacy-response-records.jsonl"
DAAAIN = CODEX_CORPUS / "daaain__claude-code-log/test/test_data/codex/sessions"
FLAT = DAAAIN / "rollout-44444444-4444-4444-8444-444444444444.jsonl"
PARENT = "22222222-2222-4222-8222-222222222222"
CHILD = "33333333-3333-4333-8333-333333333333"


@pytest.fixture(autouse=True)
def _agent_homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def corpus_file(path: Path) -> Path:
    require(path.is_file(), f"the Codex corpus file {path}")
    return path


def read(path: Path, sid: str | None = None) -> tuple[ReadBatch, CodexReader]:
    reader = CodexReader(str(path), sid or source_of(path).session_id)
    return reader.read(split_lines(path.read_bytes(), 0, 1)), reader


def stored(store: Store, sid: str) -> list[tuple[str, str, str]]:
    """(role, text, key) of a session's stored messages, in order."""
    return [
        (r[0], r[1], r[2])
        for r in store.conn.execute(
            "SELECT role, text, key FROM messages WHERE session_id=? ORDER BY seq", (sid,)
        )
    ]


def texts(store: Store, sid: str) -> list[tuple[str, str]]:
    return [(role, text) for role, text, _ in stored(store, sid)]


# ---- the two line formats -------------------------------------------------------------------


def test_envelope_format(tmp_path: Path) -> None:
    r = Rollout(
        tmp_path,
        git={"branch": "dev", "commit_hash": "abc123", "repository_url": "git@x:y.git"},
        version="0.104.0",
    )
    r.turn("hello", "hi there", reasoning="greeting", call=Call("shell", {"cmd": "ls"}, "x"))
    batch, _ = read(r.path)
    f = batch.facts[r.id]
    assert (f.cwd, f.version, f.provider) == (APP_CWD, "0.104.0", "openai")
    assert (f.git_branch, f.git_commit, f.git_repo) == ("dev", "abc123", "git@x:y.git")
    assert f.first_timestamp == r.start
    roles = [p.role for p in batch.parts[r.id]]
    # the user's event copy is dropped as read; the reasoning and the answer come as an event
    # first, and their item copy joins the same key
    assert roles == [
        "user",
        "reasoning",
        "reasoning",
        "tool_call",
        "tool_result",
        "assistant",
        "assistant",
    ]
    keys = [p.key for p in batch.parts[r.id]]
    assert keys[1] == keys[2] and keys[5] == keys[6] and len(set(keys)) == 5
    assert {p.model for p in batch.parts[r.id] if p.role == "assistant"} == {"gpt-5.1-codex"}
    assert batch.quarantine == [] and batch.unknown_types == {}


def test_bare_legacy_format(store: Store, tmp_path: Path) -> None:
    src = corpus_file(LEGACY)
    batch, _ = read(src, "legacy")
    f = batch.facts["legacy"]
    assert f.git_branch == "main"
    assert f.git_commit == "0000000000000000000000000000000000000001"
    assert f.git_repo == "https://example.invalid/sample.git"
    assert f.first_timestamp == "2025-08-01T10:00:00.000Z"
    parts = batch.parts["legacy"]
    assert [p.role for p in parts] == [
        "user",
        "reasoning",
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "assistant",
    ]
    assert parts[0].blocks == [{"type": "text", "text": "List the sample directory."}]
    assert parts[1].key == "rs_sample_1"  # the item's own id
    assert parts[1].blocks == [{"type": "thinking", "text": "Listing the directory first."}]
    ok, fail = parts[3].blocks[0], parts[5].blocks[0]
    assert ok["tool_use_id"] == "call_sample_ok" and ok["text"] == "alpha.txt\nbeta.txt\n"
    assert ok["is_error"] is False and fail["is_error"] is True  # exit code 1
    assert parts[2].blocks[0]["input"] == {"command": ["ls", "sample"]}
    assert batch.unknown_types == {} and batch.quarantine == []

    # imported as a rollout under a Codex home, every item is a memory of its own
    home = tmp_path / "legacy-home" / "sessions"
    home.mkdir(parents=True)
    shutil.copy(src, home / "rollout-2025-08-01T10-00-00-legacy-response-session.jsonl")
    rep = run(
        store,
        "codex",
        Options(sources=[home.parent], full=True, include_trivial=True),
    )
    assert rep.inserted == 7 and rep.quarantined == [] and rep.errors == []


def test_bare_flat_rollout(store: Store) -> None:
    src = corpus_file(FLAT)
    batch, _ = read(src)
    sid = "44444444-4444-4444-8444-444444444444"
    assert batch.facts[sid].first_timestamp == "2026-01-04T05:06:07.000Z"
    assert [(p.role, p.blocks[0]["text"]) for p in batch.parts[sid]] == [
        ("user", "Open the synthetic legacy session."),
        ("assistant", "The synthetic legacy session is open."),
    ]
    res = capture_file(store, src, agent="codex")
    assert res.status == "captured"
    assert texts(store, sid) == [
        ("user", "Open the synthetic legacy session."),
        ("assistant", "The synthetic legacy session is open."),
    ]


# ---- the two channels, met once ---------------------------------------------------------


@pytest.mark.parametrize("event_first", [False, True])
def test_doubled_channels_are_stored_once(store: Store, tmp_path: Path, event_first: bool) -> None:
    r = Rollout(tmp_path)
    lines = [
        r.line("event_msg", {"type": "task_started", "turn_id": "t-1"}),
        r.line("turn_context", {"turn_id": "t-1", "cwd": APP_CWD, "model": "gpt-5"}),
    ]
    pairs = [
        (r.user_item("do the thing"), r.user_event("do the thing")),
        (r.reasoning_item("considering"), r.reasoning_event("considering")),
        (r.assistant_item("done"), r.assistant_event("done")),
    ]
    for item, event in pairs:
        lines += [event, item] if event_first else [item, event]
    r.write(lines)
    capture_file(store, r.path, agent="codex")
    assert texts(store, r.id) == [
        ("user", "do the thing"),
        ("reasoning", ""),
        ("assistant", "done"),
    ]
    blocks = store.conn.execute(
        "SELECT kinds FROM messages WHERE session_id=? AND role='reasoning'", (r.id,)
    ).fetchone()[0]
    assert json.loads(blocks) == ["thinking"]  # one copy's block, not both


def test_an_event_only_turn_is_stored(store: Store, tmp_path: Path) -> None:
    r = Rollout(tmp_path)
    r.write(r.user_event("only an event"), r.assistant_event("only an answer event"))
    capture_file(store, r.path, agent="codex")
    assert texts(store, r.id) == [("user", "only an event"), ("assistant", "only an answer event")]


def test_same_words_in_two_turns_are_two_messages(store: Store, tmp_path: Path) -> None:
    r = Rollout(tmp_path)
    r.turn("continue", "ok")
    r.turn("continue", "ok")
    capture_file(store, r.path, agent="codex")
    got = stored(store, r.id)
    assert [(role, t) for role, t, _ in got] == [
        ("user", "continue"),
        ("assistant", "ok"),
        ("user", "continue"),
        ("assistant", "ok"),
    ]
    assert len({k for _, _, k in got}) == 4


def test_same_words_twice_in_one_turn_are_two_messages(store: Store, tmp_path: Path) -> None:
    r = Rollout(tmp_path)
    lines = r.turn_lines("check twice", "checking")
    say_again = [r.assistant_event("checking"), r.assistant_item("checking")]
    r.write(lines[:-1], say_again, lines[-1:])
    capture_file(store, r.path, agent="codex")
    assert texts(store, r.id) == [
        ("user", "check twice"),
        ("assistant", "checking"),
        ("assistant", "checking"),
    ]


def test_native_item_ids_key_the_message(store: Store, tmp_path: Path) -> None:
    r = Rollout(tmp_path)
    r.write(
        r.line("event_msg", {"type": "task_started", "turn_id": "t-1"}),
        r.user_item("q"),
        r.user_event("q"),
        r.assistant_event("a"),
        r.assistant_item("a", item_id="msg_native_0171"),
    )
    capture_file(store, r.path, agent="codex")
    got = stored(store, r.id)
    assert [(role, t) for role, t, _ in got] == [("user", "q"), ("assistant", "a")]


# ---- harness text ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "words",
    [
        "<environment_context>\n  <cwd>/home/u/dev/app</cwd>\n</environment_context>",
        "# AGENTS.md instructions for /home/u/dev/app\n\n<INSTRUCTIONS>be brief</INSTRUCTIONS>",
        "<user_instructions>\nalways test\n</user_instructions>",
    ],
)
def test_harness_user_text_is_system(store: Store, tmp_path: Path, words: str) -> None:
    assert is_harness(words)
    r = Rollout(tmp_path)
    r.write(r.user_item(words))
    r.turn("real question", "real answer")
    batch, _ = read(r.path)
    first = batch.parts[r.id][0]
    assert (first.role, first.meta) == ("system", True)
    capture_file(store, r.path, agent="codex")
    assert [role for role, _ in texts(store, r.id)] == ["system", "user", "assistant"]


def test_developer_message_is_system(tmp_path: Path) -> None:
    r = Rollout(tmp_path)
    r.write(
        r.line(
            "response_item",
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "<permissions instructions>x"}],
            },
        )
    )
    batch, _ = read(r.path)
    (part,) = batch.parts[r.id]
    assert (part.role, part.meta) == ("system", True)


def test_words_that_merely_mention_harness_tags_are_the_users(tmp_path: Path) -> None:
    r = Rollout(tmp_path)
    r.write(r.user_item("why does <environment_context> appear in my logs?"))
    batch, _ = read(r.path)
    assert batch.parts[r.id][0].role == "user"


def test_harness_left_out_of_default_import(tmp_path: Path) -> None:
    r = Rollout(tmp_path / "codex")
    r.write(r.user_item("<environment_context>ctx</environment_context>"))
    r.turn("q1", "a1")
    r.turn("q2", "a2")
    rep = report("import", "codex")
    assert rep["inserted"] == 4


# ---- calls and their output ---------------------------------------------------------------


def test_calls_pair_with_their_output_by_call_id(store: Store, tmp_path: Path) -> None:
    r = Rollout(tmp_path)
    r.write(
        r.line(
            "response_item",
            {"type": "function_call", "name": "shell", "arguments": '{"cmd":"a"}', "call_id": "c1"},
        ),
        r.line(
            "response_item",
            {"type": "function_call", "name": "read", "arguments": '{"p":"b"}', "call_id": "c2"},
        ),
        # outputs in the other order: pairing is by id, not position
        r.line(
            "response_item",
            {"type": "function_call_output", "call_id": "c2", "output": "contents of b"},
        ),
        r.line(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": "Exit code: 2\nProcess exited with code 2\nOutput:\nboom",
            },
        ),
        r.line(
            "response_item",
            {
                "type": "custom_tool_call",
                "name": "apply_patch",
                "input": "*** Begin",
                "call_id": "c3",
            },
        ),
        r.line(
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": "c3",
                "output": {"content": [{"type": "input_text", "text": "patched"}], "success": True},
            },
        ),
    )
    batch, _ = read(r.path)
    parts = {p.key: p for p in batch.parts[r.id]}
    assert set(parts) == {"c1", "c2", "c3", "c1-out", "c2-out", "c3-out"}
    assert parts["c1"].blocks[0] == {
        "type": "tool_use",
        "id": "c1",
        "name": "shell",
        "input": {"cmd": "a"},
    }
    assert parts["c3"].blocks[0]["input"] == "*** Begin"
    out1, out2, out3 = (parts[f"c{i}-out"].blocks[0] for i in (1, 2, 3))
    assert (out1["tool_use_id"], out1["is_error"]) == ("c1", True)
    assert "boom" in out1["text"]
    assert (out2["tool_use_id"], out2["text"], out2["is_error"]) == ("c2", "contents of b", False)
    assert (out3["tool_use_id"], out3["text"], out3["is_error"]) == ("c3", "patched", False)
    capture_file(store, r.path, agent="codex")
    names = dict(
        store.conn.execute(
            "SELECT key, tool_name FROM messages WHERE session_id=? AND role='tool_call'", (r.id,)
        ).fetchall()
    )
    assert names == {"c1": "shell", "c2": "read", "c3": "apply_patch"}


def test_full_transcript_names_the_tool_of_each_output(tmp_path: Path) -> None:
    r = Rollout(tmp_path / "codex")
    r.turn("q1", "a1", call=Call("read_file", {"path": "x"}, "file x"))
    r.turn("q2", "a2", call=Call("shell", {"cmd": "ls"}, "listing"))
    invoke("import", "codex", "--full-transcript")
    con = sqlite3.connect(tmp_path / "lazy" / "store.db")
    try:
        rows = [json.loads(m) for (m,) in con.execute("SELECT meta FROM memories")]
    finally:
        con.close()
    results = {
        m["source_message_id"]: m["source_tool_name"]
        for m in rows
        if m["source_message_role"] == "tool_result"
    }
    assert results == {f"call_{r.id[:8]}_1-out": "read_file", f"call_{r.id[:8]}_2-out": "shell"}


# ---- subagents and forks ------------------------------------------------------------------


def stage_daaain(tmp_path: Path) -> Path:
    require(DAAAIN.is_dir(), f"the Codex corpus dir {DAAAIN}")
    home = tmp_path / "daaain"
    shutil.copytree(DAAAIN, home / "sessions")
    return home


def test_subagent_is_a_sidechain_without_its_replayed_prefix(store: Store, tmp_path: Path) -> None:
    home = stage_daaain(tmp_path)
    rep = run(store, "codex", Options(sources=[home], full=True, include_trivial=True))
    sessions = {
        r[0]: r[1:] for r in store.conn.execute("SELECT id, kind, parent_session_id FROM sessions")
    }
    assert sessions[CHILD] == ("sidechain", PARENT)
    assert sessions[PARENT][0] == "main"
    child = texts(store, CHILD)
    assert child == [
        ("user", "Inspect fixtures."),
        ("assistant", "The fixtures are fully synthetic."),
    ]
    parent = texts(store, PARENT)
    assert ("user", "Spawn a synthetic researcher.") in parent
    assert [r for r, _ in parent].count("tool_call") == 1
    by_id = {s.session_id: s for s in rep.sessions}
    assert by_id[CHILD].parent_session_id == PARENT
    assert by_id[CHILD].messages == 2
    assert by_id[CHILD].node.startswith("/share/projects/synthetic_project/agent_sessions/")
    # the flat legacy rollout beside them is a session of its own
    assert "44444444-4444-4444-8444-444444444444" in by_id


def test_fork_is_its_own_builder(tmp_path: Path) -> None:
    codex = tmp_path / "codex"
    parent = Rollout(codex, started="2026-03-01T10:00:00")
    copied = parent.turn("plan the work", "here is the plan")
    copied += parent.turn("refine it", "refined")
    fork = Rollout(codex, started="2026-03-01T11:00:00", forked_from=parent.id)
    fork.write(copied)  # a fork starts with its origin's items copied in
    fork.turn("try the other approach", "trying it")
    invoke("import", "codex")
    builders = json.loads(invoke("conversations", "--all-projects", "--json").stdout)["builders"]
    by_session = {sid: b for b in builders for sid in b["session_ids"]}
    assert by_session[parent.id]["id"] != by_session[fork.id]["id"]
    assert by_session[fork.id]["forked_from"] == by_session[parent.id]["id"]
    assert by_session[parent.id]["forked_from"] is None
    show = json.loads(invoke("conversations", "show", by_session[fork.id]["id"], "--json").stdout)
    said = [m["text"] for m in show["messages"]]
    assert said[-2:] == ["try the other approach", "trying it"]
    assert said.count("plan the work") <= 1  # the copied prefix is not doubled


# ---- a file read in two captures ----------------------------------------------------------


def test_split_mid_turn_reads_like_one_read(tmp_path: Path) -> None:
    whole = Rollout(tmp_path / "a", thread_id="019c0000-0000-7000-8000-00000000abcd")
    lines = whole.turn("first question", "first answer", reasoning="first thought")
    lines += whole.turn("second question", "second answer", call=Call("ls", {}, "x y"))
    lines += whole.turn("continue", "ok")
    lines += whole.turn("continue", "ok")
    head = whole.path.read_bytes().split(b"\n", 1)[0] + b"\n"  # its session_meta
    # cut inside turn 2, between the answer's event copy and its response_item copy
    cut = next(i for i, x in enumerate(lines) if b'"agent_message"' in x and b"second" in x) + 1

    one = Store.open(tmp_path / "one")
    two = Store.open(tmp_path / "two")
    try:
        capture_file(one, whole.path, agent="codex")
        split = tmp_path / "b" / whole.path.name
        split.parent.mkdir(parents=True)
        split.write_bytes(head + b"".join(lines[:cut]))
        capture_file(two, split, agent="codex")
        cursor = two.conn.execute("SELECT cursor FROM sessions WHERE id=?", (whole.id,)).fetchone()[
            0
        ]
        assert cursor is not None and f"turn-{whole.id[:8]}-2" in json.loads(cursor)["turn"]
        with open(split, "ab") as f:
            f.write(b"".join(lines[cut:]))
        capture_file(two, split, agent="codex")
        want = stored(one, whole.id)
        assert len(want) == 11
        assert stored(two, whole.id) == want
    finally:
        one.close()
        two.close()


def test_a_truncated_turn_is_finished_by_the_next_capture(store: Store, tmp_path: Path) -> None:
    r = Rollout(tmp_path)
    lines = r.turn_lines("question", "answer")
    data = b"".join(lines)
    torn = len(data) - len(lines[-1]) - len(lines[-2]) // 2  # inside the answer's item line
    with open(r.path, "ab") as f:
        f.write(data[:torn])
    capture_file(store, r.path, agent="codex")
    assert texts(store, r.id) == [("user", "question"), ("assistant", "answer")]  # the event
    with open(r.path, "ab") as f:
        f.write(data[torn:])
    capture_file(store, r.path, agent="codex")
    assert texts(store, r.id) == [("user", "question"), ("assistant", "answer")]


# ---- compressed rollouts ------------------------------------------------------------------


def test_zst_rollout_imports_like_the_plain_file(tmp_path: Path) -> None:
    plain = Rollout(tmp_path / "plain")
    plain.turn("q1", "a1", reasoning="r1", call=Call("shell", {"c": 1}, "out"))
    plain.turn("q2", "a2")
    packed_home = tmp_path / "packed"
    packed = packed_home / plain.path.relative_to(tmp_path / "plain")
    packed = packed.with_name(packed.name + ".zst")
    packed.parent.mkdir(parents=True)
    packed.write_bytes(zstandard.ZstdCompressor().compress(plain.path.read_bytes()))
    results = []
    for i, home in enumerate((tmp_path / "plain", packed_home)):
        s = Store.open(tmp_path / f"store{i}")
        try:
            rep = run(s, "codex", Options(sources=[home], full=True))
            rows = s.conn.execute(
                "SELECT tree, name, content, temporal, json_extract(meta, '$.source_message_role')"
                " FROM memories ORDER BY tree, name"
            ).fetchall()
            results.append((rep.inserted, rep.quarantined, rep.errors, rows))
        finally:
            s.close()
    assert results[0][0] == 7
    assert results[1] == results[0]


# ---- lazy conversations --tool codex ------------------------------------------------------


def test_conversations_tool_codex_lists_only_codex(tmp_path: Path) -> None:
    r = Rollout(tmp_path / "codex")
    r.turn("codex q", "codex a")
    r.turn("codex q2", "codex a2")
    create_db(
        tmp_path / "xdg" / "opencode" / "opencode.db", oc_conv("ses_ocococococococococococ0001")
    )
    s = Session(tmp_path / "home" / ".claude" / "projects", APP_CWD)
    s.turn("claude q", "claude a")
    s.turn("claude q2", "claude a2")
    for t in ("codex", "opencode", "claude"):
        invoke("import", t)

    def listed(*tools: str) -> list[dict[str, Any]]:
        args = [a for t in tools for a in ("--tool", t)]
        out = invoke("conversations", "--all-projects", "--json", *args).stdout
        builders: list[dict[str, Any]] = json.loads(out)["builders"]
        return builders

    assert len(listed()) == 3
    (codex,) = listed("codex")
    assert codex["tool"] == "codex" and codex["session_ids"] == [r.id]
    assert [b["tool"] for b in listed("opencode")] == ["opencode"]
    assert sorted(b["tool"] for b in listed("codex", "claude")) == ["claude", "codex"]


def test_transcript_names_the_tool_each_output_answers(store: Store) -> None:
    capture_file(store, corpus_file(LEGACY), agent="codex")
    t = transcript(store.conn, resolve_builder(store.conn, "legacy-response-records"))
    calls = [p.tool for m in t.messages for p in m.parts if p.tool is not None]
    assert [(c.name, c.result_number is not None) for c in calls] == [("shell", True)] * 2
    assert calls[0].output is not None and "alpha.txt" in calls[0].output
