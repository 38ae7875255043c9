"""Codex CLI's tools and harness text, as the transcript shows them."""

from __future__ import annotations

import re
import shlex
from typing import Any

from lazy.agents.tools import (
    CallShape,
    ResultShape,
    apply_patch_diffs,
    checklist_summary,
    label_by,
    line,
    mcp_call,
    s,
    shell_result,
    todos_of,
    unknown,
    whole_block,
)

_SHELLS = frozenset({"shell", "shell_command", "exec_command", "local_shell", "run_shell_command"})


def _command(v: dict[str, Any]) -> str:
    cmd = v.get("command", v.get("cmd"))
    if isinstance(cmd, list) and all(isinstance(c, str) for c in cmd):
        # ["bash", "-lc", "…"]: the script is what was meant
        if len(cmd) == 3 and cmd[1] in ("-lc", "-c"):
            return str(cmd[2])
        return shlex.join(cmd)
    return s(cmd)


def _patch_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return s(value.get("input")) or s(value.get("patch"))
    return ""


def describe(name: str, value: Any) -> CallShape:
    v = value if isinstance(value, dict) else {}
    if name in _SHELLS:
        cmd = _command(v)
        if not cmd:  # arguments that are not an object: shown as they are
            return CallShape("shell", line(f"{name} {value if isinstance(value, str) else ''}"))
        if cmd.lstrip().startswith("apply_patch"):
            diffs = apply_patch_diffs(cmd)
            if diffs:
                return _patched(diffs)
        return CallShape("shell", line(f"$ {cmd}"))
    if name == "write_stdin":
        chars = s(v.get("chars"))
        return CallShape("shell", line(f"stdin {v.get('session_id', '')} {chars!r}"))
    if name == "apply_patch":
        return _patched(apply_patch_diffs(_patch_text(value)))
    if name == "update_plan":
        todos = todos_of(v.get("plan"))
        return CallShape("todo", checklist_summary("Plan", todos), todos=todos)
    if name == "view_image":
        return CallShape("read", line(f"View image {s(v.get('path'))}"))
    if name in ("read_file",):
        return CallShape("read", line(f"Read {s(v.get('file_path')) or s(v.get('path'))}"))
    if name in ("grep_files", "list_dir"):
        return CallShape("search", line(f"{name} {s(v.get('pattern')) or s(v.get('dir_path'))}"))
    if name in ("web_search", "web.run"):
        return CallShape("web", line(f"Web search {s(v.get('query'))!r}"))
    if name == "spawn_agent":
        prompt = s(v.get("message")) or s(v.get("prompt"))
        return CallShape(
            "task",
            line(f"Subagent: {prompt}"),
            subagent_prompt=prompt or None,
            subagent_description=line(prompt, 80) or None,
        )
    return mcp_call(name, value) or unknown(name, value)


def _patched(diffs: list[Any]) -> CallShape:
    files = ", ".join(d.path for d in diffs) or "(no files)"
    added = sum(d.added for d in diffs)
    removed = sum(d.removed for d in diffs)
    return CallShape("edit", line(f"Patch {files} (+{added} -{removed})"), diff=diffs)


def describe_result(name: str, output: str) -> ResultShape:
    if name in _SHELLS or name == "write_stdin":
        return shell_result(output)
    return ResultShape(output)


_HARNESS = (
    (re.compile(r"\A\s*# AGENTS\.md instructions for "), "Instructions (AGENTS.md)"),
    (re.compile(r"\A\s*<(?:user_instructions|INSTRUCTIONS)\b"), "Instructions"),
    (re.compile(r"\A\s*<environment_context\b"), "Environment"),
    (re.compile(r"\A\s*<(?:skill|skills_instructions)\b"), "Skills"),
    (re.compile(r"\A\s*<permissions instructions\b"), "Permissions"),
    (re.compile(r"\A\s*<collaboration_mode\b"), "Collaboration mode"),
    (re.compile(r"\A\s*<user_shell_command\b"), "Shell command"),
    (re.compile(r"\A\s*<turn_aborted\b"), "Interrupted"),
    (re.compile(r"\A\s*<subagent_notification\b"), "Subagent notification"),
)


def harness_label(text: str) -> str | None:
    return label_by(_HARNESS, text)


def harness_split(text: str) -> list[tuple[str | None, str]]:
    return whole_block(harness_label, text)
