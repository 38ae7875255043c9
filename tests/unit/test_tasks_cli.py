"""`lazy conversations promote`, `lazy tasks` as a user runs them: a store imported from Claude
Code sessions, the editor a real program named by $EDITOR, prompts answered on a real pty."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from fabricate.claude import Session
from support.cli import LAZY, lazy
from support.pty import in_pty

A = "abcd1111-0000-4000-8000-000000000001"
B = "abcd2222-0000-4000-8000-000000000002"

# an editor that rewrites the file: a line of its own above what it was given
REWRITE = """\
import sys
from pathlib import Path
p = Path(sys.argv[1])
p.write_text("EDITED BRIEF\\n" + p.read_text())
"""
EMPTY = """\
import sys
from pathlib import Path
Path(sys.argv[1]).write_text("  \\n")
"""


@pytest.fixture
def conv(repo: Path, projects: Path) -> Session:
    """A (10 messages) and B (2 messages), imported; B shares A's prefix ``abcd``."""
    a = Session(projects, str(repo), session_id=A)
    a.turn("design the retention policy", "keep everything forever")
    a.turn("what about subagents?", "they are kept with their parent")
    a.turn("and deleted files?", "the store keeps its copy")
    a.turn("write the zorblax migration", "migration 5 adds it")
    a.turn("thanks", "done")
    b = Session(projects, str(repo), session_id=B)
    b.turn("second conversation", "two")
    lazy("import-conversation", "--all", cwd=repo)
    return a


def fails(*args: str, cwd: Path) -> str:
    p = lazy(*args, cwd=cwd, check=False)
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    return p.stderr


def tasks(cwd: Path, *extra: str) -> list[dict[str, Any]]:
    return list(json.loads(lazy("tasks", "list", "--json", *extra, cwd=cwd).stdout)["tasks"])


def editor(tmp_path: Path, source: str) -> dict[str, str]:
    script = tmp_path / "editor.py"
    script.write_text(source)
    return {**os.environ, "EDITOR": f"{sys.executable} {script}", "TERM": "dumb"}


def test_refusals_before_anything_is_written(repo: Path, conv: Session) -> None:
    assert "no conversation 'zzzz9999'" in fails(
        "conversations", "promote", "zzzz9999", "--from", "1", "--to", "2", cwd=repo
    )
    said = fails("conversations", "promote", "abcd", "--from", "1", "--to", "2", cwd=repo)
    assert "ambiguous" in said and A in said and B in said
    said = fails("conversations", "promote", "abcd1", "--from", "3", "--to", "11", cwd=repo)
    assert "message 11 is not in conversation abcd1111: it has messages 1–10" in said
    said = fails("conversations", "promote", "abcd1", "--from", "0", "--to", "2", cwd=repo)
    assert "message 0 is not in conversation" in said
    said = fails("conversations", "promote", "abcd1", "--from", "5", "--to", "3", cwd=repo)
    assert "the range 5–3 runs backwards" in said
    said = fails(
        "conversations", "promote", "abcd1", "--from", "1", "--to", "2", "--parent", "nope",
        cwd=repo,
    )  # fmt: skip
    assert "there is no task nope to be the parent" in said
    said = fails(
        "conversations", "promote", "abcd1", "--from", "1", "--to", "2", "--code", "no spaces",
        cwd=repo,
    )  # fmt: skip
    assert "task code 'no spaces' must be" in said
    assert tasks(repo) == []


def test_non_tty_takes_the_seeded_text_and_repeats_are_refused(repo: Path, conv: Session) -> None:
    p = lazy("conversations", "promote", A[:8], "--from", "1", "--to", "4", cwd=repo)
    assert "Created task design-the-retention-policy in the backlog" in p.stdout
    [task] = tasks(repo)
    assert {k: task[k] for k in ("code", "goal", "parent", "status", "builder_id")} == {
        "code": "design-the-retention-policy",
        "goal": "design the retention policy",  # what the human said first in the range
        "parent": None,
        "status": "backlog",
        "builder_id": A,
    }
    assert (task["from_message"], task["to_message"]) == (1, 4)
    assert task["prompt"] == (
        "#1 user\ndesign the retention policy\n\n#2 assistant\nkeep everything forever\n\n"
        "#3 user\nwhat about subagents?\n\n#4 assistant\nthey are kept with their parent\n"
    )
    said = fails("conversations", "promote", A[:8], "--from", "1", "--to", "4", cwd=repo)
    assert "messages 1–4 of this conversation were already promoted, as task" in said
    assert "design-the-retention-policy" in said

    # an overlap is allowed, and said before the task is created
    p = lazy(
        "conversations", "promote", A, "--from", "3", "--to", "6", "--goal", "Deleted files",
        "--parent", "design-the-retention-policy", "--yes", cwd=repo,
    )  # fmt: skip
    assert "Overlap: messages 3–4 already went into task design-the-retention-policy" in p.stderr
    assert "(messages 1–4: design the retention policy)" in p.stderr
    newest, oldest = tasks(repo)
    assert newest["code"] == "deleted-files" and newest["parent"] == oldest["code"]
    assert newest["prompt"].startswith("#3 user\nwhat about subagents?")
    # a goal whose slug is taken gets -2
    lazy(
        "conversations",
        "promote",
        A,
        "--from",
        "3",
        "--to",
        "5",
        "--goal",
        "deleted files",
        cwd=repo,
    )
    assert tasks(repo)[0]["code"] == "deleted-files-2"
    assert len(tasks(repo)) == 3


