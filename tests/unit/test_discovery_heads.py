"""Discovery reads the head of every session file (the one-shot rule, the cwd): a small read
first, more only when the first user message is further in, and nothing again for a file
that has not changed since (the sidecar sweeps every 30 s)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from fabricate.claude import Session
from lazy.agents import discovery
from lazy.agents.discovery import FIRST_READ, HEAD_BYTES
from lazy.capture.discovery import discover_tool
from lazy.model import ONESHOT_MARKER


def padded(root: Path, pad: int, prompt: str, cwd: str = "/work/padded") -> Session:
    """A session whose first user message comes after a snapshot line of ``pad`` bytes."""
    s = Session(root, cwd)
    s.write({"type": "file-history-snapshot", "messageId": "m0", "isSnapshotUpdate": False,
             "snapshot": {"messageId": "m0", "trackedFileBackups": {"big.txt": "x" * pad},
                          "timestamp": "2026-11-01T10:00:00.000Z"}})  # fmt: skip
    s.turn(prompt, "done")
    return s


@pytest.mark.parametrize("pad", [1_000, FIRST_READ * 2, FIRST_READ * 8])
def test_the_first_user_message_is_found_past_the_first_read(tmp_path: Path, pad: int) -> None:
    root = tmp_path / "projects"
    one = padded(root, pad, f"{ONESHOT_MARKER}\nSummarise the diff")
    real = padded(root, pad, "what is in big.txt?", cwd="/work/real")
    assert one.path.stat().st_size < HEAD_BYTES
    d = discover_tool("claude", [root], None, default_roots=False)
    assert list(d.oneshots) == [one.id]
    assert list(d.sessions) == [real.id] and d.sessions[real.id].cwd == "/work/real"


def test_an_unchanged_file_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "projects"
    s = padded(root, 100, "first question")
    other = padded(root, 100, "another question")
    reads: list[Path] = []
    real_read = discovery.read_head
    monkeypatch.setattr(discovery, "read_head", lambda p, a: reads.append(p) or real_read(p, a))
    discover_tool("claude", [root], None, default_roots=False)
    assert sorted(reads) == sorted([s.path, other.path])
    reads.clear()
    discover_tool("claude", [root], None, default_roots=False)
    assert reads == []
    # rewritten with a one-shot's head: a new size, so read again and now left out
    lines = s.path.read_bytes().splitlines()
    first_user = next(i for i, x in enumerate(lines) if orjson.loads(x)["type"] == "user")
    entry = orjson.loads(lines[first_user])
    entry["message"]["content"] = f"{ONESHOT_MARKER}\nSummarise"
    lines[first_user] = orjson.dumps(entry)
    s.path.write_bytes(b"\n".join(lines) + b"\n")
    d = discover_tool("claude", [root], None, default_roots=False)
    assert reads == [s.path]
    assert list(d.oneshots) == [s.id] and list(d.sessions) == [other.id]
