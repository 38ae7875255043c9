"""The `lazy` command line as a user runs it: subprocesses, a real terminal where it asks."""

from __future__ import annotations

import json
import os
import pty
import select
import sys
from pathlib import Path

from fabricate.claude import Session
from lazy.model import ONESHOT_MARKER
from support.cli import LAZY, lazy


def builders(cwd: Path, *extra: str) -> list[dict[str, object]]:
    out = json.loads(lazy("conversations", "--json", *extra, cwd=cwd).stdout)
    return list(out["builders"])


def test_no_history_says_where_it_looked(repo: Path, projects: Path) -> None:
    p = lazy("import-conversation", cwd=repo)
    assert "No Claude Code sessions found" in p.stdout
    assert str(projects) in p.stdout
    assert "--source DIR" in p.stdout


def test_preview_on_a_non_tty_writes_nothing_then_yes_imports(repo: Path, projects: Path) -> None:
    a = Session(projects, str(repo))
    a.turn("design the retention policy", "keep everything")
    a.turn("and the index?", "tantivy")
    Session(projects, "/elsewhere/other").turn("unrelated project", "ok")
    p = lazy("import-conversation", cwd=repo)
    assert "Found 1 session(s) on disk; 1 missing from the store, 0 already imported." in p.stdout
    assert "nothing written" in p.stdout and "--yes" in p.stdout
    assert builders(repo) == []
    lazy("import-conversation", "--yes", cwd=repo)
    got = builders(repo)
    assert [b["id"] for b in got] == [a.id]
    assert got[0]["summary"] == "design the retention policy"
    assert got[0]["message_count"] == 4
    again = lazy("import-conversation", cwd=repo)
    assert (
        "Found 1 session(s) on disk; 0 missing from the store, 1 already imported." in again.stdout
    )
    # the other project is in the store only with --all-projects, and only when imported
    assert len(builders(repo, "--all-projects")) == 1


def test_tty_confirmation_defaults_to_no(repo: Path, projects: Path) -> None:
    Session(projects, str(repo)).turn("hello", "hi")
    pid, fd = pty.fork()
    if pid == 0:  # child: lazy on a real terminal
        os.chdir(repo)
        os.execv(sys.executable, [*LAZY, "import-conversation"])
    seen = b""
    while b"[y/N]" not in seen:
        r, _, _ = select.select([fd], [], [], 30)
        assert r, f"no prompt; saw {seen!r}"
        seen += os.read(fd, 4096)
    assert b"Import 1 conversation(s) into the store?" in seen
    os.write(fd, b"\r")
    while True:
        r, _, _ = select.select([fd], [], [], 30)
        try:
            chunk = os.read(fd, 4096) if r else b""
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert b"Nothing imported." in seen
    assert builders(repo) == []


def test_explicit_id_imports_directly_and_prefixes_are_checked(repo: Path, projects: Path) -> None:
    a = Session(projects, str(repo), session_id="abcd1111-0000-4000-8000-000000000001")
    a.turn("first", "one")
    b = Session(projects, str(repo), session_id="abcd2222-0000-4000-8000-000000000002")
    b.turn("second", "two")
    amb = lazy("import-conversation", "abcd", cwd=repo, check=False)
    assert amb.returncode != 0
    assert "ambiguous" in amb.stderr and a.id in amb.stderr and b.id in amb.stderr
    lazy("import-conversation", "abcd1", cwd=repo)
    assert [x["id"] for x in builders(repo)] == [a.id]
    missing = lazy("import-conversation", "ffff", cwd=repo, check=False)
    assert missing.returncode != 0 and "not found" in missing.stderr
    lazy("import-conversation", "--all", cwd=repo)
    show = lazy("conversations", "show", "abcd", cwd=repo, check=False)
    assert show.returncode != 0 and "ambiguous" in show.stderr
    t = json.loads(lazy("conversations", "show", "abcd2", "--json", cwd=repo).stdout)
    assert [(m["number"], m["role"], m["text"]) for m in t["messages"]] == [
        (1, "user", "second"),
        (2, "assistant", "two"),
    ]
    plain = lazy("conversations", "show", "abcd2", cwd=repo).stdout
    assert "#1 user" in plain and "#2 assistant" in plain


def test_oneshots_are_never_imported_and_are_counted(repo: Path, projects: Path) -> None:
    one = Session(projects, str(repo), session_id="0eee0000-0000-4000-8000-000000000000")
    one.turn(f"{ONESHOT_MARKER}\nSummarise the diff", "summary")
    real = Session(projects, str(repo))
    real.turn(f"what does {ONESHOT_MARKER} mean?", "it marks lazy's one-shots")
    p = lazy("import-conversation", "--yes", cwd=repo)
    assert "ignored 1 machine-generated lazy one-shot(s)" in p.stderr
    assert [b["id"] for b in builders(repo)] == [real.id]
    named = lazy("import-conversation", "0eee", cwd=repo, check=False)
    assert named.returncode != 0
    assert "machine-generated lazy one-shot" in named.stderr and "not found" not in named.stderr
    report = json.loads(lazy("import-conversation", "--all", "--json", cwd=repo).stdout)
    assert report["ignored_oneshots"] == 1


def test_search_list_and_aliases(repo: Path, projects: Path) -> None:
    s = Session(projects, str(repo))
    s.turn("what did we decide about retention?", "Keep transcripts forever in the store.")
    lazy("import-conversation", "--yes", cwd=repo)
    hit = lazy("conversations", "search", "transcripts forever", cwd=repo).stdout
    assert s.id[:8] in hit and "#2" in hit
    res = json.loads(lazy("conversations", "search", "RETENTION", "--json", cwd=repo).stdout)
    assert res["groups"][0]["hits"][0]["number"] == 1
    assert s.id[:8] in lazy("builder", "list", cwd=repo).stdout
    assert "Keep transcripts forever" in lazy("show", s.id[:8], cwd=repo).stdout
    listing = json.loads(lazy("import-conversation", "--list", "--json", cwd=repo).stdout)
    assert listing["sessions"][0]["state"] == "imported"


def test_every_command_documents_itself(repo: Path) -> None:
    for cmd in (
        [],
        ["import-conversation"],
        ["conversations"],
        ["conversations", "show"],
        ["conversations", "search"],
        ["search"],
        ["index", "status"],
        ["index", "rebuild"],
        ["import", "codex"],
        ["codex", "import"],
        ["get"],
        ["ls"],
        ["builder", "list"],
        ["show"],
    ):
        out = lazy(*cmd, "--help", cwd=repo).stdout
        assert "Usage:" in out and len(out) > 200, cmd