def test_tasks_show_and_the_transcript_lists_promotions(repo: Path, conv: Session) -> None:
    lazy("conversations", "promote", A, "--from", "7", "--to", "8", "--code", "zorb-1", cwd=repo)
    shown = json.loads(lazy("tasks", "show", "zorb-1", "--json", cwd=repo).stdout)
    assert shown["goal"] == "write the zorblax migration"
    assert shown["prompt"] == (
        "#7 user\nwrite the zorblax migration\n\n#8 assistant\nmigration 5 adds it\n"
    )
    text = lazy("tasks", "show", "zorb-1", cwd=repo).stdout
    assert "backlog" in text and f"conversation {A}, messages 7–8" in text
    assert "#8 assistant" in text
    assert "no task 'nope'" in fails("tasks", "show", "nope", cwd=repo)
    table = lazy("tasks", cwd=repo).stdout
    assert "zorb-1" in table and "abcd1111 #7–8" in table and "write the zorblax" in table
    # other projects' tasks are listed only with --all-projects
    assert tasks(repo.parent) == [] and len(tasks(repo.parent, "--all-projects")) == 1

    transcript = lazy("conversations", "show", A[:8], cwd=repo).stdout
    tail = transcript[transcript.index("Promoted from this conversation:") :]
    assert "zorb-1  #7–8  write the zorblax migration" in tail
    other = lazy("conversations", "show", B, cwd=repo).stdout
    assert "Promoted from this conversation" not in other


def test_search_in_tasks_finds_the_task(repo: Path, conv: Session) -> None:
    lazy(
        "conversations", "promote", A, "--from", "7", "--to", "8", "--code", "zorb-1",
        "--goal", "Ship the quuxifier", cwd=repo,
    )  # fmt: skip
    found = json.loads(lazy("search", "in:tasks quuxifier", "--json", cwd=repo).stdout)
    [group] = found["groups"]
    [hit] = group["hits"]
    assert group["builder_id"] == A
    assert (hit["kind"], hit["task_code"], hit["number"]) == ("task", "zorb-1", 7)
    assert "quuxifier" in hit["snippet"]
    # the prompt is indexed too; conversations alone do not show the task
    found = json.loads(lazy("search", "in:tasks zorblax", "--json", cwd=repo).stdout)
    assert [h["kind"] for g in found["groups"] for h in g["hits"]] == ["task"]
    found = json.loads(lazy("search", "quuxifier", "--json", cwd=repo).stdout)
    assert found["groups"] == []
    assert "task zorb-1" in lazy("search", "in:tasks quuxifier", cwd=repo).stdout
    # a rebuild from the store (a fresh fill) has the task too
    lazy("index", "rebuild", cwd=repo)
    found = json.loads(lazy("search", "in:tasks quuxifier", "--json", cwd=repo).stdout)
    assert [h["task_code"] for g in found["groups"] for h in g["hits"]] == ["zorb-1"]


def test_editor_and_prompts_on_a_terminal(repo: Path, conv: Session, tmp_path: Path) -> None:
    run = in_pty(
        [*LAZY, "conversations", "promote", A, "--from", "5", "--to", "6"],
        editor(tmp_path, REWRITE),
        repo,
        answers=[("Goal", ""), ("Code", "files-1"), ("Parent task code", "")],
    )
    assert run.rc == 0, run.output
    assert "[and deleted files?]" in run.output  # the goal's fallback, offered
    assert "Created task files-1" in run.output
    [task] = tasks(repo)
    assert task["goal"] == "and deleted files?" and task["parent"] is None
    assert task["prompt"] == (
        "EDITED BRIEF\n#5 user\nand deleted files?\n\n#6 assistant\nthe store keeps its copy\n"
    )

    # a taken code is asked again; a parent must exist; the editor emptying the file aborts
    run = in_pty(
        [*LAZY, "conversations", "promote", A, "--from", "5", "--to", "8"],
        editor(tmp_path, EMPTY),
        repo,
        answers=[
            ("Goal", "zorblax"),
            ("Code", "files-1"),
            ("there is already a task files-1", "zorb"),
            ("Parent task code", "nope"),
            ("there is no task nope", "files-1"),
        ],
    )
    assert run.rc == 1, run.output
    assert "Overlap: messages 5–6 already went into task files-1" in run.output
    assert "the prompt was left empty: aborted, no task created" in run.output
    assert [t["code"] for t in tasks(repo)] == ["files-1"]

    # --yes on a terminal: no prompts, no editor (this one would empty the file)
    run = in_pty(
        [*LAZY, "conversations", "promote", A, "--from", "9", "--to", "10", "--yes"],
        editor(tmp_path, EMPTY),
        repo,
    )
    assert run.rc == 0, run.output
    assert "Goal" not in run.output
    assert tasks(repo)[0]["prompt"] == "#9 user\nthanks\n\n#10 assistant\ndone\n"


def test_help_documents_every_option(repo: Path) -> None:
    text = lazy("conversations", "promote", "--help", cwd=repo).stdout
    for option in ("--from", "--to", "--goal", "--code", "--parent", "--yes", "$EDITOR"):
        assert option in text
    text = lazy("tasks", "--help", cwd=repo).stdout
    assert "show" in text and "list" in text and "--json" in text
