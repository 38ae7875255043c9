"""Claude Code transcript reader: source lines in, normalized records out.

Pure: it never touches the store or the filesystem beyond the lines it is handed. The
format notes behind every rule are in shared/research/formats.md §1.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from typing import Any

from lazy.blocks import clip, result_block
from lazy.records import (
    ONESHOT_MARKER,
    Entry,
    MessagePart,
    ReadBatch,
    SessionFacts,
)
from lazy.sources import facts_for
from lazy.sources.jsonl import Line, read_records

# Every entry type formats.md §1.3 lists. Anything else is counted as unknown; its line
# stays verbatim in the raw archive either way.
CONVERSATION_TYPES = {"user", "assistant", "system"}
KNOWN_TYPES = CONVERSATION_TYPES | {
    "summary",
    "ai-title",
    "custom-title",
    "agent-name",
    "last-prompt",
    "file-history-snapshot",
    "file-history-delta",
    "queue-operation",
    "progress",
    "attachment",
    "permission-mode",
    "mode",
    "worktree-state",
    "pr-link",
    "relocated",
    "bridge-session",
    "atis-latch",
    "cost-state",
    "agent-setting",
    "fork-context-ref",
    "started",
    "result",
    "continued-in",
}

# Claude Code's built-in *local* commands: they print into the session log and are not
# conversation. Prompt-type built-ins (/init, /review, /security-review, /pr-comments) are
# absent on purpose: their invocation explains the turns that follow, like a custom command.
BUILTIN_LOCAL_COMMANDS = frozenset(
    [
        "add-dir",
        "agents",
        "allowed-tools",
        "background",
        "bashes",
        "branch",
        "btw",
        "bug",
        "clear",
        "color",
        "compact",
        "config",
        "context",
        "copy",
        "cost",
        "desktop",
        "diff",
        "doctor",
        "effort",
        "exit",
        "export",
        "extra-usage",
        "fast",
        "feedback",
        "fork",
        "help",
        "hooks",
        "ide",
        "install-github-app",
        "install-slack-app",
        "keybindings",
        "login",
        "logout",
        "mcp",
        "memory",
        "migrate-installer",
        "mobile",
        "model",
        "output-style",
        "permissions",
        "plan",
        "plugin",
        "plugins",
        "privacy-settings",
        "quit",
        "rate-limit-options",
        "release-notes",
        "reload-plugins",
        "remote-control",
        "remote-env",
        "rename",
        "resume",
        "rewind",
        "sandbox",
        "session",
        "skills",
        "stats",
        "status",
        "statusline",
        "stickers",
        "tasks",
        "teleport",
        "terminal-setup",
        "theme",
        "todos",
        "upgrade",
        "usage",
        "vim",
    ]
)

_TAG = re.compile(r"<(command-name|command-message|command-args)>(.*?)</\1>", re.S)
_WRAPPED = re.compile(
    r"\A\s*(?:<(local-command-stdout|local-command-stderr|local-command-caveat)>.*?</\1>\s*)+\Z",
    re.S,
)
_CAVEAT = re.compile(r"\A\s*<local-command-caveat>.*</local-command-caveat>\s*\Z", re.S)
# What the harness or a shell put into a user line, not what anyone typed.
_HARNESS_TAGS = (
    "bash-stdout|bash-stderr|task-notification|system-reminder|"
    "ide_opened_file|ide_selection|ide_diagnostics"
)
_HARNESS_ONLY = re.compile(rf"\A\s*(?:<({_HARNESS_TAGS})>.*?</\1>\s*)+\Z", re.S)
_HARNESS_BLOCK = re.compile(rf"<({_HARNESS_TAGS})>.*?</\1>", re.S)
_BASH_INPUT = re.compile(r"\A\s*<bash-input>(.*?)</bash-input>\s*\Z", re.S)

SYSTEM_NOISE = {"turn_duration", "stop_hook_summary"}


# Tool output is the bulk of a transcript. Derived rows keep its head (what a reader skims);
# every byte of it stays verbatim in the raw archive, from which it can be re-derived.
def command_invocation(text: str) -> tuple[str, str] | None:
    """(name without slash, args) when the text is wholly a slash-command invocation."""
    if "<command-name>" not in text:
        return None
    tags: dict[str, str] = {}
    for m in _TAG.finditer(text):
        tags[m.group(1)] = m.group(2)
    if "command-name" not in tags or _TAG.sub("", text).strip():
        return None  # other words around the tags: someone quoting them, keep it
    return tags["command-name"].strip().lstrip("/"), tags.get("command-args", "").strip()


def is_local_boilerplate(text: str) -> bool:
    """A built-in command's invocation (no user words) or its wrapped output/caveat."""
    if _WRAPPED.match(text):
        return True
    inv = command_invocation(text)
    return inv is not None and inv[0] in BUILTIN_LOCAL_COMMANDS and not inv[1]


