"""`lazy doctor`'s repairs as a user runs them: the listing, the questions on a real terminal
(a pseudo-terminal: Enter is no, y is yes), the refusals without one, --dry-run, --yes; and
what they leave in the store, the search index and the next sweep.

Conversations "stored before the filter" are made by capturing Claude Code sessions with the
reader's scaffolding rule switched off in a child process (``doctor_support.old_import``:
the caveat, built-in invocations and their output kept, invocations stored as written), the
way a lazy without the rule stored them. A cleaned conversation is compared with a fresh
import of the same session into another store.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fabricate.claude import Session
from support.doctor import Terminal, derived, local_command, old_import, rows
from support.search import LAZY, IndexView, env_for, run_lazy


@dataclass
class Sessions:
    user_home: Path
    template: Path  # the store as the old lazy left it; each test works on a copy
    mixed: Session  # a conversation with scaffolding around it
    empty: Session  # nothing but scaffolding
    plain: Session  # no scaffolding at all
    quoting: Session  # discusses the tags: not scaffolding
    custom: Session  # a project's own slash command, no arguments: kept


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Sessions:
    base = tmp_path_factory.mktemp("scaffolding")
    user_home = base / "home"
    projects = user_home / ".claude" / "projects"
    cwd = "/w/proj"
    mixed = Session(projects, cwd)
    local_command(mixed, "clear", output=None)
    mixed.turn("fix the retention bug", "on it")
    local_command(mixed, "model", args="sonnet", output="Set model to zqmodelnote")
    local_command(mixed, "cost", output="Total cost zqcostreport")
    mixed.turn("and the tests", "done")
    empty = Session(projects, cwd)
    local_command(empty, "clear", output=None)
    plain = Session(projects, cwd)
    plain.turn("a plain conversation", "with no commands in it")
    quoting = Session(projects, cwd)
    quoting.turn("why does <command-name>/clear</command-name> show up in my log?", "a wrapper")
    custom = Session(projects, cwd)  # written as Claude Code writes a project's command
    custom.user(
        "<command-message>deploy is running…</command-message>\n<command-name>/deploy</command-name>"
    )
    custom.user("Deploy the app to staging.", isMeta=True)  # the expanded prompt
    custom.turn("it failed at step two", "looking")
    template = base / "old-lazy"
    old_import(template, user_home)
    return Sessions(user_home, template, mixed, empty, plain, quoting, custom)


@dataclass
class Store:
    home: Path
    user_home: Path

    def lazy(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        return run_lazy(self.home, self.user_home, *args, ok=ok)

    def terminal(self, *args: str) -> Terminal:
        return Terminal(env_for(self.home, self.user_home), self.user_home, *args)

    def builders(self) -> dict[str, tuple[str, int]]:
        return {
            r[0]: (r[1], r[2])
            for r in rows(self.home, "SELECT id, summary, message_count FROM builders")
        }


@pytest.fixture
def store(sessions: Sessions, tmp_path: Path) -> Store:
    home = tmp_path / "lazy"
    shutil.copytree(sessions.template, home)
    return Store(home, sessions.user_home)


CLEAN = "--clean-local-command-conversations"
DELETE = "--delete-empty-local-command-conversations"
PURGE = "--purge-housekeeping-conversations"


def scaffolding_check(store: Store) -> dict[str, Any]:
    p = store.lazy("doctor", "--json", ok=False)
    checks = {c["title"]: c for c in json.loads(p.stdout)["checks"]}
    return checks["No local-command scaffolding in stored conversations"]


# ---- what was stored, and what the sweep says ------------------------------------------------


def test_the_old_rows_carry_the_scaffolding_and_the_sweep_says_so(
    sessions: Sessions, store: Store
) -> None:
    b = store.builders()
    assert b[sessions.mixed.id][0].startswith("<command-name>/clear</command-name>")
    assert b[sessions.empty.id][1] == 2  # the caveat and the /clear
    check = scaffolding_check(store)
    assert check["status"] == "warn"
    assert check["detail"] == [
        "1 conversation(s) still carry local-command scaffolding (7 message(s) today's"
        " reader drops)",
        "1 conversation(s) are nothing but scaffolding",
    ]
    assert check["fix"] == "lazy doctor --clean-local-command-conversations"


def test_listing_and_dry_run_change_nothing(sessions: Sessions, store: Store) -> None:
    before = derived(store.home)
    p = store.lazy("doctor", CLEAN, "--dry-run")
    lines = p.stdout.splitlines()
    row = next(line for line in lines if line.startswith(sessions.mixed.id[:8]))
    assert row.split()[:4] == [sessions.mixed.id[:8], *row.split()[1:3], "7"]
    assert "<command-name>/clear</command-name>" in row  # the summary today...
    assert row.rstrip().endswith("fix the retention bug")  # ... and the one after
    assert f"  {sessions.empty.id[:8]}  " in p.stdout
    assert "They are left exactly as they are;" in p.stdout
    for other in (sessions.plain, sessions.quoting, sessions.custom):
        assert other.id[:8] not in p.stdout
    assert lines[-1] == "Dry run: nothing changed."
    p = store.lazy("doctor", CLEAN)  # no terminal, no --yes
    assert p.stdout.splitlines()[-1] == (
        "Not a terminal: nothing changed. Re-run with --yes to clean them."
    )
    assert derived(store.home) == before
    listing = json.loads(store.lazy("doctor", CLEAN, "--dry-run", "--json").stdout)
    (conv,) = listing["conversations"]
    assert conv["builder_id"] == sessions.mixed.id
    assert (conv["drops"], conv["empty"], conv["summary_after"]) == (
        7,
        False,
        "fix the retention bug",
    )
    assert [e["builder_id"] for e in listing["empty"]] == [sessions.empty.id]
    assert listing["applied"] is None and listing["dry_run"] is True


def test_dry_run_on_a_terminal_asks_nothing(store: Store) -> None:
    before = derived(store.home)
    t = store.terminal("doctor", CLEAN, DELETE, "--dry-run")
    try:
        assert t.wait() == 0
    finally:
        t.close()
    assert "Dry run: nothing changed." in t.text
    assert "[y/N]" not in t.text
    assert derived(store.home) == before


def test_a_clean_equals_a_fresh_import(sessions: Sessions, store: Store, tmp_path: Path) -> None:
    assert IndexView(store.home).count("zqcostreport") == 1  # the /cost output, searchable
    p = store.lazy("doctor", CLEAN, "--yes")
    assert "Cleaned 1 conversation(s): dropped 7 scaffolding message(s)." in p.stdout
    fresh = tmp_path / "fresh"
    run_lazy(fresh, sessions.user_home, "import-conversation", "--all-projects", "--yes")
    cleaned, imported = derived(store.home), derived(fresh)

    def of(data: dict[str, list[tuple[Any, ...]]], sid: str) -> dict[str, list[Any]]:
        return {k: [r for r in v if r[0] == sid or (k == "messages" and r[14] == sid)]
                for k, v in data.items()}  # fmt: skip

    assert of(cleaned, sessions.mixed.id) == of(imported, sessions.mixed.id)
    assert of(cleaned, sessions.mixed.id)["messages"]  # compared something
    texts = [r[5] for r in of(cleaned, sessions.mixed.id)["messages"]]
    assert texts == ["fix the retention bug", "on it", "/model sonnet", "and the tests", "done"]
    assert store.builders()[sessions.mixed.id] == ("fix the retention bug", 5)
    # untouched: the one that is nothing but scaffolding, and those with none
    assert store.builders()[sessions.empty.id][1] == 2
    for other in (sessions.plain, sessions.quoting):
        assert of(cleaned, other.id) == of(imported, other.id)
    # the dropped output left the search index
    assert IndexView(store.home).count("zqcostreport") == 0
    assert scaffolding_check(store)["detail"] == ["1 conversation(s) are nothing but scaffolding"]


def test_on_a_terminal_enter_is_no(store: Store) -> None:
    before = derived(store.home)
    t = store.terminal("doctor", CLEAN)
    try:
        t.expect("Clean 1 conversation(s)? [y/N]")
        t.type("\r")
        assert t.wait() == 0
    finally:
        t.close()
    assert "Nothing changed." in t.text
    assert derived(store.home) == before


def test_the_delete_is_asked_apart_from_the_clean(sessions: Sessions, store: Store) -> None:
    t = store.terminal("doctor", CLEAN, DELETE)
    try:
        t.expect("Clean 1 conversation(s)? [y/N]")
        t.type("y\r")
        t.expect(
            "Delete 1 conversation(s) that are nothing but scaffolding? Deletion is permanent."
            " [y/N]"
        )
        t.type("\r")  # approving the rewrite is not approving a delete
        assert t.wait() == 0
    finally:
        t.close()
    b = store.builders()
    assert b[sessions.mixed.id] == ("fix the retention bug", 5)
    assert b[sessions.empty.id][1] == 2
    t = store.terminal("doctor", CLEAN, DELETE)
    try:
        t.expect("Deletion is permanent. [y/N]")  # nothing left to clean: no first question
        t.type("y\r")
        assert t.wait() == 0
    finally:
        t.close()
    assert "Clean 1" not in t.text
    assert "Deleted 1 conversation(s) that were nothing but scaffolding." in t.text
    assert sessions.empty.id not in store.builders()


def test_without_a_terminal_the_delete_needs_yes(sessions: Sessions, store: Store) -> None:
    before = derived(store.home)
    p = store.lazy("doctor", CLEAN, DELETE, ok=False)
    assert p.returncode == 1
    assert "Error: not a terminal: refusing to delete 1 conversation(s) without --yes." in (
        p.stderr
    )
    assert derived(store.home) == before
    # --yes alone cleans and never deletes
    store.lazy("doctor", CLEAN, "--yes")
    assert store.builders()[sessions.empty.id][1] == 2
    p = store.lazy("doctor", CLEAN, DELETE, "--yes")
    assert "Deleted 1 conversation(s)" in p.stdout
    assert sessions.empty.id not in store.builders()
    assert scaffolding_check(store)["status"] == "ok"
    # a deleted row is not brought back by a re-import: today's reader drops it as empty
    p = store.lazy("doctor", "--reimport-conversations", "--yes")
    assert f"skipped {sessions.empty.id[:8]}: empty: no conversation in it" in p.stdout
    assert sessions.empty.id not in store.builders()
    sweep = json.loads(store.lazy("doctor", "--json", ok=False).stdout)
    live = {c["title"]: c for c in sweep["checks"]}["Conversation capture is live"]
    assert live["status"] == "ok", live


# ---- --purge-housekeeping-conversations ------------------------------------------------------


@pytest.fixture
def housekeeping(tmp_path: Path) -> tuple[Store, dict[str, Session]]:
    """Conversations captured as any lazy captures them: without the marker, nothing tells
    the old one-shots apart at capture time."""
    user_home = tmp_path / "home"
    projects = user_home / ".claude" / "projects"
    made: dict[str, Session] = {}

    def one(name: str, *turns: tuple[str, str]) -> None:
        s = Session(projects, "/w/proj")
        for prompt, reply in turns:
            s.turn(prompt, reply)
        made[name] = s

    one("summary", ("Summarize this pull request: zqprsummary adds retention", "It adds X."))
    one("ask", ("Below is an excerpt of a stored Claude Code conversation. Q: why?", "Because."))
    one("quoting", ("Why does lazy send 'Summarize this pull request' on accept?", "It sums up."))
    one(
        "two prompts",
        ("Summarize this pull request for me", "Sure."),
        ("now explain the tests", "They check X."),
    )
    one("leading space", (" Summarize this pull request: indented", "ok"))
    one("real", ("fix the flaky test", "fixed"))
    store = Store(tmp_path / "lazy", user_home)
    store.lazy("import-conversation", "--all-projects", "--yes")
    return store, made


def test_purge_lists_and_deletes_only_what_opens_like_a_one_shot(
    housekeeping: tuple[Store, dict[str, Session]],
) -> None:
    store, s = housekeeping
    before = derived(store.home)
    p = store.lazy("doctor", PURGE)
    listed = [line.split()[0] for line in p.stdout.splitlines() if line[:8] in {
        x.id[:8] for x in s.values()}]  # fmt: skip
    assert sorted(listed) == sorted([s["summary"].id[:8], s["ask"].id[:8]])
    row = next(line for line in p.stdout.splitlines() if line.startswith(s["summary"].id[:8]))
    assert "accept summary" in row
    assert "its only message opens with “Summarize this pull request”" in row
    assert "Deletion is not recoverable from lazy" in p.stdout
    assert p.stdout.splitlines()[-1] == (
        "Not a terminal: nothing deleted. Re-run with --yes to delete them."
    )
    p = store.lazy("doctor", PURGE, "--dry-run")
    assert p.stdout.splitlines()[-1] == "Dry run: nothing deleted."
    assert derived(store.home) == before
    sweep = json.loads(store.lazy("doctor", "--json", ok=False).stdout)
    check = {c["title"]: c for c in sweep["checks"]}["No housekeeping conversations in the store"]
    assert check["status"] == "warn"
    assert check["detail"] == [
        "2 conversation(s) look like lazy's own one-shots stored before the marker"
        " (ask 1, accept summary 1)"
    ]
    assert check["fix"] == "lazy doctor --purge-housekeeping-conversations"

    t = store.terminal("doctor", PURGE)
    try:
        t.expect("Delete 2 housekeeping conversation(s)? [y/N]")
        t.type("\r")
        assert t.wait() == 0
    finally:
        t.close()
    assert "Nothing deleted." in t.text
    assert derived(store.home) == before

    assert IndexView(store.home).count("zqprsummary") == 1
    t = store.terminal("doctor", PURGE)
    try:
        t.expect("Delete 2 housekeeping conversation(s)? [y/N]")
        t.type("y\r")
        assert t.wait() == 0
    finally:
        t.close()
    assert "Deleted 2 conversation(s)." in t.text
    left = set(store.builders())
    assert left == {s[k].id for k in ("quoting", "two prompts", "leading space", "real")}
    assert IndexView(store.home).count("zqprsummary") == 0
    sweep = json.loads(store.lazy("doctor", "--json", ok=False).stdout)
    checks = {c["title"]: c for c in sweep["checks"]}
    assert checks["No housekeeping conversations in the store"]["status"] == "ok"
    live = checks["Conversation capture is live"]
    assert live["status"] == "ok"  # deleted on request: not uncaptured
    assert "2 deleted from the store by lazy doctor on request: not counted" in live["detail"]
    # their files carry no marker: the recovery path brings them back, as it says it would
    p = store.lazy("doctor", "--reimport-conversations")
    assert "(2 of the missing were deleted from the store by lazy doctor;" in p.stdout
    store.lazy("doctor", "--reimport-conversations", "--yes")
    assert s["summary"].id in store.builders()


def test_purge_with_yes_deletes_without_asking(
    housekeeping: tuple[Store, dict[str, Session]],
) -> None:
    store, s = housekeeping
    p = store.lazy("doctor", PURGE, "--yes")
    assert "Deleted 2 conversation(s)." in p.stdout
    assert "2 of their session files are still on disk, with no marker" in p.stdout
    assert s["ask"].id not in store.builders()
    assert rows(store.home, "SELECT COUNT(*) FROM raw_chunks rc JOIN source_files f"
                " ON f.id = rc.file_id WHERE f.session_id = ?", (s["ask"].id,)) == [(0,)]  # fmt: skip
    # live capture's plan passes over them; naming one imports it again
    run_lazy(store.home, store.user_home, "import-conversation", s["ask"].id[:8])
    assert s["ask"].id in store.builders()


def test_the_repairs_document_themselves() -> None:
    p = subprocess.run([LAZY, "doctor", "--help"], capture_output=True, text=True, check=True)
    for flag in (CLEAN, DELETE, PURGE, "--reimport-conversations", "--dry-run", "--yes"):
        assert flag in p.stdout
    assert "lazy doctor --clean-local-command-conversations              # lists" in p.stdout


def test_cleaning_real_claude_code_sessions_equals_a_fresh_import(
    corpus: Path, tmp_path: Path
) -> None:
    """Real session files (the shared corpus: Claude Code 1.x-2.1.x with /clear, /context,
    /exit and their output, a Builder of seven files), stored by the old reader."""
    src = corpus / "handgemacht-ai__claude-code-log" / "test" / "test_data" / "real_projects"
    user_home = tmp_path / "home"
    shutil.copytree(src, user_home / ".claude" / "projects")
    old, fresh = tmp_path / "old", tmp_path / "fresh"
    old_import(old, user_home)
    listing = json.loads(run_lazy(old, user_home, "doctor", CLEAN, "--dry-run", "--json").stdout)
    cleaned = {c["builder_id"] for c in listing["conversations"]}
    emptied = {c["builder_id"] for c in listing["empty"]}
    assert len(cleaned) >= 5 and emptied and not listing["unreadable"]
    run_lazy(old, user_home, "doctor", CLEAN, DELETE, "--yes")
    run_lazy(fresh, user_home, "import-conversation", "--all-projects", "--yes")
    a, b = derived(old), derived(fresh)

    def of(data: dict[str, list[tuple[Any, ...]]], bid: str) -> dict[str, list[Any]]:
        at = {"messages": 14, "sessions": 4, "builders": 0}  # the builder id's column
        return {k: [r for r in v if r[at[k]] == bid] for k, v in data.items()}

    for bid in cleaned:
        assert of(a, bid) == of(b, bid), bid
        assert of(a, bid)["messages"], bid
    assert sorted(r[0] for r in a["builders"]) == sorted(r[0] for r in b["builders"])
    assert not emptied & {r[0] for r in a["builders"]}


def test_a_conversation_that_goes_on_while_asked_is_never_deleted(tmp_path: Path) -> None:
    """Between the listing and the answer, the all-scaffolding session gets a real message
    (captured by an import): the approved delete looks again, and leaves it."""
    user_home = tmp_path / "home"
    s = Session(user_home / ".claude" / "projects", "/w/proj")
    local_command(s, "clear", output=None)
    store = Store(tmp_path / "lazy", user_home)
    old_import(store.home, user_home)
    t = store.terminal("doctor", CLEAN, DELETE)
    try:
        t.expect("Deletion is permanent. [y/N]")
        s.turn("actually, one real question", "and its answer")
        store.lazy("import-conversation", s.id[:8])
        t.type("y\r")
        assert t.wait() == 0
    finally:
        t.close()
    assert "1 changed since they were listed and were left as they are" in t.text
    assert "Deleted" not in t.text
    assert store.builders()[s.id][1] == 4  # the old scaffolding and the real turn
