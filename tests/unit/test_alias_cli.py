"""`lazy alias` as a user runs it, against a store imported from Claude Code sessions; and
the functions `lazy builder --resume` will call."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from fabricate.claude import Session
from lazy.aliases.registry import SessionRegistry
from lazy.aliases.resolve import AmbiguousAlias, bind_builder, resolve_alias, resume_target
from lazy.capture.bulk_import import run_import
from lazy.capture.discovery import discover_tool
from lazy.store import Store
from lazy.store.queries import NotFound
from support.cli import lazy

A = "abcd1111-0000-4000-8000-000000000001"
B = "abcd2222-0000-4000-8000-000000000002"


@pytest.fixture
def registry_file() -> Path:
    return Path(os.environ["HOME"]) / ".lazybridge" / "sessions.json"


def fails(*args: str, cwd: Path) -> str:
    """The one line a failing command prints (exit 1)."""
    p = lazy(*args, cwd=cwd, check=False)
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    return lines[0]


def aliases(cwd: Path, *extra: str) -> list[dict[str, Any]]:
    out = json.loads(lazy("alias", "list", "--json", *extra, cwd=cwd).stdout)
    return list(out["aliases"])


@pytest.fixture
def imported(repo: Path, projects: Path) -> tuple[Session, Session]:
    a = Session(projects, str(repo), session_id=A)
    a.turn("design the retention policy", "keep everything")
    b = Session(projects, str(repo), session_id=B)
    b.turn("second conversation", "two")
    lazy("import-conversation", "--all", cwd=repo)
    return a, b


def test_set_list_rename_rm(
    repo: Path, imported: tuple[Session, Session], registry_file: Path
) -> None:
    p = lazy("alias", "set", "reviewer", "abcd1", cwd=repo)
    assert "reviewer" in p.stdout and f"claude {A}" in p.stdout
    assert "design the retention policy" in p.stdout
    got = aliases(repo)
    assert len(got) == 1
    entry = got[0]
    assert {k: entry[k] for k in ("name", "kind", "scope", "native_id", "builder_id")} == {
        "name": "reviewer",
        "kind": "claude",
        "scope": repo.resolve().as_posix(),
        "native_id": A,
        "builder_id": A,
    }
    assert entry["summary"] == "design the retention policy"
    assert entry["model"] == "claude-sonnet-4-5"  # the conversation's last model, recorded
    assert entry["created_at"].endswith("Z")
    on_disk = json.loads(registry_file.read_bytes())
    assert [s["name"] for s in on_disk["sessions"]] == ["reviewer"]

    table = lazy("alias", "list", cwd=repo).stdout
    for word in ("name", "kind", "native id", "reviewer", "claude", A[:8], "design the retention"):
        assert word in table

    # moving an alias says where it pointed before
    moved = lazy("alias", "set", "reviewer", B, cwd=repo).stdout
    assert f"claude {B}" in moved and f"pointed at {A}" in moved
    lazy("alias", "set", "other", A, cwd=repo)
    assert {x["name"]: x["native_id"] for x in aliases(repo)} == {"reviewer": B, "other": A}

    assert (
        "renamed reviewer → critic"
        in lazy("alias", "rename", "reviewer", "critic", cwd=repo).stdout
    )
    assert {x["name"] for x in aliases(repo)} == {"critic", "other"}
    assert "already exists" in fails("alias", "rename", "critic", "other", cwd=repo)
    assert "no alias 'reviewer'" in fails("alias", "rename", "reviewer", "x", cwd=repo)
    assert "invalid alias '9lives'" in fails("alias", "rename", "critic", "9lives", cwd=repo)

    removed = lazy("alias", "rm", "critic", cwd=repo).stdout
    assert "removed critic" in removed and B in removed
    assert [x["name"] for x in aliases(repo)] == ["other"]
    assert "no alias 'critic'" in fails("alias", "rm", "critic", cwd=repo)


def test_errors_are_one_line_and_write_nothing(
    repo: Path, imported: tuple[Session, Session], registry_file: Path
) -> None:
    lazy("alias", "set", "keep", A, cwd=repo)
    before = registry_file.read_bytes()
    assert "no conversation 'ffff' in the store" in fails("alias", "set", "x", "ffff", cwd=repo)
    amb = fails("alias", "set", "x", "abcd", cwd=repo)
    assert "'abcd' is ambiguous" in amb and A in amb and B in amb and "give more" in amb
    bad = fails("alias", "set", "1bad", A, cwd=repo)
    assert "invalid alias '1bad'" in bad and "starts with an ASCII letter" in bad
    assert "at most 64" in fails("alias", "set", "a" * 65, A, cwd=repo)
    assert "invalid alias" in fails("alias", "set", "naïve", A, cwd=repo)
    assert registry_file.read_bytes() == before


def test_scopes_and_another_registry_file(
    repo: Path, imported: tuple[Session, Session], tmp_path: Path, registry_file: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    lazy("alias", "set", "here", A, cwd=repo)
    lazy("alias", "set", "there", B, "--scope", str(elsewhere), cwd=repo)
    assert [x["name"] for x in aliases(repo)] == ["here"]
    assert [x["name"] for x in aliases(repo, "--scope", str(elsewhere))] == ["there"]
    assert [x["name"] for x in aliases(elsewhere)] == ["there"]  # its own directory
    every = aliases(repo, "--all-scopes")
    assert {(x["name"], x["scope"]) for x in every} == {
        ("here", repo.resolve().as_posix()),
        ("there", elsewhere.resolve().as_posix()),
    }
    table = lazy("alias", "list", "--all-scopes", cwd=repo).stdout
    assert "scope" in table and elsewhere.resolve().as_posix() in table
    assert (
        "exclude each other"
        in lazy("alias", "list", "--all-scopes", "--scope", str(repo), cwd=repo, check=False).stderr
    )
    # a subdirectory is another scope
    sub = repo / "sub"
    sub.mkdir()
    assert aliases(sub) == []
    assert "No aliases in" in lazy("alias", "list", cwd=sub).stdout

    private = tmp_path / "private" / "aliases.json"
    before = registry_file.read_bytes()
    lazy("alias", "set", "mine", A, "--registry", str(private), cwd=repo)
    assert [s["name"] for s in json.loads(private.read_bytes())["sessions"]] == ["mine"]
    assert registry_file.read_bytes() == before
    assert [x["name"] for x in aliases(repo, "--registry", str(private))] == ["mine"]
    lazy("alias", "rm", "mine", "--registry", str(private), cwd=repo)
    assert json.loads(private.read_bytes())["sessions"] == []


def test_a_name_bound_for_two_agents_needs_tool(
    repo: Path, imported: tuple[Session, Session], registry_file: Path
) -> None:
    lazy("alias", "set", "dup", A, cwd=repo)
    SessionRegistry(registry_file).bind("codex", repo, "dup", "codex-thread-1")
    listed = {x["kind"]: x for x in aliases(repo)}
    assert set(listed) == {"claude", "codex"}
    assert listed["codex"]["builder_id"] is None  # not in the store
    assert "not in the store" in lazy("alias", "list", cwd=repo).stdout
    assert "pick one with --tool" in fails("alias", "rm", "dup", cwd=repo)
    lazy("alias", "rename", "dup", "dup-codex", "--tool", "codex", cwd=repo)
    lazy("alias", "rm", "dup", "--tool", "claude", cwd=repo)
    assert [(x["name"], x["kind"]) for x in aliases(repo)] == [("dup-codex", "codex")]


def test_a_failed_save_is_the_commands_failure(
    repo: Path, imported: tuple[Session, Session], tmp_path: Path
) -> None:
    """A registry whose folder cannot be made (a file is in the way): exit 1, one line
    with the machine detail."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    target = blocker / "sessions.json"
    line = fails("alias", "set", "new", A, "--registry", str(target), cwd=repo)
    assert "could not bind 'new' in the session registry" in line and str(target) in line
    assert "[EEXIST]" in line
    assert blocker.read_text() == "not a folder"


