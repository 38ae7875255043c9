"""What each agent's tool calls are: summaries, diffs and checklists from their inputs."""

from __future__ import annotations

from lazy.agents.claude import tools as claude
from lazy.agents.codex import tools as codex
from lazy.agents.opencode import tools as opencode
from lazy.agents.tools import apply_patch_diffs, numbered_lines, unified_diffs


def test_multiedit_is_one_diff_with_a_hunk_per_edit() -> None:
    shape = claude.describe(
        "MultiEdit",
        {"file_path": "a.py", "edits": [
            {"old_string": "x = 1", "new_string": "x = 2"},
            {"old_string": "y = 1\nz = 1", "new_string": "y = 3"},
        ]},
    )  # fmt: skip
    [d] = shape.diff
    assert shape.kind == "edit" and (d.added, d.removed) == (2, 3)
    lines = d.diff.splitlines()
    assert lines[:2] == ["--- a/a.py", "+++ b/a.py"]
    assert sum(1 for x in lines if x.startswith("@@")) == 2


def test_claude_summaries_say_what_each_call_does() -> None:
    assert claude.describe("Read", {"file_path": "a.py", "offset": 10, "limit": 5}).summary == (
        "Read a.py (lines 10-14)"
    )
    assert claude.describe("Grep", {"pattern": "TODO", "path": "src"}).summary == (
        "Grep 'TODO' in src"
    )
    assert claude.describe("WebFetch", {"url": "https://x.test/a"}).summary == (
        "WebFetch https://x.test/a"
    )
    mcp = claude.describe("mcp__github__create_issue", {"title": "t"})
    assert (mcp.kind, mcp.mcp_server, mcp.summary) == (
        "mcp", "github", 'github · create_issue {"title":"t"}'
    )  # fmt: skip
    other = claude.describe("Frobnicate", {"level": 3})
    assert (other.kind, other.summary) == ("other", 'Frobnicate {"level":3}')
    long = claude.describe("Bash", {"command": "echo " + "x" * 500 + "\nls"})
    assert len(long.summary) <= 200 and "\n" not in long.summary


def test_apply_patch_moves_and_deletes() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: old.py\n*** Move to: new.py\n@@\n-a\n+b\n"
        "*** Delete File: gone.txt\n*** End Patch"
    )
    moved, gone = apply_patch_diffs(patch)
    assert moved.path == "old.py → new.py" and (moved.added, moved.removed) == (1, 1)
    assert gone.path == "gone.txt" and gone.diff.splitlines()[1] == "+++ /dev/null"


def test_a_unified_patch_is_split_by_file() -> None:
    patch = "--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+b\n--- a/y.md\n+++ b/y.md\n@@ -0,0 +1 @@\n+c"
    x, y = unified_diffs(patch)
    assert (x.path, x.language, x.added, x.removed) == ("x.ts", "typescript", 1, 1)
    assert (y.path, y.language, y.added, y.removed) == ("y.md", "markdown", 1, 0)
    shape = opencode.describe("patch", {"patchText": patch})
    assert shape.kind == "edit" and [d.path for d in shape.diff] == ["x.ts", "y.md"]


def test_opencode_and_codex_checklists_and_shells() -> None:
    todo = opencode.describe(
        "todowrite", {"todos": [{"content": "a", "status": "completed"}, {"content": "b"}]}
    )
    assert todo.summary == "Todos: 1/2 done" and [t.status for t in todo.todos] == [
        "completed", "pending"
    ]  # fmt: skip
    plan = codex.describe("update_plan", {"plan": [{"step": "s", "status": "in_progress"}]})
    assert plan.kind == "todo" and plan.todos[0].text == "s"
    assert codex.describe("shell", {"command": ["bash", "-lc", "ls -la"]}).summary == "$ ls -la"
    assert codex.describe("shell", {"command": ["git", "commit", "-m", "a b"]}).summary == (
        "$ git commit -m 'a b'"
    )
    edit = opencode.describe("edit", {"filePath": "/p/a.go", "oldString": "x", "newString": "y"})
    assert edit.diff[0].language == "go" and edit.summary == "Edit /p/a.go (+1 -1)"


def test_claude_harness_in_a_user_line_is_split_from_the_words() -> None:
    pieces = claude.harness_split(
        "<ide_selection>line 3</ide_selection> fix this <system-reminder>r</system-reminder>"
    )
    assert [(label, text[:10]) for label, text in pieces] == [
        ("IDE selection", "<ide_selec"), (None, "fix this"), ("System reminder", "<system-re")
    ]  # fmt: skip
    result = claude.describe_result(
        "Read", "1→a\n\n<system-reminder>\nbe careful\n</system-reminder>\n"
    )
    assert (result.output, result.first_line, result.reminders) == ("a\n", 1, ["be careful"])


def test_a_read_is_the_files_text_from_its_first_line() -> None:
    assert numbered_lines("    10→x = 1\n    11→\n    12→  y\n") == ("x = 1\n\n  y\n", 10)
    assert numbered_lines("     1→a→b") == ("a→b\n", 1)  # the first arrow only
    # anything else is left as it was: out of order, a line without its number, an error
    assert numbered_lines("1→a\n3→b\n") is None
    assert numbered_lines("1→a\nplain\n") is None
    assert numbered_lines("<tool_use_error>File does not exist.</tool_use_error>") is None
    assert numbered_lines("") is None
    said = claude.describe_result("Read", "File does not exist.")
    assert (said.output, said.first_line) == ("File does not exist.", None)
    assert claude.describe_result("Grep", "1→a\n").first_line is None  # only a read's
