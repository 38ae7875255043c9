"""`lazy import claude|codex|opencode` as a user runs it: every option of the spec's table,
their combinations, idempotent re-imports, the memories' metadata and `lazy get` / `lazy ls`.

The CLI runs in-process (click's runner) against an isolated HOME, CODEX_HOME,
XDG_DATA_HOME and LAZY_HOME; sessions are written the way each agent writes them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

import lazy.memories.session_import as agent_import
from fabricate import APP_CWD
from fabricate.claude import Session, subagent
from fabricate.codex import Call, Rollout
from fabricate.opencode import Conv, create_db, oc_conv, text, tool, write_v1_tree
from support.agent_sessions import count_rows, invoke, memories, report

# Every key of the spec's metadata table, spelled as the spec spells it.
META_KEYS = {
    "type",
    "source_tool",
    "source_session_id",
    "source_session_title",
    "source_message_id",
    "source_message_role",
    "source_message_block_kinds",
    "source_cwd",
    "source_project_slug",
    "source_git_root",
    "source_git_branch",
    "source_git_commit",
    "source_git_repo",
    "source_tool_version",
    "source_model",
    "source_provider",
    "source_agent_mode",
    "source_tool_name",
    "source_file",
    "content_mode",
    "importer_version",
}


@pytest.fixture(autouse=True)
def _agent_homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Codex and OpenCode default dirs inside the test's tmp dir, never the machine's."""
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


@pytest.fixture
def codex(tmp_path: Path) -> Path:
    return tmp_path / "codex"


@pytest.fixture
def oc_data(tmp_path: Path) -> Path:
    return tmp_path / "xdg" / "opencode"


