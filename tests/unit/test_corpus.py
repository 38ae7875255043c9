"""The real and fixture files of shared/corpus/claude-code, imported for real."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lazy.builders.regroup import refresh
from lazy.capture.bulk_import import run_import
from lazy.capture.discovery import discover_tool
from lazy.capture.rederive import rederive
from lazy.model import BuilderInfo
from lazy.store import Store
from lazy.store.queries import list_builders
from lazy.view.reading import transcript
from support import split_sessions, stage

CCL = "handgemacht-ai__claude-code-log/test/test_data"
SAMPLE = f"{CCL}/real_projects/-Users-dain-workspace-claude-code-log-sample"
SOUND = f"{CCL}/real_projects/-Users-dain-workspace-JSSoundRecorder"


def import_dir(store: Store, root: Path) -> list[BuilderInfo]:
    d = discover_tool("claude", [root], None, default_roots=False)
    run_import(store, d, list(d.sessions))
    return list_builders(store.conn)


def by_id(builders: list[BuilderInfo]) -> dict[str, BuilderInfo]:
    return {b.id: b for b in builders}


def test_every_corpus_file_imports_and_bad_lines_are_reported(store: Store, corpus: Path) -> None:
    d = discover_tool("claude", [corpus], None, default_roots=False)
    report = run_import(store, d, list(d.sessions))
    assert len(report.imported) >= 20
    assert len(list_builders(store.conn)) >= 30
    bad = {(Path(q.file).name, q.line) for q in report.quarantined}
    # edge_cases.jsonl holds three lines that are JSON but not objects
    assert {("edge_cases.jsonl", 13), ("edge_cases.jsonl", 15), ("edge_cases.jsonl", 16)} <= bad
    rows = store.conn.execute("SELECT path, line_no, reason FROM quarantine").fetchall()
    assert any(
        r[0].endswith("edge_cases.jsonl") and r[1] == 13 and "not a JSON object" in r[2]
        for r in rows
    )
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_resume_across_files_joins_one_builder(store: Store, corpus: Path, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    split_sessions(corpus / CCL / "dag_resume.jsonl", root / "p")
    b = by_id(import_dir(store, root))
    assert list(b) == ["s1"]
    assert b["s1"].session_ids == ["s1", "s2"]
    numbers = [m.number for m in transcript(store.conn, "s1").messages]
    assert numbers == list(range(1, len(numbers) + 1))


def test_fork_mid_conversation_is_its_own_linked_builder(
    store: Store, corpus: Path, tmp_path: Path
) -> None:
    root = tmp_path / "projects"
    split_sessions(corpus / CCL / "dag_fork.jsonl", root / "p")
    b = by_id(import_dir(store, root))
    assert set(b) == {"s1", "s3"}
    assert b["s1"].session_ids == ["s1", "s2"]  # s2 resumed from s1's tail
    assert b["s3"].forked_from == "s1"  # s3 parents into the middle of s1


@pytest.mark.parametrize(
    "name",
    [
        f"{CCL}/dag_within_fork.jsonl",
        "daaain__claude-code-log/test/test_data/dag_compact_after_rewind.jsonl",
        "daaain__claude-code-log/test/test_data/dag_compact_after_rewind_preserved.jsonl",
    ],
)
def test_rewind_and_compaction_stay_in_one_builder(
    store: Store, corpus: Path, tmp_path: Path, name: str
) -> None:
    root = stage(tmp_path, {"p/x.jsonl": corpus / name})
    builders = import_dir(store, root)
    assert len(builders) == 1
    t = transcript(store.conn, builders[0].id)
    if "compact" in name:
        assert any(m.role == "system" and "compacted" in m.text.lower() for m in t.messages) or any(
            m.text.startswith("This session is being continued") for m in t.messages
        )


def test_clear_sessions_sharing_a_reused_caveat_uuid_are_separate(
    store: Store, corpus: Path, tmp_path: Path
) -> None:
    ids = [
        "71c9afe9-d9cc-4583-86b3-e62ba682b83a",
        "b45ad5d8-81fb-4bcb-baba-19d9f503d731",
        "cbc0f75b-b36d-4efd-a7da-ac800ea30eb6",
    ]
    root = stage(tmp_path, {f"p/{i}.jsonl": corpus / SAMPLE / f"{i}.jsonl" for i in ids})
    b = by_id(import_dir(store, root))
    assert set(b) == set(ids)
    for i in ids:
        t = transcript(store.conn, i)
        heads = [m.text.lstrip()[:40] for m in t.messages]
        assert not any(
            h.startswith(("Caveat:", "<command-name>", "<local-command", "/clear")) for h in heads
        ), i
        assert t.builder.summary and not t.builder.summary.startswith("Caveat")
        assert t.builder.summary == " ".join(t.messages[0].text.split())[:300]
    assert b[ids[0]].summary.startswith("Please have a look at this patch diff")


def test_old_layout_warmup_agents_are_neither_sidechains_nor_builders(
    store: Store, corpus: Path, tmp_path: Path
) -> None:
    # 2.0.4x wrote agent-<8 hex>.jsonl files beside the sessions; the ones in this real
    # project are start-up warm-ups ("I'm ready to help you explore…"): no tool call of the
    # session spawned them, so they are kept (raw lines) but listed as nothing.
    src = corpus / SOUND
    root = stage(tmp_path, {f"p/{f.name}": f for f in src.glob("*.jsonl")})
    builders = import_dir(store, root)
    main = by_id(builders)["7acd37a8-2745-4b58-a8a9-46164b22ad9e"]
    assert main.sidechains == []
    assert [b.id for b in builders] == [main.id]  # the agents' empty mains make no Builder
    kept = store.conn.execute(
        "SELECT COUNT(*) FROM source_files f JOIN raw_chunks r ON r.file_id=f.id"
        " WHERE f.agent_id IS NOT NULL"
    ).fetchone()[0]
    assert kept == 8
    assert main.summary == "/init"  # a prompt-type command explains the turns after it


def test_flat_agent_file_a_tool_call_spawned_is_a_sidechain(
    store: Store, corpus: Path, tmp_path: Path
) -> None:
    src = corpus / SOUND
    files = {f"p/{f.name}": f for f in src.glob("*.jsonl")}
    root = stage(tmp_path, files)
    main = root / "p" / "7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"
    line = json.loads(main.read_text().splitlines()[-1])
    spawn = {
        **line,
        "type": "user",
        "uuid": "feedface-0000-4000-8000-000000000001",
        "parentUuid": line.get("uuid"),
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
        },
        "toolUseResult": {"agentId": "3430b97e", "status": "completed"},
    }
    with main.open("a") as f:
        f.write(json.dumps(spawn) + "\n")
    (b,) = import_dir(store, root)
    assert [s.agent_id for s in b.sidechains] == ["3430b97e"]


def test_new_layout_subagents_are_sidechains(store: Store, corpus: Path, tmp_path: Path) -> None:
    src = corpus / CCL / "real_projects/-experiments-worktrees"
    files = {str(f.relative_to(src)): f for f in src.rglob("*.jsonl")}
    root = stage(tmp_path, {f"p/{k}": v for k, v in files.items()})
    builders = import_dir(store, root)
    assert len(builders) == 1
    assert len(builders[0].sidechains) == 6
    t = transcript(store.conn, builders[0].id)
    assert all(len(s.messages) > 0 for s in t.sidechains)


def test_title_only_files_store_nothing(store: Store, corpus: Path, tmp_path: Path) -> None:
    root = stage(
        tmp_path,
        {
            "p/4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl": corpus
            / SAMPLE
            / "4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl"
        },
    )
    assert import_dir(store, root) == []


def test_split_assistant_lines_are_one_message_with_usage_counted_once(
    store: Store, corpus: Path, tmp_path: Path
) -> None:
    src = (
        corpus
        / CCL
        / "real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
    )
    root = stage(tmp_path, {"p/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl": src})
    import_dir(store, root)
    row = store.conn.execute(
        "SELECT role, kinds, uuids, usage FROM messages WHERE key='msg_01XwTPVdM5y8bf1EDKvGBV35'"
    ).fetchone()
    assert row is not None
    assert row[0] == "assistant"
    assert row[1] == '["thinking","text","tool_use"]'
    assert len(__import__("json").loads(row[2])) == 3
    assert (
        store.conn.execute(
            "SELECT COUNT(*) FROM messages WHERE key='msg_01XwTPVdM5y8bf1EDKvGBV35'"
        ).fetchone()[0]
        == 1
    )


def test_regroup_from_store_without_reimport(store: Store, corpus: Path, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    split_sessions(corpus / CCL / "dag_fork.jsonl", root / "p")
    import_dir(store, root)
    # simulate conversations captured under an earlier join: every session its own Builder
    with store.write() as c:
        c.execute("UPDATE sessions SET builder_id = id")
        c.execute("DELETE FROM builders")
        c.execute("UPDATE messages SET builder_id = NULL, number = NULL")
    shutil.rmtree(root)  # the files are gone: only the store is left
    with store.write() as c:  # as if the joining rules had changed since
        c.execute("UPDATE meta SET value='0' WHERE key='join_version'")
    refresh(store)
    b = by_id(list_builders(store.conn))
    assert set(b) == {"s1", "s3"}
    assert b["s1"].session_ids == ["s1", "s2"]


def test_rederive_from_the_raw_archive_equals_a_fresh_import(
    store: Store, corpus: Path, tmp_path: Path
) -> None:
    src = corpus / CCL / "real_projects/-experiments-worktrees"
    files = {str(f.relative_to(src)): f for f in src.rglob("*.jsonl")}
    root = stage(tmp_path, {f"p/{k}": v for k, v in files.items()})
    (bid,) = [b.id for b in import_dir(store, root)]
    before = transcript(store.conn, bid).model_dump()
    shutil.rmtree(root)  # only the store is left
    with store.write() as c:  # damage the derived rows
        c.execute("UPDATE messages SET text='garbled' WHERE session_id=?", (bid,))
    assert rederive(store, bid) > 0
    assert transcript(store.conn, bid).model_dump() == before
