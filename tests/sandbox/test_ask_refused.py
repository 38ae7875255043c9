"""`lazy ask` on an engine without the agent image: one line that names the command that
builds it, before anything starts (the other prerequisites are
tests/integration/test_ask_prerequisites.py's)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabricate.claude import Session
from support.docker import Engine

LAZY = str(Path(sys.executable).with_name("lazy"))


@pytest.fixture
def no_image(engine: Engine) -> Iterator[Engine]:
    """The engine with the agent image set aside (tagged otherwise) for the test."""
    engine.client.images.get(engine.image).tag("lazy-agent", "set-aside")
    engine.client.images.remove(engine.image)
    try:
        yield engine
    finally:
        engine.client.images.get("lazy-agent:set-aside").tag(*engine.image.split(":"))
        engine.client.images.remove("lazy-agent:set-aside")


def test_a_missing_agent_image_is_one_line_naming_its_build(
    no_image: Engine, tmp_path: Path
) -> None:
    s = Session(Path(os.environ["HOME"]) / ".claude" / "projects", "/srv/projects/asked")
    s.turn("which compression?", "zstd, level 3")
    env = {**os.environ, "NO_COLOR": "1", "ANTHROPIC_API_KEY": "sk-ant-never-sent"}
    subprocess.run(
        [LAZY, "import-conversation", "--all-projects", "--yes"], env=env, check=True,
        capture_output=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    p = subprocess.run(
        [LAZY, "ask", s.id[:8], "-m", "which compression?"], env=env,
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert p.returncode == 1
    assert p.stdout == ""
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, p.stderr
    [line] = lines
    assert line.startswith(f"Error: the agent image {no_image.image}"), line
    assert "`lazy agent-image build`" in line
    assert "[agent-image-missing]" in line, line
    assert "Traceback" not in p.stderr
    assert no_image.labelled() == []
