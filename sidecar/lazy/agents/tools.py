"""What a tool call is, as every agent's tool knowledge says it: the shape each agent's
``tools.py`` returns for a call (its kind, one-line summary, diff, checklist), and the helpers
they share to build one. Diffs are made with difflib; Codex's ``apply_patch`` envelope and
unified patches are read here, once, for whichever agent sends them."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import orjson

from lazy.model import DiffFile, TodoItem, ToolKind

SUMMARY_WIDTH = 200  # a summary is one line; the input itself is kept whole beside it


@dataclass(frozen=True, slots=True)
class CallShape:
    """What a call is: its kind and one-line summary, and what it shows expanded."""

    kind: ToolKind
    summary: str
    diff: list[DiffFile] = field(default_factory=list)
    todos: list[TodoItem] = field(default_factory=list)
    mcp_server: str | None = None
    language: str | None = None  # of the file it reads, for the highlighter
    # a call that runs a subagent: the prompt it was handed (to find that subagent by),
    # what it was asked to do, and its type
    subagent_prompt: str | None = None
    subagent_description: str | None = None
    subagent_type: str | None = None


@dataclass(frozen=True, slots=True)
class ResultShape:
    """What a result says beside its output: the exit status and duration, when recorded."""

    output: str
    exit_code: int | None = None
    duration_ms: int | None = None
    reminders: list[str] = field(default_factory=list)  # harness text riding on the output
    matches: int | None = None  # a search's results, when its agent records how many
    first_line: int | None = None  # the output is a file's text from this line, numbers out


Describe = Callable[[str, Any], CallShape]
DescribeResult = Callable[[str, str], ResultShape]


def line(text: str, width: int = SUMMARY_WIDTH) -> str:
    """``text`` on one line (its first non-blank line), cut to ``width``."""
    first = next((t.strip() for t in text.splitlines() if t.strip()), "")
    more = first != text.strip()
    if len(first) > width:
        return first[: width - 1] + "…"
    return first + (" …" if more else "")


def s(value: Any) -> str:
    """A string field of a tool input, "" when absent or not a string."""
    return value if isinstance(value, str) else ""


def pretty(value: Any) -> str:
    """A tool input as a person reads it: indented JSON, keys in their order."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        return str(value)


_LANGS = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".json": "json",
    ".md": "markdown",
    ".html": "xml",
    ".htm": "xml",
    ".xml": "xml",
    ".svg": "xml",
    ".css": "css",
    ".scss": "scss",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    ".kt": "kotlin",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".rb": "ruby",
    ".toml": "ini",
    ".ini": "ini",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".sql": "sql",
    ".swift": "swift",
    ".php": "php",
    ".lua": "lua",
}


def language_of(path: str) -> str | None:
    """The highlighter's name for a file's language, from its name."""
    p = PurePosixPath(path.replace("\\", "/"))
    if p.name == "Makefile":
        return "makefile"
    if p.name == "Dockerfile":
        return "dockerfile"
    return _LANGS.get(p.suffix.lower())


def _counts(diff_lines: list[str]) -> tuple[int, int]:
    added = sum(1 for d in diff_lines if d.startswith("+") and not d.startswith("+++"))
    removed = sum(1 for d in diff_lines if d.startswith("-") and not d.startswith("---"))
    return added, removed


def diff_file(path: str, lines: list[str]) -> DiffFile:
    """A file's diff from its unified diff lines, with its counts and language."""
    added, removed = _counts(lines)
    return DiffFile(
        path=path, diff="\n".join(lines), added=added, removed=removed, language=language_of(path)
    )


def file_diff(path: str, old: str, new: str, *, context: int = 3) -> DiffFile:
    """A unified diff of one file from its old and new text (Edit, Write)."""
    lines = list(
        difflib.unified_diff(
            old.splitlines(),
            new.splitlines(),
            fromfile="/dev/null" if old == "" else f"a/{path}",
            tofile=f"b/{path}",
            n=context,
            lineterm="",
        )
    )
    return diff_file(path, lines)


def edits_diff(path: str, edits: list[tuple[str, str]]) -> DiffFile:
    """One diff for a file changed by several replacements (MultiEdit): each its hunk."""
    lines = [f"--- a/{path}", f"+++ b/{path}"]
    for old, new in edits:
        # each replacement's own header would repeat the path
        lines += file_diff(path, old, new, context=0).diff.split("\n")[2:]
    return diff_file(path, lines)


_ENVELOPE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")
_MOVE = re.compile(r"^\*\*\* Move to: (.+)$")


def apply_patch_diffs(patch: str) -> list[DiffFile]:
    """The files of a Codex ``apply_patch`` envelope (``*** Begin Patch`` … ``*** End
    Patch``), each as a unified diff: its ``@@`` hunks are already one."""
    files: list[tuple[str, list[str]]] = []
    for raw in patch.splitlines():
        m = _ENVELOPE.match(raw)
        if m is not None:
            action, path = m.group(1), m.group(2).strip()
            old = "/dev/null" if action == "Add" else f"a/{path}"
            new = "/dev/null" if action == "Delete" else f"b/{path}"
            files.append((path, [f"--- {old}", f"+++ {new}"]))
            continue
        moved = _MOVE.match(raw)
        if moved is not None and files:
            files[-1] = (f"{files[-1][0]} → {moved.group(1).strip()}", files[-1][1])
        elif files and not raw.startswith("*** "):  # Begin/End Patch, End of File
            files[-1][1].append(raw if raw[:1] in ("+", "-", " ", "@") else " " + raw)
    return [diff_file(path, lines) for path, lines in files]


