"""A long Claude Code session with the content of real work, for the transcript benchmark.

    python -m bench.rich_session DEST --messages 50k [--seed 0] [--cwd /home/u/long-builder]

``tests/fabricate/claude.py``'s :class:`SessionWriter` (Claude Code 2.1.114's lines, field for
field) streamed to a file, with turns shaped on the real session ``7acd37a8`` of
``shared/corpus`` instead of its one ``ls``: a prompt (sometimes after an ``<ide_opened_file>``
block, as the VS Code extension sends it), one to six steps, each an API message of thinking,
Markdown text and a tool call over three lines sharing ``message.id``, then the tool's result
with the ``toolUseResult`` Claude Code records for that tool (Bash stdout/stderr and exit
codes, Read's numbered lines, Edit's ``structuredPatch`` and ``originalFile``, Write,
Grep/Glob file lists, TodoWrite's old and new todos, WebFetch), and a closing Markdown reply
(headings, lists, bold, inline code, links, tables, fenced code in Python, TypeScript, Bash,
JSON and diff). Deterministic for a seed; exactly ``messages`` stored messages (as lazy counts
them: a prompt, each step's API message, each tool result, the reply).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bench.harness import parse_count
from tests.fabricate.claude import Message, SessionWriter, dumps, session_path

LONG_CWD = "/home/u/long-builder"

_NAMES = (  # noqa: SIM905 - words read better as words
    "parse_page cursor_for load_builder render_step fold_output next_start read_chunk "
    "split_turns pair_results merge_parts apply_patch count_lines index_batch"
).split()
_MODULES = "store reading messages paging render index tools capture server".split()  # noqa: SIM905
_WORDS = (  # noqa: SIM905
    "the page now keeps every tool result under its call so the reader sees the command and "
    "what it printed together the cursor moves past absorbed messages and the total stays "
    "exact while the store is read once per page with one query"
).split()
_CHECKS = ("ruff", "mypy", "pytest", "eslint", "tsc")


class Tally(list[Message]):
    """``SessionWriter.messages`` that counts and forgets (a 50,000-message session's texts
    are not kept in memory)."""

    def __init__(self) -> None:
        super().__init__()
        self.n = 0

    def append(self, m: Message) -> None:
        self.n += 1

    def __len__(self) -> int:
        return self.n


@dataclass
class Step:
    """One tool call and what Claude Code records of its result."""

    name: str
    input: dict[str, Any]
    content: str
    result: Any
    is_error: bool = False


@dataclass
class RichWriter(SessionWriter):
    """:class:`SessionWriter` streaming its lines to ``sink``; :meth:`work_turn` writes a turn
    of real work."""

    sink: IO[bytes] | None = None
    todos: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.messages = Tally()

    def _add(self, obj: dict[str, Any]) -> bytes:
        line = dumps(obj)
        if self.sink is None:
            self.lines.append(line)
        else:
            self.sink.write(line)
        return line

    @property
    def count(self) -> int:
        return len(self.messages)

    # ---- lines ---------------------------------------------------------------------------

    def prompt(self, text: str, opened: str | None, prompt_id: str) -> None:
        """The person's prompt; after the IDE's opened-file block when ``opened`` is given."""
        if opened is None:
            self.user(text, prompt_id=prompt_id)
            return
        ide = (
            f"<ide_opened_file>The user opened the file {opened} in the IDE. This may or may "
            "not be related to the current task.</ide_opened_file>"
        )
        u = self._uuid()
        self._add(
            {
                "parentUuid": self._parent,
                "isSidechain": False,
                "promptId": prompt_id,
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "text", "text": ide}, {"type": "text", "text": text}],
                },
                "uuid": u,
                "timestamp": self._ts(),
                "permissionMode": "acceptEdits",
                **self._common(),
            }
        )
        self._parent = u
        self.messages.append(Message(u, "user", text))

    def api_message(self, thinking: str, text: str, step: Step | None) -> str | None:
        """One API message over lines sharing its id: thinking, text, and the call; the call's
        id (None without one)."""
        mid, rid = self._msg_id(), self._req_id()
        out = self._rng.randint(20, 3000)
        sig = "".join(self._rng.choice("0123456789abcdefABCDEF") for _ in range(96))
        self._assistant_line(
            mid, rid, {"type": "thinking", "thinking": thinking, "signature": sig}, out
        )
        self._assistant_line(mid, rid, {"type": "text", "text": text}, out)
        tool = None
        if step is not None:
            tool = self._tool_id()
            block = {"type": "tool_use", "id": tool, "name": step.name, "input": step.input}
            self._assistant_line(mid, rid, {**block, "caller": {"type": "direct"}}, out)
        self.messages.append(Message(mid, "assistant", text))
        return tool

    def result(self, tool: str, step: Step, prompt_id: str) -> None:
        u = self._uuid()
        block = {
            "type": "tool_result",
            "tool_use_id": tool,
            "content": step.content,
            "is_error": step.is_error,
        }
        self._add(
            {
                "parentUuid": self._parent,
                "isSidechain": False,
                "promptId": prompt_id,
                "type": "user",
                "message": {"role": "user", "content": [block]},
                "uuid": u,
                "timestamp": self._ts(),
                "toolUseResult": step.result,
                "sourceToolAssistantUUID": self._parent,
                **self._common(),
            }
        )
        self._parent = u
        self.messages.append(Message(u, "tool_result", step.content))

    # ---- a turn --------------------------------------------------------------------------

    def work_turn(self, budget: int) -> None:
        """A turn of at most ``budget`` messages (at least one)."""
        rng = self._rng
        i = self.turns
        self.turns += 1
        pid = self._uuid()
        self.snapshot()
        mod = rng.choice(_MODULES)
        opened = f"{self.cwd}/sidecar/lazy/view/{mod}.py" if rng.random() < 0.3 else None
        text = prompt_text(rng, i, mod)
        self.prompt(text, opened, pid)
        if budget < 2:
            return
        steps = min(rng.randint(1, 6), (budget - 2) // 2)
        for _ in range(steps):
            step = self.make_step(mod)
            tool = self.api_message(thinking_text(rng, step.name), step_text(rng, step), step)
            assert tool is not None
            self.result(tool, step, pid)
        self.api_message(thinking_text(rng, None), reply_markdown(rng, i, mod), None)
        self.system_tail()
        self.last_prompt(text)

    def make_step(self, mod: str) -> Step:
        rng = self._rng
        kinds: list[tuple[float, Callable[[], Step]]] = [
            (0.30, lambda: bash_step(rng, self.cwd)),
            (0.18, lambda: read_step(rng, self.cwd, mod)),
            (0.20, lambda: edit_step(rng, self.cwd, mod)),
            (0.05, lambda: write_step(rng, self.cwd, mod)),
            (0.10, lambda: search_step(rng, self.cwd)),
            (0.12, self.todo_step),
            (0.05, lambda: web_step(rng)),
        ]
        x = rng.random() * sum(w for w, _ in kinds)
        for w, make in kinds:
            x -= w
            if x <= 0:
                return make()
        return kinds[0][1]()

    def todo_step(self) -> Step:
        rng = self._rng
        old = [dict(t) for t in self.todos]
        if not self.todos or all(t["status"] == "completed" for t in self.todos):
            self.todos = [
                {
                    "content": f"{verb} {rng.choice(_NAMES)} in {rng.choice(_MODULES)}.py",
                    "status": "pending",
                    "activeForm": f"{verb[:-1] if verb.endswith('e') else verb}ing the change",
                }
                for verb in rng.sample(["Add", "Fix", "Test", "Move", "Document", "Rename"], 4)
            ]
        else:
            for t in self.todos:
                if t["status"] == "in_progress":
                    t["status"] = "completed"
                    break
            for t in self.todos:
                if t["status"] == "pending":
                    t["status"] = "in_progress"
                    break
        return Step(
            "TodoWrite",
            {"todos": [dict(t) for t in self.todos]},
            "Todos have been modified successfully. Ensure that you continue to use the todo "
            "list to track your progress. Please proceed with the current tasks if applicable",
            {"oldTodos": old, "newTodos": [dict(t) for t in self.todos]},
        )


# ---- content ---------------------------------------------------------------------------------


def words(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choices(_WORDS, k=rng.randint(lo, hi)))


def prompt_text(rng: random.Random, i: int, mod: str) -> str:
    name = rng.choice(_NAMES)
    return rng.choice(
        [
            f"Step {i}: make `{name}` in `{mod}.py` keep tool results under their call, and "
            f"add a test.",
            f"The page at {i * 200} shows the raw JSON again. Can you look at `{name}`?\n\n"
            f'```\nTraceback (most recent call last):\n  File "{mod}.py", line {40 + i % 60},'
            f" in {name}\nKeyError: 'tool_use_id'\n```",
            f"Run the checks and fix what fails ({', '.join(rng.sample(_CHECKS, 3))}).",
            f"Why does **{name}** read the store twice? {words(rng, 6, 20)}.",
        ]
    )


def thinking_text(rng: random.Random, tool: str | None) -> str:
    what = f"use {tool}" if tool else "sum up what changed"
    return f"I should {what} now. {words(rng, 15, 60).capitalize()}."


def step_text(rng: random.Random, step: Step) -> str:
    target = step.input.get("file_path") or step.input.get("command") or step.input.get("url")
    lead = {
        "Bash": "Let me run",
        "Read": "Let me read",
        "Edit": "I'll change",
        "Write": "I'll write",
        "Grep": "Searching for",
        "Glob": "Listing",
        "TodoWrite": "Updating the plan",
        "WebFetch": "Checking the docs at",
    }.get(step.name, "Next")
    where = f" `{target}`" if isinstance(target, str) and len(target) < 120 else ""
    return f"{lead}{where}: {words(rng, 4, 18)}."


def python_source(rng: random.Random, mod: str, lines: int) -> str:
    out = [f'"""{mod}: {words(rng, 4, 10)}."""', "", "from __future__ import annotations", ""]
    while len(out) < lines:
        name = rng.choice(_NAMES)
        n = rng.randint(2, 50)
        out += [
            "",
            f"def {name}_{len(out)}(conn: sqlite3.Connection, start: int, count: int = {n}) -> "
            "list[Row]:",
            f'    """{words(rng, 5, 12).capitalize()}."""',
            "    rows = conn.execute(",
            '        "SELECT number, role, text FROM messages WHERE number >= ? LIMIT ?",',
            "        (start, count),",
            "    ).fetchall()",
            f"    if len(rows) > {n}:",
            f'        raise ValueError(f"too many rows: {{len(rows)}} > {n}")',
            "    return [Row(*r) for r in rows]",
        ]
    return "\n".join(out[:lines])


def ts_source(rng: random.Random, lines: int) -> str:
    out = ['import type { MessageView } from "../protocol";', ""]
    while len(out) < lines:
        name = rng.choice(_NAMES).replace("_", "")
        out += [
            f"export function {name}{len(out)}(messages: MessageView[], at: number): number {{",
            "  let n = 0;",
            "  for (const m of messages) {",
            f'    if (m.number >= at && m.role !== "{rng.choice(["user", "assistant"])}") n++;',
            "  }",
            "  return n;",
            "}",
            "",
        ]
    return "\n".join(out[:lines])


def numbered(text: str, start: int = 1) -> str:
    """Read's result as Claude Code returns it: ``cat -n`` numbers and an arrow."""
    return "\n".join(f"{start + k:6d}\u2192{ln}" for k, ln in enumerate(text.split("\n")))