def test_a_corrupt_registry_is_reported_and_set_aside(
    repo: Path, imported: tuple[Session, Session], registry_file: Path
) -> None:
    registry_file.parent.mkdir(parents=True)
    registry_file.write_bytes(b"{oops")
    p = lazy("alias", "list", cwd=repo)
    assert "warning:" in p.stderr and "sessions.json.corrupt" in p.stderr
    assert registry_file.with_name("sessions.json.corrupt").read_bytes() == b"{oops"
    lazy("alias", "set", "fresh", A, cwd=repo)
    assert [x["name"] for x in aliases(repo)] == ["fresh"]


def test_every_alias_command_documents_itself(repo: Path) -> None:
    for cmd in (
        ["alias"],
        ["alias", "set"],
        ["alias", "list"],
        ["alias", "rename"],
        ["alias", "rm"],
    ):
        out = lazy(*cmd, "--help", cwd=repo).stdout
        assert "Usage:" in out and len(out) > 200, cmd
    listed = lazy("alias", "list", "--help", cwd=repo).stdout
    for option in ("--all-scopes", "--json", "--scope", "--registry"):
        assert option in listed
    assert "alias" in lazy("--help", cwd=repo).stdout


# ---- the functions `lazy builder --resume` calls ---------------------------------------------


def test_bind_builder_binds_the_session_the_agent_resumes(store: Store, tmp_path: Path) -> None:
    """A 1.0.x resume joined two session files into one Builder: the alias names the newer."""
    root = tmp_path / "projects"
    first = Session(root, "/w/p", version="1.0.51")
    first.turn("first question", "first answer")
    resumed = Session(root, "/w/p", version="1.0.51")
    for line in first.path.read_text().splitlines():
        resumed.write({**json.loads(line), "sessionId": resumed.id})
    resumed.last, resumed.n = first.last, first.n
    resumed.turn("second question", "second answer")
    d = discover_tool("claude", [root], None, default_roots=False)
    run_import(store, d, list(d.sessions))
    assert resume_target(store.conn, first.id) == ("claude", resumed.id)

    reg = SessionRegistry(tmp_path / "sessions.json")
    scope = tmp_path / "w"
    scope.mkdir()
    assert bind_builder(reg, scope, "r", first.id, store.conn) == ("claude", resumed.id)
    assert resolve_alias(reg, scope, "r") == ("claude", resumed.id)
    assert resolve_alias(reg, scope, "missing") is None
    assert resolve_alias(reg, tmp_path, "r") is None  # another scope
    with pytest.raises(NotFound):
        bind_builder(reg, scope, "r2", "no-such-builder", store.conn)
    with pytest.raises(ValueError, match="invalid alias"):
        bind_builder(reg, scope, "-r", first.id, store.conn)
    # the agent answered a resume with a new id: the alias follows it
    reg.bind("claude", scope, "r", "abcdef12-0000-4000-8000-000000000009")
    assert resolve_alias(reg, scope, "r") == ("claude", "abcdef12-0000-4000-8000-000000000009")
    # one name for two agents: the caller must say which
    reg.bind("codex", scope, "r", "codex-thread")
    with pytest.raises(AmbiguousAlias, match="claude, codex"):
        resolve_alias(reg, scope, "r")
    assert resolve_alias(reg, scope, "r", agent="codex") == ("codex", "codex-thread")
