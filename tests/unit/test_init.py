"""`lazy init`: the single "inherit your history?" offer, at a real terminal (a pty)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from fabricate.claude import Session
from lazy.agents.claude.sources import encode_dir
from support.cli import LAZY, lazy
from support.pty import in_pty

HEAD = "This repo already has Claude Code history from before lazy."
ASK_SESSIONS = "as builder memory? [Y/n]"
ASK_MEMORY = "into lazy shared memory? [Y/n]"


def memory_dir(projects: Path, repo: Path) -> Path:
    d = projects / encode_dir(str(repo)) / "memory"
    d.mkdir(parents=True, exist_ok=True)
    return d


def lazy_in(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return lazy(*args, cwd=repo, check=False)


def init(repo: Path, *answers: tuple[str, str]) -> str:
    run = in_pty([*LAZY, "init"], dict(os.environ), repo, list(answers), timeout=120)
    assert run.rc == 0, run.output
    return run.output


def stored(repo: Path) -> list[str]:
    out = json.loads(lazy_in(repo, "conversations", "--json").stdout)
    return [b["summary"] for b in out["builders"]]


def test_both_halves_offered_once_then_never_again(repo: Path, projects: Path) -> None:
    Session(projects, str(repo)).turn("first question about retention", "keep it")
    Session(projects, str(repo)).turn("second question", "ok")
    mem = memory_dir(projects, repo)
    (mem / "MEMORY.md").write_text("# Index\n- [prefs](prefs.md)\n")
    (mem / "prefs.md").write_text("The user prefers zanzibarite fixtures.\n")
    (mem / "notes.md").write_text("Build with make test.\n")
    (mem / "empty.md").write_text("   \n")  # nothing to keep
    out = init(repo, (ASK_SESSIONS, ""), (ASK_MEMORY, ""))
    assert HEAD in out
    assert "  Found 2 existing Claude Code session(s) for this repo." in out
    assert "  Found 3 Claude Code harness memory record(s) with no lazy counterpart." in out
    assert "  Lazy can import both, so you inherit your project's history instead of" in out
    assert "  Import 2 conversation(s) as builder memory? [Y/n]" in out
    assert "  Import 3 memory record(s) into lazy shared memory? [Y/n]" in out
    assert "imported 3 memory record(s)." in out
    assert sorted(stored(repo)) == ["first question about retention", "second question"]
    found = lazy_in(repo, "search", "in:memories", "zanzibarite", "--json")
    hits = [h for g in json.loads(found.stdout)["groups"] for h in g["hits"]]
    assert [h["memory_path"].rsplit("/", 1)[1] for h in hits] == ["prefs"], found.stdout
    got = lazy_in(repo, "get", hits[0]["memory_path"])
    assert "zanzibarite fixtures" in got.stdout
    # re-running init offers nothing: the store holds all of it
    again = init(repo)
    assert HEAD not in again and "[Y/n]" not in again
    # a record changed on disk is offered again, alone
    (mem / "notes.md").write_text("Build with make test; lint with make check.\n")
    third = init(repo, (ASK_MEMORY, "y"))
    assert "Found 1 Claude Code harness memory record(s)" in third
    assert ASK_SESSIONS not in third and "Lazy can import it" in third


def test_sessions_only_is_one_question_and_no_declines(repo: Path, projects: Path) -> None:
    Session(projects, str(repo)).turn("only a session", "fine")
    out = init(repo, (ASK_SESSIONS, "n"))
    assert out.count("[Y/n]") == 1 and ASK_MEMORY not in out
    assert stored(repo) == []


def test_non_interactive_asks_nothing_and_writes_nothing(repo: Path, projects: Path) -> None:
    Session(projects, str(repo)).turn("a session", "fine")
    (memory_dir(projects, repo) / "prefs.md").write_text("tabs, not spaces\n")
    run = in_pty([*LAZY, "init", "--non-interactive"], dict(os.environ), repo)
    assert run.rc == 0 and "[Y/n]" not in run.output
    assert "Found 1 existing Claude Code session(s)" in run.output
    assert "lazy import-conversation" in run.output and "lazy doctor --import-memory" in run.output
    assert stored(repo) == []
    piped = lazy_in(repo, "init")  # not a terminal: the same
    assert piped.returncode == 0 and "[Y/n]" not in piped.stdout and stored(repo) == []


def test_a_detection_failure_is_a_note_never_a_failed_init(
    repo: Path, projects: Path, tmp_path: Path
) -> None:
    Session(projects, str(repo)).turn("a session", "fine")
    home = tmp_path / "broken"
    (home / "store.db").mkdir(parents=True)
    p = subprocess.run(
        [*LAZY, "init"], cwd=repo, capture_output=True, text=True, stdin=subprocess.DEVNULL,
        env={**os.environ, "LAZY_HOME": str(home)},
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert (
        f"(Skipped Claude Code history import: cannot open {home / 'store.db'}: it is a folder"
        in p.stderr
    )


def test_doctor_import_memory_lists_asks_and_never_reoffers(repo: Path, projects: Path) -> None:
    mem = memory_dir(projects, repo)
    (mem / "prefs.md").write_text("Prefer pytest fixtures over setUp.\n")
    (mem / "MEMORY.md").write_text("- [prefs](prefs.md)\n")
    piped = lazy_in(repo, "doctor", "--import-memory")  # not a terminal: lists, writes nothing
    assert piped.returncode == 0 and "prefs" in piped.stdout
    assert "Not a terminal: nothing imported. Re-run with --yes" in piped.stdout
    declined = in_pty([*LAZY, "doctor", "--import-memory"], dict(os.environ), repo,
                      [("into lazy shared memory? [y/N]", "")])  # fmt: skip
    assert "Nothing imported." in declined.output
    dry = json.loads(lazy_in(repo, "doctor", "--import-memory", "--dry-run", "--json").stdout)
    assert sorted(r["name"] for r in dry["records"]) == ["MEMORY", "prefs"]
    assert dry["imported"] is None
    done = json.loads(lazy_in(repo, "doctor", "--import-memory", "--yes", "--json").stdout)
    assert done["imported"] == {"new": 2, "changed": 0}
    again = lazy_in(repo, "doctor", "--import-memory", "--yes")
    assert "No Claude Code memory records" in again.stdout
