"""Joining rules on sessions written the way each Claude Code release writes them."""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from fabricate.claude import Session
from lazy.capture.bulk_import import plan, run_import
from lazy.capture.discovery import discover_tool
from lazy.capture.rederive import rederive
from lazy.capture.source_file import capture_file
from lazy.model import BuilderInfo
from lazy.store import Store
from lazy.store.queries import list_builders, resolve_builder
from lazy.view.reading import transcript


def import_all(store: Store, root: Path) -> dict[str, BuilderInfo]:
    d = discover_tool("claude", [root], None, default_roots=False)
    run_import(store, d, list(d.sessions))
    return {b.id: b for b in list_builders(store.conn)}


def lines(s: Session) -> list[dict[str, object]]:
    return [json.loads(x) for x in s.path.read_text().splitlines()]


def said(store: Store, bid: str) -> list[str]:
    return [m.text for m in transcript(store.conn, bid).messages]


def test_old_resume_replays_uuids_under_a_new_id_and_continues(
    store: Store, tmp_path: Path
) -> None:
    root = tmp_path / "projects"
    a = Session(root, "/w/p", version="1.0.51")
    a.turn("first question", "first answer")
    b = Session(root, "/w/p", version="1.0.51")
    for obj in lines(a):  # 1.0.x resume: the prior chain, same uuids, the new session id
        b.write({**obj, "sessionId": b.id})
    b.last = a.last
    b.n = a.n
    b.turn("second question", "second answer")
    builders = import_all(store, root)
    assert list(builders) == [a.id]
    assert builders[a.id].session_ids == [a.id, b.id]
    assert said(store, a.id) == [
        "first question",
        "first answer",
        "second question",
        "second answer",
    ]
    assert resolve_builder(store.conn, b.id[:10]) == a.id  # any of its session ids opens it


