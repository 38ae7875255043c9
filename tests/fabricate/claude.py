"""Claude Code session files, written as the CLI writes them.

Two writers of the same format, at two depths:

* :class:`Session`: Claude Code 2.0.x two-line turns (a prompt, then a one-block assistant
  API message), appended to ``<root>/<encoded cwd>/<id>.jsonl`` as they are made; subagent
  files with :func:`subagent`. Most tests, bench/hook.py and bench/sidecar.py use it.
* :class:`SessionWriter`: what one real Claude Code 2.1.114 turn writes, field for field and
  in the same key order: the templates are lines of ``handgemacht-ai/claude-code-log``
  ``test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl``,
  with long texts and signatures shortened. Ids, timestamps and texts are substituted per
  session, deterministically from a seed, so a test knows exactly which messages a file holds
  and in which order. One :meth:`SessionWriter.turn` is a file-history snapshot, the prompt,
  one assistant API message spread over three lines (thinking, text, tool_use, all sharing
  ``message.id``), the tool result, a closing assistant message, the stop-hook and
  turn-duration system records and a ``last-prompt`` record: four messages.
"""

from __future__ import annotations

import random
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

VERSION = "2.0.42"
MODEL = "claude-sonnet-4-5"
# Session's clock: its n-th line is stamped n seconds after this
TIME0 = datetime(2026, 11, 1, 10, 0, tzinfo=UTC)


def project_dir(root: Path, cwd: str) -> Path:
    """Where Claude Code keeps a cwd's sessions: every character not a letter or digit is ``-``."""
    return root / re.sub(r"[^A-Za-z0-9]", "-", cwd)


def iso(at: datetime) -> str:
    """A timestamp as Claude Code writes it: UTC, milliseconds, ``Z``."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def assistant_message(
    content: str | list[dict[str, Any]],
    message_id: str | None = None,
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The API message a 2.0.x assistant line holds: a text reply, or the blocks given;
    ``usage``: its ``message.usage`` (Anthropic's field names), else 3 in / 7 out."""
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    return {
        "id": message_id or f"msg_{uuid.uuid4().hex[:20]}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": blocks,
        "usage": usage or {"input_tokens": 3, "output_tokens": 7},
    }


def tool_use(name: str, tool_input: dict[str, Any], tool_id: str) -> dict[str, Any]:
    """A ``tool_use`` content block."""
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def tool_result(tool_id: str, output: Any) -> dict[str, Any]:
    """A ``tool_result`` content block answering ``tool_id``."""
    return {"type": "tool_result", "tool_use_id": tool_id, "content": output}


