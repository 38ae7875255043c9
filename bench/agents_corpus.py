"""Synthetic Codex CLI and OpenCode histories for the import benchmark (beside corpus.py's Claude).

Codex: ``<dest>/sessions/YYYY/MM/DD/rollout-<local time>-<uuidv7>.jsonl`` rollouts in the
envelope format, shaped on the real sanitized rollouts in
``shared/corpus/codex/madshn__localpush/…/raw/sessions/`` (0.104): ``session_meta`` with git and
``base_instructions``; developer and user harness messages (permissions, AGENTS.md,
``<environment_context>``); per turn ``task_started``, the prompt twice (``response_item``
message + ``event_msg/user_message``), a ``turn_context`` (with the full user and developer
instructions, as real ones carry) before every model request, ``token_count`` events; per step
reasoning (summary + ``encrypted_content``) and commentary, each twice (``event_msg`` then
``response_item``), ``exec_command`` calls with JSON-string arguments and bulky unified-exec
outputs, ``apply_patch`` custom tool calls, ``write_stdin``, ``update_plan``, web searches; a
``final_answer`` and ``task_complete``; now and then a pasted image and a compaction.

OpenCode: ``<dest>/opencode.db`` with OpenCode 1.18.33's own DDL (the tables lazy reads:
project, session, message, part), rows as formats.md §3.2 and
tests/agents/opencode/FINDINGS_opencode.md describe: ``data`` JSON without the ids the columns
hold; per prompt a user message (text, sometimes an image file part) and one assistant message
per model step (step-start, reasoning, text, completed tool parts with bulky output and
metadata, step-finish) answering it by ``parentID``; ``task`` tool calls that run a child
session (``parent_id``). The DB is grown until its file size reaches the target, because the
benchmark counts OpenCode's "bytes" as the database file's size.

Deterministic for a seed. ``messages`` in the stats is what lazy should store: one per message
lazy keys (Codex: each response_item message, reasoning, call and call output, the event copies
folded in; OpenCode: each message row).

    python -m bench.agents_corpus DEST --tool codex --size 200MB [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import random
import sqlite3
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from bench import corpus
from bench.corpus import (
    _COMMENTS,
    _PROMPTS,
    _SENTENCES,
    _THOUGHTS,
    _WORDS,
    _b62,
    _Blobs,
    _blobs,
    _Filler,
    _iso,
    _session_sizes,
    format_size,
    parse_size,
)
from tests.fabricate import opencode

__all__ = [
    "DDL",
    "AgentCorpusInfo",
    "AgentStats",
    "format_size",
    "generate",
    "generate_codex",
    "generate_opencode",
    "parse_size",
]

_BASE_EPOCH = corpus._BASE_EPOCH
_SPAN_SECONDS = corpus._SPAN_SECONDS
# Codex names its files in local time and writes UTC inside; a fixed offset (CET, like the real
# sample) keeps the output independent of this machine's time zone.
LOCAL_OFFSET_S = 3600
CODEX_VERSIONS = ("0.98.0", "0.101.0", "0.104.0-alpha.1", "0.104.0")
CODEX_MODELS = ("gpt-5.3-codex", "gpt-5.2-codex", "gpt-5-codex")


# --------------------------------------------------------------------------------------------------
# statistics


@dataclass
class AgentStats:
    bytes: int = 0  # Codex: bytes written; OpenCode: bytes of the rows' data and ids
    lines: int = 0  # Codex: lines; OpenCode: rows (session + message + part)
    files: int = 0
    sessions: int = 0
    child_sessions: int = 0
    messages: int = 0  # what lazy stores: see the module docstring
    user_prompts: int = 0
    assistant_texts: int = 0  # assistant messages with text (OpenCode: a text part)
    reasoning: int = 0
    tool_calls: int = 0
    tool_outputs: int = 0
    harness: int = 0  # developer / harness messages (lazy: role system)
    images: int = 0
    compactions: int = 0
    max_line: int = 0

    @property
    def memories(self) -> int:
        """What ``lazy import <tool>`` (default content mode) keeps: prompts and answers."""
        return self.user_prompts + self.assistant_texts

    def add(self, other: AgentStats) -> None:
        for k, v in asdict(other).items():
            if k == "max_line":
                self.max_line = max(self.max_line, v)
            else:
                setattr(self, k, getattr(self, k) + v)


@dataclass
class AgentCorpusInfo:
    tool: str  # "codex" | "opencode"
    dest: Path
    source: Path  # what lazy's --source takes: the CODEX_HOME dir or the OpenCode data dir
    target_bytes: int
    seed: int
    projects: int
    seconds: float
    stats: AgentStats
    files: list[Path] = field(default_factory=list)  # rollouts, or [opencode.db]

    @property
    def bytes_on_disk(self) -> int:
        return sum(p.stat().st_size for p in self.files)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "dest": str(self.dest),
            "source": str(self.source),
            "target_bytes": self.target_bytes,
            "bytes_on_disk": self.bytes_on_disk,
            "files": len(self.files),
            "seed": self.seed,
            "projects": self.projects,
            "seconds": round(self.seconds, 3),
            **asdict(self.stats),
            "memories": self.stats.memories,
        }


# --------------------------------------------------------------------------------------------------
# shared content


def uuid7(ms: int, rng: random.Random) -> str:
    """A UUIDv7 (time-ordered, as recent Codex thread and turn ids) for epoch ``ms``."""
    h = f"{ms & (2**48 - 1):012x}{rng.getrandbits(80):020x}"
    variant = "89ab"[int(h[16], 16) & 3]
    return f"{h[:8]}-{h[8:12]}-7{h[13:16]}-{variant}{h[17:20]}-{h[20:32]}"


class _Content:
    """Prose, code and command output sliced out of corpus.py's filler blobs."""

    def __init__(self, rng: random.Random, blobs: _Blobs) -> None:
        self.rng = rng
        self.blobs = blobs
        self.fill = _Filler(rng)

    def text(self, lo: int, hi: int) -> str:
        return corpus.prose_text(self.rng, self.blobs, self.fill, lo, hi)

    def prompt(self) -> str:
        text = self.fill.fill(self.rng.choice(_PROMPTS))
        if self.rng.random() < 0.15:  # a pasted traceback or log
            text += "\n\n```\n" + self.blobs.logs["pytest"].window_bytes(self.rng, 1500) + "\n```"
        return text

    def thought(self, k: int) -> str:
        return self.fill.sentences(_THOUGHTS, k)

    def title(self) -> str:
        return f"**{self.fill.fill('Inspecting {w} {w2} handling')}**"

    def encrypted(self, lo: float, sigma: float, cap: int) -> str:
        n = int(min(cap, self.rng.lognormvariate(math.log(lo), sigma)))
        sig = self.blobs.signature
        start = self.rng.randrange(0, len(sig) - n)
        return "gAAAAA" + sig[start : start + n]

    def output_size(self, median: float, cap: int) -> int:
        return max(40, int(min(cap, self.rng.lognormvariate(math.log(median), 1.3))))

    def log(self, kind: str, size: int) -> str:
        return self.blobs.logs[kind].window_bytes(self.rng, size)

    def file_window(self, size: int) -> tuple[str, str, int]:
        """(path, text, first line) of a window of a source file."""
        f = self.rng.choice(self.blobs.files)
        per_line = len(f.raw.text) / max(1, f.raw.n) + 1
        count = max(1, int(size / per_line))
        first = self.rng.randrange(max(1, f.raw.n - count)) if f.raw.n > count else 0
        return f.path, f.raw.window(first, count), first

    def grep(self, size: int) -> str:
        rng = self.rng
        hits: list[str] = []
        n = 0
        while n < size:
            f = rng.choice(self.blobs.files)
            k = rng.randrange(f.raw.n)
            line = f"{f.path}:{k + 1}:{f.raw.window(k, 1)}"
            hits.append(line)
            n += len(line) + 1
        return "\n".join(hits)

    def image_url(self, big: bool = False) -> str:
        img = self.blobs.images[1 if big else 0]
        return "data:image/png;base64," + img.b64


