"""The real OpenCode CLI against a fake model API: what it writes, and lazy's import of it.

Two layers: the raw storage is checked against what each scenario scripted (so a change in
OpenCode's format shows up here first), then ``lazy import opencode`` is checked against the
same script (per tests/agents/opencode/FINDINGS_opencode.md and the CLI contract).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from oc_storage import (
    Message,
    Session,
    Storage,
    connect_ro,
    read_db,
    read_tree,
    snapshot_rows,
)
from oc_support import OcImported, OcLazy, OcRun, imported
from opencode_driver import MODEL, PROVIDER, lazy_import_args

JsonDict = dict[str, Any]

CURRENT = ["oneshot", "multiturn", "tool", "child", "reasoning"]
ALL = [*CURRENT, "v1_1_tools", "migrated"]


def scenario_params(names: list[str]) -> list[Any]:
    return [pytest.param(n, marks=pytest.mark.opencode_scenario(n), id=n) for n in names]


# --------------------------------------------------------------------------------------------
# Expectations shared by the storage and the lazy checks
# --------------------------------------------------------------------------------------------


def expected_sessions(run: OcRun, storage: Storage) -> list[JsonDict]:
    """The scripted sessions, the child (whose id only storage knows) resolved by parent."""
    sessions = [dict(s) for s in run.expect["sessions"]]
    child = run.expect.get("child")
    if child:
        kids = storage.children_of(str(child["parent"]))
        assert len(kids) == 1, f"expected one child session of {child['parent']}, got {kids}"
        sessions.append({**child, "session_id": kids[0].id})
    return sessions


def assistant_turns(session: Session) -> list[list[Message]]:
    """Assistant messages grouped by the user message they answer (``parentID``), in order."""
    return [
        [m for m in session.by_role("assistant") if m.info.get("parentID") == user.id]
        for user in session.by_role("user")
    ]


def check_session_storage(session: Session, want: JsonDict, run: OcRun) -> None:
    info = session.info
    assert info["title"] == want["title"]
    assert (info.get("parentID") or None) == want["parent"]
    assert info["version"] == want["version"]
    assert info["directory"] == str(run.project)
    users = session.by_role("user")
    assert [u.text() for u in users] == [e["user"] for e in want["exchanges"]]
    for user, answers, exchange in zip(
        users, assistant_turns(session), want["exchanges"], strict=True
    ):
        assert user.info.get("agent") == want["agent"]
        assert user.info["model"] == {"providerID": PROVIDER, "modelID": MODEL}
        replies = exchange["replies"]
        assert len(answers) == len(replies), f"one assistant message per model call: {answers}"
        for message, reply in zip(answers, replies, strict=True):
            assert message.info["modelID"] == MODEL
            assert message.info["providerID"] == PROVIDER
            assert message.info["agent"] == message.info["mode"] == want["agent"]
            assert message.info["path"]["cwd"] == str(run.project)
            assert message.info["time"].get("completed"), "assistant message never completed"
            assert [p["text"] for p in message.parts_of("text")] == reply["text"]
            assert [p["text"] for p in message.parts_of("reasoning")] == reply["reasoning"]
            tools = [
                {"id": p["callID"], "name": p["tool"], "input": p["state"]["input"]}
                for p in message.parts_of("tool")
            ]
            assert tools == reply["tools"]
            for part in message.parts_of("tool"):
                assert part["state"]["status"] == "completed", part
            finish = "tool-calls" if reply["tools"] else "stop"
            assert message.info.get("finish") == finish


# --------------------------------------------------------------------------------------------
# What OpenCode wrote
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", scenario_params(ALL))
def test_storage_holds_what_was_scripted(name: str, oc_run: OcRun) -> None:
    storage = oc_run.storage()
    wanted = expected_sessions(oc_run, storage)
    assert sorted(storage.sessions) == sorted(w["session_id"] for w in wanted)
    for want in wanted:
        check_session_storage(storage.sessions[want["session_id"]], want, oc_run)
    assert oc_run.script["unscripted"] == 0
    assert all(r["used"] == 1 for r in oc_run.script["rules"]), oc_run.script["rules"]


@pytest.mark.parametrize("name", scenario_params(CURRENT))
def test_current_release_writes_sqlite_only(name: str, oc_run: OcRun) -> None:
    data = oc_run.data_dir
    assert (data / "opencode.db").is_file()
    assert not (data / "storage").exists(), "1.18.33 wrote a JSON storage tree too"
    conn = connect_ro(data / "opencode.db")
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        columns = {
            table: [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            for table in ("session", "message", "part")
        }
        for row in conn.execute("SELECT data FROM message"):
            data_json = json.loads(row[0])
            assert "id" not in data_json and "sessionID" not in data_json
    finally:
        conn.close()
    assert columns["message"] == ["id", "session_id", "time_created", "time_updated", "data"]
    assert columns["part"] == [
        "id",
        "message_id",
        "session_id",
        "time_created",
        "time_updated",
        "data",
    ]
    for needed in ("id", "project_id", "parent_id", "directory", "title", "version", "agent"):
        assert needed in columns["session"]


@pytest.mark.opencode_scenario("multiturn")
def test_continue_appends_to_the_same_session(oc_run: OcRun) -> None:
    storage = oc_run.storage()
    assert len(storage.sessions) == 1
    session = next(iter(storage.sessions.values()))
    ids = [m.id for m in session.messages]
    assert ids == sorted(ids)
    assert [m.role for m in session.messages] == ["user", "assistant"] * 3
    assert {t["session_id"] for t in oc_run.script["turns"]} == {session.id}
    assert "--continue" in oc_run.script["turns"][1]["args"]
    assert "--session" in oc_run.script["turns"][2]["args"]


@pytest.mark.opencode_scenario("tool")
def test_tool_call_and_result_are_one_part(oc_run: OcRun) -> None:
    storage = oc_run.storage()
    (session,) = storage.sessions.values()
    tools = [p for m in session.messages for p in m.parts_of("tool")]
    assert [p["tool"] for p in tools] == ["bash", "read"]
    bash, read = tools
    assert bash["state"]["metadata"]["exit"] == 0
    assert "hi" in read["state"]["output"]
    patches = [p for m in session.messages for p in m.parts_of("patch")]
    assert any(str(oc_run.project / "out.txt") in p["files"] for p in patches), patches
    assert (oc_run.project / "out.txt").read_text() == "hi\n"


@pytest.mark.parametrize("name", scenario_params(["child", "v1_1_tools"]))
def test_task_tool_links_the_child_session(name: str, oc_run: OcRun) -> None:
    storage = oc_run.storage()
    (parent,) = storage.roots()
    (child,) = storage.children_of(parent.id)
    (task,) = [p for m in parent.messages for p in m.parts_of("tool") if p["tool"] == "task"]
    assert task["state"]["metadata"]["sessionId"] == child.id
    assert child.id in task["state"]["output"]
    assert "<task_result>" in task["state"]["output"]
    assert child.info["title"].endswith("(@general subagent)")


@pytest.mark.opencode_scenario("v1_1_tools")
def test_old_release_writes_the_json_tree(oc_run: OcRun) -> None:
    data = oc_run.data_dir
    assert not (data / "opencode.db").exists(), "1.1.65 wrote opencode.db"
    layout = set(oc_run.script["observed"]["storage_layout"])
    for shape in (
        "storage/migration",
        "storage/project/<projectID>.json",
        "storage/session/<projectID>/<sessionID>.json",
        "storage/message/<sessionID>/<messageID>.json",
        "storage/part/<messageID>/<partID>.json",
        "storage/session_diff/<sessionID>.json",
    ):
        assert shape in layout, f"{shape} missing from {sorted(layout)}"
    # the project id is the repository's root commit
    head = oc_run.script["git_head"]
    assert (data / "storage" / "project" / f"{head}.json").is_file()
    storage = oc_run.storage()
    assert storage.kind == "json"
    for session in storage.sessions.values():
        assert session.info["projectID"] == head
        for message in session.messages:
            for part in message.parts:
                assert part["messageID"] == message.id and part["sessionID"] == session.id


@pytest.mark.opencode_scenario("multiturn")
def test_opencode_unaffected_by_a_live_import(oc_run: OcRun) -> None:
    live = oc_run.script["live"]
    assert live["db_open_by_opencode"], "the held-back turn did not have opencode.db open"
    assert "opencode.db-wal" in live["files_during"]
    assert live["opencode_alive_after_import"]
    last = oc_run.script["turns"][-1]
    assert last["returncode"] == 0 and last["rules"] == ["multi-three"]
    session = oc_run.storage().sessions[last["session_id"]]
    assert session.by_role("assistant")[-1].text() == "lazyoc-multi-reply-3: elppa."


# --------------------------------------------------------------------------------------------
# lazy import opencode
# --------------------------------------------------------------------------------------------


def expected_default_memories(session: Session) -> list[tuple[str, str, str]]:
    """(message id, role, text) of the messages default mode keeps: those with text parts."""
    out = []
    for message in session.messages:
        body = message.text()
        if body.strip():
            out.append((message.id, message.role, body))
    return out


def source_file_ok(run: OcRun, storage: Storage, value: Any, session_id: str) -> bool:
    """opencode.db for a session from the DB; a file of the JSON tree (lazy names the session
    file) for one from storage/."""
    if not isinstance(value, str):
        return False
    path = Path(value)
    if storage.source_files[session_id].name == "opencode.db":
        return path == run.data_dir / "opencode.db"
    return path.is_file() and path.is_relative_to(run.data_dir / "storage")


def check_memory_meta(
    meta: JsonDict, run: OcRun, storage: Storage, want: JsonDict, message: Message
) -> None:
    assert meta["type"] == "agent_session"
    assert meta["source_tool"] == "opencode"
    assert meta["source_session_id"] == want["session_id"]
    assert meta["source_session_title"] == want["title"]
    assert meta["source_message_id"] == message.id
    assert Path(meta["source_cwd"]) == run.project
    assert meta["source_tool_version"] == want["version"]
    assert meta["source_model"] == MODEL
    assert meta["source_provider"] == PROVIDER
    assert meta["source_agent_mode"] == want["agent"]
    source_file = meta.get("source_file")
    assert source_file_ok(run, storage, source_file, want["session_id"]), source_file
    if meta.get("source_git_branch") is not None:
        assert meta["source_git_branch"] == "main"


@pytest.mark.parametrize("name", scenario_params(ALL))
def test_import_finds_every_session(name: str, oc_run: OcRun, oc_imported: OcImported) -> None:
    storage = oc_run.storage()
    report = oc_imported.report
    assert report["tool"] == "opencode"
    assert report["dry_run"] is False
    assert report["content_mode"] == "default"
    assert report.get("quarantined", []) == []
    assert report.get("skipped_sessions", []) == []
    found = {str(s["session_id"]) for s in report["sessions"]}
    assert found == set(storage.sessions)
    planned = sum(len(expected_default_memories(s)) for s in storage.sessions.values())
    assert report["inserted"] == planned
    assert report["updated"] == 0
    for entry in report["sessions"]:
        assert entry["project_slug"] == "project"
        assert "/project/agent_sessions/" in str(entry["node"])


@pytest.mark.parametrize("name", scenario_params(ALL))
def test_memories_match_the_messages(name: str, oc_run: OcRun, oc_imported: OcImported) -> None:
    storage = oc_run.storage()
    for want in expected_sessions(oc_run, storage):
        session = storage.sessions[want["session_id"]]
        memories = oc_imported.memories[session.id]
        by_id = {m["meta"]["source_message_id"]: m for m in memories}
        expected = expected_default_memories(session)
        assert sorted(by_id) == sorted(mid for mid, _, _ in expected)
        messages = {m.id: m for m in session.messages}
        for message_id, role, body in expected:
            memory = by_id[message_id]
            # seed 001: msg_<message_id>, even though OpenCode ids start with msg_ already
            assert memory["name"] == f"msg_{message_id}"
            assert memory["content"].strip() == body.strip()
            meta = memory["meta"]
            assert meta["source_message_role"] == role
            assert meta["content_mode"] == "default"
            check_memory_meta(meta, oc_run, storage, want, messages[message_id])


CONTENT_PARTS = ("text", "reasoning", "tool")


@pytest.mark.parametrize("name", scenario_params(ALL))
def test_search_finds_each_message_in_its_session(
    name: str, oc_run: OcRun, oc_imported: OcImported
) -> None:
    """After `lazy import opencode`, every user and assistant text is searchable by its
    words (as a phrase), in its own session and Builder (children: in the parent's)."""
    storage = oc_run.storage()
    cli = oc_imported.cli
    for want in expected_sessions(oc_run, storage):
        session = storage.sessions[want["session_id"]]
        for _, _, body in expected_default_memories(session):
            words = " ".join(body.split()[:6]).replace('"', " ")
            res = cli.json("search", "--all-projects", "--json", f'"{words}"')
            sessions = {h["session_id"] for g in res["groups"] for h in g["hits"]}
            assert session.id in sessions, words
            assert all(g["tool"] == "opencode" for g in res["groups"])


def rendered(message: Message) -> bool:
    """Messages lazy keeps in full-transcript mode and shows in a Builder: those with content
    (step-start / step-finish / patch alone are bookkeeping)."""
    return any(message.parts_of(kind) for kind in CONTENT_PARTS)


def shown_role(message: Message) -> str:
    # a text-less assistant message that only calls a tool is a tool_call
    if message.role == "assistant" and not message.text().strip() and message.parts_of("tool"):
        return "tool_call"
    return message.role


@pytest.mark.parametrize("name", scenario_params(["tool", "reasoning", "child", "v1_1_tools"]))
def test_full_transcript_keeps_reasoning_and_tools(
    name: str, oc_run: OcRun, oc_imported_full: OcImported
) -> None:
    """Seed 001: one memory per source message; --full-transcript renders all its blocks (an
    OpenCode reasoning or tool part is a block of its message, not a standalone item)."""
    storage = oc_run.storage()
    assert oc_imported_full.report["content_mode"] == "full_transcript"
    for session in storage.sessions.values():
        memories = {
            m["meta"]["source_message_id"]: m for m in oc_imported_full.memories[session.id]
        }
        kept = [m for m in session.messages if rendered(m)]
        assert sorted(memories) == sorted(m.id for m in kept)
        for message in kept:
            memory = memories[message.id]
            meta = memory["meta"]
            assert memory["name"] == f"msg_{message.id}"
            assert meta["content_mode"] == "full_transcript"
            assert meta["source_message_role"] == shown_role(message)
            kinds = meta["source_message_block_kinds"]
            if message.text().strip():
                assert "text" in kinds
                assert message.text().strip() in memory["content"]
            for part in message.parts_of("reasoning"):
                assert {"thinking", "reasoning"} & set(kinds), kinds
                assert part["text"] in memory["content"]
            tools = message.parts_of("tool")
            for part in tools:
                assert "tool_use" in kinds and "tool_result" in kinds, kinds
                assert f"{part['tool']}(" in memory["content"]
                output = str(part["state"]["output"]).strip()
                if output:
                    assert output.splitlines()[0] in memory["content"]
            if len(tools) == 1:
                assert meta["source_tool_name"] == tools[0]["tool"]
            elif not tools:
                assert meta.get("source_tool_name") is None


def builders_of(cli: OcLazy) -> list[JsonDict]:
    return cli.conversations()


@pytest.mark.parametrize("name", scenario_params(["child", "v1_1_tools"]))
def test_child_session_is_a_sidechain(name: str, oc_run: OcRun, oc_imported: OcImported) -> None:
    storage = oc_run.storage()
    (parent,) = storage.roots()
    (child,) = storage.children_of(parent.id)
    builders = builders_of(oc_imported.cli)
    assert len(builders) == 1, f"the child must not be a Builder of its own: {builders}"
    (builder,) = builders
    assert builder["tool"] == "opencode"
    assert parent.id in builder["session_ids"]
    assert child.id not in builder["session_ids"]
    sidechains = {s["session_id"]: s for s in builder["sidechains"]}
    assert child.id in sidechains
    assert sidechains[child.id]["message_count"] == len(expected_default_memories(child))
    shown = oc_imported.cli.show(str(builder["id"]))
    (side,) = [s for s in shown["sidechains"] if s["session_id"] == child.id]
    assert [m["text"].strip() for m in side["messages"]] == [
        body.strip() for _, _, body in expected_default_memories(child)
    ]


@pytest.mark.parametrize("name", scenario_params(["multiturn", "v1_1_tools"]))
def test_continued_session_is_one_builder(
    name: str, oc_run: OcRun, oc_imported: OcImported
) -> None:
    storage = oc_run.storage()
    (root,) = storage.roots()
    builders = builders_of(oc_imported.cli)
    assert len(builders) == 1, builders
    (builder,) = builders
    assert builder["session_ids"] == [root.id]
    assert builder["title"] == oc_run.script["title"]
    shown = oc_imported.cli.show(str(builder["id"]))
    kept = [m for m in root.messages if rendered(m)]
    got = [(m["role"], m["session_id"], m["tool_name"]) for m in shown["messages"]]
    want = [
        (shown_role(m), root.id, m.parts_of("tool")[0]["tool"] if m.parts_of("tool") else None)
        for m in kept
    ]
    assert got == want
    for entry, message in zip(shown["messages"], kept, strict=True):
        if message.text().strip():
            assert entry["text"].strip() == message.text().strip()
    assert builder["message_count"] == len(kept)


@pytest.mark.parametrize("name", scenario_params(["multiturn", "child", "v1_1_tools"]))
def test_second_import_changes_nothing(
    name: str, oc_run: OcRun, tmp_path_factory: pytest.TempPathFactory, lazy_opencode: None
) -> None:
    first = imported(oc_run, tmp_path_factory)
    again = first.cli.import_()
    assert again["inserted"] == 0
    assert again["updated"] == 0
    assert again["skipped"] == first.report["inserted"]


@pytest.mark.opencode_scenario("multiturn")
def test_import_while_opencode_holds_the_db(
    oc_run: OcRun, tmp_path_factory: pytest.TempPathFactory, lazy_opencode: None
) -> None:
    live = oc_run.script["live"]["import"]
    assert live["returncode"] == 0, f"lazy import during the live turn failed:\n{live['stderr']}"
    during = json.loads(live["stdout"])
    session_id = oc_run.script["turns"][0]["session_id"]
    assert [s["session_id"] for s in during["sessions"]] == [session_id]
    # the held-back reply was not written yet: a later import into the same store adds it
    # on a copy of that store: the scenario dir stays as it was (LAZY_AGENTS_REUSE)
    home = tmp_path_factory.mktemp("lazy-oc-live")
    shutil.copytree(live["lazy_home"], home, dirs_exist_ok=True)
    cli = OcLazy(home, oc_run)
    after = cli.import_()
    assert after["inserted"] >= 1
    fresh = imported(oc_run, tmp_path_factory)
    assert during["inserted"] + after["inserted"] == fresh.report["inserted"]


@pytest.mark.opencode_scenario("oneshot")
def test_import_under_a_held_reader_transaction(oc_lazy: OcLazy, oc_run: OcRun) -> None:
    db = oc_run.data_dir / "opencode.db"
    before = snapshot_rows(db)
    files_before = sorted(p.name for p in oc_run.data_dir.iterdir())
    reader = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        reader.execute("BEGIN")
        count = reader.execute("SELECT count(*) FROM message").fetchone()[0]
        report = oc_lazy.import_()
        assert report["inserted"] == count
        # the reader's snapshot still works after the import
        assert reader.execute("SELECT count(*) FROM part").fetchone()[0] > 0
    finally:
        reader.rollback()
        reader.close()
    assert snapshot_rows(db) == before, "the import changed OpenCode's rows"
    assert sorted(p.name for p in oc_run.data_dir.iterdir()) == files_before


@pytest.mark.opencode_scenario("oneshot")
def test_dry_run_writes_nothing(oc_lazy: OcLazy, oc_run: OcRun) -> None:
    report = oc_lazy.import_("--dry-run")
    assert report["dry_run"] is True
    assert [s["messages"] for s in report["sessions"]] == [2]
    again = oc_lazy.import_()
    assert again["inserted"] == 2


@pytest.mark.opencode_scenario("oneshot")
def test_one_shot_needs_include_trivial(oc_lazy: OcLazy, oc_run: OcRun) -> None:
    args = [a for a in lazy_import_args(oc_run.data_dir) if a != "--include-trivial"]
    report: JsonDict = oc_lazy.json(*args)
    assert report["sessions"] == []
    assert [s["session_id"] for s in report["skipped_sessions"]] == [
        oc_run.script["turns"][0]["session_id"]
    ]


@pytest.mark.opencode_scenario("migrated")
def test_new_release_leaves_the_old_tree_alone(oc_run: OcRun) -> None:
    observed = oc_run.script["observed"]
    assert observed["storage_layout_after"] == observed["storage_layout_before"]
    assert {"opencode.db", "storage"} <= set(observed["files_after"])
    old_id, new_id = (t["session_id"] for t in oc_run.script["turns"])
    db = read_db(oc_run.data_dir / "opencode.db")
    tree = read_tree(oc_run.data_dir / "storage")
    assert list(db.sessions) == [new_id]
    assert list(tree.sessions) == [old_id]
    assert tree.sessions[old_id].info["version"] == observed["old_release"]


@pytest.mark.opencode_scenario("fork")
def test_fork_copies_the_messages_into_a_new_session(oc_run: OcRun) -> None:
    fork = oc_run.expect["fork"]
    storage = oc_run.storage()
    original, forked = storage.sessions[fork["original"]], storage.sessions[fork["fork"]]
    # no link on disk: parent_id stays empty and the title gets a suffix
    assert forked.parent_id is None
    assert forked.info["title"] == f"{original.info['title']} (fork #1)"
    copies = forked.messages[: len(original.messages)]
    assert [m.text() for m in copies] == [m.text() for m in original.messages]
    assert [m.info["time"]["created"] for m in copies] == [
        m.info["time"]["created"] for m in original.messages
    ]
    assert not {m.id for m in copies} & {m.id for m in original.messages}, "ids are new"
    assert [m.text() for m in forked.messages[len(copies) :] if m.role == "user"] == [
        oc_run.script["turns"][1]["prompt"]
    ]
    assert len(original.messages) == 2, "the original must not change"


@pytest.mark.opencode_scenario("fork")
def test_fork_imports_as_its_own_session(oc_run: OcRun, oc_imported: OcImported) -> None:
    fork = oc_run.expect["fork"]
    storage = oc_run.storage()
    by_session = {s["session_id"]: s for s in oc_imported.report["sessions"]}
    assert set(by_session) == {fork["original"], fork["fork"]}
    for session_id, entry in by_session.items():
        assert entry["inserted"] == len(expected_default_memories(storage.sessions[session_id]))
    builders = {b["session_ids"][0]: b for b in builders_of(oc_imported.cli)}
    assert set(builders) == {fork["original"], fork["fork"]}
    assert builders[fork["fork"]]["message_count"] == len(storage.sessions[fork["fork"]].messages)
    # nothing on disk links them but the title OpenCode gives a fork: lazy links by it
    assert builders[fork["fork"]]["forked_from"] == builders[fork["original"]]["id"]
    assert builders[fork["original"]]["forked_from"] is None
