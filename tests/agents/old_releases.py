"""Scenarios for older Claude Code releases: a late 1.0.x and a 2.0.x, run side by side.

Users' histories hold files written by releases long gone. ``package.json`` installs those
releases under npm aliases (``claude-code-1``, ``claude-code-2-0``); each is a JS ``cli.js`` run
by the machine's node, in the same sandbox and loopback-only namespace as the pinned CLI
(driver.py). Every scenario records what it scripted (``expect``, read by
test_claude_old_releases.py) and, under ``observed``, what the release actually wrote: whether a
resume made a new file, whether the copy kept the uuids, where subagent lines went, ...
(summarised in FINDINGS.md).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driver import (
    AGENTS_DIR,
    NODE_MODULES,
    ScenarioError,
    Session,
    Tmux,
    Turn,
    _reply_summary,
    install_lazy_hooks,
    msg,
    one_builder,
    poll,
    reply_text,
    scenario_tools,
)
from fake_anthropic import WARMUP_TEXT, Block, Rule, text, tool_use

JsonDict = dict[str, Any]

V1_0 = "claude-code-1"  # late 1.0.x
V2_0 = "claude-code-2-0"  # 2.0.x


def release_version(alias: str) -> str:
    """The version ``package.json`` pins under an npm alias (``npm:@anthropic-ai/...@1.0.65``)."""
    spec = json.loads((AGENTS_DIR / "package.json").read_text())["dependencies"][alias]
    return str(spec).rsplit("@", 1)[-1]


def installed_version(alias: str) -> str:
    """The version npm installed under the alias (the transcripts' ``version`` field says
    which one actually ran)."""
    manifest = NODE_MODULES / alias / "package.json"
    return str(json.loads(manifest.read_text()).get("version", "")) if manifest.is_file() else ""


# --------------------------------------------------------------------------------------------
# Reading what a release wrote
# --------------------------------------------------------------------------------------------


def read_lines(path: Path) -> list[JsonDict]:
    out: list[JsonDict] = []
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def session_file(s: Session, session_id: str | None) -> Path:
    hits = [p for p in s.sb.transcripts() if p.name == f"{session_id}.jsonl"]
    if len(hits) != 1:
        raise ScenarioError(f"no single transcript for session {session_id}: {s.session_files()}")
    return hits[0]


def content_text(obj: JsonDict) -> str:
    content = (obj.get("message") or {}).get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def signature(obj: JsonDict) -> tuple[str, str]:
    """What identifies an entry's content across files: the API message id of an assistant
    line, the text (or tool_result ids) of a user line."""
    message = obj.get("message") or {}
    if obj.get("type") == "assistant":
        return "assistant", str(message.get("id"))
    content = message.get("content")
    if isinstance(content, list):
        ids = [str(b.get("tool_use_id")) for b in content if isinstance(b, dict)]
        if any(b.get("type") == "tool_result" for b in content if isinstance(b, dict)):
            return "tool_result", ",".join(ids)
    return "user", content_text(obj)


def conversation(path: Path) -> list[JsonDict]:
    """The file's user/assistant entries (lines with a uuid), sidechains excluded."""
    return [
        o
        for o in read_lines(path)
        if o.get("type") in ("user", "assistant") and o.get("uuid") and not o.get("isSidechain")
    ]


