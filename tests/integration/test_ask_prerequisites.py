"""`lazy ask` checks what every one-shot needs (the credential, a Docker engine; the agent
image is tests/sandbox/test_ask_refused.py's) once, before anything starts, and says what is
missing in one line with the fix, once: not per excerpt, no traceback, no editor opened."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from fabricate.claude import Session
from support.search import LAZY, env_for, run_lazy

BIG = 60 * 1024  # two answers this long make three excerpts: today's error printed per excerpt


class World:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.lazy_home = base / "lazy"
        self.user_home = base / "home"
        s = Session(self.user_home / ".claude" / "projects", "/srv/projects/asked")
        for words in ("compression", "the index", "retention"):
            s.turn(f"what about {words}? " + "q" * BIG, "decided " + "a" * 10)
        self.id = s.id
        run_lazy(self.lazy_home, self.user_home, "import-conversation", "--all-projects", "--yes")
        self.editor_ran = base / "editor-ran"
        editor = base / "editor.sh"
        editor.write_text(f"#!/bin/sh\ntouch {self.editor_ran}\nprintf 'q?' > \"$1\"\n")
        editor.chmod(0o755)
        self.editor = str(editor)

    def ask(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        base = {
            "ANTHROPIC_API_KEY": "sk-ant-never-sent",
            "ANTHROPIC_AUTH_TOKEN": "",
            "DOCKER_HOST": f"unix://{self.base / 'no-docker.sock'}",
            "LAZY_ONESHOT_BASE_DIR": str(self.base / "oneshot"),
            "NO_COLOR": "1",
            "EDITOR": self.editor,
        }
        return subprocess.run(
            [LAZY, "ask", self.id[:8], *args],
            env=env_for(self.lazy_home, self.user_home, **{**base, **env}),
            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        )  # fmt: skip


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def one_line(p: subprocess.CompletedProcess[str]) -> str:
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert p.stdout == ""
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, p.stderr
    assert "Traceback" not in p.stderr
    return lines[0]


def test_no_credential_is_one_line_with_the_fix(world: World) -> None:
    line = one_line(world.ask("-m", "which compression?", ANTHROPIC_API_KEY=""))
    assert line.startswith("Error: lazy ask needs an Anthropic credential"), line
    assert "ANTHROPIC_API_KEY" in line
    assert line.endswith("[no-credential]"), line
    assert line.count("ANTHROPIC_API_KEY") == 1
    assert not (world.base / "oneshot").exists()  # nothing started


def test_no_docker_is_one_line_with_the_fix(world: World) -> None:
    line = one_line(world.ask("-m", "which compression?"))
    assert line.startswith("Error: lazy ask runs every one-shot in a Docker container"), line
    assert "no-docker.sock" in line
    assert "sudo systemctl start docker" in line and "DOCKER_HOST" in line
    assert "[docker-unavailable: " in line  # the machine detail, its root cause only
    assert line.count("systemctl") == 1
    assert not (world.base / "oneshot").exists()


def test_the_check_comes_before_the_editor(world: World) -> None:
    line = one_line(world.ask(ANTHROPIC_API_KEY=""))
    assert "[no-credential]" in line
    assert not world.editor_ran.exists()  # no question typed in vain