@pytest.fixture
def claude(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".claude" / "projects"


@pytest.fixture
def lazy_home(tmp_path: Path) -> Path:
    return tmp_path / "lazy"


def two_turns(codex: Path, cwd: str = APP_CWD, **kw: Any) -> Rollout:
    r = Rollout(codex, cwd, **kw)
    r.turn(f"{r.id} first", f"{r.id} reply one", reasoning="thinking it over")
    r.turn(
        f"{r.id} second",
        f"{r.id} reply two",
        call=Call("shell", {"command": ["ls"]}, "a.txt\nb.txt"),
    )
    return r


def imported_ids(rep: dict[str, Any]) -> set[str]:
    return {s["session_id"] for s in rep["sessions"]}


def skipped(rep: dict[str, Any]) -> dict[str, str]:
    return {s["session_id"]: s["kind"] for s in rep["skipped_sessions"]}


# ---- --source ------------------------------------------------------------------------------


def test_source_replaces_the_default_dir(codex: Path, tmp_path: Path) -> None:
    default = two_turns(codex)
    other = two_turns(tmp_path / "elsewhere")
    rep = report("import", "codex", "--source", str(tmp_path / "elsewhere"), "--dry-run")
    assert rep["sources"] == [str(tmp_path / "elsewhere")]
    assert rep["found"] == 1 and imported_ids(rep) == {other.id}
    rep = report("import", "codex", "--dry-run")
    assert rep["sources"] == [str(codex)]
    assert imported_ids(rep) == {default.id}


def test_no_sessions_found_says_where_it_looked(tmp_path: Path) -> None:
    out = invoke("import", "codex", "--source", str(tmp_path / "nowhere")).output
    assert "No Codex CLI sessions found" in out
    assert str(tmp_path / "nowhere") in out and "does not exist" in out


# ---- --project ----------------------------------------------------------------------------


def test_project_takes_the_dir_and_below_not_a_sibling(codex: Path) -> None:
    same = two_turns(codex, "/a/app")
    below = two_turns(codex, "/a/app/sub/dir")
    sibling = two_turns(codex, "/a/app2")
    elsewhere = two_turns(codex, "/b/app")
    rep = report("import", "codex", "--project", "/a/app")
    assert imported_ids(rep) == {same.id, below.id}
    assert skipped(rep) == {sibling.id: "project", elsewhere.id: "project"}
    # a trailing slash names the same dir
    rep = report("import", "codex", "--project", "/a/app/", "--dry-run")
    assert imported_ids(rep) == {same.id, below.id}


# ---- --since / --until --------------------------------------------------------------------


def three_days(codex: Path) -> list[Rollout]:
    return [
        two_turns(
            codex,
            started=f"2026-03-0{d}T10:00:00",
            thread_id=f"{str(d) * 8}-0000-4000-8000-{str(d) * 12}",
        )
        for d in (1, 2, 3)
    ]


def test_since_and_until_are_inclusive(codex: Path) -> None:
    one, two, three = three_days(codex)
    assert two.start == "2026-03-02T10:00:01.000Z"
    rep = report("import", "codex", "--since", "2026-03-02T10:00:01Z", "--dry-run")
    assert imported_ids(rep) == {two.id, three.id}
    assert skipped(rep) == {one.id: "since"}
    rep = report("import", "codex", "--until", "2026-03-02T10:00:01Z", "--dry-run")
    assert imported_ids(rep) == {one.id, two.id}
    assert skipped(rep) == {three.id: "until"}
    both = ("--since", "2026-03-02T10:00:01Z", "--until", "2026-03-02T10:00:01Z")
    rep = report("import", "codex", *both, "--dry-run")
    assert imported_ids(rep) == {two.id}
    # a bare date is its midnight
    rep = report("import", "codex", "--since", "2026-03-02", "--until", "2026-03-03")
    assert imported_ids(rep) == {two.id}


@pytest.fixture
def tokyo(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Local time is UTC+9 (no DST there) for the test, restored after it."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_naive_times_are_local_time(codex: Path, tokyo: Any) -> None:
    one, two, three = three_days(codex)
    # 19:00:01 in Tokyo is two's start (10:00:01Z); read as UTC it would leave two out
    rep = report("import", "codex", "--since", "2026-03-02T19:00:01", "--dry-run")
    assert imported_ids(rep) == {two.id, three.id}
    rep = report("import", "codex", "--until", "2026-03-02T19:00:00", "--dry-run")
    assert imported_ids(rep) == {one.id}


@pytest.mark.parametrize("flag", ["--since", "--until"])
@pytest.mark.parametrize("value", ["yesterday", "2026-13-01", "03/01/2026"])
def test_a_bad_time_is_a_usage_error(codex: Path, flag: str, value: str) -> None:
    two_turns(codex)
    r = invoke("import", "codex", flag, value, ok=False)
    assert r.exit_code == 2
    assert flag in r.output and repr(value) in r.output and "ISO 8601" in r.output


def test_since_after_until_is_a_usage_error(codex: Path, lazy_home: Path) -> None:
    two_turns(codex)
    r = invoke("import", "codex", "--since", "2026-03-05", "--until", "2026-03-01", ok=False)
    assert r.exit_code == 2 and "is after --until" in r.output
    assert not (lazy_home / "store.db").exists()


# ---- --tree-root / --sessions-node-name ---------------------------------------------------


def test_default_tree_root_and_node_name(codex: Path, lazy_home: Path) -> None:
    r = two_turns(codex)
    rep = report("import", "codex")
    assert rep["sessions"][0]["node"] == f"/share/projects/app/agent_sessions/{r.id}"
    assert {m["tree"] for m in memories(lazy_home)} == {rep["sessions"][0]["node"]}


def test_tree_root_under_home(codex: Path, lazy_home: Path) -> None:
    r = two_turns(codex)
    rep = report("import", "codex", "--tree-root", "~/projects")
    home = [re.sub(r"[^A-Za-z0-9_-]+", "_", p).strip("_") for p in Path.home().parts[1:]]
    want = "/" + "/".join([*home, "projects", "app", "agent_sessions", r.id])
    assert rep["sessions"][0]["node"] == want
    assert {m["tree"] for m in memories(lazy_home)} == {want}


def test_tree_root_custom(codex: Path, lazy_home: Path) -> None:
    r = two_turns(codex)
    invoke("import", "codex", "--tree-root", "/Team-A/my_work/")
    assert {m["tree"] for m in memories(lazy_home)} == {
        f"/Team-A/my_work/app/agent_sessions/{r.id}"
    }


@pytest.mark.parametrize(
    ("root", "named"),
    [
        ("/share/my projects", "'my projects'"),
        ("/share/proj.ects", "'proj.ects'"),
        ("/share//projects", "doubled /"),
        ("share/projects", "must start with /"),
    ],
)
def test_bad_tree_root_names_the_label(codex: Path, lazy_home: Path, root: str, named: str) -> None:
    two_turns(codex)
    r = invoke("import", "codex", "--tree-root", root, ok=False)
    assert r.exit_code == 2
    assert "--tree-root" in r.output and named in r.output
    assert not (lazy_home / "store.db").exists()


def test_sessions_node_name(codex: Path, lazy_home: Path) -> None:
    r = two_turns(codex)
    invoke("import", "codex", "--sessions-node-name", "codex_2026")
    assert {m["tree"] for m in memories(lazy_home)} == {f"/share/projects/app/codex_2026/{r.id}"}


@pytest.mark.parametrize("name", ["Agent_Sessions", "agent-sessions", "a/b", ""])
def test_bad_sessions_node_name(codex: Path, name: str) -> None:
    two_turns(codex)
    r = invoke("import", "codex", "--sessions-node-name", name, ok=False)
    assert r.exit_code == 2
    assert f"sessions node name {name!r} must match [a-z0-9_]+" in r.output


# ---- --full-transcript --------------------------------------------------------------------


def test_full_transcript_keeps_reasoning_and_tools_as_memories(
    codex: Path, lazy_home: Path
) -> None:
    r = two_turns(codex)
    rep = report("import", "codex", "--full-transcript")
    assert rep["content_mode"] == "full_transcript"
    got = memories(lazy_home)
    by_role: dict[str, list[dict[str, Any]]] = {}
    for m in got:
        by_role.setdefault(m["meta"]["source_message_role"], []).append(m)
    assert {k: len(v) for k, v in by_role.items()} == {
        "user": 2,
        "assistant": 2,
        "reasoning": 1,
        "tool_call": 1,
        "tool_result": 1,
    }
    assert by_role["reasoning"][0]["content"] == "thinking it over"
    call, result = by_role["tool_call"][0], by_role["tool_result"][0]
    assert call["meta"]["source_tool_name"] == "shell"
    assert result["meta"]["source_tool_name"] == "shell"
    assert call["content"] == 'shell({"command":["ls"]})'
    assert result["content"] == "a.txt\nb.txt"
    assert call["meta"]["source_message_block_kinds"] == ["tool_use"]
    assert result["meta"]["source_message_block_kinds"] == ["tool_result"]
    assert all(m["meta"]["content_mode"] == "full_transcript" for m in got)
    assert all(m["meta"]["source_tool_name"] is None for m in by_role["user"])
    assert sorted(m["content"] for m in by_role["user"]) == [f"{r.id} first", f"{r.id} second"]


def test_full_transcript_joins_a_messages_blocks_with_blank_lines(
    oc_data: Path, lazy_home: Path
) -> None:
    c = oc_conv("ses_fullfullfullfullfullfull00")
    create_db(oc_data / "opencode.db", c)
    invoke("import", "opencode", "--full-transcript")
    answers = [m for m in memories(lazy_home) if m["meta"]["source_message_role"] == "assistant"]
    assert len(answers) == 2
    first = next(m for m in answers if "answer 0" in m["content"])
    assert first["content"] == "\n\n".join(
        [
            f"{c.sid} thinking 0",
            f"{c.sid} answer 0",
            'bash({"command":"ls"})',
            "a b",
        ]
    )
    assert first["meta"]["source_message_block_kinds"] == [
        "thinking",
        "text",
        "tool_use",
        "tool_result",
    ]
    assert first["meta"]["source_tool_name"] == "bash"
    # the default mode keeps the same message's text block only
    invoke("import", "opencode")
    first = next(m for m in memories(lazy_home) if m["path"] == first["path"])
    assert first["content"] == f"{c.sid} answer 0"
    assert first["meta"]["content_mode"] == "default"


# ---- --include-temp-cwd / --include-trivial -----------------------------------------------


@pytest.mark.parametrize("cwd", ["/tmp", "/tmp/scratch/app", "/var/tmp/x", "/dev/shm/x"])
def test_temp_cwd_left_out_unless_asked(codex: Path, cwd: str) -> None:
    r = two_turns(codex, cwd)
    rep = report("import", "codex", "--dry-run")
    assert rep["sessions"] == [] and skipped(rep) == {r.id: "temp_cwd"}
    rep = report("import", "codex", "--dry-run", "--include-temp-cwd")
    assert imported_ids(rep) == {r.id} and rep["skipped_sessions"] == []


def test_a_dir_merely_named_like_tmp_is_not_temp(codex: Path) -> None:
    r = two_turns(codex, "/home/u/tmpwork")
    assert imported_ids(report("import", "codex", "--dry-run")) == {r.id}


def test_trivial_sessions_left_out_unless_asked(codex: Path, lazy_home: Path) -> None:
    one = Rollout(codex, "/home/u/dev/one")
    one.turn("just one question", "just one answer")
    empty_prompt = two_turns(codex, "/home/u/dev/two")
    rep = report("import", "codex")
    assert imported_ids(rep) == {empty_prompt.id}
    assert skipped(rep) == {one.id: "trivial"}
    assert "1 user message(s)" in rep["skipped_sessions"][0]["reason"]
    rep = report("import", "codex", "--include-trivial")
    assert imported_ids(rep) == {one.id, empty_prompt.id}
    assert rep["inserted"] == 2  # the trivial one's prompt and answer; the other's were there
    assert {m["content"] for m in memories(lazy_home) if one.id in m["tree"]} == {
        "just one question",
        "just one answer",
    }


def test_a_session_with_no_conversation_is_reported_left_out(codex: Path) -> None:
    r = two_turns(codex, "/home/u/dev/app")
    empty = r.path.parent / "rollout-2026-03-01T10-00-00-0197f1c0-0000-7000-8000-00000000e0e0.jsonl"
    empty.write_bytes(b"")
    rep = report("import", "codex", "--include-trivial")
    assert imported_ids(rep) == {r.id}
    assert skipped(rep) == {"0197f1c0-0000-7000-8000-00000000e0e0": "empty"}
    text = invoke("import", "codex", "--dry-run").stdout
    assert "1 with no conversation in them" in text


def test_harness_text_does_not_count_as_a_user_message(codex: Path) -> None:
    r = Rollout(codex)
    r.write(
        r.user_item("<environment_context>\n  <cwd>/home/u/dev/app</cwd>\n</environment_context>")
    )
    r.turn("the only real question", "the answer")
    rep = report("import", "codex", "--dry-run")
    assert skipped(rep) == {r.id: "trivial"}


# ---- --dry-run ----------------------------------------------------------------------------


def test_dry_run_without_a_store_creates_nothing(codex: Path, lazy_home: Path) -> None:
    r = two_turns(codex)
    rep = report("import", "codex", "--dry-run")
    assert rep["dry_run"] is True
    assert rep["sessions"][0]["node"] == f"/share/projects/app/agent_sessions/{r.id}"
    assert rep["inserted"] == rep["sessions"][0]["messages"] == 4
    assert rep["updated"] == rep["skipped"] == 0
    assert not lazy_home.exists() or list(lazy_home.iterdir()) == []
    text_out = invoke("import", "codex", "--dry-run").output
    assert "Dry run: would import 1 of 1" in text_out and "Nothing written" in text_out


def test_dry_run_leaves_an_existing_store_unchanged(codex: Path, lazy_home: Path) -> None:
    first = two_turns(codex)
    invoke("import", "codex")
    tables = ("memories", "sessions", "messages", "source_files", "project_slugs", "builders")
    before = {t: count_rows(lazy_home, t) for t in tables}
    stored = memories(lazy_home)
    second = two_turns(codex, "/home/u/dev/other")
    first.turn("a third question", "a third answer")
    rep = report("import", "codex", "--dry-run")
    # every parsed message is a would-be insert, the stored ones too
    assert {s["session_id"]: s["inserted"] for s in rep["sessions"]} == {
        first.id: 6,
        second.id: 4,
    }
    assert rep["inserted"] == 10 and rep["updated"] == 0 and rep["skipped"] == 0
    assert {s["session_id"]: s["node"] for s in rep["sessions"]}[second.id] == (
        f"/share/projects/other/agent_sessions/{second.id}"
    )
    assert {t: count_rows(lazy_home, t) for t in tables} == before
    assert memories(lazy_home) == stored


# ---- -v -----------------------------------------------------------------------------------


def test_verbose_prints_a_line_per_session(codex: Path) -> None:
    a = two_turns(codex, "/home/u/dev/a")
    b = two_turns(codex, "/home/u/dev/b")
    temp = two_turns(codex, "/tmp/x")
    quiet = invoke("import", "codex", "--dry-run").output
    assert a.id not in quiet and b.id not in quiet
    out = invoke("import", "codex", "-v").output
    lines = out.splitlines()
    for r, slug in ((a, "a"), (b, "b")):
        (line,) = [x for x in lines if r.id in x]
        assert "4 message(s): +4 ~0 =0" in line
        assert f"/share/projects/{slug}/agent_sessions/{r.id}" in line
    (line,) = [x for x in lines if temp.id in x]
    assert "skip" in line and "temp dir" in line
    again = invoke("import", "codex", "--verbose").output
    assert sum("4 message(s): +0 ~0 =4" in x for x in again.splitlines()) == 2


# ---- --include-sidechains -----------------------------------------------------------------


def test_include_sidechains_takes_claude_subagent_files(claude: Path, lazy_home: Path) -> None:
    main = Session(claude, APP_CWD)
    main.turn("delegate the search", "delegating")
    main.turn("and report back", "done")
    subagent(main, "a1b2c3d4e5f6a7b8c", "search the repo", "found 3 hits")
    rep = report("import", "claude")
    assert [s["session_id"] for s in rep["sessions"]] == [main.id]
    assert all(m["content"] != "found 3 hits" for m in memories(lazy_home))
    rep = report("import", "claude", "--include-sidechains")
    subs = [s for s in rep["sessions"] if s["parent_session_id"] == main.id]
    assert len(subs) == 1 and subs[0]["inserted"] == 2
    sub = [m for m in memories(lazy_home) if m["tree"] == subs[0]["node"]]
    assert sorted(m["content"] for m in sub) == ["found 3 hits", "search the repo"]
    assert all(m["meta"]["source_session_id"] == main.id for m in sub)
    assert all(m["meta"]["source_agent_id"] == "a1b2c3d4e5f6a7b8c" for m in sub)
    assert subs[0]["node"].startswith("/share/projects/app/agent_sessions/")
    again = report("import", "claude", "--include-sidechains")
    assert (again["inserted"], again["updated"], again["skipped"]) == (0, 0, 6)
    out = invoke("import", "claude", "--include-sidechains").output
    assert "and 1 subagent session(s)" in out


@pytest.mark.parametrize("args", [("import", "codex"), ("opencode", "import")])
def test_include_sidechains_is_claude_only(args: tuple[str, str]) -> None:
    r = invoke(*args, "--include-sidechains", ok=False)
    assert r.exit_code == 2 and "No such option '--include-sidechains'" in r.output


# ---- aliases ------------------------------------------------------------------------------


def test_tool_import_aliases(codex: Path, oc_data: Path, claude: Path) -> None:
    two_turns(codex)
    create_db(oc_data / "opencode.db", oc_conv("ses_aliasaliasaliasaliasalias0"))
    s = Session(claude, APP_CWD)
    s.turn("q1", "a1")
    s.turn("q2", "a2")
    for t in ("codex", "opencode", "claude"):
        a = report("import", t, "--dry-run", "--full-transcript")
        b = report(t, "import", "--dry-run", "--full-transcript")
        assert a == b and a["tool"] == t and a["inserted"] > 0
    # the alias writes like the command it aliases: a re-import by the other is a no-op
    first = report("codex", "import")
    again = report("import", "codex")
    assert again["skipped"] == first["inserted"] > 0 and again["inserted"] == 0


def test_help_lists_every_option() -> None:
    out = invoke("import", "codex", "--help").output
    for opt in (
        "--source",
        "--project",
        "--since",
        "--until",
        "--tree-root",
        "--sessions-node-name",
        "--full-transcript",
        "--include-temp-cwd",
        "--include-trivial",
        "--dry-run",
        "--verbose",
    ):
        assert opt in out
    assert "--include-sidechains" in invoke("claude", "import", "--help").output


# ---- combinations -------------------------------------------------------------------------


def test_since_with_project(codex: Path) -> None:
    early = two_turns(codex, "/home/u/dev/app", started="2026-03-01T08:00:00")
    late = two_turns(codex, "/home/u/dev/app/web", started="2026-03-03T08:00:00")
    other = two_turns(codex, "/home/u/dev/other", started="2026-03-03T08:00:00")
    rep = report("import", "codex", "--since", "2026-03-02", "--project", "/home/u/dev/app")
    assert imported_ids(rep) == {late.id}
    assert skipped(rep) == {early.id: "since", other.id: "project"}


def test_dry_run_with_full_transcript(codex: Path, lazy_home: Path) -> None:
    two_turns(codex)
    invoke("import", "codex")
    before = memories(lazy_home)
    rep = report("import", "codex", "--dry-run", "--full-transcript")
    assert rep["content_mode"] == "full_transcript" and rep["dry_run"] is True
    assert rep["inserted"] == 7 and rep["updated"] == 0  # + reasoning, call, result
    assert memories(lazy_home) == before
    assert all(m["meta"]["content_mode"] == "default" for m in before)


def test_until_with_include_trivial(codex: Path) -> None:
    early = Rollout(codex, "/home/u/dev/a", started="2026-03-01T08:00:00")
    early.turn("one-shot early", "ok")
    late = Rollout(codex, "/home/u/dev/b", started="2026-03-05T08:00:00")
    late.turn("one-shot late", "ok")
    full = two_turns(codex, "/home/u/dev/c", started="2026-03-01T09:00:00")
    rep = report("import", "codex", "--until", "2026-03-02", "--include-trivial", "--dry-run")
    assert imported_ids(rep) == {early.id, full.id}
    assert skipped(rep) == {late.id: "until"}
    rep = report("import", "codex", "--until", "2026-03-02", "--dry-run")
    assert imported_ids(rep) == {full.id}
    assert skipped(rep) == {early.id: "trivial", late.id: "until"}


# ---- idempotency --------------------------------------------------------------------------


def test_reimport_changes_nothing(codex: Path, lazy_home: Path) -> None:
    two_turns(codex)
    two_turns(codex, "/home/u/dev/other")
    first = report("import", "codex", "--full-transcript")
    assert first["inserted"] == 14
    stored = memories(lazy_home)
    again = report("import", "codex", "--full-transcript")
    assert (again["inserted"], again["updated"], again["skipped"]) == (0, 0, 14)
    assert memories(lazy_home) == stored  # same ids, same updated_at: nothing rewritten


def test_appended_turn_inserts_only_its_messages(codex: Path, lazy_home: Path) -> None:
    r = two_turns(codex)
    report("import", "codex")
    before = {m["path"]: m for m in memories(lazy_home)}
    r.turn("a third question", "a third answer", reasoning="more thought")
    rep = report("import", "codex")
    assert (rep["inserted"], rep["updated"], rep["skipped"]) == (2, 0, 4)
    after = {m["path"]: m for m in memories(lazy_home)}
    new = {p: m["content"] for p, m in after.items() if p not in before}
    assert sorted(new.values()) == ["a third answer", "a third question"]
    assert all(after[p] == m for p, m in before.items())


def test_importer_version_bump_rewrites_every_memory_once(
    codex: Path, oc_data: Path, lazy_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two_turns(codex)
    report("import", "codex")
    before = {m["path"]: m for m in memories(lazy_home)}
    monkeypatch.setattr(agent_import, "IMPORTER_VERSION", "lazy-agent-import/test-bump")
    rep = report("import", "codex")
    assert (rep["inserted"], rep["updated"], rep["skipped"]) == (0, 4, 0)
    after = {m["path"]: m for m in memories(lazy_home)}
    assert after.keys() == before.keys()
    for path, m in after.items():
        assert m["meta"]["importer_version"] == "lazy-agent-import/test-bump"
        assert m["id"] == before[path]["id"]  # the slot kept its row
        assert m["content"] == before[path]["content"]
    rep = report("import", "codex")
    assert (rep["inserted"], rep["updated"], rep["skipped"]) == (0, 0, 4)


def test_changed_opencode_part_rewrites_that_memory_only(oc_data: Path, lazy_home: Path) -> None:
    c = oc_conv("ses_editeditediteditediteditX")
    write_v1_tree(oc_data, c)
    first = report("import", "opencode")
    assert first["inserted"] == 4
    before = {m["path"]: m for m in memories(lazy_home)}
    info, parts = c.messages[1]
    part = next(p for p in parts if p["type"] == "text")
    path = oc_data / "storage" / "part" / info["id"] / f"{part['id']}.json"
    obj = json.loads(path.read_text())
    obj["text"] = "an answer, edited in place"
    path.write_text(json.dumps(obj, indent=2))
    later = time.time() + 5
    os.utime(path, (later, later))  # OpenCode's stamp is the newest mtime
    rep = report("import", "opencode")
    assert (rep["inserted"], rep["updated"], rep["skipped"]) == (0, 1, 3)
    after = {m["path"]: m for m in memories(lazy_home)}
    changed = [p for p in after if after[p] != before[p]]
    assert changed == [next(p for p in after if p.endswith("msg_" + info["id"]))]
    assert after[changed[0]]["content"] == "an answer, edited in place"
    assert after[changed[0]]["id"] == before[changed[0]]["id"]


# ---- metadata and content -----------------------------------------------------------------


def test_codex_metadata(codex: Path, lazy_home: Path) -> None:
    r = two_turns(
        codex,
        git={
            "commit_hash": "0123456789abcdef0123456789abcdef01234567",
            "branch": "feature/x",
            "repository_url": "https://example.invalid/app.git",
        },
        version="0.98.0",
    )
    invoke("import", "codex", "--full-transcript")
    got = memories(lazy_home)
    for m in got:
        meta = m["meta"]
        assert meta.keys() >= META_KEYS, META_KEYS - meta.keys()
        assert meta["type"] == "agent_session"
        assert meta["source_tool"] == "codex"
        assert meta["source_session_id"] == r.id
        assert meta["source_cwd"] == APP_CWD
        assert meta["source_project_slug"] == "app"
        assert meta["source_git_branch"] == "feature/x"
        assert meta["source_git_commit"] == "0123456789abcdef0123456789abcdef01234567"
        assert meta["source_git_repo"] == "https://example.invalid/app.git"
        assert meta["source_git_root"] is None  # /home/u/dev/app is no repo here
        assert meta["source_tool_version"] == "0.98.0"
        assert meta["source_provider"] == "openai"
        assert meta["source_file"] == str(r.path)
        assert meta["content_mode"] == "full_transcript"
        assert meta["importer_version"] == agent_import.IMPORTER_VERSION
        assert m["name"] == "msg_" + re.sub(r"[^A-Za-z0-9_-]+", "_", meta["source_message_id"])
        assert m["tree"] == f"/share/projects/app/agent_sessions/{r.id}"
        if meta["source_message_role"] in ("assistant", "reasoning", "tool_call"):
            assert meta["source_model"] == "gpt-5.1-codex"
    ids = [m["meta"]["source_message_id"] for m in got]
    assert len(set(ids)) == len(ids) == 7
    call = next(m for m in got if m["meta"]["source_message_role"] == "tool_call")
    assert call["meta"]["source_message_id"] == f"call_{r.id[:8]}_1"  # Codex's own call_id


def test_claude_metadata_and_default_content(claude: Path, lazy_home: Path) -> None:
    repo = claude.parent.parent / "dev" / "memory-engine"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "remote", "add", "origin", "https://example.invalid/me.git"],
        check=True,
    )
    cwd = repo / "src"
    cwd.mkdir()
    s = Session(claude, str(cwd), version="2.0.42")
    s.turn("read the config", "reading it")
    s.write(
        s.line(
            "assistant",
            message={
                "id": "msg_tooluse0001",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"p": 1}}],
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        ),
        s.line(
            "user",
            message={
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x = 1"}],
            },
        ),
    )
    s.turn("and now?", "x is 1")
    invoke("import", "claude", "--include-temp-cwd")  # pytest's tmp dir lies under /tmp
    got = memories(lazy_home)
    # default mode: user + assistant text only; the tool-only messages make no memory
    in_time = sorted(got, key=lambda m: m["temporal"])
    assert [(m["meta"]["source_message_role"], m["content"]) for m in in_time] == [
        ("user", "read the config"),
        ("assistant", "reading it"),
        ("user", "and now?"),
        ("assistant", "x is 1"),
    ]
    for m in got:
        meta = m["meta"]
        assert meta.keys() >= META_KEYS, META_KEYS - meta.keys()
        assert meta["source_tool"] == "claude"
        assert meta["source_session_id"] == s.id
        assert meta["source_cwd"] == str(cwd)
        assert meta["source_project_slug"] == "memory_engine"
        assert meta["source_git_root"] == str(repo)
        assert meta["source_git_branch"] == "main"
        assert meta["source_git_repo"] == "https://example.invalid/me.git"
        assert meta["source_tool_version"] == "2.0.42"
        assert meta["source_provider"] == "anthropic"
        assert meta["source_file"] == str(s.path)
        assert meta["content_mode"] == "default"
        assert meta["source_message_block_kinds"] == ["text"]
        assert meta["source_tool_name"] is None
        assert m["tree"] == f"/share/projects/memory_engine/agent_sessions/{s.id}"
        if meta["source_message_role"] == "assistant":
            assert meta["source_model"] == "claude-sonnet-4-5"
            assert meta["source_message_id"].startswith("msg_")