def copy_facts(earlier: Path, later: Path) -> JsonDict:
    """How ``later`` repeats ``earlier``'s conversation (a resume or fork copy)."""
    before = conversation(earlier)
    by_sig = {signature(o): o for o in before}
    after = conversation(later)
    copies = [o for o in after if signature(o) in by_sig]
    leading = 0
    for o in after:
        if signature(o) not in by_sig:
            break
        leading += 1
    first_new = next((o for o in after if signature(o) not in by_sig), None)
    return {
        "file": later.name,
        "earlier_file": earlier.name,
        "earlier_entries": len(before),
        "copied_entries": len(copies),
        "copies_lead_the_file": leading == len(copies),
        "same_uuid": sum(1 for o in copies if o["uuid"] == by_sig[signature(o)]["uuid"]),
        "same_timestamp": sum(
            1 for o in copies if o.get("timestamp") == by_sig[signature(o)].get("timestamp")
        ),
        "copy_timestamps": sorted({str(o.get("timestamp")) for o in copies}),
        "copy_session_ids": sorted({str(o.get("sessionId")) for o in copies}),
        "copies_with_request_id": sum(1 for o in copies if "requestId" in o),
        "copies_with_request_session_id": sum(1 for o in copies if "requestSessionId" in o),
        "copies_with_forked_from": sum(1 for o in copies if "forkedFrom" in o),
        "user_copies_as_block_list": sum(
            1
            for o in copies
            if o["type"] == "user" and isinstance((o.get("message") or {}).get("content"), list)
        ),
        "first_new_parent_is_copy": bool(
            first_new is not None and first_new.get("parentUuid") in {o["uuid"] for o in copies}
        ),
        "summary_lines": [
            {"leaf_in_earlier": o.get("leafUuid") in {e["uuid"] for e in before}}
            for o in read_lines(later)
            if o.get("type") == "summary"
        ],
    }


def file_facts(s: Session) -> JsonDict:
    """Per transcript file: size, line types, the sessionIds and agentIds its lines carry."""
    out: JsonDict = {}
    for path in s.sb.transcripts():
        lines = read_lines(path)
        types: dict[str, int] = {}
        for o in lines:
            types[str(o.get("type"))] = types.get(str(o.get("type")), 0) + 1
        out[str(path.relative_to(s.sb.projects_dir))] = {
            "bytes": path.stat().st_size,
            "types": types,
            "session_ids": sorted({str(o["sessionId"]) for o in lines if o.get("sessionId")}),
            "agent_ids": sorted({str(o["agentId"]) for o in lines if o.get("agentId")}),
            "sidechain_lines": sum(1 for o in lines if o.get("isSidechain")),
            "version": next((o["version"] for o in lines if o.get("version")), None),
        }
    return out


def warmup_agent_files(s: Session) -> list[str]:
    """2.0.x agent files holding a subagent warm-up (a Task run with the prompt "Warmup")."""
    out = []
    for path in s.sb.transcripts():
        if path.name.startswith("agent-") and any(
            content_text(o) == WARMUP_TEXT or content_text(o) == "Warmup" for o in read_lines(path)
        ):
            out.append(str(path.relative_to(s.sb.projects_dir)))
    return out


def _observe_files(s: Session) -> None:
    s.observed["files"] = file_facts(s)
    s.observed["warmup_agent_files"] = warmup_agent_files(s)
    s.observed["empty_files"] = [
        name for name, facts in s.observed["files"].items() if facts["bytes"] == 0
    ]


# --------------------------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------------------------


def scenario_resume_continue(s: Session) -> None:
    """``-p``, ``-p --resume <id>``, ``-p --continue``: one conversation, one Builder."""
    p1, r1 = f"First question ({s.token('p')})", [text(s.token("reply"))]
    t1 = s.claude_print(p1, reply=r1)
    p2, r2 = f"Follow-up after resume ({s.token('p')})", [text(s.token("reply"))]
    t2 = s.claude_print(p2, "--resume", str(t1.session_id), via="resume", reply=r2)
    p3, r3 = f"Continue it ({s.token('p')})", [text(s.token("reply"))]
    t3 = s.claude_print(p3, "--continue", via="continue", reply=r3)
    ids = [str(t.session_id) for t in (t1, t2, t3)]
    s.observed["session_ids"] = ids
    s.observed["resume_new_session"] = ids[1] != ids[0]
    s.observed["continue_new_session"] = ids[2] != ids[1]
    if ids[1] != ids[0]:
        s.observed["resume_copy"] = copy_facts(session_file(s, ids[0]), session_file(s, ids[1]))
    if ids[2] != ids[1]:
        s.observed["continue_copy"] = copy_facts(session_file(s, ids[1]), session_file(s, ids[2]))
    _observe_files(s)
    s.expect = one_builder(set(ids), [(p1, r1), (p2, r2), (p3, r3)])


