"""The benchmark's corpus generator writes valid, realistic Claude Code history."""

from __future__ import annotations

import base64
import itertools
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest

from bench import corpus


def _read(path: Path) -> list[dict[str, Any]]:
    out = []
    with path.open("rb") as fh:
        for raw in fh:
            assert raw.endswith(b"\n"), f"{path}: last line not terminated"
            obj = orjson.loads(raw)
            assert isinstance(obj, dict)
            out.append(obj)
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, dict[Path, list[Any]]]:
    dest = tmp_path_factory.mktemp("corpus")
    info = corpus.generate(dest, 2_000_000, seed=3)
    files = {p: _read(p) for p in sorted((dest / "projects").rglob("*.jsonl"))}
    return info, files


def test_size_layout_and_counts(generated: tuple[Any, dict[Path, list[Any]]]) -> None:
    info, files = generated
    total = sum(p.stat().st_size for p in files)
    assert total == info.bytes
    assert 0.9 * 2_000_000 <= total <= 1.15 * 2_000_000
    projects = {p.relative_to(info.projects_dir).parts[0] for p in files}
    assert len(projects) >= 2
    assert all(re.fullmatch(r"-home-u-proj-\d+", d) for d in projects)
    mains = [p for p in files if not p.name.startswith("agent-")]
    assert len(mains) >= 3
    for p in mains:
        assert re.fullmatch(
            r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", p.stem
        )
    # rg -c '"type":"user"' would count exactly the user entries
    n_user = sum(raw.count(b'"type":"user"') for p in files for raw in p.read_bytes().splitlines())
    assert (
        n_user
        == info.stats.user_lines
        == sum(1 for lines in files.values() for o in lines if o.get("type") == "user")
    )


def test_parent_chains(generated: tuple[Any, dict[Path, list[Any]]]) -> None:
    _, files = generated
    for path, lines in files.items():
        is_agent = path.name.startswith("agent-")
        sid = path.parent.parent.name if is_agent else path.stem
        seen: set[str] = set()
        for o in lines:
            if "sessionId" in o:
                assert o["sessionId"] == sid
            u = o.get("uuid")
            if u is None:
                continue
            assert u not in seen
            parent = o.get("parentUuid")
            # every parent is written before its child, in the same file
            assert parent is None or parent in seen, f"{path}: {u} -> {parent}"
            seen.add(u)
            for key in ("cwd", "version", "gitBranch", "timestamp", "userType", "isSidechain"):
                assert key in o, f"{path}: {key} missing on {o.get('type')}"
            assert o["isSidechain"] is is_agent
            if is_agent:
                assert re.fullmatch(r"[0-9a-f]{17}", o["agentId"])


def test_assistant_messages_split_over_lines(generated: tuple[Any, dict[Path, list[Any]]]) -> None:
    _, files = generated
    by_id: dict[str, list[dict[str, Any]]] = defaultdict(list)
    tool_uses: set[str] = set()
    tool_results: set[str] = set()
    for lines in files.values():
        for o in lines:
            if o.get("type") == "assistant":
                assert len(o["message"]["content"]) == 1
                by_id[o["message"]["id"]].append(o)
                block = o["message"]["content"][0]
                if block["type"] == "tool_use":
                    tool_uses.add(block["id"])
            elif o.get("type") == "user" and isinstance(o["message"]["content"], list):
                for block in o["message"]["content"]:
                    if block.get("type") == "tool_result":
                        tool_results.add(block["tool_use_id"])
                        assert "toolUseResult" in o
    multi = [v for v in by_id.values() if len(v) >= 2]
    assert multi
    for group in multi:
        assert len({o["requestId"] for o in group}) == 1
        kinds = [o["message"]["content"][0]["type"] for o in group]
        assert kinds[-1] in ("tool_use", "text")
    assert tool_uses == tool_results  # every tool_use answered, nothing answered twice
    kinds_seen = {o["message"]["content"][0]["type"] for v in by_id.values() for o in v}
    assert {"thinking", "text", "tool_use"} <= kinds_seen


def test_compaction(generated: tuple[Any, dict[Path, list[Any]]]) -> None:
    _, files = generated
    found = 0
    for lines in files.values():
        uuids = {o["uuid"] for o in lines if "uuid" in o}
        for i, o in enumerate(lines):
            if o.get("subtype") == "compact_boundary":
                assert o["type"] == "system" and o["parentUuid"] is None
                assert o["logicalParentUuid"] in uuids
                nxt = lines[i + 1]
                assert nxt["isCompactSummary"] is True and nxt["parentUuid"] == o["uuid"]
                assert nxt["message"]["content"].startswith("This session is being continued")
                found += 1
    assert found >= 1


