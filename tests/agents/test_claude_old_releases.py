"""Older Claude Code releases (a late 1.0.x and a 2.0.x) write sessions; lazy must join them.

The scenarios are in old_releases.py; each records what it scripted (``expect``) and what the
release wrote (``observed``) in its ``script.json``. What each release writes is summarised in
FINDINGS.md ("Older releases").
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from fake_anthropic import COMPACT_SUMMARY_TEXT, TITLE_TEXT, WARMUP_TEXT
from old_releases import OLD_SCENARIOS, release_version
from test_claude_cli import (
    MESSAGE_ROLES,
    assert_in_order,
    assert_summary,
    builder_for,
    describe,
    each,
    expected_builders,
    matches,
    parse_time,
    render,
)

if TYPE_CHECKING:  # only the fixtures' types: at run time `conftest` may be another dir's
    from conftest import Imported, ScenarioRun

JsonDict = dict[str, Any]

OLD = list(OLD_SCENARIOS)
V1_0 = [n for n in OLD if n.startswith("v1_0_")]
V2_0 = [n for n in OLD if n.startswith("v2_0_")]
RESUMES = ["v1_0_resume", "v1_0_resume_tui", "v2_0_resume"]
SUBAGENTS = ["v1_0_subagent", "v2_0_subagent"]
TOOLS = ["v1_0_tools", "v2_0_tools"]


def conversational(messages: list[JsonDict]) -> list[JsonDict]:
    return [m for m in messages if m["role"] in ("user", "assistant")]


def sidechain_messages(imported: Imported, builder: JsonDict) -> list[list[JsonDict]]:
    return [list(side["messages"]) for side in imported.shown[builder["id"]]["sidechains"]]


def texts(messages: list[JsonDict]) -> list[str]:
    return [str(m.get("text") or "") for m in messages]


# --------------------------------------------------------------------------------------------
# the harness itself
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", each(*OLD), indirect=True)
def test_old_release_followed_its_script(scenario: ScenarioRun) -> None:
    script = scenario.script
    alias = OLD_SCENARIOS[scenario.name].alias
    assert script["claude_version"] == release_version(alias)
    assert script["unscripted_requests"] == [], "the release asked the fake something unscripted"
    assert script["unused_rules"] == [], "a scripted reply was never requested"
    assert script["turns"], "the scenario drove no turn"
    for turn in script["turns"]:
        assert turn["session_id"] is None or re.fullmatch(r"[0-9a-f-]{36}", turn["session_id"])
    files = script["observed"]["files"]
    assert files, "the release wrote no transcript"
    for name, facts in files.items():
        assert (Path(script["config_dir"]) / "projects" / name).is_file()
        if facts["bytes"]:
            assert facts["version"] == release_version(alias), (name, facts)


@pytest.mark.parametrize("scenario", each(*OLD), indirect=True)
def test_real_claude_home_untouched(scenario: ScenarioRun) -> None:
    real = Path.home() / ".claude" / "projects"
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(scenario.project))
    assert not (real / slug).exists()
    assert str(scenario.workdir) in str(scenario.script["config_dir"])
    # older releases keep their state in $CLAUDE_CONFIG_DIR/.claude.json like 2.1.x
    assert (Path(scenario.script["config_dir"]) / ".claude.json").is_file()


# --------------------------------------------------------------------------------------------
# what the releases write (facts the joining rules rely on)
# --------------------------------------------------------------------------------------------


@pytest.mark.scenario("v1_0_resume")
def test_v1_0_print_resume_writes_a_new_session_with_fresh_uuids(scenario: ScenarioRun) -> None:
    """1.0.x ``-p --resume``/``--continue``: a new file and session id, replaying the chain
    with fresh uuids, one new timestamp and no requestId (the assistant message.id is kept)."""
    seen = scenario.script["observed"]
    assert seen["resume_new_session"] and seen["continue_new_session"], seen["session_ids"]
    assert len(set(seen["session_ids"])) == 3
    for copy in (seen["resume_copy"], seen["continue_copy"]):
        assert copy["copied_entries"] == copy["earlier_entries"] > 0, copy
        assert copy["copies_lead_the_file"] and copy["first_new_parent_is_copy"], copy
        assert copy["same_uuid"] == 0 and copy["same_timestamp"] == 0, copy
        assert copy["copies_with_request_id"] == 0, copy


@pytest.mark.scenario("v1_0_resume_tui")
def test_v1_0_interactive_resume_copies_with_the_same_uuids(scenario: ScenarioRun) -> None:
    """1.0.x interactive ``--resume``: a new file and session id too, but the copy keeps the
    uuids (and the first copied line keeps the old sessionId and timestamp)."""
    seen = scenario.script["observed"]
    assert seen["resume_new_session"], seen["session_ids"]
    copy = seen["resume_copy"]
    assert copy["copied_entries"] == copy["earlier_entries"] == copy["same_uuid"] > 0, copy


@pytest.mark.parametrize("scenario", each("v2_0_resume", "v2_0_compact"), indirect=True)
def test_v2_0_resume_appends_to_the_same_file(scenario: ScenarioRun) -> None:
    assert len(set(scenario.script["observed"]["session_ids"])) == 1


# --------------------------------------------------------------------------------------------
# import report, Builders and messages against the script
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", each(*OLD), indirect=True)
def test_old_import_report(scenario: ScenarioRun, imported: Imported) -> None:
    report = imported.report
    assert report["quarantined"] == [], "lines of genuine CLI output were quarantined"
    assert report["already_imported"] == 0, "fresh LAZY_HOME"
    assert report["ignored_oneshots"] == 0
    files = scenario.script["observed"]["files"]
    mains = [n for n in files if not Path(n).name.startswith("agent-")]
    assert report["found"] == len(mains), describe(imported)
    expected_ids = {sid for b in expected_builders(scenario) for sid in b["session_ids"]}
    # "updated", not "imported", happens for a fresh store: `--all` imports in directory order,
    # and a copy's first line (1.0.x interactive resume, 2.0.x fork) still carries the origin's
    # sessionId, so a copy read first already created the origin's session
    assert expected_ids <= set(report["imported"]) | set(report["updated"]), describe(imported)
    empty = {Path(n).stem for n in scenario.script["observed"]["empty_files"]}
    skipped = {s["session_id"] for s in report["skipped"]}
    assert skipped <= empty, f"skipped files that hold a conversation: {report['skipped']}"


@pytest.mark.parametrize("scenario", each(*OLD), indirect=True)
def test_old_builders_match_script(scenario: ScenarioRun, imported: Imported) -> None:
    """Resumed and continued sessions are ONE Builder listing every file; a fork is its own."""
    expected = expected_builders(scenario)
    ids = [builder_for(imported, exp["session_ids"])["id"] for exp in expected]
    assert len(imported.builders) == len(expected), (
        f"expected {len(expected)} Builder(s)\n{describe(imported)}"
    )
    for exp, b_id in zip(expected, ids, strict=True):
        b = next(x for x in imported.builders if x["id"] == b_id)
        assert b["tool"] == "claude"
        assert parse_time(b["started_at"]) <= parse_time(b["updated_at"])
        origin = ids[exp["forked_from"]] if "forked_from" in exp else None
        assert b.get("forked_from") == origin, f"forked_from of {b_id}\n{describe(imported)}"


@pytest.mark.parametrize("scenario", each(*OLD), indirect=True)
def test_old_messages_match_script(scenario: ScenarioRun, imported: Imported) -> None:
    """Every scripted prompt and reply, in order, exactly once, numbered 1..n."""
    for exp in expected_builders(scenario):
        b = builder_for(imported, exp["session_ids"])
        messages = imported.shown[b["id"]]["messages"]
        where = f"Builder {b['short_id']} ({scenario.name})"
        assert [m["number"] for m in messages] == list(range(1, len(messages) + 1)), render(
            messages
        )
        for m in messages:
            assert m["role"] in MESSAGE_ROLES, m
            assert m["session_id"] in b["session_ids"], m
        assert_in_order(messages, exp["messages"], where)
        if exp.get("exact"):
            said = conversational(messages)
            assert len(said) == len(exp["messages"]) and all(
                matches(m, e) for m, e in zip(said, exp["messages"], strict=True)
            ), f"{where}: only the scripted prompts and replies, once each\n{render(messages)}"
        for needle in exp.get("absent", []):
            hits = [m for m in messages if needle in str(m.get("text") or "")]
            assert not hits, f"{where}: {needle!r} must not be a message\n{render(hits)}"
        for answer in exp.get("tool_results", []):
            assert any(m["role"] == "tool_result" and answer in m["text"] for m in messages), (
                f"{where}: no tool_result with {answer!r}\n{render(messages)}"
            )


@pytest.mark.parametrize("scenario", each(*OLD), indirect=True)
def test_old_summary_is_first_prompt(scenario: ScenarioRun, imported: Imported) -> None:
    for exp in expected_builders(scenario):
        if "summary" in exp:
            assert_summary(builder_for(imported, exp["session_ids"]), exp["summary"])


@pytest.mark.parametrize("scenario", each(*OLD), indirect=True)
def test_old_listing_agrees_with_show(scenario: ScenarioRun, imported: Imported) -> None:
    for b in imported.builders:
        shown = imported.shown[b["id"]]
        assert b["message_count"] == shown["builder"]["message_count"] == len(shown["messages"])
        listed = {s["session_id"]: s["message_count"] for s in b["sidechains"]}
        assert listed == {s["session_id"]: len(s["messages"]) for s in shown["sidechains"]}


@pytest.mark.parametrize("scenario", each(*OLD), indirect=True)
def test_side_calls_are_not_messages(scenario: ScenarioRun, imported: Imported) -> None:
    """Titles (1.0.x writes them as `summary` lines) and compaction summaries are not said."""
    for b in imported.builders:
        for m in conversational(imported.shown[b["id"]]["messages"]):
            assert TITLE_TEXT not in m["text"] and COMPACT_SUMMARY_TEXT not in m["text"], m


# --------------------------------------------------------------------------------------------
# tools, subagents, compaction, fork
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", each(*TOOLS), indirect=True)
def test_old_tool_calls_and_results(scenario: ScenarioRun, imported: Imported) -> None:
    (b,) = imported.builders
    messages = imported.shown[b["id"]]["messages"]
    roles = [m["role"] for m in messages if m["role"] != "system"]
    assert roles == ["user", "assistant", "tool_result", "tool_call", "tool_result", "assistant"], (
        render(messages)
    )
    first = next(m for m in messages if m["role"] == "assistant")
    assert first["kinds"] == ["text", "tool_use"] and first["tool_name"] == "Bash"
    results = [m for m in messages if m["role"] == "tool_result"]
    assert "lazy-bash-ok" in results[0]["text"]


@pytest.mark.parametrize("scenario", each(*SUBAGENTS), indirect=True)
def test_subagents_are_sidechains_not_builders(scenario: ScenarioRun, imported: Imported) -> None:
    """Both subagents' messages are in the Builder's sidechains, none on its main line."""
    assert len(imported.builders) == 1, describe(imported)
    (b,) = imported.builders
    sides = sidechain_messages(imported, b)
    main_users = [m["text"] for m in imported.shown[b["id"]]["messages"] if m["role"] == "user"]
    for agent in scenario.expect["subagents"]:
        holding = [side for side in sides if agent["answer"] in texts(side)]
        assert holding, f"{agent['answer']!r} in no sidechain: {[texts(s) for s in sides]}"
        assert_in_order(holding[0], agent["messages"], f"sidechain of {agent['task']!r}")
        assert agent["task"] not in main_users


@pytest.mark.parametrize("scenario", each(*SUBAGENTS), indirect=True)
def test_each_subagent_is_its_own_sidechain(scenario: ScenarioRun, imported: Imported) -> None:
    """Two subagents spawned by one reply are two sidechains. (1.0.x writes both inline in the
    main file, isSidechain=true, no agentId, each rooted at parentUuid=null.)"""
    (b,) = imported.builders
    sides = sidechain_messages(imported, b)
    answers = [agent["answer"] for agent in scenario.expect["subagents"]]
    for answer in answers:
        holding = [side for side in sides if answer in texts(side)]
        assert len(holding) == 1, f"{answer!r} is in {len(holding)} sidechains"
        others = [a for a in answers if a != answer and a in texts(holding[0])]
        assert not others, (
            f"one sidechain holds several subagents ({scenario.expect['subagents'][0]['files']}):"
            f"\n{render(holding[0])}\nsidechains listed: {b['sidechains']}"
        )


@pytest.mark.scenario("v2_0_subagent")
def test_v2_0_agent_files_are_named_by_the_tool_result(
    scenario: ScenarioRun, imported: Imported
) -> None:
    """2.0.x: `agent-<8 hex>.jsonl` next to the session file; toolUseResult.agentId names it."""
    (b,) = imported.builders
    listed = {s["agent_id"] for s in b["sidechains"]}
    for agent in scenario.expect["subagents"]:
        assert re.fullmatch(r"[0-9a-f]{8}", str(agent["agent_id"])), agent
        (name,) = agent["files"]
        assert Path(name).name == f"agent-{agent['agent_id']}.jsonl"
        assert len(Path(name).parts) == 2, "next to the session files, not in a subfolder"
        assert agent["agent_id"] in listed, b["sidechains"]


@pytest.mark.parametrize("scenario", each("v2_0_subagent", "v2_0_resume"), indirect=True)
def test_v2_0_warmups_are_not_sidechains(scenario: ScenarioRun, imported: Imported) -> None:
    """2.0.x starts every process with one "Warmup" Task run per built-in agent (Explore, Plan)
    and writes each as an agent file holding only the reply; no tool_use spawned them."""
    if not scenario.script["observed"]["warmup_agent_files"]:
        pytest.skip("this run wrote no warm-up agent file (the process may exit before)")
    for b in imported.builders:
        warm = [
            side["agent_id"]
            for side in imported.shown[b["id"]]["sidechains"]
            if WARMUP_TEXT in texts(side["messages"])
        ]
        assert not warm, (
            f"warm-up agent files listed as sidechains of {b['short_id']}: {warm}\n"
            f"sidechains: {b['sidechains']}"
        )


@pytest.mark.scenario("v2_0_compact")
def test_v2_0_compaction_continues_the_builder(scenario: ScenarioRun, imported: Imported) -> None:
    assert scenario.script["observed"]["boundaries"], "no compact_boundary written"
    (exp,) = expected_builders(scenario)
    b = builder_for(imported, exp["session_ids"])
    said = texts(imported.shown[b["id"]]["messages"])
    first, last = exp["messages"][0]["text"], exp["messages"][-1]["text"]
    assert first in said and last in said and said.index(first) < said.index(last)


@pytest.mark.scenario("v2_0_compact")
def test_v2_0_synthetic_no_response_is_not_a_reply(
    scenario: ScenarioRun, imported: Imported
) -> None:
    """2.0.x ``-p "/compact"`` ends with an assistant entry the CLI made up itself
    (``message.model: "<synthetic>"``, "No response requested."): no model said it."""
    synthetic = scenario.script["observed"]["synthetic_replies"]
    assert synthetic, "this run wrote no synthetic reply"
    (exp,) = expected_builders(scenario)
    b = builder_for(imported, exp["session_ids"])
    said = [m for m in imported.shown[b["id"]]["messages"] if m["role"] == "assistant"]
    hits = [m for m in said if m["text"] in synthetic]
    assert not hits, f"synthetic entries shown as replies:\n{render(hits)}"


@pytest.mark.scenario("v1_0_compact_continue")
def test_v1_0_continue_after_compact_joins_without_the_replay(
    scenario: ScenarioRun, imported: Imported
) -> None:
    """1.0.x ``-p --continue`` after a TUI ``/compact``: a new file that replays the
    conversation from the compaction summary on (fresh uuids, isMeta/isCompactSummary
    dropped), then the new prompt. One Builder; the replayed turns are not numbered again."""
    seen = scenario.script["observed"]
    replay = seen["continue_replay"]
    assert seen["continue_new_session"] and replay["replay_is_suffix_from_summary"], replay
    assert not any(line["same_uuid"] for line in replay["lines"]), replay
    (exp,) = expected_builders(scenario)
    (b,) = imported.builders  # not two: the continue file is not a conversation of its own
    assert sorted(b["session_ids"]) == exp["session_ids"], describe(imported)
    assert_summary(b, exp["summary"])
    messages = imported.shown[b["id"]]["messages"]
    assert [m["number"] for m in messages] == list(range(1, len(messages) + 1)), render(messages)
    continued = str(scenario.script["turns"][-1]["session_id"])
    by_session = [m["session_id"] for m in messages]
    # the TUI file's messages, then only what the continue added: its prompt and the answer
    assert by_session == sorted(by_session, key=lambda sid: sid == continued), render(messages)
    added = [m for m in messages if m["session_id"] == continued]
    assert [(m["role"], m["text"]) for m in added] == [
        (e["role"], e["text"]) for e in exp["messages"][-2:]
    ], render(messages)
    for text in [e["text"] for e in exp["messages"]] + ["lazy-bash-ok"]:
        hits = [m for m in messages if text in str(m.get("text") or "")]
        assert len(hits) == 1, f"{text!r} is {len(hits)} messages\n{render(messages)}"
    summaries = [m for m in messages if "being continued from a previous" in m["text"]]
    assert [m["role"] for m in summaries] == ["system"], render(summaries)
    users = [m for m in messages if m["role"] == "user"]
    assert users[-1]["text"] == exp["last_user"], render(messages)
    assert b["message_count"] == len(messages)


@pytest.mark.scenario("v2_0_fork")
def test_v2_0_fork_is_its_own_builder(scenario: ScenarioRun, imported: Imported) -> None:
    original_exp, fork_exp = expected_builders(scenario)
    original = builder_for(imported, original_exp["session_ids"])
    fork = builder_for(imported, fork_exp["session_ids"])
    assert fork["forked_from"] == original["id"], describe(imported)
    assert original.get("forked_from") is None
    original_texts = texts(imported.shown[original["id"]]["messages"])
    for m in fork_exp["messages"]:
        assert m["text"] not in original_texts


@pytest.mark.scenario("v2_0_fork")
def test_v2_0_fork_shows_the_history_it_copied(scenario: ScenarioRun, imported: Imported) -> None:
    """The fork file starts with a copy of the original (same uuids); its first copied line
    still carries the original's sessionId. The fork Builder shows the copy whole (as for
    2.1.x forks): the copied prompt and reply, then its own turn."""
    _, fork_exp = expected_builders(scenario)
    fork = builder_for(imported, fork_exp["session_ids"])
    messages = imported.shown[fork["id"]]["messages"]
    assert_in_order(
        messages, [*fork_exp["copied"], *fork_exp["messages"]], f"fork {fork['short_id']}"
    )