def test_opencode_metadata(oc_data: Path, lazy_home: Path) -> None:
    c = plan_mode_conv()
    create_db(oc_data / "opencode.db", c)
    invoke("import", "opencode")
    got = memories(lazy_home)
    assert len(got) == 4
    for m in got:
        meta = m["meta"]
        assert meta.keys() >= META_KEYS, META_KEYS - meta.keys()
        assert meta["source_tool"] == "opencode"
        assert meta["source_session_id"] == c.sid
        assert meta["source_session_title"] == "Plan the refactor"
        assert meta["source_tool_version"] == "1.18.33"
        assert meta["source_file"] == str(oc_data / "opencode.db")
        assert meta["source_provider"] == "anthropic"
        assert meta["source_agent_mode"] == "plan"
        assert meta["source_message_id"] == m["name"].removeprefix("msg_")
    assistant = [m for m in got if m["meta"]["source_message_role"] == "assistant"]
    assert {m["meta"]["source_model"] for m in assistant} == {"claude-sonnet-4-5"}


def plan_mode_conv() -> Conv:
    c = Conv("ses_planplanplanplanplanplan01", title="Plan the refactor")
    c.info["directory"] = APP_CWD
    for i in range(2):
        c.user(text(f"plan step {i}"), agent="plan")
        c.assistant(
            text(f"step {i} planned"),
            tool("read", f"t{i}", "completed", {}, output="."),
            agent="plan",
        )
    return c