class Session:
    """One Claude Code 2.0.x session file; ``last`` is the uuid the next line chains on, ``n``
    the lines written so far (the clock: line n is stamped ``TIME0 + n`` seconds)."""

    def __init__(
        self,
        root: Path,
        cwd: str,
        session_id: str | None = None,
        version: str = VERSION,
        *,
        branch: str = "main",
        path: Path | None = None,
    ) -> None:
        self.id = session_id or str(uuid.uuid4())
        self.cwd = cwd
        self.version = version
        self.branch = branch
        self.path = path or project_dir(root, cwd) / f"{self.id}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.last: str | None = None
        self.n = 0
        self.sidechain: dict[str, Any] = {}

    def line(self, kind: str, *, at: datetime | None = None, **extra: Any) -> dict[str, Any]:
        """The next line of ``kind`` (chained on the last), not written yet."""
        self.n += 1
        u = str(uuid.uuid4())
        obj = {
            "parentUuid": self.last,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.id,
            "version": self.version,
            "gitBranch": self.branch,
            "type": kind,
            "uuid": u,
            "timestamp": iso(at or TIME0 + timedelta(seconds=self.n)),
        }
        obj.update(self.sidechain)
        obj.update(extra)
        self.last = u
        return obj

    def write(self, *objs: dict[str, Any]) -> None:
        with open(self.path, "ab") as f:
            f.write(b"".join(orjson.dumps(o) + b"\n" for o in objs))

    def user_line(self, content: str | list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return self.line("user", message={"role": "user", "content": content}, **extra)

    def assistant_line(
        self, content: str | list[dict[str, Any]], *, message_id: str | None = None,
        request_id: str | None = None, usage: dict[str, Any] | None = None, **extra: Any,
    ) -> dict[str, Any]:  # fmt: skip
        rid = request_id or f"req_{self.n}"
        message = assistant_message(content, message_id, usage)
        return self.line("assistant", requestId=rid, message=message, **extra)

    def tool_use_line(
        self, name: str, tool_input: dict[str, Any], tool_id: str, *, text: str | None = None,
        **extra: Any,
    ) -> dict[str, Any]:  # fmt: skip
        """An assistant line calling a tool (after ``text``, if given, in the same message)."""
        blocks = [{"type": "text", "text": text}] if text is not None else []
        return self.assistant_line([*blocks, tool_use(name, tool_input, tool_id)], **extra)

    def tool_result_line(self, tool_id: str, output: Any, **extra: Any) -> dict[str, Any]:
        """The user line carrying a tool's output back."""
        return self.user_line([tool_result(tool_id, output)], **extra)

    def user(self, text: str, **extra: Any) -> None:
        self.write(self.user_line(text, **extra))

    def assistant(self, text: str, **extra: Any) -> None:
        self.write(self.assistant_line(text, **extra))

    def turn_lines(
        self, prompt: str, reply: str, at: datetime | None = None
    ) -> list[dict[str, Any]]:
        """A turn's two lines, not written; ``at``: the prompt's time (the reply's is 2 s later)."""
        later = at + timedelta(seconds=2) if at else None
        return [self.user_line(prompt, at=at), self.assistant_line(reply, at=later)]

    def turn(self, prompt: str, reply: str, at: datetime | None = None) -> None:
        self.write(*self.turn_lines(prompt, reply, at))

    def hook_input(self, event: str = "Stop") -> dict[str, Any]:
        """The JSON Claude Code passes a hook on stdin for this session."""
        return {"session_id": self.id, "transcript_path": str(self.path), "cwd": self.cwd,
                "hook_event_name": event}  # fmt: skip


def subagent(main: Session, subagent_id: str, prompt: str, reply: str) -> Path:
    """A subagent's file as Claude Code 2.x lays it out: ``<session>/subagents/agent-<id>.jsonl``
    beside the main session's file, every line a sidechain line naming the subagent."""
    path = main.path.parent / main.id / "subagents" / f"agent-{subagent_id}.jsonl"
    sub = Session(main.path.parent.parent, main.cwd, main.id, main.version, path=path)
    sub.sidechain = {"isSidechain": True, "agentId": subagent_id}
    sub.user(prompt)
    sub.assistant(reply, message_id=f"msg_sub_{subagent_id}", request_id="req_sub")
    return sub.path


# ---- Claude Code 2.1.114 whole turns ----------------------------------------------------------

FULL_VERSION = "2.1.114"
FULL_MODEL = "claude-opus-4-7"
DEFAULT_CWD = "/home/dev/lazy-reliability-project"
MESSAGES_PER_TURN = 4

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_WORDS = (  # noqa: SIM905 - a list of words reads better as words
    "drwxr-xr-x rw-r--r-- root staff src tests build dist node_modules package.json"
    " README.md total 4096 Nov 30 11:40 main.py lazy capture store index pipeline.py ok"
    " PASSED FAILED warning error import from def class return self None True False 0 1 2"
    " 3 42 1024 = -> :: / ./ ../ .venv sidecar bench protocol Makefile pyproject.toml"
    " uv.lock git HEAD"
).split()


def dumps(obj: dict[str, Any]) -> bytes:
    """One JSONL line as Claude Code writes it: compact JSON, then a newline."""
    return orjson.dumps(obj) + b"\n"


def _usage(out: int) -> dict[str, Any]:
    return {
        "input_tokens": 6,
        "cache_creation_input_tokens": 27860,
        "cache_read_input_tokens": 0,
        "output_tokens": out,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {"ephemeral_1h_input_tokens": 27860, "ephemeral_5m_input_tokens": 0},
        "inference_geo": "",
        "iterations": [
            {
                "input_tokens": 6,
                "output_tokens": out,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 27860,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": 0,
                    "ephemeral_1h_input_tokens": 27860,
                },
                "type": "message",
            }
        ],
        "speed": "standard",
    }


@dataclass
class Message:
    """What one stored message should be: its key (message.id or line uuid) and its role."""

    key: str
    role: str
    text: str


