"""The message view model on real sessions: parts in order, tool calls paired with their
results, diffs, checklists, harness items, subagents at their call, for all three agents."""

from __future__ import annotations

import shutil
from pathlib import Path

from fabricate.codex import Call, Rollout
from lazy.capture.bulk_import import run_import
from lazy.capture.discovery import discover_tool
from lazy.model import MessageView, ToolCall, Transcript
from lazy.store import Store
from lazy.store.queries import list_builders
from lazy.view.messages import as_text
from lazy.view.reading import find, message_page, transcript, transcript_page
from support import CORPUS

SOUND = (
    "claude-code/handgemacht-ai__claude-code-log/test/test_data/real_projects/"
    "-Users-dain-workspace-JSSoundRecorder"
)
CODEX_SMALL = "codex/jazzyalex__agent-sessions/Resources/Fixtures/stage0/agents/codex/small.jsonl"
CODEX_SMALL_ID = "019fc8be-3658-7ca3-9e29-000000000000"
OPENCODE_V2 = "opencode/jazzyalex__agent-sessions/Resources/Fixtures/stage0/agents/opencode"


def _import(store: Store, agent: str, root: Path) -> None:
    d = discover_tool(agent, [root], None, default_roots=False)
    run_import(store, d, list(d.sessions))


def _sound(store: Store) -> Transcript:
    _import(store, "claude", CORPUS / SOUND)
    return transcript(store.conn, "7acd37a8-2745-4b58-a8a9-46164b22ad9e")


def _calls(t: Transcript) -> list[ToolCall]:
    return [p.tool for m in t.messages for p in m.parts if p.tool is not None]


def test_results_sit_under_their_calls_and_their_messages_are_absorbed(store: Store) -> None:
    t = _sound(store)
    shown = {m.number for m in t.messages}
    absorbed = {n for m in t.messages for n in m.absorbed}
    assert not shown & absorbed
    # every stored message is shown, by itself or inside the message that made its call
    assert shown | absorbed == set(range(1, t.builder.message_count + 1))
    third = next(m for m in t.messages if m.number == 3)
    assert third.role == "assistant" and third.absorbed == [4, 5, 6]
    assert [p.kind for p in third.parts] == ["thinking", "text", "tool", "tool", "tool"]
    ls = next(c for c in _calls(t) if c.summary == "$ ls -la")
    assert ls.kind == "shell" and ls.result_number == 6
    assert ls.output is not None and ls.output.startswith("total 56")
    assert not any(m.role in ("tool_result", "tool_call", "reasoning") for m in t.messages)


def test_edits_are_diffs_and_paths_are_said_from_the_project(store: Store) -> None:
    calls = _calls(_sound(store))
    edit = next(c for c in calls if c.name == "Edit")
    assert edit.kind == "edit" and edit.summary.startswith("Edit CLAUDE.md (+")
    [d] = edit.diff
    assert d.path == "CLAUDE.md" and d.language == "markdown"
    assert d.diff.startswith("--- a/CLAUDE.md\n+++ b/CLAUDE.md\n@@")
    assert d.added > 0 and d.removed > 0 and "\\n" not in d.diff.split("\n")[3]
    write = next(c for c in calls if c.name == "Write")
    assert write.kind == "write" and write.diff[0].diff.startswith("--- /dev/null")
    # the input stays whole beside the summary
    assert isinstance(edit.input, dict) and edit.input["file_path"].startswith("/Users/dain/")


def test_a_search_says_how_many_results_it_listed(store: Store) -> None:
    found = {c.summary: c.matches for c in _calls(_sound(store)) if c.kind == "search"}
    # the real outputs: 38 paths; "No files found"; "Found 5 files" over five paths (the header
    # is not a sixth); two and one matching lines
    assert found == {
        "Glob '**/*.{js,html,json}'": 38,
        "Glob '.gitignore'": 0,
        "Grep 'webkitAudioContext|mozAudioContext|webkitURL|mozURL|webkitGetUserMedia'": 5,
        "Grep 'webkitAudioContext|mozAudioContext|webkitURL|mozURL' in app/js": 2,
        "Grep 'webkitAudioContext|mozAudioContext|webkitURL|mozURL' in js/lib": 1,
    }
    assert all(c.matches is None for c in _calls(_sound(store)) if c.kind != "search")