_GIT_FILE = re.compile(r"^\+\+\+ (?:b/)?(.+)$")


def unified_diffs(patch: str) -> list[DiffFile]:
    """The files of a unified diff (``--- a/x`` ``+++ b/x`` then hunks), as given."""
    files: list[tuple[str, list[str]]] = []
    current: list[str] = []
    path = ""
    for raw in patch.splitlines():
        if raw.startswith("--- ") and any(c.startswith("@@") for c in current):
            files.append((path, current))
            current = []
        m = _GIT_FILE.match(raw)
        if m is not None:
            path = m.group(1).strip()
        if not raw.startswith(("diff --git", "index ")):
            current.append(raw)
    if current and path:
        files.append((path, current))
    return [diff_file(p, lines) for p, lines in files]


def task_call(v: dict[str, Any]) -> CallShape:
    """A call that runs a subagent with ``{description, prompt, subagent_type}`` (Claude
    Code's Task, OpenCode's task)."""
    kind = s(v.get("subagent_type")) or None
    what = s(v.get("description")) or line(s(v.get("prompt")))
    return CallShape(
        "task",
        line(f"Task ({kind}): {what}" if kind else f"Task: {what}"),
        subagent_prompt=s(v.get("prompt")) or None,
        subagent_description=s(v.get("description")) or None,
        subagent_type=kind,
    )


Labels = tuple[tuple[re.Pattern[str], str], ...]


def label_by(patterns: Labels, text: str) -> str | None:
    """The label of the first pattern matching the start of ``text``."""
    return next((label for pattern, label in patterns if pattern.match(text)), None)


_STATUS = {"completed": "completed", "done": "completed", "in_progress": "in_progress"}


def todos_of(
    items: Any, text_keys: tuple[str, ...] = ("content", "step", "text")
) -> list[TodoItem]:
    """A checklist from a list of ``{content|step, status}`` items (TodoWrite, update_plan)."""
    out: list[TodoItem] = []
    if not isinstance(items, list):
        return out
    for it in items:
        if not isinstance(it, dict):
            continue
        text = next((s(it.get(k)) for k in text_keys if s(it.get(k))), "")
        status = _STATUS.get(s(it.get("status")).lower(), "pending")
        out.append(TodoItem(text=text, status=status))
    return out


def checklist_summary(name: str, todos: list[TodoItem]) -> str:
    done = sum(1 for t in todos if t.status == "completed")
    return f"{name}: {done}/{len(todos)} done" if todos else name


def mcp_call(name: str, value: Any) -> CallShape | None:
    """``mcp__<server>__<tool>``, as Claude Code and Codex name an MCP server's tools."""
    if not name.startswith("mcp__") or name.count("__") < 2:
        return None
    server, tool = name[5:].split("__", 1)
    args = line(orjson.dumps(value).decode()) if value not in (None, {}) else ""
    summary = f"{server} · {tool}" + (f" {args}" if args else "")
    return CallShape("mcp", line(summary), mcp_server=server)


def unknown(name: str, value: Any) -> CallShape:
    """A tool this agent's knowledge does not name: its name and its input on one line."""
    args = orjson.dumps(value).decode() if value not in (None, {}) else ""
    return CallShape("other", line(f"{name} {args}".strip()))


_EXIT = re.compile(
    r"(?:^|\n)\s*(?:Exit code:?|Process exited with code|exit code)\s*(-?\d+)", re.IGNORECASE
)
_WALL = re.compile(r"(?:^|\n)\s*Wall time:\s*([0-9.]+)\s*seconds", re.IGNORECASE)


def shell_result(output: str) -> ResultShape:
    """A shell's output and the exit status and wall time its header says (Codex's ``Exit
    code: 0 / Wall time: 0.2 seconds / Output:``, Claude Code's ``Exit code 1``)."""
    head = output[:512]
    code = _EXIT.search(head)
    wall = _WALL.search(head)
    body = output
    marker = head.find("Output:\n")
    if code is not None and marker != -1:
        body = output[marker + len("Output:\n") :]
    return ResultShape(
        body,
        exit_code=int(code.group(1)) if code else None,
        duration_ms=round(float(wall.group(1)) * 1000) if wall else None,
    )


_NUMBERED = re.compile(r" *(\d+)→(.*)")


def numbered_lines(output: str) -> tuple[str, int] | None:
    """A file's lines as a read tool prints them (``     1→text``, each line numbered, one
    after the other): the text without the numbers, and the first line's number; None when
    the output is anything else (an error, a note, lines out of order)."""
    lines = output.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return None
    text: list[str] = []
    first = 0
    for i, line in enumerate(lines):
        m = _NUMBERED.fullmatch(line)
        if m is None:
            return None
        n = int(m.group(1))
        if i == 0:
            first = n
        elif n != first + i:
            return None
        text.append(m.group(2))
    return "\n".join(text) + "\n", first


_FOUND = re.compile(r"\A\s*Found (\d+) (?:files?|matches?|results?|lines?)\b", re.I)
_NONE_FOUND = re.compile(r"\A\s*No (?:files|matches|results) found\.?\s*\Z", re.I)


def listed(output: str) -> int:
    """How many results a search printed: the count its header gives (``Found 5 files``),
    else its non-blank lines; none for ``No files found``."""
    found = _FOUND.match(output)
    if found:
        return int(found.group(1))
    if not output.strip() or _NONE_FOUND.match(output):
        return 0
    return sum(1 for x in output.splitlines() if x.strip())


def whole_block(label: Callable[[str], str | None], text: str) -> list[tuple[str | None, str]]:
    """A text block that is either the harness's as a whole, or the person's words."""
    return [(label(text), text)]
