"""The tests' Claude Code writer stays faithful: its lines carry the envelope of a real 2.0.42
session (the shared corpus), key for key, and chain and stamp the way the CLI does."""

from __future__ import annotations

from pathlib import Path

import orjson

from fabricate.claude import Session, subagent
from support import CLAUDE_CORPUS, require

REAL = (
    CLAUDE_CORPUS / "handgemacht-ai__claude-code-log" / "test" / "test_data" / "real_projects"
    / "-Users-dain-workspace-JSSoundRecorder" / "7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"
)  # fmt: skip


def _lines(path: Path) -> list[dict[str, object]]:
    return [orjson.loads(x) for x in path.read_bytes().splitlines() if x.strip()]


def test_lines_have_the_envelope_of_a_real_2_0_42_session(tmp_path: Path) -> None:
    require(REAL.is_file(), f"the shared corpus at {CLAUDE_CORPUS}")
    real = {}
    for line in _lines(REAL):  # a plain prompt and a reply, as Claude Code 2.0.42 wrote them
        kind = line["type"]
        if kind in ("user", "assistant") and "toolUseResult" not in line and "isMeta" not in line:
            real.setdefault(kind, set(line))
    s = Session(tmp_path, "/home/u/proj")
    s.turn("hello", "hi")
    ours = {line["type"]: set(line) for line in _lines(s.path)}
    assert ours == real


def test_lines_chain_and_subagent_files_lie_beside_the_session(tmp_path: Path) -> None:
    s = Session(tmp_path, "/home/u/my proj")
    s.turn("one", "two")
    s.turn("three", "four")
    lines = _lines(s.path)
    assert s.path == tmp_path / "-home-u-my-proj" / f"{s.id}.jsonl"
    assert [x["parentUuid"] for x in lines] == [None] + [x["uuid"] for x in lines[:-1]]
    assert [x["timestamp"] for x in lines][:2] == [
        "2026-11-01T10:00:01.000Z",
        "2026-11-01T10:00:02.000Z",
    ]
    path = subagent(s, "a1b2c3", "look", "found")
    assert path == s.path.parent / s.id / "subagents" / "agent-a1b2c3.jsonl"
    sub = _lines(path)
    assert {(x["isSidechain"], x["agentId"], x["sessionId"]) for x in sub} == {
        (True, "a1b2c3", s.id)
    }