def _screen(tmux: Tmux) -> str:
    return tmux.screen().replace("\xa0", " ")


def _in_input_box(tmux: Tmux, text: str) -> bool:
    return any(line.startswith("│ >") and text in line for line in _screen(tmux).splitlines())


def _submit(tmux: Tmux, text: str, answered: Callable[[], bool], timeout: float = 60) -> None:
    """Press Enter until the fake is asked: 1.0.x drops an Enter that arrives while its
    start-up side calls are still being handled (seen in CI, not locally). Enter is pressed
    again only while the prompt still sits in the input box, and a box that looks empty once
    ends nothing: a redraw can hide the prompt for a moment (seen under load)."""
    deadline = time.monotonic() + timeout
    tmux.keys("Enter")
    while True:
        try:
            poll(answered, 5, "the fake to answer the typed prompt")
            return
        except ScenarioError:
            if time.monotonic() > deadline:
                raise ScenarioError(
                    f"timed out after {timeout:.0f}s waiting for the fake to answer {text!r}"
                ) from None
        if _in_input_box(tmux, text):
            tmux.keys("Enter")


def scenario_resume_tui(s: Session) -> None:
    """``-p``, then the interactive ``claude --resume <id>`` (tmux) with one more prompt."""
    p1, r1 = f"First question ({s.token('p')})", [text(s.token("reply"))]
    t1 = s.claude_print(p1, reply=r1)
    p2, r2 = f"Typed after resume ({s.token('p')})", [text(s.token("reply"))]
    rule = s.script_reply(p2, r2)
    tmux = Tmux(s.sb.root / "tmux.sock")
    s.tmux = tmux
    tmux.start([*s.sb.claude, "--resume", str(t1.session_id)], s.sb.project, s.sb.env())
    tmux.wait_screen(re.escape(reply_text(r1)), timeout=60)  # the resumed conversation
    tmux.wait_screen(r"^│\s>\s", timeout=30)  # 1.0.x input box (drawn with U+00A0 spaces)
    before = len(s.api.records)
    tmux.type(p2)
    poll(lambda: p2 in _screen(tmux), 15, "the prompt in the input box")
    _submit(tmux, p2, lambda: rule.used > 0)
    poll(lambda: reply_text(r2) in s.sb.transcript_text(), 30, "the reply in the transcript")
    replies = [r for r in s.api.records[before:] if r["kind"] in ("main", "unscripted")]
    turn = Turn("tmux", p2, [_reply_summary(r) for r in replies], replies[0].get("session_id"))
    s.turns.append(turn)
    _tui_exit(s, tmux)
    ids = [str(t1.session_id), str(turn.session_id)]
    s.observed["session_ids"] = ids
    s.observed["resume_new_session"] = ids[1] != ids[0]
    if ids[1] != ids[0]:
        s.observed["resume_copy"] = copy_facts(session_file(s, ids[0]), session_file(s, ids[1]))
    _observe_files(s)
    s.expect = one_builder(set(ids), [(p1, r1), (p2, r2)])


def _tui_turn(
    s: Session, tmux: Tmux, prompt: str, reply: list[Block], last: str | None = None
) -> Turn:
    """One typed prompt in the 1.0.x TUI, answered by the fake; done when ``last`` (default:
    the reply's text) is in the transcript and the input box is idle again."""
    rule = s.script_reply(prompt, reply)
    before = len(s.api.records)
    tmux.type(prompt)
    poll(lambda: prompt in _screen(tmux), 15, "the prompt in the input box")
    try:
        _submit(tmux, prompt, lambda: rule.used > 0)
    except ScenarioError:
        s.notes.append(f"keys sent: {tmux.log[-30:]}; api: {[r['kind'] for r in s.api.records]}")
        raise
    done = last or reply_text(reply)
    poll(lambda: done in s.sb.transcript_text(), 60, f"{done!r} in the transcript")
    _wait_tui_idle(tmux)
    replies = [r for r in s.api.records[before:] if r["kind"] in ("main", "unscripted")]
    turn = Turn("tmux", prompt, [_reply_summary(r) for r in replies], replies[0].get("session_id"))
    s.turns.append(turn)
    return turn