def test_todowrite_is_a_checklist(store: Store) -> None:
    todos = [c for c in _calls(_sound(store)) if c.kind == "todo"]
    assert len(todos) >= 5
    assert all(len(c.todos) == 6 for c in todos[:3])
    assert {t.status for c in todos for t in c.todos} >= {"pending", "completed", "in_progress"}
    assert todos[-1].summary == "Todos: 5/7 done"


def test_harness_text_is_labelled_never_the_users_words(store: Store) -> None:
    t = _sound(store)
    two = next(m for m in t.messages if m.number == 2)  # /init's expanded prompt (isMeta)
    assert two.role == "system" and two.harness
    twenty_five = next(m for m in t.messages if m.number == 25)
    kinds = [(p.kind, p.label) for p in twenty_five.parts]
    assert kinds[0] == ("harness", "IDE event") and kinds[1] == ("text", None)
    assert twenty_five.role == "user"
    interrupted = next(m for m in t.messages if m.number == 30)
    assert interrupted.role == "system" and interrupted.parts[0].label == "Interrupted"
    assert "ide_opened_file" not in t.builder.summary
    # the reminders Claude Code appends to a tool's output are taken out of it, and shown
    [ten] = [m for m in t.messages if 10 in m.absorbed]
    read = next(i for i, p in enumerate(ten.parts) if p.tool and p.tool.result_number == 10)
    assert "<system-reminder>" not in (ten.parts[read].tool.output or "")
    assert (ten.parts[read + 1].kind, ten.parts[read + 1].label) == ("harness", "System reminder")


def test_thinking_is_shown_and_found(store: Store) -> None:
    t = _sound(store)
    thoughts = [p for m in t.messages for p in m.parts if p.kind == "thinking"]
    assert len(thoughts) >= 20 and all(p.text for p in thoughts)
    word = thoughts[-1].text.split()[3]
    matches, total = find(store.conn, t.builder.id, None, word)
    assert total >= 1 and matches


def test_a_page_is_cut_at_whole_steps(store: Store) -> None:
    t = _sound(store)
    bid = t.builder.id
    # a page ending between a call and its results still carries the results
    [three] = message_page(store.conn, bid, None, 3, 1)
    assert three.absorbed == [4, 5, 6]
    # a page starting at a result brings the message whose call it answers
    page = transcript_page(store.conn, bid, None, 5, 2)
    assert [m.number for m in page.messages] == [3]
    assert page.next_start == 7
    whole = [m for m in t.messages if 3 <= m.number <= 40]
    pieced: list[MessageView] = []
    start: int | None = 3
    while start is not None and start <= 40:
        p = transcript_page(store.conn, bid, None, start, 5)
        pieced += [m for m in p.messages if m.number not in {x.number for x in pieced}]
        start = p.next_start
    assert [m.number for m in pieced if m.number <= 40] == [m.number for m in whole]


def test_find_searches_the_whole_line_as_shown(store: Store) -> None:
    t = _sound(store)
    matches, total = find(store.conn, t.builder.id, None, "webkitAudioContext")
    numbers = [n for n, _ in matches]
    assert total >= len(matches) >= 3
    assert numbers == sorted(numbers)
    shown = {m.number for m in t.messages}
    assert set(numbers) <= shown  # a result's text is found in its call's message


def test_codex_calls_are_the_assistants_and_carry_their_output(
    store: Store, tmp_path: Path
) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    shutil.copy(CORPUS / CODEX_SMALL, root / f"rollout-2026-08-03T10-48-56-{CODEX_SMALL_ID}.jsonl")
    _import(store, "codex", root)
    [b] = list_builders(store.conn)
    t = transcript(store.conn, b.id)
    [ls, *_] = [c for c in _calls(t) if c.summary == "$ ls"]
    assert ls.kind == "shell" and ls.output and ls.result_number is not None
    assert not any(m.role in ("tool_call", "reasoning") for m in t.messages)
    assert any(p.kind == "thinking" for m in t.messages for p in m.parts)