def is_caveat(text: str, meta: bool) -> bool:
    """The caveat Claude Code writes before a local command's lines: wholly tagged, or a
    harness line that opens with its tag."""
    return bool(_CAVEAT.match(text)) or (
        meta and text.lstrip().startswith("<local-command-caveat>")
    )


def _image_placeholder(block: dict[str, Any]) -> dict[str, Any]:
    src = block.get("source")
    src = src if isinstance(src, dict) else {}
    data = src.get("data")
    media = src.get("media_type")
    out: dict[str, Any] = {"type": "image", "media_type": media if isinstance(media, str) else None}
    if isinstance(data, str):
        out["bytes"] = len(data) * 3 // 4
        out["sha256"] = hashlib.sha256(data.encode()).hexdigest()[:16]
    return out


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for b in content:
            if isinstance(b, dict):
                if b.get("type") == "text":
                    out.append(str(b.get("text", "")))
                elif b.get("type") == "image":
                    out.append("[image]")
            elif isinstance(b, str):
                out.append(b)
        return "\n".join(out)
    return "" if content is None else str(content)


def normalize_blocks(content: Any) -> list[dict[str, Any]]:
    """Content blocks without base64 payloads or signatures, in their original order."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks: list[dict[str, Any]] = []
    if not isinstance(content, list):
        return blocks
    for b in content:
        if isinstance(b, str):
            blocks.append({"type": "text", "text": b})
            continue
        if not isinstance(b, dict):
            continue
        kind = b.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": str(b.get("text", ""))})
        elif kind == "thinking":
            blocks.append({"type": "thinking", "text": str(b.get("thinking", ""))})
        elif kind == "redacted_thinking":
            blocks.append({"type": "redacted_thinking"})
        elif kind == "tool_use":
            blocks.append(
                {
                    "type": "tool_use",
                    "id": b.get("id"),
                    "name": b.get("name"),
                    "input": clip(b.get("input")),
                }
            )
        elif kind == "tool_result":
            blocks.append(
                result_block(
                    b.get("tool_use_id"), _result_text(b.get("content")), bool(b.get("is_error"))
                )
            )
        elif kind == "image":
            blocks.append(_image_placeholder(b))
        else:
            blocks.append({"type": str(kind), "raw": b})
    return blocks


def _text_of(content: Any) -> str | None:
    """The text of a user line that is a single text value (where command tags live)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and len(content) == 1:
        b = content[0]
        if isinstance(b, dict) and b.get("type") == "text":
            return str(b.get("text", ""))
    return None