def _wait_tui_idle(tmux: Tmux, timeout: float = 60) -> None:
    """The 1.0.x input box is drawn and nothing runs ("esc to interrupt" is gone)."""

    def idle() -> bool:
        screen = _screen(tmux)
        boxed = any(line.startswith("│ >") for line in screen.splitlines())
        return boxed and "esc to interrupt" not in screen

    poll(idle, timeout, "an idle 1.0.x input box")


def _tui_exit(s: Session, tmux: Tmux) -> None:
    tmux.type("/exit")
    poll(lambda: "/exit" in _screen(tmux), 15, "/exit in the input box")
    tmux.keys("Enter")
    try:
        poll(lambda: not tmux.alive(), 20, "claude to exit")
    except ScenarioError:
        s.notes.append("/exit did not end the interactive session; its tmux server was killed")
    tmux.kill()
    s.tmux = None


def _flags(obj: JsonDict) -> list[str]:
    return sorted(k for k in ("isMeta", "isCompactSummary", "requestId") if k in obj)


def compact_replay_facts(earlier: Path, later: Path) -> JsonDict:
    """How ``later`` (a 1.0.x ``-p --continue`` file) repeats ``earlier`` (a TUI session
    that ran ``/compact``): which of its leading lines repeat which of earlier's, by content."""
    before = [o for o in read_lines(earlier) if o.get("uuid")]
    after = [o for o in read_lines(later) if o.get("uuid")]
    sigs = [signature(o) for o in before]
    summary_at = next(
        (i for i, o in enumerate(before) if o.get("isCompactSummary")), None
    )  # the compaction summary: where the replay starts
    lines: list[JsonDict] = []
    cursor = 0  # an assistant reply's blocks share one signature: match them in order
    for o in after:
        sig = signature(o)
        at = next((i for i in range(cursor, len(sigs)) if sigs[i] == sig), None)
        if at is None and sig in sigs:
            at = sigs.index(sig)
        cursor = at + 1 if at is not None else cursor
        orig = before[at] if at is not None else {}
        lines.append(
            {
                "type": o.get("type"),
                "text": content_text(o)[:80],
                "repeats_line": at,  # index among earlier's entries, None: new
                "same_uuid": at is not None and o.get("uuid") == orig.get("uuid"),
                "same_timestamp": at is not None and o.get("timestamp") == orig.get("timestamp"),
                "flags": _flags(o),
                "original_flags": _flags(orig) if at is not None else None,
                "string_content": isinstance((o.get("message") or {}).get("content"), str),
                "parent_is_previous_line": bool(lines)
                and o.get("parentUuid") == after[len(lines) - 1].get("uuid"),
                "parent_null": o.get("parentUuid") is None,
                "session_id": "this" if o.get("sessionId") == later.stem else o.get("sessionId"),
            }
        )
    replayed = [x["repeats_line"] for x in lines if x["repeats_line"] is not None]
    uuids = {o["uuid"] for o in before}
    return {
        "earlier_entries": len(before),
        "compact_summary_line": summary_at,
        "compact_boundaries": sum(1 for o in before if o.get("subtype") == "compact_boundary"),
        "replayed_lines": replayed,
        "replay_is_suffix_from_summary": summary_at is not None
        and replayed == list(range(summary_at, len(before))),
        "replay_timestamps": sorted(
            {
                str(o.get("timestamp"))
                for o, x in zip(after, lines, strict=True)
                if x["repeats_line"] is not None
            }
        ),
        "lines": lines,
        "summary_lines": [
            {
                "leaf_in_earlier": o.get("leafUuid") in uuids,
                "leaf_is_earlier_tail": o.get("leafUuid") == before[-1]["uuid"],
            }
            for o in read_lines(later)
            if o.get("type") == "summary"
        ],
        "other_links": sorted(
            {
                k
                for o in after
                for k in ("logicalParentUuid", "forkedFrom", "requestSessionId")
                if k in o
            }
        ),
    }