def test_temporal_is_the_message_timestamp(codex: Path, lazy_home: Path) -> None:
    r = Rollout(codex)
    lines = r.turn_lines("q1", "a1", events=False)
    r.write(lines)
    r.turn("q2", "a2", events=False)
    invoke("import", "codex")
    got = {m["content"]: m["temporal"] for m in memories(lazy_home)}
    stamps = [json.loads(x)["timestamp"] for x in lines]
    # task_started, turn_context, the prompt, the reply, task_complete
    assert got["q1"] == stamps[2] and got["a1"] == stamps[3]
    assert got["q1"] < got["a1"] < got["q2"] < got["a2"]


# ---- lazy get / lazy ls -------------------------------------------------------------------


def test_get_json_shape(codex: Path, lazy_home: Path) -> None:
    r = two_turns(codex)
    invoke("import", "codex")
    m = next(x for x in memories(lazy_home) if x["content"] == f"{r.id} first")
    got = json.loads(invoke("get", m["path"], "--json").stdout)
    assert set(got) == {
        "id",
        "path",
        "tree",
        "name",
        "content",
        "meta",
        "temporal",
        "created_at",
        "updated_at",
    }
    assert got["path"] == m["path"] and got["tree"] == m["tree"] and got["name"] == m["name"]
    assert got["content"] == f"{r.id} first" and got["meta"] == m["meta"]
    assert got["temporal"] == m["temporal"]
    assert re.fullmatch(
        r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", got["id"]
    )
    plain = invoke("get", m["path"]).output
    assert f"{r.id} first" in plain and "source_cwd" in plain and APP_CWD in plain


