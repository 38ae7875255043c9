"""OpenCode's tools and harness text, as the transcript shows them."""

from __future__ import annotations

from typing import Any

from lazy.agents.tools import (
    CallShape,
    ResultShape,
    checklist_summary,
    file_diff,
    language_of,
    line,
    s,
    shell_result,
    task_call,
    todos_of,
    unified_diffs,
    unknown,
    whole_block,
)


def _path(v: dict[str, Any]) -> str:
    return s(v.get("filePath")) or s(v.get("file_path")) or s(v.get("path"))


def _read(v: dict[str, Any]) -> CallShape:
    offset, limit = v.get("offset"), v.get("limit")
    span = ""
    if isinstance(offset, int) and isinstance(limit, int):
        span = f" (lines {offset + 1}-{offset + limit})"
    return CallShape("read", line(f"Read {_path(v)}{span}"), language=language_of(_path(v)))


def describe(name: str, value: Any) -> CallShape:
    v = value if isinstance(value, dict) else {}
    if name == "bash":
        return CallShape("shell", line(f"$ {s(v.get('command'))}"))
    if name == "read":
        return _read(v)
    if name == "edit":
        d = file_diff(_path(v), s(v.get("oldString")), s(v.get("newString")))
        return CallShape("edit", line(f"Edit {d.path} (+{d.added} -{d.removed})"), diff=[d])
    if name == "write":
        d = file_diff(_path(v), "", s(v.get("content")))
        return CallShape("write", line(f"Write {d.path} (+{d.added})"), diff=[d])
    if name == "patch":
        diffs = unified_diffs(s(v.get("patchText")) or s(v.get("patch")))
        files = ", ".join(d.path for d in diffs)
        return CallShape("edit", line(f"Patch {files}"), diff=diffs)
    if name in ("grep", "glob", "list"):
        what = s(v.get("pattern")) or _path(v)
        return CallShape("search", line(f"{name} {what!r}"))
    if name in ("todowrite", "todoread"):
        todos = todos_of(v.get("todos"))
        return CallShape("todo", checklist_summary("Todos", todos), todos=todos)
    if name == "webfetch":
        return CallShape("web", line(f"WebFetch {s(v.get('url'))}"))
    if name == "websearch":
        return CallShape("web", line(f"WebSearch {s(v.get('query'))!r}"))
    if name == "task":
        return task_call(v)
    if "_" in name and not name.startswith("_"):  # MCP tools: <server>_<tool>
        server, tool = name.split("_", 1)
        return CallShape("mcp", line(f"{server} · {tool}"), mcp_server=server)
    return unknown(name, value)


def describe_result(name: str, output: str) -> ResultShape:
    if name == "bash":
        return shell_result(output)
    return ResultShape(output)


def harness_label(text: str) -> str | None:
    return None  # OpenCode marks its own text (synthetic parts) in the record


def harness_split(text: str) -> list[tuple[str | None, str]]:
    return whole_block(harness_label, text)