def bash_step(rng: random.Random, cwd: str) -> Step:
    kind = rng.randrange(4)
    if kind == 0:
        passed, failed = rng.randint(20, 400), rng.choice([0, 0, 0, 1, 2])
        cmd = f".venv/bin/pytest -q tests/unit/test_{rng.choice(_MODULES)}.py"
        body = "\n".join(
            f"tests/unit/test_{rng.choice(_MODULES)}.py::test_{rng.choice(_NAMES)} PASSED"
            for _ in range(rng.randint(5, 30))
        )
        if failed:
            body += (
                "\n\n=================================== FAILURES ===================================\n"
                "E       AssertionError: assert 199 == 200\nE        +  where 199 = len(page)\n"
            )
        out = f"{body}\n{passed} passed{f', {failed} failed' if failed else ''} in {rng.uniform(0.5, 30):.2f}s"
        code = 1 if failed else 0
    elif kind == 1:
        cmd = "git status --short && git diff --stat"
        files = [f"sidecar/lazy/view/{m}.py" for m in rng.sample(_MODULES, 4)]
        out = (
            "\n".join(f" M {f}" for f in files)
            + "\n"
            + "\n".join(
                f" {f} | {rng.randint(2, 90)} {'+' * rng.randint(1, 20)}{'-' * rng.randint(0, 9)}"
                for f in files
            )
        )
        code = 0
    elif kind == 2:
        cmd = f"ls -la {cwd}/sidecar/lazy/view"
        out = "total 96\n" + "\n".join(
            f"-rw-r--r-- 1 u u {rng.randint(800, 30000):6d} Nov 30 11:{rng.randint(10, 59)} {m}.py"
            for m in _MODULES
        )
        code = 0
    else:
        cmd = "make check"
        out = (
            "\n".join(f"{c}: ok" for c in _CHECKS)
            + "\nSuccess: no issues found in 212 source files"
        )
        code = 0
    content = out if code == 0 else f"Exit code {code}\n{out}"
    result = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
    return Step("Bash", {"command": cmd, "description": "Run it"}, content, result, code != 0)


