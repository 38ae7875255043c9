"""The registry of agents: the one list, what each agent says of its sources and roots."""

from __future__ import annotations

from pathlib import Path

import pytest

from lazy.agents import AGENTS, TOOL_NAMES, TOOLS, agent, source_of
from lazy.agents.opencode.records import SessionRef
from lazy.agents.opencode.sources import source_of as opencode_source
from lazy.capture.discovery import roots_of

UUID = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"


def test_the_registry_is_the_list_of_agents() -> None:
    assert list(TOOLS) == ["claude", "codex", "opencode"] == [a.name for a in AGENTS]
    assert dict(TOOL_NAMES) == {
        "claude": "Claude Code",
        "codex": "Codex CLI",
        "opencode": "OpenCode",
    }
    assert [a.reads for a in AGENTS] == ["lines", "lines", "records"]
    assert [a.name for a in AGENTS if a.resumes_in_terminal] == ["claude"]
    with pytest.raises(ValueError, match="unknown agent 'gemini'"):
        agent("gemini")


def test_a_file_name_says_its_agent_session_and_subagent(tmp_path: Path) -> None:
    rollout = tmp_path / f"rollout-2026-11-01T10-00-00-{UUID}.jsonl.zst"
    assert source_of(rollout) == agent("codex").source(rollout)
    assert (source_of(rollout).agent, source_of(rollout).session_id) == ("codex", UUID)
    sub = tmp_path / "proj" / "parent-sid" / "subagents" / "agent-a1b2.jsonl"
    ref = source_of(sub)
    assert (ref.agent, ref.session_id, ref.subagent_id, ref.key) == (
        "claude", "parent-sid", "a1b2", str(sub)
    )  # fmt: skip
    old = tmp_path / "proj" / "agent-a1b2.jsonl"  # 2.0.x: its lines name the parent
    assert (source_of(old).session_id, source_of(old).subagent_id) == ("agent-a1b2", "a1b2")
    main = tmp_path / "proj" / f"{UUID}.jsonl"
    assert (source_of(main).agent, source_of(main).session_id) == ("claude", UUID)
    assert source_of(rollout, "claude").agent == "claude"  # told, not guessed


def test_an_opencode_source_key_and_its_location() -> None:
    def ref(location: str, parent: str | None = None) -> SessionRef:
        return SessionRef("ses_1", location, parent, "/w", None, None, 1, 2, "s")

    db = opencode_source(ref("/d/opencode.db", parent="ses_0"))
    assert (db.key, db.session_id, db.subagent_id) == ("/d/opencode.db#ses_1", "ses_1", "ses_1")
    js = opencode_source(ref("/d/storage/session/p/ses_1.json"))
    assert (js.key, js.subagent_id) == ("/d/storage/session/p/ses_1.json", None)
    oc = agent("opencode")
    assert oc.location(db.key) == "/d/opencode.db"
    assert oc.location(js.key) == js.key
    assert agent("claude").location("/a#b.jsonl") == "/a#b.jsonl"


def test_each_agent_has_its_default_roots_moved_by_its_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "x"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "d"))
    assert roots_of("claude")[0] == tmp_path / "c" / "projects"
    assert roots_of("codex") == [tmp_path / "x"]
    assert roots_of("opencode", [tmp_path / "more"]) == [
        tmp_path / "d" / "opencode",
        tmp_path / "more",
    ]
    assert roots_of("codex", default_roots=False) == []
    assert [a.env for a in AGENTS] == [("CLAUDE_CONFIG_DIR",), ("CODEX_HOME",), ("XDG_DATA_HOME",)]