def _sizes(rng: random.Random, total: int, largest: int | None) -> list[int]:
    """corpus.py's log-normal session sizes; ``largest`` pins one session of that size and caps
    the others, as the Claude corpus does, so the tools compare at an equal largest session."""
    pinned = largest if largest and largest < total // 2 else None
    if not pinned:
        return _session_sizes(rng, total)
    sizes = _session_sizes(rng, total - pinned, cap=pinned)
    sizes.insert(min(3, len(sizes)), pinned)
    return sizes


def _cwds(total: int) -> list[str]:
    n = max(3, min(12, 3 + total // 100_000_000))
    return [f"/home/u/proj-{i}" for i in range(n)]


# --------------------------------------------------------------------------------------------------
# Codex


_PERMISSIONS = (
    "<permissions instructions>\nFilesystem sandboxing defines which files can be read or "
    "written. `sandbox_mode` is `workspace-write`: The sandbox permits reading files, and editing "
    "files in `cwd` and `writable_roots`. Editing files in other directories requires approval. "
    "Network access is restricted.\nApprovals are your mechanism to get user consent to run shell "
    "commands without the sandbox. `approval_policy` is `on-request`: Commands will be run in the "
    "sandbox by default, and you can specify in your tool call if you want to escalate a command "
    "to run without sandboxing.\n"
)
_COLLAB = (
    "<collaboration_mode># Collaboration Mode: Default\n\nYou are now in Default mode. Any "
    "previous instructions for other modes are no longer active.\n</collaboration_mode>"
)
_RATE_LIMITS = {
    "limit_id": "codex",
    "limit_name": None,
    "primary": {"used_percent": 2.0, "window_minutes": 300, "resets_at": 1_788_230_000},
    "secondary": {"used_percent": 1.0, "window_minutes": 10080, "resets_at": 1_788_700_000},
    "credits": {"has_credits": False, "unlimited": False, "balance": None},
    "plan_type": None,
}


class _CodexSession:
    """Writes one rollout file, line by line, counting what lazy will store."""

    def __init__(
        self,
        fh: IO[bytes],
        rng: random.Random,
        content: _Content,
        stats: AgentStats,
        *,
        thread_id: str,
        start: float,
        cwd: str,
        version: str,
        model: str,
        texts: dict[str, str],
    ) -> None:
        self.fh = fh
        self.rng = rng
        self.c = content
        self.stats = stats
        self.thread_id = thread_id
        self.clock = start
        self.cwd = cwd
        self.version = version
        self.model = model
        self.texts = texts
        self.bytes = 0
        self.turn_id = ""
        self.usage_total = {
            "input_tokens": 0,
            "cached_input_tokens": 0,
            "output_tokens": 0,
            "reasoning_output_tokens": 0,
            "total_tokens": 0,
        }

    # -- output -------------------------------------------------------------------------------

    def tick(self, lo: float = 0.001, hi: float = 0.05) -> str:
        self.clock += self.rng.uniform(lo, hi)
        return _iso(self.clock)

    def emit(self, kind: str, payload: dict[str, Any], ts: str | None = None) -> None:
        line = orjson.dumps({"timestamp": ts or self.tick(), "type": kind, "payload": payload})
        data = line + b"\n"
        self.fh.write(data)
        n = len(data)
        self.bytes += n
        st = self.stats
        st.bytes += n
        st.lines += 1
        st.max_line = max(st.max_line, n)

    def item(self, payload: dict[str, Any], ts: str | None = None) -> None:
        self.emit("response_item", payload, ts)

    def event(self, payload: dict[str, Any], ts: str | None = None) -> None:
        self.emit("event_msg", payload, ts)

    # -- pieces -------------------------------------------------------------------------------

    def meta(self, start: float) -> None:
        rng = self.rng
        self.emit(
            "session_meta",
            {
                "id": self.thread_id,
                "timestamp": _iso(start),
                "cwd": self.cwd,
                "originator": rng.choice(("codex_cli_rs", "codex_cli_rs", "Codex Desktop")),
                "cli_version": self.version,
                "source": rng.choice(("cli", "cli", "vscode")),
                "model_provider": "openai",
                "base_instructions": {"text": self.texts["base"]},
                "git": {
                    "commit_hash": f"{rng.getrandbits(160):040x}",
                    "branch": rng.choice(("main", "main", "dev", "feature/import")),
                    "repository_url": f"git@github.com:u/{self.cwd.rsplit('/', 1)[-1]}.git",
                },
            },
            ts=self.tick(2.0, 8.0),
        )

    def message(self, role: str, text: str, *, phase: str | None = None, extra: Any = None) -> None:
        kind = "output_text" if role == "assistant" else "input_text"
        content: list[dict[str, Any]] = [{"type": kind, "text": text}]
        if extra:
            content.extend(extra)
        p: dict[str, Any] = {"type": "message", "role": role, "content": content}
        if phase:
            p["phase"] = phase
        self.item(p)
        self.stats.messages += 1

    def harness(self) -> None:
        """The developer and user messages Codex sends before the first prompt."""
        t = self.texts
        self.message("developer", _PERMISSIONS)
        self.message("developer", t["developer"])
        self.message(
            "user", f"# AGENTS.md instructions for {self.cwd}\n\n<INSTRUCTIONS>\n{t['agents']}\n"
            "</INSTRUCTIONS>"
        )  # fmt: skip
        self.message(
            "user",
            f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <shell>bash</shell>\n"
            "</environment_context>",
        )
        self.message("developer", _COLLAB)
        self.stats.harness += 5

    def turn_context(self) -> None:
        t = self.texts
        self.emit(
            "turn_context",
            {
                "turn_id": self.turn_id,
                "cwd": self.cwd,
                "approval_policy": "on-request",
                "sandbox_policy": {
                    "type": "workspace-write",
                    "writable_roots": [self.cwd],
                    "network_access": False,
                    "exclude_tmpdir_env_var": False,
                    "exclude_slash_tmp": False,
                },
                "model": self.model,
                "personality": "pragmatic",
                "collaboration_mode": {
                    "mode": "default",
                    "settings": {
                        "model": self.model,
                        "reasoning_effort": "high",
                        "developer_instructions": _COLLAB,
                    },
                },
                "effort": "high",
                "summary": "auto",
                "user_instructions": t["agents"],
                "developer_instructions": t["developer"],
                "truncation_policy": {"mode": "tokens", "limit": 10000},
            },
        )

    def token_count(self, fresh: bool = True) -> None:
        rng = self.rng
        if self.usage_total["total_tokens"] == 0 and not fresh:
            self.event({"type": "token_count", "info": None, "rate_limits": _RATE_LIMITS})
            return
        if fresh:
            inp = rng.randint(15_000, 140_000)
            last = {
                "input_tokens": inp,
                "cached_input_tokens": int(inp * rng.uniform(0.5, 0.98)),
                "output_tokens": rng.randint(60, 2000),
                "reasoning_output_tokens": rng.randint(0, 900),
            }
            last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
            for k, v in last.items():
                self.usage_total[k] += v
            self.last_usage = last
        info = {
            "total_token_usage": dict(self.usage_total),
            "last_token_usage": dict(self.last_usage),
            "model_context_window": 258400,
        }
        self.event({"type": "token_count", "info": info, "rate_limits": _RATE_LIMITS})

    def reasoning(self) -> None:
        summary = self.c.title()
        if self.rng.random() < 0.4:
            summary += "\n\n" + self.c.thought(self.rng.randint(1, 4))
        self.event({"type": "agent_reasoning", "text": summary}, ts=self.tick(1.0, 8.0))
        self.item(
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": summary}],
                "content": None,
                "encrypted_content": self.c.encrypted(1600, 0.8, 40_000),
            }
        )
        self.stats.messages += 1
        self.stats.reasoning += 1

    def say(self, text: str, phase: str) -> None:
        self.event({"type": "agent_message", "message": text}, ts=self.tick(0.5, 6.0))
        self.message("assistant", text, phase=phase)
        self.stats.assistant_texts += 1

    def call(self, budget: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """One tool call and its output item (payloads), roughly within ``budget`` bytes."""
        rng = self.rng
        call_id = "call_" + _b62(rng, 24)
        kind = rng.choices(
            ("exec", "patch", "stdin", "plan", "search"), (0.78, 0.12, 0.04, 0.03, 0.03)
        )[0]
        cap = max(400, budget)
        if kind == "patch":
            return self._patch_call(call_id, cap)
        if kind == "search":
            return self._search_call(call_id)
        if kind == "plan":
            return self._plan_call(call_id)
        return self._exec_call(call_id, cap, kind)

    def _patch_call(self, call_id: str, cap: int) -> tuple[dict[str, Any], dict[str, Any]]:
        rng, c = self.rng, self.c
        path, old, _ = c.file_window(min(cap // 2, c.output_size(1500, 12_000)))
        new = old + f"\n    # {rng.choice(_COMMENTS)}"
        body = "\n".join(" " + x for x in old.split("\n")[:3])
        body += "\n" + "\n".join("-" + x for x in old.split("\n")[3:])
        body += "\n" + "\n".join("+" + x for x in new.split("\n")[3:])
        patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n{body}\n*** End Patch\n"
        out = orjson.dumps(
            {
                "output": f"Success. Updated the following files:\nM {path}\n",
                "metadata": {"exit_code": 0, "duration_seconds": 0.0},
            }
        ).decode()
        call = {
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": call_id,
            "name": "apply_patch",
            "input": patch,
        }
        return call, {"type": "custom_tool_call_output", "call_id": call_id, "output": out}

    def _search_call(self, call_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
        c = self.c
        query = c.fill.fill("{w} {w2} python best practice")
        call = {
            "type": "function_call",
            "name": "web_search",
            "arguments": orjson.dumps({"query": query}).decode(),
            "call_id": call_id,
        }
        out_text = c.text(2, 12)
        return call, {"type": "function_call_output", "call_id": call_id, "output": out_text}

    def _plan_call(self, call_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
        rng, c = self.rng, self.c
        steps = [
            {"step": c.fill.fill("Fix {w} handling in {f}"), "status": s}
            for s in ("completed", "in_progress", "pending", "pending")[: rng.randint(2, 4)]
        ]
        args = {"explanation": c.fill.fill("Tracking the {w} work"), "plan": steps}
        call = {
            "type": "function_call",
            "name": "update_plan",
            "arguments": orjson.dumps(args).decode(),
            "call_id": call_id,
        }
        return call, {
            "type": "function_call_output",
            "call_id": call_id,
            "output": "Plan updated",
        }

    def _exec_call(
        self, call_id: str, cap: int, kind: str
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """``exec_command`` (a command's output) or ``write_stdin`` (``kind`` ``stdin``)."""
        rng, c = self.rng, self.c
        size = min(cap, c.output_size(1400, 40_000))
        if kind == "stdin":
            args = {"session_id": rng.randint(1, 90), "chars": "", "yield_time_ms": 30000}
            body = c.log("npm", size)
            name = "write_stdin"
        else:
            what = rng.choices(("read", "rg", "pytest", "git", "ls"), (0.4, 0.25, 0.2, 0.1, 0.05))[
                0
            ]
            if what == "read":
                path, body, first = c.file_window(size)
                cmd = f"sed -n '{first + 1},{first + body.count(chr(10)) + 1}p' {path}"
            elif what == "rg":
                body = c.grep(size)
                cmd = f'rg -n "{rng.choice(_WORDS)}" src tests'
            elif what == "pytest":
                body = c.log("pytest", size)
                cmd = "python -m pytest -q tests/unit"
            elif what == "git":
                body = c.log("git", size)
                cmd = "git log --oneline -200"
            else:
                body = c.log("ls", size)
                cmd = "ls -la src"
            args = {"cmd": cmd, "workdir": self.cwd, "yield_time_ms": 10000}
            if rng.random() < 0.5:
                args["max_output_tokens"] = 12000
            name = "exec_command"
        code = 1 if rng.random() < 0.08 else 0
        out_text = (
            f"Chunk ID: {rng.getrandbits(24):06x}\nWall time: {rng.uniform(0.01, 9):.4f} seconds\n"
            f"Process exited with code {code}\nOriginal token count: {len(body) // 4}\n"
            f"Output:\n{body}"
        )
        call = {
            "type": "function_call",
            "name": name,
            "arguments": orjson.dumps(args).decode(),
            "call_id": call_id,
        }
        return call, {"type": "function_call_output", "call_id": call_id, "output": out_text}

    def compaction(self) -> None:
        history = [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": p}]}
            for p in (self.c.prompt() for _ in range(3))
        ]
        history.append(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": self.c.text(4, 20)}],
                "phase": "final_answer",
            }
        )
        # the real compacted line carries an empty message: lazy stores nothing for it
        self.emit("compacted", {"message": "", "replacement_history": history})
        self.event({"type": "context_compacted"})
        self.stats.compactions += 1

    # -- a turn ---------------------------------------------------------------------------------

    def turn(self, target: int, first: bool, image: bool, compact: bool) -> None:
        rng, c, st = self.rng, self.c, self.stats
        self.clock += rng.uniform(20, 900) if not first else 0
        self.turn_id = uuid7(int(self.clock * 1000), rng)
        self.event(
            {
                "type": "task_started",
                "turn_id": self.turn_id,
                "model_context_window": 258400,
                "collaboration_mode_kind": "default",
            }
        )
        prompt = c.prompt()
        images: list[str] = []
        extra = None
        if image:
            url = c.image_url(big=rng.random() < 0.3)
            images = [url]
            extra = [{"type": "input_image", "image_url": url}]
            st.images += 1
        self.message("user", prompt, extra=extra)
        self.event(
            {
                "type": "user_message",
                "message": prompt,
                "images": images,
                "local_images": [],
                "text_elements": [],
            }
        )
        st.user_prompts += 1
        self.turn_context()
        self.token_count(fresh=False)
        steps = max(1, int(min(60, rng.lognormvariate(math.log(8), 0.9))))
        for _ in range(steps):
            if rng.random() < 0.75:
                self.reasoning()
            if rng.random() < 0.6:
                self.say(c.text(1, 3), "commentary")
            pairs = [
                self.call(target - self.bytes)
                for _ in range(rng.choices((1, 2, 3, 4), (0.5, 0.25, 0.15, 0.1))[0])
            ]
            for call, _ in pairs:
                self.item(call)
            self.token_count()
            self.clock += rng.uniform(0.05, 3.0)
            for _, out in pairs:
                self.item(out)
            st.tool_calls += len(pairs)
            st.tool_outputs += len(pairs)
            st.messages += 2 * len(pairs)
            self.turn_context()
            self.token_count(fresh=False)
            if self.bytes >= target:
                break
        self.reasoning()
        final = c.text(3, 14)
        self.say(final, "final_answer")
        self.token_count()
        self.event({"type": "task_complete", "turn_id": self.turn_id, "last_agent_message": final})
        if compact:  # a /compact between turns
            self.compaction()


def _codex_texts(rng: random.Random, content: _Content) -> dict[str, str]:
    """Instruction texts repeated by every session and turn_context (sizes as in real data)."""
    base = "You are Codex, based on GPT-5. You are running as a coding agent in the Codex CLI.\n\n"
    while len(base) < 13_000:
        base += content.text(3, 8) + "\n\n"
    developer = "<skills_instructions>\n## Skills\n"
    while len(developer) < 6_600:
        developer += f"- {content.fill.fill('{w}-{w2}: {C} helpers for {w} work')} (file: "
        developer += f"/home/u/.codex/skills/{rng.choice(_WORDS)}/SKILL.md)\n"
    developer += "</skills_instructions>"
    agents = "# Repository guidelines\n\n"
    while len(agents) < 2_900:
        agents += f"- {content.fill.fill(rng.choice(_SENTENCES))}\n"
    return {"base": base, "developer": developer, "agents": agents}


@dataclass
class CodexSessionInfo:
    path: Path
    thread_id: str
    bytes: int
    stats: AgentStats


def make_codex_session(
    sessions_dir: Path,
    target_bytes: int,
    seed: int,
    *,
    start: float | None = None,
    cwd: str = "/home/u/proj-0",
    image: bool = False,
    compaction: bool = False,
    images: bool = True,
) -> CodexSessionInfo:
    """One rollout of about ``target_bytes`` under ``sessions_dir/YYYY/MM/DD/``."""
    rng = random.Random(seed)
    content = _Content(rng, _blobs(0))
    texts = _CODEX_TEXTS.get(0) or _CODEX_TEXTS.setdefault(
        0, _codex_texts(random.Random(7), _Content(random.Random(7), _blobs(0)))
    )
    start = start if start is not None else _BASE_EPOCH + rng.uniform(0, _SPAN_SECONDS)
    thread_id = uuid7(int(start * 1000), rng)
    local = time.gmtime(int(start) + LOCAL_OFFSET_S)
    stamp = time.strftime("%Y-%m-%dT%H-%M-%S", local)
    path = sessions_dir / time.strftime("%Y/%m/%d", local) / f"rollout-{stamp}-{thread_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    stats = AgentStats(files=1, sessions=1)
    with path.open("wb", buffering=1 << 20) as fh:
        s = _CodexSession(
            fh,
            rng,
            content,
            stats,
            thread_id=thread_id,
            start=start,
            cwd=cwd,
            version=rng.choice(CODEX_VERSIONS),
            model=rng.choice(CODEX_MODELS),
            texts=texts,
        )
        s.meta(start)
        s.harness()
        first = True
        # big sessions: a compaction every ~4 MB, an image now and then
        next_compaction = 4_000_000 if compaction or target_bytes > 4_000_000 else math.inf
        while first or s.bytes < target_bytes:
            turn_budget = s.bytes + max(2_000, int(rng.lognormvariate(math.log(120_000), 1.0)))
            compact = s.bytes >= next_compaction or (compaction and first)
            if compact:
                next_compaction = s.bytes + 4_000_000
            s.turn(
                min(target_bytes, turn_budget),
                first,
                image=images and ((image and first) or rng.random() < 0.02),
                compact=compact,
            )
            first = False
    return CodexSessionInfo(path, thread_id, stats.bytes, stats)


_CODEX_TEXTS: dict[int, dict[str, str]] = {}


def generate_codex(
    dest: Path,
    total_bytes: int,
    seed: int = 0,
    *,
    largest_session: int | None = None,
    images: bool = True,
) -> AgentCorpusInfo:
    """A Codex history of about ``total_bytes`` under ``dest/sessions`` (dest = CODEX_HOME).

    ``images=False`` leaves out pasted images (lazy stores an image-bearing prompt twice: see
    bench/README.md)."""
    t0 = time.perf_counter()
    rng = random.Random(seed ^ 0xC0DE)
    sessions_dir = dest / "sessions"
    sessions_dir.mkdir(parents=True, exist_ok=True)
    cwds = _cwds(total_bytes)
    weights = [1.0 / (i + 1) for i in range(len(cwds))]
    stats = AgentStats()
    files: list[Path] = []
    used: set[int] = set()
    for i, size in enumerate(_sizes(rng, total_bytes, largest_session)):
        left = total_bytes - stats.bytes
        if left <= 0:
            break
        p = i if i < len(cwds) else rng.choices(range(len(cwds)), weights)[0]
        used.add(p)
        info = make_codex_session(
            sessions_dir,
            min(size, left),
            seed * 1_000_003 + i + 1,
            cwd=cwds[p],
            image=i == 0,
            compaction=i == 0 and total_bytes >= 1_000_000,
            images=images,
        )
        stats.add(info.stats)
        files.append(info.path)
    return AgentCorpusInfo(
        "codex",
        dest,
        dest,
        total_bytes,
        seed,
        len(used),
        time.perf_counter() - t0,
        stats,
        sorted(files),
    )


# --------------------------------------------------------------------------------------------------
# OpenCode

# OpenCode 1.18.33's tables lazy reads: the DDL the tests' OpenCode writer runs
DDL = opencode.DDL

OPENCODE_VERSION = "1.18.33"
_PERMISSION = orjson.dumps(
    [
        {"permission": "question", "pattern": "*", "action": "deny"},
        {"permission": "plan_enter", "pattern": "*", "action": "deny"},
    ]
).decode()
_SLUG_A = ("nimble", "quiet", "brave", "sunny", "clever", "swift", "calm", "bold", "lucky")
_SLUG_B = ("otter", "falcon", "river", "comet", "maple", "harbor", "pixel", "meadow", "tiger")
_MASK48 = 2**48 - 1


class _OcIds:
    """OpenCode's Identifier.create: 6 bytes of (ms * 0x1000 + counter), bit-inverted for
    descending ids (sessions: newer sorts first), then 14 random base62 characters."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.last_ms = -1
        self.counter = 0

    def make(self, prefix: str, ms: int, descending: bool = False) -> str:
        if ms != self.last_ms:
            self.last_ms, self.counter = ms, 0
        self.counter += 1
        now = (ms * 0x1000 + self.counter) & _MASK48
        if descending:
            now = ~now & _MASK48
        return f"{prefix}_{now:012x}{_b62(self.rng, 14)}"


def _ms(t: float) -> int:
    return int(t * 1000)


# a tool part's input, output, metadata and title
_ToolParts = tuple[dict[str, Any], str, dict[str, Any], str]


class _OcSession:
    """One session's rows (and its task children's), buffered, counting what lazy will store."""

    def __init__(
        self,
        out: _OcRows,
        rng: random.Random,
        content: _Content,
        ids: _OcIds,
        stats: AgentStats,
        *,
        project_id: str,
        cwd: str,
        start: float,
        parent: str | None = None,
        title: str | None = None,
    ) -> None:
        self.out = out
        self.rng = rng
        self.c = content
        self.ids = ids
        self.stats = stats
        self.project_id = project_id
        self.cwd = cwd
        self.clock = start
        self.start = start
        self.parent = parent
        self.agent = "general" if parent else "build"
        # the task tool runs a child session; children run none (OpenCode denies them "task")
        self.task_weight = 0.0 if parent else 0.01
        self.sid = ids.make("ses", _ms(start), descending=True)
        self.title = title
        self.bytes = 0
        self.totals = {"cost": 0.0, "input": 0, "output": 0, "reasoning": 0, "read": 0, "write": 0}

    def tick(self, lo: float = 0.01, hi: float = 0.5) -> int:
        self.clock += self.rng.uniform(lo, hi)
        return _ms(self.clock)

    # -- rows -----------------------------------------------------------------------------------

    def message(self, data: dict[str, Any], t: int) -> str:
        mid = self.ids.make("msg", t)
        blob = orjson.dumps(data).decode()
        self.out.messages.append((mid, self.sid, t, t + self.rng.randint(1, 900), blob))
        self._count(len(blob) + len(mid) + len(self.sid) + 16)
        self.stats.messages += 1
        return mid

    def part(self, mid: str, data: dict[str, Any], t: int) -> None:
        pid = self.ids.make("prt", t)
        blob = orjson.dumps(data).decode()
        self.out.parts.append((pid, mid, self.sid, t, t + self.rng.randint(1, 50), blob))
        self._count(len(blob) + len(pid) + len(mid) + len(self.sid) + 16)

    def _count(self, n: int) -> None:
        self.bytes += n
        self.stats.bytes += n
        self.stats.lines += 1
        self.stats.max_line = max(self.stats.max_line, n)

    def finish(self) -> None:
        t = self.totals
        self.out.sessions.append(
            (
                self.sid,
                self.project_id,
                self.parent,
                f"{self.rng.choice(_SLUG_A)}-{self.rng.choice(_SLUG_B)}",
                self.cwd,
                self.cwd.lstrip("/"),
                self.title or "New session",
                OPENCODE_VERSION,
                self.rng.randint(0, 400),
                self.rng.randint(0, 120),
                self.rng.randint(0, 12),
                round(t["cost"], 6),
                t["input"],
                t["output"],
                t["reasoning"],
                t["read"],
                t["write"],
                _PERMISSION,
                self.agent,
                '{"id":"claude-sonnet-4-5","providerID":"anthropic","variant":"default"}',
                _ms(self.start),
                _ms(self.clock),
            )
        )
        self.stats.sessions += 1
        if self.parent:
            self.stats.child_sessions += 1
        self._count(300)

    # -- content --------------------------------------------------------------------------------

    def user(self, prompt: str, image: bool = False) -> str:
        t = self.tick(20, 600)
        data = {
            "role": "user",
            "time": {"created": t},
            "agent": self.agent,
            "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"},
            "summary": {"diffs": []},
        }
        mid = self.message(data, t)
        self.part(mid, {"type": "text", "text": prompt}, t)
        if image:
            url = self.c.image_url(big=self.rng.random() < 0.3)
            self.part(
                mid, {"type": "file", "mime": "image/png", "filename": "image.png", "url": url}, t
            )
            self.stats.images += 1
        elif self.rng.random() < 0.05:  # an @-mentioned file: the Read output as synthetic text
            path, text, _ = self.c.file_window(self.c.output_size(3000, 30_000))
            numbered = "\n".join(f"{i + 1:05d}| {x}" for i, x in enumerate(text.split("\n")))
            call = (
                f'Called the Read tool with the following input: {{"filePath":"{self.cwd}/{path}"}}'
            )
            self.part(mid, {"type": "text", "synthetic": True, "text": call}, t)
            body = f"<file>\n{numbered}\n\n(End of file - total {text.count(chr(10)) + 1} lines)\n</file>"
            self.part(mid, {"type": "text", "synthetic": True, "text": body}, t)
            self.part(
                mid,
                {
                    "type": "file",
                    "mime": "text/plain",
                    "filename": path.rsplit("/", 1)[-1],
                    "url": f"file://{self.cwd}/{path}",
                    "source": {
                        "type": "file",
                        "path": path,
                        "text": {"value": f"@{path}", "start": 0, "end": len(path) + 1},
                    },
                },
                t,
            )
        self.stats.user_prompts += 1
        if self.title is None:
            self.title = prompt.split("\n", 1)[0][:60]
        return mid

    def step(self, parent_mid: str, final: bool, budget: int) -> str:
        """One assistant message: one model step (reasoning, text, tools or the final answer)."""
        rng, c, st = self.rng, self.c, self.stats
        t0 = self.tick(0.5, 4.0)
        tools = (
            []
            if final
            else [self.tool(budget) for _ in range(rng.choices((1, 2, 3), (0.7, 0.2, 0.1))[0])]
        )
        tokens, cost = self._step_tokens()
        t1 = self.tick(1.0, 20.0)
        data = {
            "parentID": parent_mid,
            "role": "assistant",
            "mode": self.agent,
            "agent": self.agent,
            "path": {"cwd": self.cwd, "root": self.cwd},
            "cost": cost,
            "tokens": tokens,
            "modelID": "claude-sonnet-4-5",
            "providerID": "anthropic",
            "time": {"created": t0, "completed": t1},
            "finish": "stop" if final else "tool-calls",
        }
        mid = self.message(data, t0)
        snap = f"{rng.getrandbits(160):040x}"
        self.part(mid, {"type": "step-start", "snapshot": snap}, t0)
        if rng.random() < (0.8 if final else 0.55):
            sig = c.encrypted(1200, 0.8, 20_000)
            self.part(
                mid,
                {
                    "type": "reasoning",
                    "text": c.thought(rng.randint(1, 6)),
                    "time": {"start": t0, "end": t0 + rng.randint(100, 4000)},
                    "metadata": {"anthropic": {"signature": sig}},
                },
                t0,
            )
            st.reasoning += 1
        if final or rng.random() < 0.5:
            text = c.text(3, 14) if final else c.text(1, 3)
            self.part(
                mid,
                {"type": "text", "text": text, "time": {"start": t0, "end": t1}},
                t0,
            )
            st.assistant_texts += 1
        else:
            text = ""
        for part in tools:
            self.part(mid, part, t0)
        st.tool_calls += len(tools)
        st.tool_outputs += len(tools)
        self.part(
            mid,
            {
                "type": "step-finish",
                "reason": "stop" if final else "tool-calls",
                "snapshot": snap,
                "cost": cost,
                "tokens": tokens,
            },
            t1,
        )
        tt = self.totals
        tt["cost"] += cost
        tt["input"] += tokens["input"]
        tt["output"] += tokens["output"]
        tt["read"] += tokens["cache"]["read"]
        tt["write"] += tokens["cache"]["write"]
        return text

    def _step_tokens(self) -> tuple[dict[str, Any], float]:
        """A model step's token counts (most of its input read from the cache) and its cost."""
        rng = self.rng
        inp = rng.randint(8_000, 120_000)
        tokens = {
            "total": 0,
            "input": rng.randint(1, 12),
            "output": rng.randint(40, 2500),
            "reasoning": 0,
            "cache": {"write": rng.randint(0, 9000), "read": inp},
        }
        tokens["total"] = tokens["input"] + tokens["output"] + inp + tokens["cache"]["write"]
        return tokens, round(tokens["output"] * 15e-6 + inp * 0.3e-6, 6)

    def tool(self, budget: int) -> dict[str, Any]:
        rng = self.rng
        cap = max(400, budget)
        call_id = "toolu_01" + _b62(rng, 22)
        t0 = _ms(self.clock)
        t1 = t0 + rng.randint(5, 9000)
        kind = rng.choices(
            ("bash", "read", "edit", "grep", "glob", "todowrite", "webfetch", "task"),
            (0.3, 0.3, 0.14, 0.08, 0.05, 0.06, 0.05, self.task_weight),
        )[0]
        parts = {
            "bash": self._tool_bash, "read": self._tool_read, "edit": self._tool_edit,
            "grep": self._tool_grep, "glob": self._tool_glob, "todowrite": self._tool_todowrite,
            "webfetch": self._tool_webfetch, "task": self._tool_task,
        }  # fmt: skip
        inp, out, meta, title = parts[kind](cap)
        if kind == "task":  # the child session ran meanwhile: the call ends when it did
            t1 = _ms(self.clock)
        return {
            "type": "tool",
            "tool": kind,
            "callID": call_id,
            "state": {
                "status": "completed",
                "input": inp,
                "output": out,
                "metadata": meta,
                "title": title,
                "time": {"start": t0, "end": t1},
            },
        }

    def _tool_bash(self, cap: int) -> _ToolParts:
        rng, c = self.rng, self.c
        log_kind = rng.choice(corpus.LOG_KINDS)
        cmd = corpus.LOG_COMMANDS[log_kind]
        out = c.log(log_kind, min(cap // 2, c.output_size(1500, 30_000)))
        desc = c.fill.fill("Run {w} checks")
        inp = {"command": cmd, "description": desc}
        meta = {"output": out, "exit": 0, "description": desc, "truncated": False}
        title = desc
        return inp, out, meta, title

    def _tool_read(self, cap: int) -> _ToolParts:
        c = self.c
        path, text, first = c.file_window(min(cap, c.output_size(4000, 50_000)))
        lines = text.split("\n")
        numbered = "\n".join(f"{first + i + 1}: {x}" for i, x in enumerate(lines))
        out = (
            f"<path>{self.cwd}/{path}</path>\n<type>file</type>\n<content>\n{numbered}\n\n"
            f"(End of file - total {first + len(lines)} lines)\n</content>"
        )
        inp = {"filePath": f"{self.cwd}/{path}"}
        if first:
            inp.update(offset=first + 1, limit=len(lines))
        meta = {"preview": "\n".join(lines[:20]), "truncated": False, "loaded": []}
        title = path
        return inp, out, meta, title

    def _tool_edit(self, cap: int) -> _ToolParts:
        rng, c = self.rng, self.c
        f = rng.choice(c.blobs.files)
        before = f.raw.text[:-1][: max(200, cap // 3)]
        at = rng.randrange(max(1, before.count("\n") + 1))
        old = f.raw.window(at, rng.randint(1, 6))
        new = old + f"\n    # {rng.choice(_COMMENTS)}"
        after = before.replace(old, new, 1)
        path = f"{self.cwd}/{f.path}"
        diff = (
            f"Index: {path}\n===================================================================\n"
            f"--- {path}\n+++ {path}\n@@ -{at + 1},{old.count(chr(10)) + 1} "
            f"+{at + 1},{new.count(chr(10)) + 1} @@\n"
            + "\n".join(" " + x for x in old.split("\n"))
            + f"\n+    # {new.rsplit('# ', 1)[-1]}\n"
        )
        inp = {"filePath": path, "oldString": old, "newString": new}
        out = "Edit applied successfully."
        meta = {
            "diagnostics": {},
            "diff": diff,
            "filediff": {
                "file": path,
                "before": before,
                "after": after,
                "additions": 1,
                "deletions": 0,
            },
            "truncated": False,
        }
        title = f.path
        return inp, out, meta, title

    def _tool_grep(self, cap: int) -> _ToolParts:
        rng, c = self.rng, self.c
        pattern = rng.choice(_WORDS)
        hits = c.grep(min(cap, c.output_size(1200, 20_000)))
        n = hits.count("\n") + 1
        out = f"Found {n} matches\n{hits}"
        inp = {"pattern": pattern, "include": "*.py"}
        meta = {"matches": n, "truncated": False}
        title = pattern
        return inp, out, meta, title

    def _tool_glob(self, cap: int) -> _ToolParts:
        rng, c = self.rng, self.c
        names = [f"{self.cwd}/{f.path}" for f in rng.sample(c.blobs.files, rng.randint(3, 60))]
        out = "\n".join(names)
        inp = {"pattern": rng.choice(("**/*.py", "src/**/*.ts", "tests/**/*.py"))}
        meta = {"count": len(names), "truncated": False}
        title = inp["pattern"]
        return inp, out, meta, title

    def _tool_todowrite(self, cap: int) -> _ToolParts:
        rng, c = self.rng, self.c
        todos = [
            {
                "content": c.fill.fill("Fix {w} handling in {f}"),
                "status": rng.choice(("pending", "in_progress", "completed")),
                "priority": rng.choice(("high", "medium", "low")),
                "id": str(k + 1),
            }
            for k in range(rng.randint(2, 7))
        ]
        out = orjson.dumps(todos, option=orjson.OPT_INDENT_2).decode()
        inp = {"todos": todos}
        meta = {"todos": todos, "truncated": False}
        title = f"{sum(1 for x in todos if x['status'] != 'completed')} todos"
        return inp, out, meta, title

    def _tool_webfetch(self, cap: int) -> _ToolParts:
        rng, c = self.rng, self.c
        url = f"https://docs.example.org/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}.html"
        out = c.text(4, 40)[: max(200, cap // 2)]
        inp = {"url": url, "format": "markdown"}
        meta = {"truncated": False}
        title = f"{url} (text/html)"
        return inp, out, meta, title

    def _tool_task(self, cap: int) -> _ToolParts:
        rng, c = self.rng, self.c
        desc = c.fill.fill("Probe {w} {w2}")
        prompt = c.prompt()
        child = _OcSession(
            self.out,
            rng,
            c,
            self.ids,
            self.stats,
            project_id=self.project_id,
            cwd=self.cwd,
            start=self.clock + 0.2,
            parent=self.sid,
            title=f"{desc} (@general subagent)",
        )
        answer = child.run(min(cap, int(rng.lognormvariate(math.log(30_000), 0.8))), prompt)
        self.clock = max(self.clock, child.clock)
        self.bytes += child.bytes
        out = (
            f'<task id="{child.sid}" state="completed">\n<task_result>\n{answer}\n'
            "</task_result>\n</task>"
        )
        inp = {"description": desc, "prompt": prompt, "subagent_type": "general"}
        meta = {
            "parentSessionId": self.sid,
            "sessionId": child.sid,
            "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"},
            "truncated": False,
        }
        title = desc
        return inp, out, meta, title

    def run(self, target: int, first_prompt: str | None = None, image: bool = False) -> str:
        """Turns until about ``target`` bytes; returns the last answer's text."""
        rng = self.rng
        answer = ""
        first = True
        while first or self.bytes < target:
            prompt = first_prompt if first and first_prompt else self.c.prompt()
            umid = self.user(prompt, image=(image and first) or rng.random() < 0.02)
            first = False
            turn_end = self.bytes + max(2_000, int(rng.lognormvariate(math.log(100_000), 1.0)))
            turn_end = min(turn_end, target)
            steps = max(1, int(min(60, rng.lognormvariate(math.log(6), 0.9))))
            for _ in range(steps):
                self.step(umid, False, turn_end - self.bytes)
                if self.bytes >= turn_end:
                    break
            answer = self.step(umid, True, 0)
            if self.parent is not None:
                break  # a task child answers one prompt
        self.finish()
        return answer


@dataclass
class _OcRows:
    sessions: list[tuple[Any, ...]] = field(default_factory=list)
    messages: list[tuple[Any, ...]] = field(default_factory=list)
    parts: list[tuple[Any, ...]] = field(default_factory=list)

    def flush(self, con: sqlite3.Connection) -> None:
        con.executemany(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, path, title, version,"
            " summary_additions, summary_deletions, summary_files, cost, tokens_input,"
            " tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, permission,"
            " agent, model, time_created, time_updated)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            self.sessions,
        )
        con.executemany("INSERT INTO message VALUES (?,?,?,?,?)", self.messages)
        con.executemany("INSERT INTO part VALUES (?,?,?,?,?,?)", self.parts)
        self.sessions.clear()
        self.messages.clear()
        self.parts.clear()


def _db_file_bytes(con: sqlite3.Connection) -> int:
    pages = con.execute("PRAGMA page_count").fetchone()[0]
    size = con.execute("PRAGMA page_size").fetchone()[0]
    return int(pages) * int(size)


def generate_opencode(
    dest: Path, total_bytes: int, seed: int = 0, *, largest_session: int | None = None
) -> AgentCorpusInfo:
    """An OpenCode data dir at ``dest`` whose ``opencode.db`` is about ``total_bytes``."""
    t0 = time.perf_counter()
    rng = random.Random(seed ^ 0x0C0DE)
    content = _Content(rng, _blobs(0))
    ids = _OcIds(rng)
    dest.mkdir(parents=True, exist_ok=True)
    db = dest / "opencode.db"
    db.unlink(missing_ok=True)
    con = sqlite3.connect(db)
    # built without a journal (a throwaway file), then switched to WAL as OpenCode leaves it
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    for ddl in DDL:
        con.execute(ddl)
    cwds = _cwds(total_bytes)
    projects = [f"{rng.getrandbits(160):040x}" for _ in cwds]
    t_base = _ms(_BASE_EPOCH - 86_400 * 30)
    con.executemany(
        "INSERT INTO project VALUES (?,?,?,NULL,NULL,NULL,NULL,?,?,?,'[]',NULL)",
        [(p, cwd, "git", t_base, t_base, t_base) for p, cwd in zip(projects, cwds, strict=True)],
    )
    weights = [1.0 / (i + 1) for i in range(len(cwds))]
    stats = AgentStats(files=1)
    rows = _OcRows()
    used: set[int] = set()
    sizes = iter(_sizes(rng, total_bytes, largest_session))
    file_bytes = _db_file_bytes(con)
    ratio = 1.15  # file bytes per data byte; measured as the file grows
    i = 0
    while file_bytes < total_bytes:
        size = next(sizes, total_bytes)
        left = (total_bytes - file_bytes) / ratio
        target = int(max(3_000, min(size / ratio, left)))
        p = i if i < len(cwds) else rng.choices(range(len(cwds)), weights)[0]
        used.add(p)
        s = _OcSession(
            rows,
            random.Random(seed * 1_000_003 + i + 1),
            content,
            ids,
            stats,
            project_id=projects[p],
            cwd=cwds[p],
            start=_BASE_EPOCH + rng.uniform(0, _SPAN_SECONDS),
        )
        s.c = _Content(s.rng, content.blobs)
        if i == 0:
            s.task_weight = 0.3  # tiny corpora still get a child session
        s.run(target, image=i == 0)
        rows.flush(con)
        con.commit()
        file_bytes = _db_file_bytes(con)
        if stats.bytes:
            ratio = max(1.0, file_bytes / stats.bytes)
        i += 1
    con.execute("PRAGMA journal_mode=WAL")
    con.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    return AgentCorpusInfo(
        "opencode", dest, dest, total_bytes, seed, len(used), time.perf_counter() - t0, stats, [db]
    )


# --------------------------------------------------------------------------------------------------


def generate(
    tool: str, dest: Path, total_bytes: int, seed: int = 0, *, largest_session: int | None = None
) -> AgentCorpusInfo:
    if tool == "codex":
        return generate_codex(dest, total_bytes, seed, largest_session=largest_session)
    if tool == "opencode":
        return generate_opencode(dest, total_bytes, seed, largest_session=largest_session)
    raise ValueError(f"unknown tool {tool!r} (codex, opencode)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("dest", type=Path)
    ap.add_argument("--tool", choices=("codex", "opencode"), required=True)
    ap.add_argument("--size", default="200MB", help="total size, e.g. 200MB, 1GB (default 200MB)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--largest-session", default=None, help="pin the largest session, e.g. 40MB")
    args = ap.parse_args(argv)
    largest = parse_size(args.largest_session) if args.largest_session else None
    info = generate(args.tool, args.dest, parse_size(args.size), args.seed, largest_session=largest)
    out = info.to_dict()
    out["mb_per_s"] = round(info.bytes_on_disk / 1e6 / max(info.seconds, 1e-9), 1)
    sys.stdout.write(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