def scenario_compact_continue(s: Session) -> None:
    """The 1.0.x TUI: two turns, ``/compact <instructions>``, a turn running the Bash tool,
    ``/exit``; then ``claude -p --continue`` with a new prompt. 1.0.x writes that into a new
    file which first replays the conversation from the compaction on (fresh uuids)."""
    tmux = Tmux(s.sb.root / "tmux.sock")
    s.tmux = tmux
    tmux.start(list(s.sb.claude), s.sb.project, s.sb.env())
    tmux.wait_screen(r"^│\s>\s", timeout=60)
    p1, r1 = f"First typed prompt ({s.token('p')})", [text(s.token("reply"))]
    _tui_turn(s, tmux, p1, r1)
    p2, r2 = f"Second typed prompt ({s.token('p')})", [text(s.token("reply"))]
    _tui_turn(s, tmux, p2, r2)
    focus = "keep the focus on deploys"
    compactions = sum(1 for r in s.api.records if r["kind"] == "side:compact")
    tmux.type(f"/compact {focus}")
    poll(lambda: focus in _screen(tmux), 15, "/compact in the input box")
    _submit(
        tmux,
        focus,
        lambda: sum(1 for r in s.api.records if r["kind"] == "side:compact") > compactions,
    )
    tmux.wait_screen(r"Compacted", timeout=60)
    poll(lambda: "isCompactSummary" in s.sb.transcript_text(), 30, "the compaction on disk")
    _wait_tui_idle(tmux)
    p3 = f"Run a command after compaction ({s.token('p')})"
    bash_id = "toolu_lazy_bash_0001"
    r3 = [
        text(f"Running it ({s.token('pre')})."),
        tool_use(bash_id, "Bash", {"command": "echo lazy-bash-ok", "description": "Print ok"}),
    ]
    final = [text(s.token("final"))]
    s.api.add(Rule("compact:final", final, tool_result_for=bash_id))
    _tui_turn(s, tmux, p3, r3, last=reply_text(final))
    _tui_exit(s, tmux)
    tui_files = [p for p in s.sb.transcripts()]
    if len(tui_files) != 1:
        raise ScenarioError(f"the TUI session wrote {len(tui_files)} files: {tui_files}")
    p4, r4 = f"Continued after the TUI ({s.token('p')})", [text(s.token("reply"))]
    t4 = s.claude_print(p4, "--continue", via="continue", reply=r4)
    ids = [str(t.session_id) for t in s.turns]
    s.observed["session_ids"] = ids
    s.observed["continue_new_session"] = str(t4.session_id) != tui_files[0].stem
    if s.observed["continue_new_session"]:
        s.observed["continue_replay"] = compact_replay_facts(
            tui_files[0], session_file(s, str(t4.session_id))
        )
    _observe_files(s)
    s.expect = {
        "builders": [
            {
                "session_ids": sorted(set(ids)),
                "summary": p1,
                "exact": True,
                "messages": [
                    msg("user", p1),
                    msg("assistant", reply_text(r1)),
                    msg("user", p2),
                    msg("assistant", reply_text(r2)),
                    msg("user", f"/compact {focus}"),
                    msg("user", p3),
                    msg("assistant", reply_text(r3)),
                    msg("assistant", reply_text(final)),
                    msg("user", p4),
                    msg("assistant", reply_text(r4)),
                ],
                "tool_results": ["lazy-bash-ok"],
                "last_user": p4,
            }
        ],
        "ignored_oneshots": 0,
    }


def scenario_tools_old(s: Session) -> None:
    """The Bash (``echo``) and Read scenario of driver.py, on an older release."""
    scenario_tools(s)
    _observe_files(s)