def read_step(rng: random.Random, cwd: str, mod: str) -> Step:
    path = f"{cwd}/sidecar/lazy/view/{mod}.py"
    total = rng.randint(40, 260)
    src = python_source(rng, mod, total)
    lines = src.split("\n")
    result = {
        "type": "text",
        "file": {
            "filePath": path,
            "content": src,
            "numLines": len(lines),
            "startLine": 1,
            "totalLines": len(lines),
        },
    }
    return Step("Read", {"file_path": path}, numbered(src), result)


def edit_step(rng: random.Random, cwd: str, mod: str) -> Step:
    ts = rng.random() < 0.3
    path = f"{cwd}/extension/src/webview/{mod}.ts" if ts else f"{cwd}/sidecar/lazy/view/{mod}.py"
    original = ts_source(rng, 60) if ts else python_source(rng, mod, 60)
    lines = original.split("\n")
    at = rng.randint(4, len(lines) - 8)
    old = lines[at : at + 3]
    new = [ln.replace("count", "limit") + ("  # paged" if not ts else "") for ln in old]
    new.insert(1, "    # results stay under their call" if not ts else "  // under their call")
    patch = {
        "oldStart": at - 2,
        "oldLines": 7,
        "newStart": at - 2,
        "newLines": 8,
        "lines": [" " + ln for ln in lines[at - 3 : at - 1]]
        + ["-" + ln for ln in old]
        + ["+" + ln for ln in new]
        + [" " + ln for ln in lines[at + 3 : at + 5]],
    }
    result = {
        "filePath": path,
        "oldString": "\n".join(old),
        "newString": "\n".join(new),
        "originalFile": original,
        "structuredPatch": [patch],
        "userModified": False,
        "replaceAll": False,
    }
    snippet = numbered("\n".join(lines[at - 3 : at - 1] + new + lines[at + 3 : at + 5]), at - 2)
    content = (
        f"The file {path} has been updated. Here's the result of running `cat -n` on a "
        f"snippet of the edited file:\n{snippet}"
    )
    tool_input = {
        "file_path": path,
        "old_string": result["oldString"],
        "new_string": result["newString"],
    }
    return Step("Edit", tool_input, content, result)


