"""Adding an agent is one folder and one line in the registry: a toy agent, registered by
this test alone (tests/toy_agent/), is discovered, captured, listed and searched, and no
file of lazy's own names it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from lazy.agents import AGENTS, TOOL_NAMES, TOOLS, agent, registered
from lazy.capture.discovery import discover_tool
from toy_agent.agent import TOY

TESTS = Path(__file__).resolve().parents[1]
SIDECAR = TESTS.parent / "sidecar" / "lazy"
SID = "7e3c1d2a-0000-4000-8000-00000000a11e"


def write_session(home: Path, cwd: Path) -> Path:
    path = home / "sessions" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    lines = [
        {"kind": "start", "cwd": str(cwd), "at": "2026-11-01T10:00:00.000Z"},
        {"kind": "said", "who": "user", "id": "u1", "text": "How do I frobnicate the widget?",
         "at": "2026-11-01T10:00:01.000Z"},
        {"kind": "said", "who": "agent", "id": "a1", "text": "Quuxify it, then frobnicate.",
         "at": "2026-11-01T10:00:05.000Z"},
        {"kind": "said", "who": "user", "id": "u2", "text": "And the gadget?",
         "at": "2026-11-01T10:01:00.000Z"},
        {"kind": "said", "who": "agent", "id": "a2", "text": "The same way.",
         "at": "2026-11-01T10:01:03.000Z"},
    ]  # fmt: skip
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    return path


def toy_lazy(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`lazy ARGS` in a child that registers the toy agent first."""
    p = subprocess.run(
        [sys.executable, "-m", "toy_agent.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert p.returncode == 0, f"lazy {' '.join(args)} failed:\n{p.stdout}\n{p.stderr}"
    return p


def test_the_registry_lists_a_registered_agent_and_forgets_it_after() -> None:
    assert "toy" not in TOOLS
    with registered(TOY):
        assert list(TOOLS) == ["claude", "codex", "opencode", "toy"]
        assert TOOL_NAMES["toy"] == "Toy Agent" and agent("toy") is TOY
        assert AGENTS[-1] is TOY
        with pytest.raises(ValueError, match="registered already"):
            registered(TOY).__enter__()
    assert list(TOOLS) == ["claude", "codex", "opencode"]
    with pytest.raises(ValueError, match="unknown agent 'toy'"):
        agent("toy")


def test_a_toy_agent_is_discovered_captured_listed_and_searched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "toy-home"
    project = tmp_path / "toyproj"
    project.mkdir()
    path = write_session(home, project)
    monkeypatch.setenv("TOY_HOME", str(home))

    with registered(TOY):
        d = discover_tool("toy", None, str(project))
    assert list(d.sessions) == [SID]
    cand = d.sessions[SID]
    assert (cand.agent, cand.path, cand.cwd) == ("toy", path, str(project))
    assert cand.source.key == str(path) and cand.source.subagent_id is None

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    imported = toy_lazy(
        "import-conversation", "--tool", "toy", "--yes", "--json", cwd=project, env=env
    )
    report = orjson.loads(imported.stdout)
    assert report["imported"] == [SID], imported.stdout

    listed = toy_lazy("conversations", "--tool", "toy", "--json", cwd=project, env=env)
    builders = orjson.loads(listed.stdout)["builders"]
    assert [(b["tool"], b["session_ids"], b["message_count"]) for b in builders] == [
        ("toy", [SID], 4)
    ], listed.stdout

    # the search filter by agent knows it too
    found = toy_lazy("search", "frobnicate tool:toy", "--json", cwd=project, env=env)
    groups = orjson.loads(found.stdout)["groups"]
    assert [(g["builder_id"], g["tool"]) for g in groups] == [(SID, "toy")], found.stdout
    assert {h["role"] for h in groups[0]["hits"]} == {"user", "assistant"}


def test_no_file_of_lazy_names_the_toy_agent() -> None:
    for f in SIDECAR.rglob("*.py"):
        text = f.read_text()
        assert "toy_agent" not in text and '"toy"' not in text, f