def test_subagents(generated: tuple[Any, dict[Path, list[Any]]]) -> None:
    info, files = generated
    agents = [p for p in files if p.name.startswith("agent-")]
    assert agents
    spawned: dict[str, str] = {}
    for p, lines in files.items():
        for o in lines:
            r = o.get("toolUseResult")
            if isinstance(r, dict) and "agentId" in r:
                spawned[r["agentId"]] = p.stem
    for p in agents:
        m = re.fullmatch(r"agent-([0-9a-f]{17})\.jsonl", p.name)
        assert m and p.parent.name == "subagents"
        sid = p.parent.parent.name
        assert (p.parent.parent.parent / f"{sid}.jsonl").exists()
        assert spawned[m.group(1)] == sid
        meta = orjson.loads(p.with_name(f"agent-{m.group(1)}.meta.json").read_bytes())
        assert meta["agentType"] == "general-purpose" and meta["description"]
        lines = files[p]
        assert lines[0]["parentUuid"] is None and lines[0]["type"] == "user"
        assert all(o["isSidechain"] is True for o in lines)
    assert info.stats.subagent_files == len(agents)


def test_images(generated: tuple[Any, dict[Path, list[Any]]]) -> None:
    _, files = generated
    images = []
    for lines in files.values():
        for o in lines:
            if o.get("type") != "user" or not isinstance(o["message"]["content"], list):
                continue
            for block in o["message"]["content"]:
                if block.get("type") == "image":
                    images.append(block["source"])
                elif block.get("type") == "tool_result" and isinstance(block["content"], list):
                    images += [b["source"] for b in block["content"] if b.get("type") == "image"]
    assert images
    for src in images:
        assert src["type"] == "base64" and src["media_type"] == "image/png"
        assert base64.b64decode(src["data"])[:8] == b"\x89PNG\r\n\x1a\n"


def test_clear_sessions_and_metadata_lines(generated: tuple[Any, dict[Path, list[Any]]]) -> None:
    _, files = generated
    cleared = 0
    kinds = set()
    for lines in files.values():
        kinds |= {o.get("type") for o in lines}
        chain = [o for o in lines if "uuid" in o]
        if not chain or not chain[0].get("isMeta"):
            continue
        caveat, cmd, stdout, prompt = chain[:4]
        assert caveat["parentUuid"] is None and "Caveat:" in caveat["message"]["content"]
        assert cmd["parentUuid"] == caveat["uuid"]
        assert "<command-name>/clear</command-name>" in cmd["message"]["content"]
        assert stdout["parentUuid"] == cmd["uuid"]
        assert stdout["message"]["content"] == "<local-command-stdout></local-command-stdout>"
        assert prompt["parentUuid"] == stdout["uuid"]
        cleared += 1
    assert cleared >= 1
    assert {"file-history-snapshot", "queue-operation", "attachment", "system"} <= kinds


def test_deterministic_and_checker(tmp_path: Path) -> None:
    a = corpus.generate(tmp_path / "a", 300_000, seed=11)
    b = corpus.generate(tmp_path / "b", 300_000, seed=11)
    fa, fb = a.jsonl_files(), b.jsonl_files()
    assert [p.relative_to(a.projects_dir) for p in fa] == [
        p.relative_to(b.projects_dir) for p in fb
    ]
    assert all(x.read_bytes() == y.read_bytes() for x, y in zip(fa, fb, strict=True))
    assert corpus.check_jsonl(fa) == []


def test_make_session_and_append_turn(tmp_path: Path) -> None:
    sid = corpus.new_uuid(5)
    path = tmp_path / "-home-u-proj-0" / f"{sid}.jsonl"
    info = corpus.make_session(path, 400_000, seed=5, session_id=sid, subagents=False)
    assert info.session_id == sid and info.bytes == path.stat().st_size
    assert 380_000 <= info.bytes <= 600_000
    last = info.last_uuid
    for i in range(3):
        before = path.stat().st_size
        turn = corpus.append_turn(path, sid, last, seed=i)
        assert path.stat().st_size - before == turn.bytes_appended
        added = [orjson.loads(x) for x in path.read_bytes()[before:].splitlines()]
        assert 4 <= len(added) <= 12
        chained = [o for o in added if "uuid" in o]
        assert chained[0]["parentUuid"] == last
        for prev, cur in itertools.pairwise(chained):
            assert cur["parentUuid"] == prev["uuid"]
        assert chained[-1]["uuid"] == turn.last_uuid
        assert all(o.get("sessionId", sid) == sid for o in added)
        assert {o["type"] for o in added} >= {"user", "assistant"}
        last = turn.last_uuid
    assert corpus.check_jsonl([path]) == []


def test_parse_size() -> None:
    assert corpus.parse_size("200MB") == 200_000_000
    assert corpus.parse_size("1GB") == 1_000_000_000
    assert corpus.parse_size("1GiB") == 2**30
    assert corpus.parse_size("1.5k") == 1500
    assert corpus.parse_size("123") == 123