def write_step(rng: random.Random, cwd: str, mod: str) -> Step:
    path = f"{cwd}/tests/unit/test_{mod}_{rng.randint(1, 999)}.py"
    src = python_source(rng, f"test_{mod}", rng.randint(20, 80))
    result = {"type": "create", "filePath": path, "content": src, "structuredPatch": []}
    return Step(
        "Write",
        {"file_path": path, "content": src},
        f"File created successfully at: {path}",
        result,
    )


def search_step(rng: random.Random, cwd: str) -> Step:
    files = [f"sidecar/lazy/view/{m}.py" for m in rng.sample(_MODULES, rng.randint(1, 6))]
    if rng.random() < 0.6:
        pattern = rng.choice(_NAMES)
        result = {"mode": "files_with_matches", "filenames": files, "numFiles": len(files)}
        content = f"Found {len(files)} files\n" + "\n".join(files)
        return Step("Grep", {"pattern": pattern, "path": f"{cwd}/sidecar"}, content, result)
    full = [f"{cwd}/{f}" for f in files]
    result = {
        "filenames": full,
        "durationMs": rng.randint(3, 80),
        "numFiles": len(full),
        "truncated": False,
    }
    return Step("Glob", {"pattern": "sidecar/**/*.py"}, "\n".join(full), result)