def test_fork_is_its_own_builder_linked_to_the_original(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    a = Session(root, "/w/p")
    a.turn("shared start", "shared reply")
    f = Session(root, "/w/p")
    for obj in lines(a):  # 2.1.x --fork-session: a copy, same uuids, naming its origin
        f.write(
            {
                **obj,
                "sessionId": f.id,
                "forkedFrom": {"sessionId": a.id, "messageUuid": obj["uuid"]},
            }
        )
    f.last, f.n = a.last, a.n + 5
    f.turn("only in the fork", "fork reply")
    a.n += 10
    a.turn("only in the original", "original reply")
    builders = import_all(store, root)
    assert set(builders) == {a.id, f.id}
    assert builders[f.id].forked_from == a.id
    assert said(store, f.id)[-2:] == ["only in the fork", "fork reply"]
    assert "only in the fork" not in said(store, a.id)


def test_compaction_into_a_new_file_continues_through_logical_parent(
    store: Store, tmp_path: Path
) -> None:
    root = tmp_path / "projects"
    a = Session(root, "/w/p")
    a.turn("before compaction", "noted")
    b = Session(root, "/w/p")
    b.n = a.n
    boundary = b.line(
        "system",
        subtype="compact_boundary",
        content="Conversation compacted",
        logicalParentUuid=a.last,
        compactMetadata={"trigger": "auto"},
    )
    boundary["parentUuid"] = None
    b.write(boundary)
    b.user(
        "This session is being continued from a previous conversation.",
        isCompactSummary=True,
        isVisibleInTranscriptOnly=True,
    )
    b.turn("after compaction", "still here")
    builders = import_all(store, root)
    assert list(builders) == [a.id]
    texts = said(store, a.id)
    assert texts[0] == "before compaction" and texts[-1] == "still here"
    assert builders[a.id].summary == "before compaction"  # the summary is what a human said


def test_clear_starts_a_new_builder_even_right_after_the_last(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    a = Session(root, "/w/p")
    a.turn("topic one", "ok")
    b = Session(root, "/w/p")
    b.user("<local-command-caveat>Caveat: ignore</local-command-caveat>", isMeta=True)
    b.user(
        "<command-name>/clear</command-name><command-message>clear</command-message>"
        "<command-args></command-args>"
    )
    b.user("<local-command-stdout></local-command-stdout>")
    b.turn("topic two", "ok")
    builders = import_all(store, root)
    assert set(builders) == {a.id, b.id}
    assert builders[b.id].summary == "topic two"


def test_only_local_commands_is_never_stored(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    s = Session(root, "/w/p")
    s.user("<local-command-caveat>Caveat</local-command-caveat>", isMeta=True)
    s.user("<command-name>/clear</command-name><command-args></command-args>")
    s.user("<local-command-stdout></local-command-stdout>")
    assert import_all(store, root) == {}
    assert store.conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 0


def test_a_live_session_grows_in_place(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    s = Session(root, "/w/p")
    s.turn("one", "1")
    capture_file(store, s.path)
    s.turn("two", "2")
    r = capture_file(store, s.path)
    assert r.messages_added == 2 and r.bytes_read < s.path.stat().st_size
    assert [m.number for m in transcript(store.conn, s.id).messages] == [1, 2, 3, 4]


def test_assistant_message_split_across_captures_is_merged(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    s = Session(root, "/w/p")
    s.user("go")
    base = {
        "id": "msg_split",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    s.write(
        s.line(
            "assistant",
            requestId="req",
            message={**base, "content": [{"type": "thinking", "thinking": "plan"}]},
        )
    )
    capture_file(store, s.path)  # Claude Code has written only the first block so far
    s.write(
        s.line(
            "assistant",
            requestId="req",
            message={
                **base,
                "content": [{"type": "text", "text": "done"}],
                "usage": {"input_tokens": 1, "output_tokens": 9},
            },
        )
    )
    capture_file(store, s.path)
    msgs = transcript(store.conn, s.id).messages
    assert [(m.role, m.kinds) for m in msgs] == [
        ("user", ["text"]),
        ("assistant", ["thinking", "text"]),
    ]
    usage = store.conn.execute("SELECT usage FROM messages WHERE key='msg_split'").fetchone()[0]
    assert orjson.loads(usage)["output_tokens"] == 9  # the final usage, counted once


def test_caveat_retracted_in_a_later_batch_leaves_no_gap(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    s = Session(root, "/w/p")
    s.turn("hello", "hi")
    s.user(
        "Caveat: The messages below were generated by the user while running local commands.",
        isMeta=True,
    )
    capture_file(store, s.path)  # the untagged caveat is kept until its command shows up
    s.user(
        "<command-name>/cost</command-name>\n<command-message>cost</command-message>\n"
        "<command-args></command-args>"
    )
    s.user("next")
    capture_file(store, s.path)
    t = transcript(store.conn, s.id)
    assert [(m.number, m.text) for m in t.messages] == [(1, "hello"), (2, "hi"), (3, "next")]
    assert t.builder.message_count == 3


def test_head_without_cwd_in_its_first_256_kb_is_still_discovered(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    s = Session(tmp_path / "projects", str(repo))
    s.write({"type": "file-history-snapshot", "messageId": "m", "snapshot": {}})
    s.user([{"type": "text", "text": "x" * 300_000}])  # a big paste pushes cwd past the head
    d = discover_tool("claude", [], str(repo), default_roots=False)
    assert d.sessions == {}  # (explicit sources are taken whole; check the filtered roots)
    d = discover_tool("claude", [tmp_path / "projects"], str(repo), default_roots=False)
    assert list(d.sessions) == [s.id]


def test_rederive_reads_refused_files_archived_generations(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    s = Session(root, "/w/p")
    s.turn("one", "1")
    s.turn("two", "2")
    capture_file(store, s.path)
    lines = s.path.read_bytes().splitlines(keepends=True)
    s.path.write_bytes(b"".join(lines[:2]))  # a stale, shorter copy in its place
    assert capture_file(store, s.path).status == "refused"
    assert rederive(store, s.id) == 4
    assert [m.text for m in transcript(store.conn, s.id).messages] == ["one", "1", "two", "2"]


def test_a_larger_copy_found_later_is_caught_up(store: Store, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    s = Session(a, "/w/p")
    s.turn("one", "1")
    import_all(store, a)
    s.turn("two", "2")  # the session moves on in another config dir
    (b / s.path.parent.name).mkdir(parents=True)
    (b / s.path.parent.name / s.path.name).write_bytes(s.path.read_bytes())
    d = discover_tool("claude", [a, b], None, default_roots=False)
    p = plan(store, d)
    assert p.behind == [s.id]
    run_import(store, d, p.behind)
    assert [m.text for m in transcript(store.conn, s.id).messages] == ["one", "1", "two", "2"]