@dataclass
class SessionWriter:
    """Builds the lines of one session; ``messages`` lists what they hold, in order."""

    session_id: str
    cwd: str = DEFAULT_CWD
    seed: int = 0
    start: datetime = field(default_factory=lambda: datetime(2026, 4, 18, 13, 10, 51, tzinfo=UTC))
    lines: list[bytes] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    turns: int = 0

    def __post_init__(self) -> None:
        self._rng = random.Random(f"{self.session_id}:{self.seed}")
        self._clock = self.start
        self._parent: str | None = None

    # ---- ids and clock -------------------------------------------------------------------

    def _uuid(self) -> str:
        return str(uuid.UUID(int=self._rng.getrandbits(128), version=4))

    def _msg_id(self) -> str:
        return "msg_01" + "".join(self._rng.choice(_B62) for _ in range(22))

    def _req_id(self) -> str:
        return "req_011C" + "".join(self._rng.choice(_B62) for _ in range(18))

    def _tool_id(self) -> str:
        return "toolu_01" + "".join(self._rng.choice(_B62) for _ in range(22))

    def _prose(self, n: int) -> str:
        """About ``n`` characters of tool output: lines of words, as compressible as logs."""
        out: list[str] = []
        total = 0
        while total < n:
            line = " ".join(self._rng.choices(_WORDS, k=self._rng.randint(4, 14)))
            out.append(line)
            total += len(line) + 1
        return "\n".join(out)[:n]

    def _ts(self) -> str:
        self._clock += timedelta(milliseconds=self._rng.randint(3, 4000))
        return self._clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def _common(self) -> dict[str, Any]:
        return {
            "userType": "external",
            "entrypoint": "cli",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": FULL_VERSION,
            "gitBranch": "master",
        }

    def _add(self, obj: dict[str, Any]) -> bytes:
        line = dumps(obj)
        self.lines.append(line)
        return line

    # ---- records -------------------------------------------------------------------------

    def header(self) -> list[bytes]:
        """The control records a session opens with (no conversation in them)."""
        hook = self._uuid()
        out = [
            self._add(
                {
                    "type": "permission-mode",
                    "permissionMode": "acceptEdits",
                    "sessionId": self.session_id,
                }
            ),
            self._add(
                {
                    "parentUuid": None,
                    "isSidechain": False,
                    "attachment": {
                        "type": "hook_success",
                        "hookName": "SessionStart:startup",
                        "toolUseID": self._uuid(),
                        "hookEvent": "SessionStart",
                        "content": "",
                        "stdout": "",
                        "stderr": "",
                        "exitCode": 0,
                        "command": '"${CLAUDE_PLUGIN_ROOT}/scripts/clmail.cmd" actor started',
                        "durationMs": 1203,
                    },
                    "type": "attachment",
                    "uuid": hook,
                    "timestamp": self._ts(),
                    **self._common(),
                }
            ),
        ]
        self._parent = hook
        return out

    def snapshot(self, message_id: str | None = None) -> bytes:
        mid = message_id or self._uuid()
        return self._add(
            {
                "type": "file-history-snapshot",
                "messageId": mid,
                "snapshot": {"messageId": mid, "trackedFileBackups": {}, "timestamp": self._ts()},
                "isSnapshotUpdate": False,
            }
        )

    def user(self, text: str, *, prompt_id: str | None = None) -> bytes:
        u = self._uuid()
        line = self._add(
            {
                "parentUuid": self._parent,
                "isSidechain": False,
                "promptId": prompt_id or self._uuid(),
                "type": "user",
                "message": {"role": "user", "content": text},
                "uuid": u,
                "timestamp": self._ts(),
                "permissionMode": "acceptEdits",
                **self._common(),
            }
        )
        self._parent = u
        self.messages.append(Message(u, "user", text))
        return line

    def _assistant_line(self, mid: str, rid: str, block: dict[str, Any], out: int) -> bytes:
        u = self._uuid()
        line = self._add(
            {
                "parentUuid": self._parent,
                "isSidechain": False,
                "message": {
                    "model": FULL_MODEL,
                    "id": mid,
                    "type": "message",
                    "role": "assistant",
                    "content": [block],
                    "stop_reason": "tool_use",
                    "stop_sequence": None,
                    "stop_details": None,
                    "usage": _usage(out),
                },
                "requestId": rid,
                "type": "assistant",
                "uuid": u,
                "timestamp": self._ts(),
                **self._common(),
            }
        )
        self._parent = u
        return line

    def assistant(self, text: str, *, tool: str | None = None) -> list[bytes]:
        """One API message: thinking, text and (optionally) a tool call, one line each."""
        mid, rid = self._msg_id(), self._req_id()
        out = self._rng.randint(20, 3000)
        sig = "".join(self._rng.choice(_B62) for _ in range(96))
        lines = [
            self._assistant_line(
                mid, rid, {"type": "thinking", "thinking": "", "signature": sig}, out
            ),
            self._assistant_line(mid, rid, {"type": "text", "text": text}, out),
        ]
        if tool is not None:
            block = {
                "type": "tool_use",
                "id": tool,
                "name": "Bash",
                "input": {"command": f"ls -la {self.cwd}", "description": "List files"},
                "caller": {"type": "direct"},
            }
            lines.append(self._assistant_line(mid, rid, block, out))
        self.messages.append(Message(mid, "assistant", text))
        return lines

    def tool_result(self, tool: str, output: str, *, prompt_id: str) -> bytes:
        u = self._uuid()
        source = self._parent
        line = self._add(
            {
                "parentUuid": self._parent,
                "isSidechain": False,
                "promptId": prompt_id,
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": tool,
                            "content": output,
                            "is_error": False,
                        }
                    ],
                },
                "uuid": u,
                "timestamp": self._ts(),
                "toolUseResult": {
                    "stdout": output,
                    "stderr": "",
                    "interrupted": False,
                    "isImage": False,
                },
                "sourceToolAssistantUUID": source,
                **self._common(),
            }
        )
        self._parent = u
        self.messages.append(Message(u, "tool_result", output))
        return line

    def system_tail(self) -> list[bytes]:
        """The stop-hook and turn-duration records (noise: not messages)."""
        a, b = self._uuid(), self._uuid()
        lines = [
            self._add(
                {
                    "parentUuid": self._parent,
                    "isSidechain": False,
                    "type": "system",
                    "subtype": "stop_hook_summary",
                    "hookCount": 1,
                    "hookInfos": [
                        {
                            "command": '"${CLAUDE_PLUGIN_ROOT}/scripts/clmail.cmd" actor idle',
                            "durationMs": 102,
                        }
                    ],
                    "hookErrors": [],
                    "preventedContinuation": False,
                    "stopReason": "",
                    "hasOutput": True,
                    "level": "suggestion",
                    "timestamp": self._ts(),
                    "uuid": a,
                    "toolUseID": self._uuid(),
                    **self._common(),
                }
            ),
            self._add(
                {
                    "parentUuid": a,
                    "isSidechain": False,
                    "type": "system",
                    "subtype": "turn_duration",
                    "durationMs": self._rng.randint(1000, 300000),
                    "messageCount": len(self.messages),
                    "timestamp": self._ts(),
                    "uuid": b,
                    "isMeta": False,
                    **self._common(),
                }
            ),
        ]
        self._parent = b
        return lines

    def last_prompt(self, text: str) -> bytes:
        return self._add(
            {"type": "last-prompt", "lastPrompt": text[:200], "sessionId": self.session_id}
        )

    def turn(self, *, pad: int = 0, prompt: str | None = None) -> list[bytes]:
        """One whole turn (four messages); ``pad`` adds that many bytes of tool output."""
        i = self.turns
        self.turns += 1
        text = prompt or f"turn {i} of {self.session_id[:8]}: check the build and list the files"
        before = len(self.lines)
        pid = self._uuid()
        self.snapshot()
        self.user(text, prompt_id=pid)
        tool = self._tool_id()
        self.assistant(f"Answer {i}: I'll look at the directory first.", tool=tool)
        output = f"total {i}\n" + self._prose(pad)
        self.tool_result(tool, output, prompt_id=pid)
        self.assistant(f"Done with turn {i}: the build is green.")
        self.system_tail()
        self.last_prompt(text)
        return self.lines[before:]

    def data(self) -> bytes:
        return b"".join(self.lines)

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.data())
        return path

    @property
    def keys(self) -> list[str]:
        return [m.key for m in self.messages]


def session_id(n: int, salt: str = "") -> str:
    """A deterministic session id (a UUID, as Claude Code names its files)."""
    return str(uuid.UUID(int=random.Random(f"session:{salt}:{n}").getrandbits(128), version=4))


def make_session(
    sid: str, turns: int, *, pad: int = 0, seed: int = 0, cwd: str = DEFAULT_CWD
) -> SessionWriter:
    """A session with a header and ``turns`` whole turns."""
    w = SessionWriter(sid, cwd=cwd, seed=seed)
    w.header()
    for _ in range(turns):
        w.turn(pad=pad)
    return w


def session_path(projects: Path, sid: str, cwd: str = DEFAULT_CWD) -> Path:
    """Where Claude Code keeps the session: ``projects/<encoded cwd>/<id>.jsonl``."""
    return project_dir(projects, cwd) / f"{sid}.jsonl"