def web_step(rng: random.Random) -> Step:
    url = rng.choice(
        [
            "https://markdown-it.github.io/markdown-it/",
            "https://github.com/cure53/DOMPurify#readme",
            "https://highlightjs.readthedocs.io/en/latest/api.html",
        ]
    )
    summary = f"## Summary\n\n- {words(rng, 6, 14)}\n- `html: false` {words(rng, 4, 10)}"
    result = {
        "bytes": rng.randint(20000, 200000),
        "code": 200,
        "codeText": "OK",
        "result": summary,
        "durationMs": rng.randint(300, 4000),
        "url": url,
    }
    return Step("WebFetch", {"url": url, "prompt": "What are the options?"}, summary, result)


def reply_markdown(rng: random.Random, i: int, mod: str) -> str:
    name = rng.choice(_NAMES)
    blocks = [
        f"## What changed in `{mod}.py`\n",
        f"- **{name}** now {words(rng, 6, 16)};\n- the cursor {words(rng, 4, 12)};\n"
        f"- see [the spec](https://example.com/spec/{i}) for {words(rng, 2, 6)}.\n",
    ]
    fence = rng.randrange(4)
    if fence == 0:
        blocks.append(f"```python\n{python_source(rng, mod, rng.randint(8, 24))}\n```\n")
    elif fence == 1:
        blocks.append(f"```typescript\n{ts_source(rng, rng.randint(8, 20))}\n```\n")
    elif fence == 2:
        blocks.append(
            "```bash\n.venv/bin/pytest -q tests/unit/test_reading.py\nmake check\n```\n"
            '```json\n{"builder_id": "0197a3c2", "start": ' + str(i) + ', "count": 200}\n```\n'
        )
    else:
        blocks.append(
            f"```diff\n--- a/{mod}.py\n+++ b/{mod}.py\n@@ -10,3 +10,4 @@\n"
            f"-    return rows\n+    # paired\n+    return pair(rows)\n```\n"
        )
    if rng.random() < 0.3:
        blocks.append(
            "| check | before | after |\n|---|---:|---:|\n"
            f"| pytest | {rng.randint(1, 9)} failed | 0 failed |\n| mypy | ok | ok |\n"
        )
    blocks.append(f"{words(rng, 10, 40).capitalize()}.")
    return "\n".join(blocks)


# ---- a session -------------------------------------------------------------------------------


@dataclass
class Written:
    session_id: str
    path: Path
    messages: int
    turns: int
    bytes: int


def write_session(
    projects: Path, session_id: str, messages: int, *, seed: int = 0, cwd: str = LONG_CWD
) -> Written:
    """``projects/<encoded cwd>/<session_id>.jsonl`` holding exactly ``messages`` messages."""
    path = session_path(projects, session_id, cwd)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb", buffering=1 << 20) as f:
        w = RichWriter(session_id, cwd=cwd, seed=seed, sink=f)
        w.header()
        while w.count < messages:
            w.work_turn(messages - w.count)
    return Written(session_id, path, w.count, w.turns, path.stat().st_size)


def main(argv: list[str] | None = None) -> int:
    from tests.fabricate.claude import session_id

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("dest", type=Path, help="a Claude Code projects dir")
    ap.add_argument("--messages", default="10k")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cwd", default=LONG_CWD)
    args = ap.parse_args(argv)
    n = parse_count(args.messages)
    got = write_session(args.dest, session_id(n, "rich"), n, seed=args.seed, cwd=args.cwd)
    print(f"{got.path}: {got.messages:,} messages in {got.turns:,} turns, {got.bytes:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
