"""`lazy mcp install|uninstall|status` as a user runs them (child processes) on a temp home:
each agent's own file, everything else in it kept, idempotent, --dry-run writes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from support.cli import lazy

CLAUDE = {"numStartups": 7, "mcpServers": {"other": {"command": "other-server"}}, "theme": "dark"}
CODEX = '# my settings\nmodel = "gpt-5"\n\n[mcp_servers.other]\ncommand = "other-server"\n'
OPENCODE = {"$schema": "https://opencode.ai/config.json", "theme": "tokyonight"}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = Path(os.environ["HOME"])
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    (h / ".claude.json").write_text(json.dumps(CLAUDE))
    (h / ".codex").mkdir()
    (h / ".codex" / "config.toml").write_text(CODEX)
    (h / ".config" / "opencode").mkdir(parents=True)
    (h / ".config" / "opencode" / "opencode.json").write_text(json.dumps(OPENCODE))
    return h


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    subprocess.run(["git", "init", "-q", str(r)], check=True)
    return r


def files(home: Path) -> dict[str, str]:
    return {
        "claude": (home / ".claude.json").read_text(),
        "codex": (home / ".codex" / "config.toml").read_text(),
        "opencode": (home / ".config" / "opencode" / "opencode.json").read_text(),
    }


def report(*args: str, cwd: Path) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(lazy("mcp", *args, "--json", cwd=cwd).stdout)
    return out


def test_install_writes_each_agents_file_and_keeps_the_rest(home: Path, repo: Path) -> None:
    r = report("install", cwd=repo)
    assert [(c["agent"], c["action"]) for c in r["changes"]] == [
        ("claude", "added"), ("codex", "added"), ("opencode", "added"),
    ]  # fmt: skip
    lazy_home = str(Path(os.environ["LAZY_HOME"]).resolve())
    claude = json.loads((home / ".claude.json").read_text())
    server = claude["mcpServers"].pop("lazy")
    assert claude == CLAUDE  # everything else as it was
    assert server["type"] == "stdio" and server["args"] == ["mcp"]
    assert Path(server["command"]).name == "lazy" and os.access(server["command"], os.X_OK)
    assert server["env"] == {"LAZY_HOME": lazy_home}
    codex_text = (home / ".codex" / "config.toml").read_text()
    assert codex_text.startswith(CODEX)  # comments and layout kept
    codex = tomllib.loads(codex_text)
    assert codex["model"] == "gpt-5" and codex["mcp_servers"]["other"] == {
        "command": "other-server"
    }
    assert codex["mcp_servers"]["lazy"] == {
        "command": server["command"], "args": ["mcp"], "env": {"LAZY_HOME": lazy_home},
    }  # fmt: skip
    oc = json.loads((home / ".config" / "opencode" / "opencode.json").read_text())
    assert oc.pop("mcp") == {
        "lazy": {
            "type": "local", "command": [server["command"], "mcp"], "enabled": True,
            "environment": {"LAZY_HOME": lazy_home},
        }
    }  # fmt: skip
    assert oc == OPENCODE


def test_install_twice_changes_nothing(home: Path, repo: Path) -> None:
    lazy("mcp", "install", cwd=repo)
    before = files(home)
    again = report("install", cwd=repo)
    assert {c["action"] for c in again["changes"]} == {"kept"}
    assert files(home) == before


def test_dry_run_shows_the_diff_and_writes_nothing(home: Path, repo: Path) -> None:
    before = files(home)
    p = lazy("mcp", "install", "--agent", "codex", "--dry-run", cwd=repo)
    assert "+[mcp_servers.lazy]" in p.stdout and '+args = ["mcp"]' in p.stdout
    assert "(dry run:" in p.stdout and "not written" in p.stdout
    assert files(home) == before


def test_uninstall_removes_only_lazys_entry(home: Path, repo: Path) -> None:
    lazy("mcp", "install", cwd=repo)
    r = report("uninstall", cwd=repo)
    assert {c["action"] for c in r["changes"]} == {"removed"}
    assert json.loads((home / ".claude.json").read_text()) == CLAUDE
    assert (home / ".codex" / "config.toml").read_text() == CODEX
    assert json.loads((home / ".config" / "opencode" / "opencode.json").read_text()) == OPENCODE
    assert {c["action"] for c in report("uninstall", cwd=repo)["changes"]} == {"absent"}


def test_project_scope_and_status(home: Path, repo: Path) -> None:
    lazy("mcp", "install", "--scope", "project", cwd=repo)
    assert json.loads((repo / ".mcp.json").read_text())["mcpServers"]["lazy"]["args"] == ["mcp"]
    assert "lazy" in tomllib.loads((repo / ".codex" / "config.toml").read_text())["mcp_servers"]
    assert "lazy" in json.loads((repo / "opencode.json").read_text())["mcp"]
    s = report("status", cwd=repo)["servers"]
    got = {(x["agent"], x["scope"]): (x["installed"], x["command_exists"]) for x in s}
    assert got == {
        (a, scope): (scope == "project", scope == "project")
        for a in ("claude", "codex", "opencode")
        for scope in ("user", "project")
    }
    assert all(x["command"].endswith("lazy mcp") for x in s if x["installed"])


def test_a_file_that_does_not_parse_is_refused_and_kept(home: Path, repo: Path) -> None:
    bad = '{"numStartups": 7,, }'
    (home / ".claude.json").write_text(bad)
    p = lazy("mcp", "install", "--agent", "claude", cwd=repo, check=False)
    assert p.returncode == 1
    assert ".claude.json: not valid JSON (line 1" in p.stderr and "leaves it as it is" in p.stderr
    assert (home / ".claude.json").read_text() == bad