def scenario_subagents(s: Session) -> None:
    """One reply spawning two subagents at once (two Task tool_use blocks)."""
    prompt = f"Delegate two searches ({s.token('p')})"
    tasks = [f"SUBAGENT-TASK-{n} {s.token('task')}: look for lazy files" for n in ("A", "B")]
    answers = [[text(s.token(f"subagent-answer-{n}"))] for n in ("a", "b")]
    ids = ["toolu_lazy_task_0001", "toolu_lazy_task_0002"]
    final = [text(s.token("final"))]
    spawn = [text(f"Delegating ({s.token('pre')}).")]
    for tool_id, task, n in zip(ids, tasks, ("A", "B"), strict=True):
        spawn.append(
            tool_use(
                tool_id,
                "Task",
                {
                    "description": f"Find lazy files {n}",
                    "prompt": task,
                    "subagent_type": "general-purpose",
                },
            )
        )
    s.script_reply(prompt, spawn, name="task:spawn")
    for i, (task, answer) in enumerate(zip(tasks, answers, strict=True)):
        s.api.add(Rule(f"task:child{i}", answer, user_contains=task))
    s.api.add(Rule("task:final", final, tool_result_for=ids[-1]))
    turn = s.claude_print(prompt)
    got = {r["rule"] for r in turn.replies}
    if not {"task:spawn", "task:child0", "task:child1", "task:final"} <= got:
        raise ScenarioError(f"subagent scenario incomplete: {turn.replies}")
    sid = str(turn.session_id)
    main = read_lines(session_file(s, sid))
    spawned: dict[str, str | None] = {}  # task prompt -> agentId named by the tool_result
    for o in main:
        result = o.get("toolUseResult")
        if isinstance(result, dict) and result.get("prompt") in tasks:
            spawned[str(result["prompt"])] = result.get("agentId")
    subagents: list[JsonDict] = []
    written_to: list[str] = []
    for task, answer in zip(tasks, answers, strict=True):
        where = [
            str(p.relative_to(s.sb.projects_dir))
            for p in s.sb.transcripts()
            if any(
                o.get("isSidechain") and reply_text(answer) == content_text(o)
                for o in read_lines(p)
            )
        ]
        prompt_written = any(
            o.get("isSidechain") and content_text(o) == task
            for p in s.sb.transcripts()
            for o in read_lines(p)
        )
        sub_messages = [msg("user", contains=[task])] if prompt_written else []
        sub_messages.append(msg("assistant", reply_text(answer)))
        written_to += where
        subagents.append(
            {
                "task": task,
                "answer": reply_text(answer),
                "agent_id": spawned.get(task),
                "files": where,
                "prompt_written": prompt_written,
                "messages": sub_messages,
            }
        )
    inline = set(written_to) == {f"{session_file(s, sid).parent.name}/{sid}.jsonl"}
    s.observed["subagent_layout"] = "inline" if inline else "agent files"
    s.observed["subagents"] = subagents
    _observe_files(s)
    s.expect = {
        "builders": [
            {
                "session_ids": [sid],
                "summary": prompt,
                "messages": [
                    msg("user", prompt),
                    msg("assistant", contains=["Delegating"]),
                    msg("assistant", reply_text(final)),
                ],
                "tool_results": [a["answer"] for a in subagents],
                "absent": tasks,  # the subagents' prompts are not main-line messages
            }
        ],
        "subagents": subagents,
        "ignored_oneshots": 0,
    }


def scenario_compact(s: Session) -> None:
    """``-p``, ``-p "/compact" --resume <id>``, then another resumed turn."""
    p1, r1 = f"Before compaction ({s.token('p')})", [text(s.token("reply"))]
    t1 = s.claude_print(p1, reply=r1)
    tc = s.claude_print("/compact", "--resume", str(t1.session_id), via="resume")
    p2, r2 = f"After compaction ({s.token('p')})", [text(s.token("reply"))]
    t2 = s.claude_print(p2, "--resume", str(tc.session_id or t1.session_id), via="resume", reply=r2)
    ids = [str(t.session_id) for t in (t1, tc, t2)]
    s.observed["session_ids"] = ids
    s.observed["summary_requests"] = sum(1 for r in s.api.records if r["kind"] == "side:compact")
    lines = [o for sid in sorted(set(ids)) for o in read_lines(session_file(s, sid))]
    uuids = {o.get("uuid") for o in lines}
    boundaries = [o for o in lines if o.get("subtype") == "compact_boundary"]
    s.observed["boundaries"] = [
        {
            "parentUuid": o.get("parentUuid"),
            "logical_parent_in_files": o.get("logicalParentUuid") in uuids,
            "compactMetadata": o.get("compactMetadata"),
        }
        for o in boundaries
    ]
    s.observed["synthetic_replies"] = [
        content_text(o) for o in lines if (o.get("message") or {}).get("model") == "<synthetic>"
    ]
    s.observed["compact_summaries"] = sum(1 for o in lines if o.get("isCompactSummary"))
    _observe_files(s)
    if not boundaries:
        raise ScenarioError(f"-p /compact wrote no compact_boundary: {s.observed}")
    s.expect = one_builder(set(ids), [(p1, r1), (p2, r2)], exact=False)