def test_get_on_a_node_or_nothing_is_a_clear_error(codex: Path) -> None:
    r = two_turns(codex)
    invoke("import", "codex")
    node = f"/share/projects/app/agent_sessions/{r.id}"
    e = invoke("get", node, ok=False)
    assert e.exit_code == 1
    assert "is a node with 4 child(ren), not a memory" in e.output and f"lazy ls {node}" in e.output
    e = invoke("get", f"{node}/msg_nope", ok=False)
    assert e.exit_code == 1 and f"no memory at {node}/msg_nope" in e.output
    e = invoke("get", "/share/projects/has space/x", ok=False)
    assert e.exit_code == 2 and "'has space'" in e.output


def test_ls_lists_nodes_then_memories(codex: Path, lazy_home: Path) -> None:
    a = two_turns(codex)
    b = two_turns(codex, started="2026-03-02T00:00:00")
    other = two_turns(codex, "/home/u/dev/other")
    invoke("import", "codex")

    def ls(path: str) -> list[tuple[str, str, int]]:
        out = json.loads(invoke("ls", path, "--json").stdout)
        assert out["path"] == path.rstrip("/") or path == "/"
        return [(c["name"], c["kind"], c["count"]) for c in out["children"]]

    assert ls("/") == [("share", "node", 12)]
    assert ls("/share/projects") == [("app", "node", 8), ("other", "node", 4)]
    assert ls("/share/projects/app/agent_sessions") == sorted(
        [(a.id, "node", 4), (b.id, "node", 4)]
    )
    session = f"/share/projects/app/agent_sessions/{a.id}"
    kids = json.loads(invoke("ls", session, "--json").stdout)["children"]
    assert [c["kind"] for c in kids] == ["memory"] * 4
    by_time = sorted(
        (m for m in memories(lazy_home) if m["tree"] == session), key=lambda m: m["temporal"]
    )
    assert [c["name"] for c in kids] == [m["name"] for m in by_time]
    assert [c["path"] for c in kids] == [m["path"] for m in by_time]
    plain = invoke("ls", "/share/projects").output
    assert "app/" in plain and "other/" in plain
    assert other.id not in invoke("ls", "/share/projects/app/agent_sessions").output
    e = invoke("ls", "/share/nothing", ok=False)
    assert e.exit_code == 1 and "nothing under /share/nothing" in e.output
