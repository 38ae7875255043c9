"""The real Codex CLI (0.171.0 and the older 0.20.0) writes rollouts; lazy imports them.

Two kinds of tests: the raw files (what Codex demonstrably wrote, independent of lazy) and
``lazy import codex`` against them (the contract in the module docstring of conftest.py and
/work/briefs/cli_contract.md). What each scenario scripted is in its ``script.json``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from codex_harness import CodexRun, Imported, LazyCli  # on sys.path via conftest.py

JsonDict = dict[str, Any]

PINNED = ["oneshot", "multiturn", "tool", "reasoning", "fork"]
ALL = [*PINNED, "v0_20"]
HARNESS_MARKERS = ("<environment_context>", "# AGENTS.md instructions", "<INSTRUCTIONS>")


def scenario(name: str) -> Any:
    return pytest.param(name, marks=pytest.mark.codex_scenario(name), id=name)


# --------------------------------------------------------------------------------------------
# Reading what Codex wrote
# --------------------------------------------------------------------------------------------


def lines(path: str | Path) -> list[JsonDict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def items(path: str | Path) -> list[JsonDict]:
    """Response items of a rollout in either format (envelope or 0.20's bare lines)."""
    out = []
    for line in lines(path):
        if line.get("type") == "response_item":
            out.append(line["payload"])
        elif "payload" not in line and line.get("type") in (
            "message",
            "reasoning",
            "function_call",
            "function_call_output",
        ):
            out.append(line)
    return out


def text_of(item: JsonDict) -> str:
    return "\n".join(str(c.get("text", "")) for c in item.get("content") or [])


def messages(path: str | Path, role: str) -> list[str]:
    return [text_of(i) for i in items(path) if i.get("type") == "message" and i.get("role") == role]


def event_items(path: str | Path, kind: str) -> list[JsonDict]:
    return [
        line["payload"]["item"]
        for line in lines(path)
        if line.get("type") == "event_msg"
        and line["payload"].get("type") == "item_completed"
        and line["payload"]["item"].get("type") == kind
    ]


def prompts(thread: JsonDict) -> list[str]:
    return [t["prompt"] for t in thread["turns"]]


def answers(thread: JsonDict) -> list[str]:
    return [text for t in thread["turns"] for text in t["texts"]]


# --------------------------------------------------------------------------------------------
# Raw rollouts
# --------------------------------------------------------------------------------------------


@pytest.mark.codex_scenario("oneshot")
def test_oneshot_writes_one_envelope_rollout(codex_run: CodexRun) -> None:
    (thread,) = codex_run.threads
    assert codex_run.script["rollouts"] == [thread["file"]]
    rollout = lines(thread["file"])
    assert [line["type"] for line in rollout].count("session_meta") == 1
    meta = rollout[0]
    assert meta["type"] == "session_meta"
    payload = meta["payload"]
    assert payload["id"] == thread["thread_id"]
    assert thread["file"].endswith(f"-{thread['thread_id']}.jsonl")
    assert payload["cli_version"] == codex_run.script["codex_version"] == "0.171.0"
    assert payload["originator"] == "codex_exec"
    assert payload["source"] == "exec"
    assert payload["cwd"] == codex_run.script["project"]
    assert payload["model_provider"] == "lazyfake"
    git = codex_run.script["git"]
    assert payload["git"] == {
        "commit_hash": git["commit"],
        "branch": git["branch"],
        "repository_url": git["remote"],
    }
    assert {line["type"] for line in rollout} >= {
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
    }
    assert [line["payload"]["model"] for line in rollout if line["type"] == "turn_context"] == [
        "gpt-5-codex"
    ]
    # the prompt and the answer each sit in two channels: response_item and event_msg
    assert messages(thread["file"], "user")[-1] == prompts(thread)[0]
    assert messages(thread["file"], "assistant") == answers(thread)
    assert [i["content"][0]["text"] for i in event_items(thread["file"], "UserMessage")] == (
        prompts(thread)
    )
    assert [i["content"][0]["text"] for i in event_items(thread["file"], "AgentMessage")] == (
        answers(thread)
    )


@pytest.mark.codex_scenario("oneshot")
def test_harness_text_arrives_as_user_and_developer_messages(codex_run: CodexRun) -> None:
    (thread,) = codex_run.threads
    users = messages(thread["file"], "user")
    assert any("<environment_context>" in u for u in users)
    assert any(codex_run.script["agents_md_marker"] in u for u in users)
    assert messages(thread["file"], "developer"), "no developer (permissions/skills) message"


@pytest.mark.codex_scenario("multiturn")
def test_resume_appends_to_the_same_rollout(codex_run: CodexRun) -> None:
    (thread,) = codex_run.threads
    assert thread["appended_by"] == ["resume --last", "resume <id>"]
    assert codex_run.script["rollouts"] == [thread["file"]]
    rollout = lines(thread["file"])
    kinds = [line["type"] for line in rollout]
    assert kinds.count("session_meta") == 1 and kinds[0] == "session_meta"
    assert kinds.count("turn_context") == 3
    assert messages(thread["file"], "user")[-3:] == prompts(thread)
    assert messages(thread["file"], "assistant") == answers(thread)
    # 0.171.0 numbers every line of a thread: ordinal is the line index, across resumes
    assert [line.get("ordinal") for line in rollout] == list(range(len(rollout)))


@pytest.mark.codex_scenario("tool")
def test_shell_tool_call_and_output(codex_run: CodexRun) -> None:
    (thread,) = codex_run.threads
    (command,) = thread["turns"][0]["commands"]
    calls = [i for i in items(thread["file"]) if i["type"] == "function_call"]
    outputs = [i for i in items(thread["file"]) if i["type"] == "function_call_output"]
    assert [c["name"] for c in calls] == ["exec_command"]
    assert json.loads(calls[0]["arguments"]) == {"cmd": command}
    assert [o["call_id"] for o in outputs] == [calls[0]["call_id"]]
    assert "out.txt" in outputs[0]["output"]
    (execution,) = event_items(thread["file"], "CommandExecution")
    assert execution["command"][-1] == command and execution["exit_code"] == 0
    assert (codex_run.project / "out.txt").read_text() == "hello-from-codex\n"


@pytest.mark.codex_scenario("reasoning")
def test_reasoning_item(codex_run: CodexRun) -> None:
    (thread,) = codex_run.threads
    wanted = thread["turns"][0]["reasoning"]
    found = [i for i in items(thread["file"]) if i["type"] == "reasoning"]
    assert [s["text"] for i in found for s in i["summary"]] == wanted
    assert [s for i in event_items(thread["file"], "Reasoning") for s in i["summary_text"]] == (
        wanted
    )


@pytest.mark.codex_scenario("fork")
def test_fork_writes_a_new_rollout_referencing_its_parent(codex_run: CodexRun) -> None:
    parent, child = codex_run.threads
    assert child["forked_from"] == parent["thread_id"]
    assert child["file"] != parent["file"]
    meta = lines(child["file"])[0]["payload"]
    assert meta["id"] == child["thread_id"]
    assert meta["forked_from_id"] == parent["thread_id"]
    assert meta.get("history_mode") == "paginated"
    # 0.171.0 does not copy the parent's turns into the fork: the child file holds its own turn
    assert messages(child["file"], "user") == prompts(child)
    assert messages(child["file"], "assistant") == answers(child)
    assert messages(parent["file"], "user")[-2:] == prompts(parent)


@pytest.mark.codex_scenario("v0_20")
def test_old_release_writes_bare_lines_and_resume_appends(codex_run: CodexRun) -> None:
    (thread,) = codex_run.threads
    assert codex_run.script["codex_version"] == "0.20.0"
    assert thread["appended_by"] == ["experimental_resume"]
    rollout = lines(thread["file"])
    meta = rollout[0]
    assert "type" not in meta and meta["id"] == thread["thread_id"]
    git = codex_run.script["git"]
    assert meta["git"] == {
        "commit_hash": git["commit"],
        "branch": git["branch"],
        "repository_url": git["remote"],
    }
    # 0.20.0 keeps AGENTS.md in the meta's `instructions`, and records no cwd, version, model
    assert codex_run.script["agents_md_marker"] in meta["instructions"]
    assert not {"cwd", "cli_version", "model_provider", "originator"} & meta.keys()
    assert sum(1 for line in rollout if "timestamp" in line and "id" in line) == 1
    assert {line.get("record_type") for line in rollout[1:] if "record_type" in line} == {"state"}
    assert not any("payload" in line for line in rollout)
    assert messages(thread["file"], "user") == prompts(thread)
    assert messages(thread["file"], "assistant") == answers(thread)
    (call,) = [i for i in items(thread["file"]) if i["type"] == "function_call"]
    assert call["name"] == "shell"
    assert json.loads(call["arguments"])["command"][-1] == thread["turns"][0]["commands"][0]
    (output,) = [i for i in items(thread["file"]) if i["type"] == "function_call_output"]
    assert output["call_id"] == call["call_id"]
    assert [
        s["text"] for i in items(thread["file"]) if i["type"] == "reasoning" for s in i["summary"]
    ] == (thread["turns"][0]["reasoning"])


# --------------------------------------------------------------------------------------------
# lazy import codex
# --------------------------------------------------------------------------------------------


def by_role(memories: list[JsonDict], role: str) -> list[JsonDict]:
    return [m for m in memories if m["meta"].get("source_message_role") == role]


def contents(memories: list[JsonDict], role: str) -> list[str]:
    return sorted(m["content"] for m in by_role(memories, role))


@pytest.mark.parametrize("name", [scenario(n) for n in ALL])
def test_import_finds_every_thread(name: str, codex_run: CodexRun, imported: Imported) -> None:
    report = imported.report
    assert report["tool"] == "codex" and report["dry_run"] is False
    assert report["content_mode"] == "default"
    assert report.get("quarantined") == []
    assert report.get("skipped_sessions") == []
    wanted = {t["thread_id"] for t in codex_run.threads}
    assert {s["session_id"] for s in report["sessions"]} == wanted
    for session in report["sessions"]:
        assert session["node"].startswith("/share/projects/")
        assert session["node"].endswith(f"/agent_sessions/{session['session_id']}")
        assert session["inserted"] == session["messages"] > 0
        assert len(imported.memories[session["session_id"]]) == session["messages"]
    assert report["inserted"] == sum(s["inserted"] for s in report["sessions"])


@pytest.mark.parametrize("name", [scenario(n) for n in ALL])
def test_memories_are_the_scripted_turns(
    name: str, codex_run: CodexRun, imported: Imported
) -> None:
    """Default mode: one memory per user prompt and per assistant text, nothing else; the
    prompt recorded twice by Codex (response_item + event_msg) is imported once."""
    for thread in codex_run.threads:
        memories = imported.memories[thread["thread_id"]]
        assert {m["meta"]["source_message_role"] for m in memories} == {"user", "assistant"}
        assert contents(memories, "user") == sorted(prompts(thread))
        assert contents(memories, "assistant") == sorted(answers(thread))
        for memory in memories:
            assert memory["name"].startswith("msg_")
            assert memory["path"].endswith("/" + memory["name"])


@pytest.mark.parametrize("name", [scenario(n) for n in ALL])
def test_search_finds_each_prompt_and_answer_in_its_thread(
    name: str, codex_run: CodexRun, imported: Imported
) -> None:
    """After `lazy import codex`, everything said is searchable (the import leaves it so);
    harness text is only in the tools scope."""
    cli = imported.cli
    for thread in codex_run.threads:
        for words in [*prompts(thread), *answers(thread)]:
            res = cli.json("search", "--all-projects", "--json", f'"{words}"')
            hits = [h for g in res["groups"] for h in g["hits"]]
            assert thread["thread_id"] in {h["session_id"] for h in hits}, words
            assert all(g["tool"] == "codex" for g in res["groups"])
    marker = codex_run.script["agents_md_marker"]
    assert cli.json("search", "--all-projects", "--json", marker)["groups"] == []
    if codex_run.script["codex_version"] != "0.20.0":  # 0.20 writes no harness messages
        wide = cli.json("search", "--all-projects", "--json", f"in:all {marker}")
        assert wide["groups"] and wide["groups"][0]["hits"][0]["field"] == "tools"


@pytest.mark.parametrize("name", [scenario(n) for n in ALL])
def test_harness_text_is_not_a_user_memory(
    name: str, codex_run: CodexRun, imported: Imported
) -> None:
    marker = codex_run.script["agents_md_marker"]
    for memories in imported.memories.values():
        for memory in by_role(memories, "user") + by_role(memories, "assistant"):
            assert marker not in memory["content"]
            assert not any(h in memory["content"] for h in HARNESS_MARKERS), memory["content"]


@pytest.mark.parametrize("name", [scenario(n) for n in PINNED])
def test_memory_meta(name: str, codex_run: CodexRun, imported: Imported) -> None:
    git = codex_run.script["git"]
    for thread in codex_run.threads:
        for memory in imported.memories[thread["thread_id"]]:
            meta = memory["meta"]
            expected = {
                "type": "agent_session",
                "source_tool": "codex",
                "source_session_id": thread["thread_id"],
                "source_cwd": codex_run.script["project"],
                "source_project_slug": "project",
                "source_tool_version": "0.171.0",
                "source_provider": "lazyfake",
                "source_file": thread["file"],
                "source_git_branch": git["branch"],
                "source_git_commit": git["commit"],
                "source_git_repo": git["remote"],
                "content_mode": "default",
            }
            assert {k: meta.get(k) for k in expected} == expected, memory["path"]
            assert meta.get("importer_version")
            assert memory["temporal"], f"no temporal on {memory['path']}"
            # the model answers; a user message is only said *to* it (turn_context.model)
            if meta["source_message_role"] == "user":
                assert meta.get("source_model") in (None, "gpt-5-codex")
            else:
                assert meta.get("source_model") == "gpt-5-codex", memory["path"]
            assert f"/project/agent_sessions/{thread['thread_id']}/" in memory["path"]


@pytest.mark.codex_scenario("tool")
def test_assistant_message_keeps_its_native_id(codex_run: CodexRun, imported: Imported) -> None:
    (thread,) = codex_run.threads
    native = [
        item["id"]
        for turn in thread["turns"]
        for reply in turn["replies"]
        for item in reply["output"]
        if item["type"] == "message"
    ]
    memories = by_role(imported.memories[thread["thread_id"]], "assistant")
    # seed 001: "Source-native message id (or a stable synthesized id for Codex items with no
    # native id)"; 0.171.0's response items carry theirs (the API's output item id)
    got = sorted(m["meta"]["source_message_id"] for m in memories)
    assert got == sorted(native), f"synthesized ids {got} although the rollout has {native}"


@pytest.mark.codex_scenario("v0_20")
def test_old_release_memory_meta(codex_run: CodexRun, imported: Imported) -> None:
    """0.20.0's bare meta holds id, timestamp, instructions and git only."""
    git = codex_run.script["git"]
    (thread,) = codex_run.threads
    for memory in imported.memories[thread["thread_id"]]:
        meta = memory["meta"]
        expected = {
            "type": "agent_session",
            "source_tool": "codex",
            "source_session_id": thread["thread_id"],
            "source_file": thread["file"],
            "source_git_branch": git["branch"],
            "source_git_commit": git["commit"],
            "source_git_repo": git["remote"],
            "content_mode": "default",
        }
        assert {k: meta.get(k) for k in expected} == expected, memory["path"]
        # not in the file: lazy must not invent them
        assert meta.get("source_tool_version") in (None, "")
        assert meta.get("source_model") in (None, "")


@pytest.mark.parametrize("name", [scenario(n) for n in ["tool", "reasoning", "v0_20"]])
def test_full_transcript_adds_reasoning_and_tools(
    name: str, codex_run: CodexRun, imported_full: Imported
) -> None:
    report = imported_full.report
    assert report["content_mode"] == "full_transcript"
    (thread,) = codex_run.threads
    memories = imported_full.memories[thread["thread_id"]]
    assert all(m["meta"]["content_mode"] == "full_transcript" for m in memories)
    assert contents(memories, "user") == sorted(prompts(thread))
    assert contents(memories, "assistant") == sorted(answers(thread))
    wanted_reasoning = [r for t in thread["turns"] for r in t["reasoning"]]
    assert [m["content"] for m in by_role(memories, "reasoning")] == wanted_reasoning
    commands = [c for t in thread["turns"] for c in t["commands"]]
    calls, results = by_role(memories, "tool_call"), by_role(memories, "tool_result")
    assert len(calls) == len(results) == len(commands)
    tool = "shell" if name == "v0_20" else "exec_command"
    for call, command in zip(calls, commands, strict=True):
        assert call["meta"]["source_tool_name"] == tool
        assert command in call["content"]
    for result in results:
        assert result["meta"]["source_tool_name"] == tool
    if commands:  # what the command printed: `ls` after writing out.txt; 0.20.0 `cat o.txt`
        assert ("old-codex" if name == "v0_20" else "out.txt") in results[0]["content"]
    roles = {m["meta"]["source_message_role"] for m in memories}
    assert roles <= {"user", "assistant", "reasoning", "tool_call", "tool_result", "system"}
    for memory in by_role(memories, "user"):
        assert not any(h in memory["content"] for h in HARNESS_MARKERS)


@pytest.mark.parametrize("name", [scenario(n) for n in ALL])
def test_second_import_changes_nothing(name: str, codex_run: CodexRun, imported: Imported) -> None:
    again = imported.cli.import_codex()
    assert (again["inserted"], again["updated"]) == (0, 0), again
    assert {s["session_id"] for s in again["sessions"]} == {
        s["session_id"] for s in imported.report["sessions"]
    }


@pytest.mark.codex_scenario("multiturn")
def test_reimport_after_resume_inserts_only_the_new_turns(
    codex_run: CodexRun, tmp_path: Path
) -> None:
    """A rollout imported after its first turn, then again once resumes appended to it."""
    (thread,) = codex_run.threads
    home = tmp_path / "codex-home"
    shutil.copytree(codex_run.codex_home / "sessions", home / "sessions")
    rollout = home / Path(thread["file"]).relative_to(codex_run.codex_home)
    full = rollout.read_text().splitlines(keepends=True)
    kinds = [json.loads(line)["payload"].get("type") for line in full]
    first_turn = kinds.index("task_complete") + 1
    rollout.write_text("".join(full[:first_turn]))
    lazy_home = tmp_path / "lazy-home"
    lazy_home.mkdir()
    cli = LazyCli(lazy_home, codex_run)
    args = ["import", "codex", "--source", str(home), "--include-temp-cwd", "--include-trivial"]
    early = cli.json(*args, "--json")
    assert (early["inserted"], early["updated"]) == (2, 0), early
    rollout.write_text("".join(full))
    later = cli.json(*args, "--json")
    assert (later["inserted"], later["updated"]) == (4, 0), later
    (session,) = later["sessions"]
    listing = cli.json("ls", session["node"], "--json")
    assert len([c for c in listing["children"] if c["kind"] == "memory"]) == 6


def builders(imported: Imported) -> list[JsonDict]:
    data = imported.cli.json("conversations", "--all-projects", "--tool", "codex", "--json")
    return list(data["builders"] if isinstance(data, dict) else data)


def shown(imported: Imported, builder: JsonDict) -> list[JsonDict]:
    return list(imported.cli.stored(imported.cli.json("show", builder["id"], "--json"))["messages"])


def dialogue(thread: JsonDict) -> list[tuple[str, str]]:
    """What the person and the model said, in order."""
    out = []
    for turn in thread["turns"]:
        out.append(("user", turn["prompt"]))
        out.extend(("assistant", text) for text in turn["texts"])
    return out


def roles(thread: JsonDict) -> list[str]:
    """Every non-harness message role the thread's turns produce, in order."""
    out = []
    for turn in thread["turns"]:
        out.append("user")
        for reply in turn["replies"]:
            for item in reply["output"]:
                kind = item["type"]
                if kind == "function_call":
                    out += ["tool_call", "tool_result"]
                else:
                    out.append("assistant" if kind == "message" else kind)
    return out


def check_builder(imported: Imported, builder: JsonDict, thread: JsonDict, name: str) -> None:
    messages = shown(imported, builder)
    assert builder["tool"] == "codex"
    assert builder["message_count"] == len(messages)
    said = [(m["role"], m["text"]) for m in messages if m["role"] in ("user", "assistant")]
    assert said == dialogue(thread)
    assert [m["role"] for m in messages if m["role"] != "system"] == roles(thread)
    assert [m["number"] for m in messages] == list(range(1, len(messages) + 1))
    assert {m["session_id"] for m in messages} == {thread["thread_id"]}
    # harness text (AGENTS.md, environment_context, permissions) shows as system, never user
    system = [m["text"] for m in messages if m["role"] == "system"]
    if name != "v0_20" and not thread["forked_from"]:  # 0.20.0 and forks write no harness
        assert any("AGENTS.md" in text for text in system), system
    calls = [m for m in messages if m["role"] == "tool_call"]
    assert [m["tool_name"] for m in calls] == [
        "shell" if name == "v0_20" else "exec_command"
    ] * len(calls)


@pytest.mark.parametrize("name", [scenario(n) for n in ["multiturn", "tool", "v0_20"]])
def test_resumed_session_is_one_builder_in_order(
    name: str, codex_run: CodexRun, imported: Imported
) -> None:
    (thread,) = codex_run.threads
    (builder,) = builders(imported)
    assert builder["session_ids"] == [thread["thread_id"]]
    assert builder["forked_from"] is None
    check_builder(imported, builder, thread, name)


@pytest.mark.codex_scenario("fork")
def test_fork_is_linked_to_its_parent(codex_run: CodexRun, imported: Imported) -> None:
    parent, child = codex_run.threads
    found = builders(imported)
    of_parent = [b for b in found if parent["thread_id"] in b["session_ids"]]
    of_child = [b for b in found if child["thread_id"] in b["session_ids"]]
    assert len(of_parent) == 1 and len(of_child) == 1
    assert of_parent[0]["id"] != of_child[0]["id"], "the fork was merged into its parent"
    assert of_child[0]["forked_from"] in (of_parent[0]["id"], parent["thread_id"])
    assert of_parent[0]["forked_from"] is None
    check_builder(imported, of_parent[0], parent, "fork")
    # 0.171.0 writes only the fork's own turn into its rollout (history_mode "paginated")
    check_builder(imported, of_child[0], child, "fork")


@pytest.mark.codex_scenario("oneshot")
def test_defaults_leave_out_temp_dirs_and_one_shots(codex_run: CodexRun, lazy_cli: LazyCli) -> None:
    cli = lazy_cli
    source = ["import", "codex", "--source", str(codex_run.codex_home), "--json"]
    plain = cli.json(*source)
    assert plain["sessions"] == [] and plain["inserted"] == 0
    (thread,) = codex_run.threads
    assert [s["session_id"] for s in plain["skipped_sessions"]] == [thread["thread_id"]]
    trivial = cli.json(*source, "--include-temp-cwd")
    assert trivial["inserted"] == 0
    assert [s["session_id"] for s in trivial["skipped_sessions"]] == [thread["thread_id"]]
    dry = cli.json(*source, "--include-temp-cwd", "--include-trivial", "--dry-run")
    assert dry["dry_run"] is True and [s["session_id"] for s in dry["sessions"]] == [
        thread["thread_id"]
    ]
    listing = cli.run("ls", "/share/projects", "--json", check=False)
    if listing.returncode == 0:  # an empty store may have no /share/projects node at all
        assert json.loads(listing.stdout)["children"] == []