class ClaudeReader:
    """Reads one Claude Code JSONL file, batch by batch.

    ``file_session`` is the session id the file name gives; ``agent_hint`` the agent id of a
    subagent file (from ``agent-<id>.jsonl``). ``load`` returns what earlier reads of a
    session taught (first user message seen, /clear start), so batches compose.
    """

    def __init__(
        self,
        path: str,
        file_session: str,
        agent_hint: str | None = None,
        load: Callable[[str], SessionFacts | None] | None = None,
    ):
        self.path = path
        self.file_session = file_session
        self.agent_hint = agent_hint
        self.facts: dict[str, SessionFacts] = {}
        self._load = load
        self._chains: dict[str, str] = {}  # uuid -> inline sidechain it belongs to

    def session_key(self, obj: dict[str, Any]) -> tuple[str, str | None]:
        """(session key, parent session id for sidechains).

        A session file's lines belong to the file's session, whatever id a line names (a
        copy's first line can keep its origin's). A subagent file's lines name the parent.
        """
        if self.agent_hint is not None:
            sid = obj.get("sessionId")
            sid = sid if isinstance(sid, str) and sid else self.file_session
            agent = obj.get("agentId") or self.agent_hint
            return f"{sid}:{agent}", sid
        sid = self.file_session
        if obj.get("isSidechain") is True:
            agent = obj.get("agentId")
            if not isinstance(agent, str) or not agent:
                # 1.0.x wrote subagents inline with no id: each chain from its root is one
                uuid = obj.get("uuid")
                parent = obj.get("parentUuid")
                agent = self._chains.get(parent) if isinstance(parent, str) else None
                if agent is None:
                    agent = str(uuid)[:8] if isinstance(uuid, str) else "sidechain"
                if isinstance(uuid, str):
                    self._chains[uuid] = agent
            return f"{sid}:{agent}", sid
        return sid, None

    def _facts(self, batch: ReadBatch, key: str) -> SessionFacts:
        return facts_for(batch, self.facts, key, self._load)

    def read(self, lines: Iterable[Line]) -> ReadBatch:
        batch = ReadBatch()
        read_records(batch, lines, lambda line, obj: self._entry(batch, obj, line.line_no))
        return batch

    def _entry(self, batch: ReadBatch, obj: dict[str, Any], line_no: int) -> None:
        etype = obj.get("type")
        if not isinstance(etype, str):
            batch.unknown_types["<none>"] = batch.unknown_types.get("<none>", 0) + 1
            return
        if etype not in KNOWN_TYPES:
            batch.unknown_types[etype] = batch.unknown_types.get(etype, 0) + 1
        key, parent_sid = self.session_key(obj)
        if parent_sid is not None:
            batch.sidechain_of[key] = (parent_sid, key.split(":", 1)[1])
        facts = self._facts(batch, key)
        ts = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None

        if etype in ("ai-title", "custom-title"):
            title = obj.get("customTitle") or obj.get("aiTitle")
            if isinstance(title, str) and (etype == "custom-title" or not facts.title):
                facts.title = title
            return
        if etype == "continued-in":
            nxt = obj.get("continuedInSessionId")
            if isinstance(nxt, str):
                facts.continued_in = nxt
            return
        if etype == "progress" and not facts.first_user_seen:
            data = obj.get("data") or {}
            if isinstance(data, dict) and data.get("hookName") == "SessionStart:clear":
                facts.clear_start = True

        uuid = obj.get("uuid")
        if not isinstance(uuid, str):
            return
        meta = bool(obj.get("isMeta"))
        if ts and not meta:  # a reused caveat line carries an older session's time
            facts.saw(ts)
        for src, attr in (("cwd", "cwd"), ("gitBranch", "git_branch"), ("version", "version")):
            v = obj.get(src)
            if isinstance(v, str) and v and getattr(facts, attr) is None:
                setattr(facts, attr, v)
        lp = obj.get("logicalParentUuid")
        parent = obj.get("parentUuid")
        first_entry = facts.tail_uuid is None
        first_reply = etype == "assistant" and facts.head_msg is None
        if facts.copied_from is None and parent_sid is None and (first_entry or first_reply):
            # A copy names its origin where it starts, and only there: ``forkedFrom`` (2.1.2xx
            # /branch) or its own ``sessionId`` (2.0.x forks and 1.0.x interactive resumes keep
            # the origin's on the first line) on the first entry, ``requestSessionId`` on the
            # first reply (2.1.x -p --fork-session). Decided once, never by a later line.
            fork = obj.get("forkedFrom")
            origin = fork.get("sessionId") if isinstance(fork, dict) and first_entry else None
            facts.forked = isinstance(origin, str)
            if origin is None and first_reply:
                origin = obj.get("requestSessionId")
            if origin is None and first_entry:
                origin = obj.get("sessionId")
            if isinstance(origin, str) and origin and origin != key:
                facts.copied_from = origin
        if not meta:
            facts.tail_uuid = uuid
        if facts.head_uuid is None and not meta and etype in ("user", "assistant"):
            facts.head_uuid = uuid
            facts.head_parent = parent if isinstance(parent, str) else None
        batch.entries.setdefault(key, []).append(
            Entry(uuid, lp if isinstance(lp, str) else None, meta)
        )
        if etype not in CONVERSATION_TYPES:
            return
        part = self._part(obj, etype, uuid, ts, line_no, meta, facts, batch, key)
        if part is not None:
            batch.parts.setdefault(key, []).append(part)

    def _part(
        self,
        obj: dict[str, Any],
        etype: str,
        uuid: str,
        ts: str | None,
        line_no: int,
        meta: bool,
        facts: SessionFacts,
        batch: ReadBatch,
        key: str,
    ) -> MessagePart | None:
        message = obj.get("message")
        if etype == "system":
            subtype = obj.get("subtype")
            if subtype in SYSTEM_NOISE:
                return None
            content = obj.get("content")
            if subtype == "compact_boundary":
                content = content or "Conversation compacted"
            if not isinstance(content, str) or not content.strip():
                return None
            if subtype == "local_command" and is_local_boilerplate(content):
                self._note_command(content, facts)
                return None
            blocks = [{"type": "text", "text": content}]
            return MessagePart(uuid, uuid, "system", blocks, ts, line_no, meta=True)
        if not isinstance(message, dict):
            return None
        content = message.get("content")
        if etype == "assistant":
            mid = message.get("id")
            model = message.get("model")
            if model == "<synthetic>":  # the CLI wrote it itself ("No response requested.")
                return MessagePart(
                    uuid, uuid, "system", normalize_blocks(content), ts, line_no, meta=True
                )
            if key not in batch.sidechain_of and facts.head_msg is None and isinstance(mid, str):
                facts.head_msg = mid
            usage = message.get("usage")
            rid = obj.get("requestId")
            return MessagePart(
                mid if isinstance(mid, str) and mid else uuid,
                uuid,
                "assistant",
                normalize_blocks(content),
                ts,
                line_no,
                model=model if isinstance(model, str) else None,
                request_id=rid if isinstance(rid, str) else None,
                usage=usage if isinstance(usage, dict) else None,
            )
        # user line
        spawned = obj.get("toolUseResult")
        if isinstance(spawned, dict) and isinstance(spawned.get("agentId"), str):
            batch.spawns.add((key, spawned["agentId"]))
        text = _text_of(content)
        if text is not None:
            if is_caveat(text, meta):
                return None
            if is_local_boilerplate(text):
                self._note_command(text, facts)
                # The caveat before it (older releases wrote it untagged) goes with it.
                parent = obj.get("parentUuid")
                if isinstance(parent, str):
                    batch_parts = batch.parts.get(key, [])
                    if batch_parts and batch_parts[-1].uuid == parent and batch_parts[-1].meta:
                        batch_parts.pop()
                    else:
                        batch.retract.setdefault(key, []).append(parent)
                return None
        if obj.get("isCompactSummary"):
            meta = True
        if text is not None:
            if command_invocation(text) is not None:
                content = prompt_text(text)  # a kept command reads as the user typed it
            elif _HARNESS_ONLY.match(text):
                meta = True  # shell output, IDE context: nobody said it
            elif m := _BASH_INPUT.match(text):
                content = f"!{m.group(1)}"  # bash mode, as it was typed
        blocks = normalize_blocks(content)
        if not blocks:
            return None
        if not meta and not facts.first_user_seen:
            first = next((b["text"] for b in blocks if b["type"] == "text"), None)
            if first is not None:
                facts.first_user_seen = True
                facts.oneshot = first.startswith(ONESHOT_MARKER)
        return MessagePart(uuid, uuid, "system" if meta else "user", blocks, ts, line_no, meta=meta)

    def _note_command(self, text: str, facts: SessionFacts) -> None:
        inv = command_invocation(text)
        if inv is not None and inv[0] == "clear" and not facts.first_user_seen:
            facts.clear_start = True


def prompt_text(text: str) -> str:
    """How a kept command invocation reads in a transcript: `/deploy staging`."""
    inv = command_invocation(text)
    if inv is None:
        return text
    return f"/{inv[0]} {inv[1]}".rstrip()


def said(text: str) -> str:
    """A user message without the harness context riding along with it (IDE selections,
    system reminders): what the person typed, for one-line summaries."""
    return " ".join(_HARNESS_BLOCK.sub(" ", text).split())