def test_codex_instructions_are_harness(store: Store, tmp_path: Path) -> None:
    r = Rollout(tmp_path / "codex", "/w/app")
    r.write(r.user_item("# AGENTS.md instructions for /w/app\n\nUse tabs."))
    r.turn("add a test", "added")
    _import(store, "codex", tmp_path / "codex")
    [b] = list_builders(store.conn)
    t = transcript(store.conn, b.id)
    first = t.messages[0]
    assert first.harness and first.parts[0].label == "Instructions (AGENTS.md)"
    assert b.summary == "add a test"


PATCH = """*** Begin Patch
*** Update File: src/app.py
@@ def main():
-    print("hi")
+    print("hello")
*** Add File: docs/notes.md
+# Notes
*** End Patch"""


def test_codex_apply_patch_is_a_diff_and_exit_codes_are_read(store: Store, tmp_path: Path) -> None:
    r = Rollout(tmp_path / "codex", "/w/app")
    r.turn("patch it", "done", call=Call("apply_patch", {"input": PATCH}, "Success."))
    out = "Exit code: 2\nWall time: 0.4 seconds\nOutput:\nno such file"
    r.turn("run it", "it failed", call=Call("exec_command", {"cmd": "python x.py"}, out))
    _import(store, "codex", tmp_path / "codex")
    [b] = list_builders(store.conn)
    patch, run = _calls(transcript(store.conn, b.id))
    assert patch.kind == "edit" and [d.path for d in patch.diff] == ["src/app.py", "docs/notes.md"]
    assert patch.diff[0].diff.splitlines()[:2] == ["--- a/src/app.py", "+++ b/src/app.py"]
    assert (patch.diff[0].added, patch.diff[0].removed) == (1, 1)
    assert patch.diff[1].diff.startswith("--- /dev/null") and patch.diff[0].language == "python"
    assert patch.summary == "Patch src/app.py, docs/notes.md (+2 -1)"
    assert run.summary == "$ python x.py" and run.output == "no such file"
    assert (run.exit_code, run.duration_ms, run.is_error) == (2, 400, True)


def test_opencode_bash_output_is_shown_with_its_exit_code(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "opencode"
    shutil.copytree(CORPUS / OPENCODE_V2 / "storage_v2", root / "storage")
    _import(store, "opencode", root)
    found = []
    for b in list_builders(store.conn):
        t = transcript(store.conn, b.id)
        found += [c for c in _calls(t) if c.name == "bash"]
    assert found
    failed = next(c for c in found if c.summary == "$ ls /non-existent-directory")
    assert failed.output and "No such file" in failed.output
    assert failed.exit_code == 1 and failed.duration_ms == 500
    assert any(as_text(m).count("No such file") for b in list_builders(store.conn)
               for m in transcript(store.conn, b.id).messages)  # fmt: skip


def test_a_subagent_is_shown_at_the_call_that_spawned_it(store: Store, tmp_path: Path) -> None:
    src = CORPUS / "claude-code/handgemacht-ai__claude-code-log/test/test_data/async_agents"
    shutil.copytree(src, tmp_path / "projects" / "p")
    _import(store, "claude", tmp_path / "projects")
    t = transcript(store.conn, "eb000000-0000-4000-8000-000000000001")
    [task] = [c for c in _calls(t) if c.kind == "task"]
    assert task.summary == "Task (Explore): Coverage analysis"
    sub = task.subagent
    assert sub is not None and sub.agent_id == "cccc333" and sub.message_count == 3
    assert sub.session_id == t.sidechains[0].session_id
    assert sub.outcome is not None and sub.outcome.startswith("Coverage analysis complete.")
    notice = [p for m in t.messages for p in m.parts if p.kind == "harness"]
    assert [p.label for p in notice] == ["Task notification"]
