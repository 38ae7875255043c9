"""`lazy show` and `lazy conversations` in a terminal and in a pipe (issue 15, point 6), the
real `lazy` command run as a child on real sessions of the three agents from $LAZY_CORPUS:
Claude Code's 7acd37a8 (115 messages: Markdown, Edit, Write, TodoWrite, thinking, IDE events)
and ef958aa1 (six subagents), a Codex parent thread with its spawned subagent, and OpenCode's
JSON storage (a bash call with its output).

On a terminal (a pseudo-terminal of a given width) the transcript is rendered Markdown,
goes through the pager ($LAZY_PAGER, $PAGER: a script here that records what it was given)
unless --no-pager; piped it is plain text, never wrapped or padded. An alias names a
conversation wherever its id does.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import shutil
import struct
import subprocess
import termios
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from fabricate.claude import Session
from support import CLAUDE_CORPUS, CORPUS, require
from support.search import LAZY, env_for, run_lazy

REAL = CLAUDE_CORPUS / "handgemacht-ai__claude-code-log" / "test" / "test_data" / "real_projects"
SOUND = (
    REAL / "-Users-dain-workspace-JSSoundRecorder" / "7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"
)
WORKTREES = REAL / "-experiments-worktrees"
CODEX = CORPUS / "codex" / "daaain__claude-code-log" / "test" / "test_data" / "codex" / "sessions"
OPENCODE = (
    CORPUS / "opencode" / "jazzyalex__agent-sessions" / "Resources" / "Fixtures" / "stage0"
    / "agents" / "opencode" / "storage_v2"
)  # fmt: skip
LONG = "w" + "ord " * 75  # a 301-character line
SGR = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class World:
    base: Path
    lazy_home: Path
    user_home: Path
    repo: Path
    pager_log: Path
    pager: Path  # a pager that records its input and its LESS, and reads nothing else

    def lazy(self, *args: str, ok: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
        return run_lazy(self.lazy_home, self.user_home, *args, cwd=self.repo, ok=ok, **env)

    def on_pty(self, *args: str, cols: int = 120, **extra: str) -> str:
        """``lazy args`` with stdout and stderr on a pseudo-terminal ``cols`` wide."""
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 60, cols, 0, 0))
        env = env_for(self.lazy_home, self.user_home, TERM="xterm-256color", COLUMNS=str(cols))
        for k in ("NO_COLOR", "FORCE_COLOR", "LINES", "PAGER", "LAZY_PAGER", "LESS"):
            env.pop(k, None)
        env.update(extra)
        proc = subprocess.Popen(
            [LAZY, *args], env=env, cwd=self.repo, stdin=subprocess.DEVNULL, stdout=slave,
            stderr=slave, close_fds=True,
        )  # fmt: skip
        os.close(slave)
        got = bytearray()
        deadline = time.monotonic() + 120
        try:
            while True:
                assert time.monotonic() < deadline, f"lazy {args} still running"
                ready, _, _ = select.select([master], [], [], 0.5)
                if not ready:
                    continue
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the child's side is closed
                    break
                if not chunk:
                    break
                got += chunk
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            os.close(master)
        assert proc.returncode == 0, got.decode(errors="replace")[-2000:]
        return got.decode("utf-8").replace("\r\n", "\n")


def _import(w: World, tool: str, source: Path) -> None:
    w.lazy("import-conversation", "--tool", tool, "--source", str(source), "--all-projects",
           "--yes", "--all")  # fmt: skip


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    for src in (SOUND, WORKTREES, CODEX, OPENCODE):
        require(src.exists(), f"corpus missing: {src}")
    base = tmp_path_factory.mktemp("show")
    pager = base / "pager.sh"
    log = base / "paged"
    pager.write_text(f'#!/bin/sh\necho "LESS=$LESS" > {log}.env\ncat > {log}\n')
    pager.chmod(0o755)
    w = World(base, base / "lazy", base / "home", base / "repo", log, pager)
    w.repo.mkdir()
    sound = base / "src" / "sound"
    sound.mkdir(parents=True)
    shutil.copy(SOUND, sound)
    _import(w, "claude", sound)
    _import(w, "claude", WORKTREES)
    _import(w, "codex", CODEX)
    shutil.copytree(OPENCODE, base / "src" / "opencode" / "storage")
    _import(w, "opencode", base / "src" / "opencode")
    long = Session(w.user_home / ".claude" / "projects", str(w.repo))
    long.turn("say something long", f"Here it is:\n\n{LONG}\n\nDone.")
    w.lazy("import-conversation", "--yes")
    w.lazy("alias", "set", "jss", "7acd37a8")
    yield w
    shutil.rmtree(base, ignore_errors=True)


def _after(text: str, first: str, then: str, within: int = 400) -> None:
    """``then`` follows ``first`` closely (the output under its call)."""
    at = text.index(first)
    assert then in text[at : at + within], (first, then, text[at : at + within])


# ---- the transcript ---------------------------------------------------------------------------


def test_markdown_is_rendered_on_a_terminal_and_kept_as_source_in_a_pipe(world: World) -> None:
    raw = world.on_pty("show", "7acd37a8", "--no-pager")
    seen = SGR.sub("", raw)
    assert "**Project Nature**" not in seen and "Project Nature: Pure client-side" in seen
    assert re.search(r"\x1b\[[0-9;]*1[0-9;]*mProject Nature", raw), "not bold"
    assert "## Key Points Captured" not in seen and "Key Points Captured" in seen
    assert "python3 -m http.server 8000" in seen  # a code fence's content
    fence = seen[seen.index("Option 1: Python") : seen.index("python3 -m http.server 8000")]
    assert "```" not in fence and "# Python 3" in fence  # the fence itself is not shown
    assert "\x1b]" not in raw  # no hyperlink (OSC 8), however many links it has
    assert "CLAUDE.md (CLAUDE.md)" in seen  # a link is its text and its target
    piped = world.lazy("show", "7acd37a8").stdout
    assert "**Project Nature**: Pure client-side" in piped and "\x1b" not in piped


def test_tool_calls_show_diffs_checklists_and_outputs(world: World) -> None:
    out = world.lazy("show", "7acd37a8").stdout
    _after(out, "Edit CLAUDE.md (+9 -5)", "\n    --- a/CLAUDE.md\n    +++ b/CLAUDE.md\n    @@ ")
    _after(out, "Edit CLAUDE.md (+9 -5)", "\n    -**Local development server:**\n")
    _after(out, "Edit CLAUDE.md (+9 -5)", "\n    +**Local development server (required")
    _after(out, "Write CLAUDE.md (+107)", "+++ b/CLAUDE.md")
    _after(out, "Todos: 0/6 done", "\n    ☐ Update getUserMedia to modern Promise-based API\n")
    assert "\n    ☑ Update getUserMedia to modern Promise-based API\n" in out
    _after(out, "$ ls -la", "drwxr-xr-x@ 10 dain  staff    320 Nov 17 23:49 .")
    _after(out, "Read README.md", "… 210 more lines", 800)
    assert '"old_string"' not in out and "\\n" not in out.split("#26 ")[1][:3000]
    full = world.lazy("show", "7acd37a8", "--full").stdout
    assert "… 210 more lines" not in full and "more lines" not in full
    # --json is the model whole: the output folded above is all there
    t = world.lazy("show", "7acd37a8", "--json").stdout
    reads = [
        p["tool"]["output"]
        for m in json.loads(t)["messages"]
        for p in m["parts"]
        if p["tool"] and p["tool"]["summary"] == "Read README.md"
    ]
    assert len(reads[0].splitlines()) == 8 + 210  # its system reminder is a part of its own


def test_opencode_bash_output_is_shown_under_its_call(world: World) -> None:
    out = world.lazy("show", "s_stage0_small").stdout
    _after(out, "● $ ls · 0.5 s\n", "    a.txt\n    b.txt\n", 40)  # its time.end - time.start
    large = world.lazy("show", "s_stage0_large").stdout
    _after(large, "$ ls /non-existent-directory", "No such file or directory")


def test_thinking_is_folded_to_a_line_and_opened_with_thinking(world: World) -> None:
    said = "The user wants me to analyze the codebase and create a CLAUDE.md file"
    folded = world.lazy("show", "7acd37a8").stdout
    assert "  ▸ thinking · 12 lines\n" in folded and said not in folded
    opened = world.lazy("show", "7acd37a8", "--thinking").stdout
    _after(opened, "▾ thinking · 12 lines", said, 120)
    assert "(no call found" not in opened


def test_harness_text_is_labelled_and_folded(world: World) -> None:
    out = world.lazy("show", "7acd37a8").stdout
    assert "#30 harness · Interrupted · 1 line" in out
    assert "  ▸ IDE event · 1 line\n  OK, so this was just so you know" in out
    assert "<ide_opened_file>" not in out
    assert "<ide_opened_file>" in world.lazy("show", "7acd37a8", "--full").stdout


def test_subagents_are_shown_at_their_call(world: World) -> None:
    codex = world.lazy("show", "22222222").stdout
    _after(codex, "● Subagent: Inspect fixtures.", "subagent · 2 messages", 60)
    _after(codex, "subagent · 2 messages", "The fixtures are fully synthetic.", 60)
    assert "── subagent" not in codex and "Inspect fixtures.\n\n#" not in codex
    full = world.lazy("show", "22222222", "--full").stdout
    _after(full, "subagent · 2 messages", "\n      #1 user", 40)
    _after(full, "\n      #1 user", "\n        Inspect fixtures.", 60)
    claude = world.lazy("show", "ef958aa1").stdout
    assert claude.count("subagent · general-purpose ·") == 6
    assert "no call found" not in claude
    _after(claude, "Task (general-purpose): Research Steve Yegge Beads", "subagent · general")


def test_piped_output_is_plain_never_wrapped_or_padded(world: World) -> None:
    for ident in ("7acd37a8", "ef958aa1", "22222222", "s_stage0_large"):
        for flag in ((), ("--full",)):
            out = world.lazy("show", ident, *flag).stdout
            lines = out.split("\n")
            padded = [n for n, line in enumerate(lines) if line != line.rstrip()]
            assert not padded, (ident, flag, padded[:5])
            assert "\x1b" not in out
    bid = next(
        b["id"]
        for b in json.loads(world.lazy("conversations", "--json").stdout)["builders"]
        if b["summary"] == "say something long"
    )
    out = world.lazy("show", bid).stdout
    assert f"\n  {LONG.rstrip()}\n" in out  # the 301-character line, whole, on one line


# ---- the pager --------------------------------------------------------------------------------


def _no_log(w: World) -> None:
    for p in (w.pager_log, Path(f"{w.pager_log}.env")):
        p.unlink(missing_ok=True)


def test_a_terminal_pages_through_pager_and_a_pipe_does_not(world: World) -> None:
    _no_log(world)
    on_screen = world.on_pty("show", "7acd37a8", PAGER=str(world.pager))
    paged = world.pager_log.read_text()
    assert Path(f"{world.pager_log}.env").read_text().strip() == "LESS=FRX"
    assert "#115 " in SGR.sub("", paged) and "\x1b[" in paged  # all of it, in colour
    assert "\x1b]" not in paged
    assert "#1 user" not in on_screen  # the pager (which shows nothing) had it all
    _no_log(world)
    world.on_pty("show", "7acd37a8", PAGER=str(world.pager), LESS="-S")
    assert Path(f"{world.pager_log}.env").read_text().strip() == "LESS=-S"
    _no_log(world)
    world.on_pty("show", "jss", LAZY_PAGER=str(world.pager), PAGER="false")
    assert "#115 " in SGR.sub("", world.pager_log.read_text())
    _no_log(world)
    piped = world.lazy("show", "7acd37a8", PAGER=str(world.pager))
    assert "#115 " in piped.stdout and not world.pager_log.exists()
    direct = world.on_pty("show", "7acd37a8", "--no-pager", PAGER=str(world.pager))
    assert "#115 " in SGR.sub("", direct) and not world.pager_log.exists()
    for none in ("cat", ""):
        direct = world.on_pty("conversations", "show", "jss", LAZY_PAGER=none)
        assert "#115 " in SGR.sub("", direct) and not world.pager_log.exists()


# ---- the list -----------------------------------------------------------------------------------


@pytest.mark.parametrize("cols", [80, 100, 160])
def test_the_list_keeps_id_agent_and_count_at_any_width(world: World, cols: int) -> None:
    listed = json.loads(world.lazy("conversations", "--all-projects", "--json").stdout)
    seen = SGR.sub("", world.on_pty("conversations", "--all-projects", cols=cols))
    lines = seen.rstrip("\n").split("\n")
    assert lines[0].split()[:4] == ["id", "tool", "start", "alias"], lines[0]
    assert all(len(line.rstrip()) <= cols for line in lines), cols
    assert len(lines) == 1 + len(listed["builders"])
    for b, row in zip(listed["builders"], lines[1:], strict=True):  # the same order
        cells = row.split()
        assert cells[0] == b["short_id"], row
        assert cells[1] == b["tool"], row
        assert str(b["message_count"]) in cells, row
    sound = next(line for line in lines if line.startswith("7acd37a8 "))
    assert " jss " in sound
    assert next(b for b in listed["builders"] if b["short_id"] == "7acd37a8")["alias"] == "jss"


# ---- aliases ------------------------------------------------------------------------------------


def test_an_alias_names_the_conversation_wherever_an_id_does(world: World) -> None:
    by_alias = world.lazy("show", "jss").stdout
    assert by_alias == world.lazy("show", "7acd37a8").stdout
    assert "7acd37a8-2745-4b58-a8a9-46164b22ad9e  alias jss  claude" in by_alias
    assert world.lazy("conversations", "show", "jss", "--json").stdout == (
        world.lazy("show", "7acd37a8-2745-4b58-a8a9-46164b22ad9e", "--json").stdout
    )
    made = world.lazy("conversations", "promote", "jss", "--from", "1", "--to", "3", "--yes")
    assert "from conversation 7acd37a8 messages 1–3" in made.stdout
    tasks = json.loads(world.lazy("tasks", "--conversation", "jss", "--json").stdout)["tasks"]
    assert [(t["from_message"], t["to_message"]) for t in tasks] == [(1, 3)]
    assert "Promoted from this conversation:" in world.lazy("show", "jss").stdout
    # ask resolves the alias, then stops at its first prerequisite (no credential here)
    asked = world.lazy("ask", "jss", "-m", "q?", ok=False, ANTHROPIC_API_KEY="",
                       ANTHROPIC_AUTH_TOKEN="")  # fmt: skip
    assert "needs an Anthropic credential" in asked.stderr, asked.stderr
    unknown = world.lazy("ask", "nosuch", "-m", "q?", ok=False, ANTHROPIC_API_KEY="")
    assert "no conversation 'nosuch'" in unknown.stderr
    for args in (("show", "nosuch"), ("conversations", "promote", "nosuch", "--from", "1",
                                      "--to", "1", "--yes"), ("tasks", "--conversation", "nosuch")):  # fmt: skip
        p = world.lazy(*args, ok=False)
        assert p.returncode == 1, (args, p.stderr)
        assert "no conversation 'nosuch' in the store: tried it as a Builder id" in p.stderr
        assert "and as an alias in the session registry (" in p.stderr


def test_an_alias_of_another_directory_still_names_it_and_this_one_wins(world: World) -> None:
    elsewhere = world.base / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    world.lazy("alias", "set", "shared", "22222222", "--scope", str(elsewhere))
    assert "Spawn a synthetic researcher." in world.lazy("show", "shared").stdout
    world.lazy("alias", "set", "shared", "s_stage0_small")  # bound here too: this one wins
    assert "OpenCode Small" in world.lazy("show", "shared").stdout