def scenario_fork(s: Session) -> None:
    """``-p``, ``-p --resume <id> --fork-session``, then the original resumed once more."""
    p1, r1 = f"Original conversation ({s.token('p')})", [text(s.token("reply"))]
    t1 = s.claude_print(p1, reply=r1)
    p2, r2 = f"Forked follow-up ({s.token('p')})", [text(s.token("reply"))]
    t2 = s.claude_print(p2, "--resume", str(t1.session_id), "--fork-session", via="fork", reply=r2)
    if t2.session_id == t1.session_id:
        raise ScenarioError("--fork-session kept the session id")
    p3, r3 = f"Back on the original ({s.token('p')})", [text(s.token("reply"))]
    t3 = s.claude_print(p3, "--resume", str(t1.session_id), via="resume", reply=r3)
    if t3.session_id != t1.session_id:
        raise ScenarioError(f"resuming the original gave {t3.session_id}")
    s.observed["fork_copy"] = copy_facts(
        session_file(s, str(t1.session_id)), session_file(s, str(t2.session_id))
    )
    _observe_files(s)
    s.expect = {
        "builders": [
            {
                "session_ids": [str(t1.session_id)],
                "summary": p1,
                "exact": True,
                "messages": [
                    msg("user", p1),
                    msg("assistant", reply_text(r1)),
                    msg("user", p3),
                    msg("assistant", reply_text(r3)),
                ],
            },
            {
                "session_ids": [str(t2.session_id)],
                "forked_from": 0,
                "messages": [msg("user", p2), msg("assistant", reply_text(r2))],
                "copied": [msg("user", p1), msg("assistant", reply_text(r1))],
                "absent": [p3, reply_text(r3)],
            },
        ],
        "ignored_oneshots": 0,
    }


def scenario_hooked(s: Session) -> None:
    """`lazy hooks install` for this release (1.0.65 gets no SessionEnd hook: it would ignore
    the whole settings file), then ``-p``, resume, continue, captured by the hooks alone."""
    install_lazy_hooks(s)
    scenario_resume_continue(s)


@dataclass(frozen=True)
class OldScenario:
    alias: str  # the npm alias in package.json
    run: Callable[[Session], None]
    interactive: bool = False  # needs tmux


OLD_SCENARIOS: dict[str, OldScenario] = {
    "v1_0_resume": OldScenario(V1_0, scenario_resume_continue),
    "v1_0_resume_tui": OldScenario(V1_0, scenario_resume_tui, interactive=True),
    "v1_0_tools": OldScenario(V1_0, scenario_tools_old),
    "v1_0_subagent": OldScenario(V1_0, scenario_subagents),
    "v1_0_hooked": OldScenario(V1_0, scenario_hooked),
    "v1_0_compact_continue": OldScenario(V1_0, scenario_compact_continue, interactive=True),
    "v2_0_resume": OldScenario(V2_0, scenario_resume_continue),
    "v2_0_tools": OldScenario(V2_0, scenario_tools_old),
    "v2_0_subagent": OldScenario(V2_0, scenario_subagents),
    "v2_0_compact": OldScenario(V2_0, scenario_compact),
    "v2_0_fork": OldScenario(V2_0, scenario_fork),
}
