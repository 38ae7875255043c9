"""Reads one OpenAI Codex CLI rollout (``rollout-*.jsonl``), batch by batch (formats.md §2).

One file is one thread. Both line formats are read: the envelope
``{timestamp, type, payload}`` (session_meta, response_item, event_msg, turn_context,
compacted) and the older bare one (a bare meta object first, then bare response items and
``{"record_type": "state"}`` separators).

Codex records most things twice: user and assistant text as a ``response_item`` message and
(up to about 0.1xx) as an ``event_msg`` (user_message / agent_message), reasoning as
``response_item/reasoning`` and ``event_msg/agent_reasoning``. A message is keyed by its own
id when Codex wrote one (0.171 does; 0.20 does for replies), else by a key synthesized from
its turn, role and text (and how many times that text was said in the turn). The two copies
of a message meet on that synthesized key, so each is stored once whichever channel comes
first or alone. Calls and their outputs are keyed by Codex's own ``call_id``. (0.171's other
copies, ``event_msg/item_completed``, are not read.)
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from lazy.agents.codex import usage as tokens
from lazy.agents.jsonl import Line, read_records
from lazy.agents.lines import SessionLines
from lazy.agents.nesting import too_deep
from lazy.blocks import clip, result_block
from lazy.records import MessagePart, ReadBatch, Role, SessionFacts

KNOWN_KINDS = frozenset(
    {
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
        "compacted",
        "world_state",
        "inter_agent_communication_metadata",
        "token_usage_record",
    }
)

# Harness text Codex sends as a user message (codex-rs event_mapping: session prefix and
# contextual user fragments): never something the person typed.
_HARNESS = re.compile(
    r"\s*(?:<(environment_context|user_instructions|INSTRUCTIONS|user_shell_command|turn_aborted"
    r"|skill|subagent_notification|collaboration_mode|permissions instructions)\b"
    r"|# AGENTS\.md instructions for )"
)

_CALLS = {
    "function_call": "arguments",
    "custom_tool_call": "input",
    "local_shell_call": "action",
    "web_search_call": "action",
    "tool_search_call": "arguments",
    "image_generation_call": "revised_prompt",
}
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")


def is_harness(text: str) -> bool:
    return _HARNESS.match(text) is not None


def _texts(content: Any) -> tuple[list[dict[str, Any]], str]:
    """(normalized blocks, their text) of a Responses API content list."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}], content
    blocks: list[dict[str, Any]] = []
    if isinstance(content, list):
        for c in content:
            if not isinstance(c, dict):
                continue
            kind = c.get("type")
            if kind in ("input_text", "output_text", "text", "summary_text"):
                blocks.append({"type": "text", "text": str(c.get("text", ""))})
            elif kind == "input_image":
                url = c.get("image_url")
                media = (
                    url[5 : url.find(";")]
                    if isinstance(url, str) and url.startswith("data:")
                    else None
                )
                blocks.append(
                    {"type": "image", "media_type": media, "bytes": len(url or "") * 3 // 4}
                )
    return blocks, "\n\n".join(b["text"] for b in blocks if b["type"] == "text")


_EXIT = re.compile(r"^Process exited with code (-?\d+)$", re.M)


def _output_text(output: Any) -> tuple[str, bool]:
    """(text, is_error) of a call output: a string (legacy: JSON with output + exit code;
    0.171: a header naming the exit code), a content list, or an object with content and
    success."""
    if isinstance(output, str):
        m = _EXIT.search(output[:2048])
        if m is not None:
            return output, m.group(1) != "0"
        if output.startswith("{"):
            try:
                obj = orjson.loads(output)
            except orjson.JSONDecodeError:
                return output, False
            if isinstance(obj, dict) and isinstance(obj.get("output"), str):
                meta = obj.get("metadata")
                code = meta.get("exit_code") if isinstance(meta, dict) else None
                return obj["output"], isinstance(code, int) and code != 0
        return output, False
    if isinstance(output, dict):
        text, _ = _output_text(output.get("content"))
        return text, output.get("success") is False
    if isinstance(output, list):
        return _texts(output)[1], False
    return "" if output is None else orjson.dumps(output).decode(), False


def _arguments(value: Any) -> Any:
    """A call's input: JSON-string arguments parsed, free-form input (and arguments nested
    too deep to keep as structure) kept as the text it is."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            pass
        else:
            if not too_deep(parsed):
                return clip(parsed)
    return clip(value)


class CodexReader(SessionLines):
    """Same contract as :class:`lazy.agents.claude.reader.ClaudeReader`: ``read`` turns complete
    lines into a :class:`ReadBatch` keyed by thread id; ``load`` brings back what earlier
    captures of the thread learnt (the turn being read, its model) so batches compose."""

    def _begin(self) -> None:
        self.sid = self.file_session
        self._meta_seen = False
        self._subagent_since: str | None = None  # a subagent replays its parent's lines first
        self._turn = ""
        self._turns = 0
        self._model: str | None = None
        self._said: dict[tuple[str, str], int] = {}  # (channel, hash) -> times in this turn
        self._placed: dict[str, str] = {}  # synthesized key -> the key its message got
        self._started = False
        self._total: tuple[int, ...] | None = None  # the last cumulative token_count
        self._spent_on: str | None = None  # the last model-written message: tokens go there

    # -- state carried across captures -------------------------------------------------------

    def _facts(self, batch: ReadBatch) -> SessionFacts:
        return self._facts_of(batch, self.sid)

    def _resume(self, f: SessionFacts, line_no: int) -> None:
        self._started = True
        if line_no == 1 or not f.cursor:
            return  # read from the top: nothing to carry on from
        try:
            cur = orjson.loads(f.cursor)
        except orjson.JSONDecodeError:
            return
        if not isinstance(cur, dict):
            return
        self._turn = str(cur.get("turn", ""))
        self._turns = int(cur.get("turns", 0))
        self._model = cur.get("model")
        self._meta_seen = True
        self._said = {(k[0], k[2:]): int(v) for k, v in cur.get("said", {}).items()}
        self._placed = dict(cur.get("placed", {}))
        total = cur.get("total")
        self._total = tuple(int(n) for n in total) if isinstance(total, list) else None
        self._spent_on = cur.get("spent_on")

    def _save(self, f: SessionFacts) -> None:
        f.cursor = orjson.dumps(
            {
                "turn": self._turn,
                "turns": self._turns,
                "model": self._model,
                "said": {f"{c}:{h}": n for (c, h), n in self._said.items()},
                "placed": self._placed,
                "total": list(self._total) if self._total is not None else None,
                "spent_on": self._spent_on,
            }
        ).decode()

    # -- reading ------------------------------------------------------------------------------

    def read(self, lines: Iterable[Line]) -> ReadBatch:
        batch = ReadBatch()
        f = self._facts(batch)

        def resumed(lines: Iterable[Line]) -> Iterator[Line]:
            for line in lines:
                if not self._started:
                    self._resume(f, line.line_no)
                yield line

        read_records(batch, resumed(lines), lambda ln, obj: self._line(batch, f, obj, ln.line_no))
        self._save(f)
        return batch

    def _line(self, batch: ReadBatch, f: SessionFacts, obj: dict[str, Any], line_no: int) -> None:
        kind = obj.get("type")
        payload = obj.get("payload")
        ts = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        if isinstance(kind, str) and kind in KNOWN_KINDS and isinstance(payload, dict):
            if ts is not None and self._subagent_since is not None and ts < self._subagent_since:
                return  # the parent's history the subagent starts by replaying
            if kind == "session_meta":
                self._session_meta(batch, f, payload, ts)
            elif kind == "response_item":
                self._item(batch, f, payload, ts, line_no)
            elif kind == "event_msg":
                self._event(batch, f, payload, ts, line_no)
            elif kind == "turn_context":
                self._turn_context(f, payload)
            elif kind == "compacted":
                msg = payload.get("message")
                if isinstance(msg, str) and msg:
                    self._message(
                        batch, f, "system", [{"type": "text", "text": msg}], ts, line_no, meta=True
                    )
            f.saw(ts)
            return
        if "record_type" in obj:
            return  # the bare format's state separators
        if not self._meta_seen and "id" in obj and "type" not in obj:
            self._session_meta(batch, f, obj, ts)  # the bare format's first line
            return
        if isinstance(kind, str):
            self._item(batch, f, obj, ts, line_no)  # a bare response item
            return
        batch.unknown_types["<none>"] = batch.unknown_types.get("<none>", 0) + 1

    def _session_meta(
        self, batch: ReadBatch, f: SessionFacts, p: dict[str, Any], ts: str | None
    ) -> None:
        if self._meta_seen:
            return  # a fork can carry its origin's meta among the copied lines
        self._meta_seen = True
        start = p.get("timestamp") if isinstance(p.get("timestamp"), str) else ts
        f.saw(start)
        f.cwd = f.cwd or _str(p.get("cwd"))
        f.version = f.version or _str(p.get("cli_version"))
        f.provider = f.provider or _str(p.get("model_provider"))
        git = p.get("git")
        if isinstance(git, dict):
            f.git_branch = f.git_branch or _str(git.get("branch"))
            f.git_commit = f.git_commit or _str(git.get("commit_hash"))
            f.git_repo = f.git_repo or _str(git.get("repository_url"))
        forked = _str(p.get("forked_from_id"))
        if forked:
            f.copied_from, f.forked = forked, True
        source = p.get("source")
        spawn = source.get("subagent") if isinstance(source, dict) else None
        spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
        if isinstance(spawn, dict) and _str(spawn.get("parent_thread_id")):
            parent = str(spawn["parent_thread_id"])
            batch.sidechain_of[self.sid] = (parent, self.sid)
            f.copied_from, f.forked = None, False  # spawned, not forked: a sidechain
            self._subagent_since = start

    def _turn_context(self, f: SessionFacts, p: dict[str, Any]) -> None:
        turn = _str(p.get("turn_id"))
        if turn and turn != self._turn:
            self._new_turn(turn)
        self._model = _str(p.get("model")) or self._model
        f.cwd = f.cwd or _str(p.get("cwd"))

    def _new_turn(self, turn: str | None) -> None:
        self._turns += 1
        self._turn = turn or f"t{self._turns}"
        self._said.clear()
        self._placed.clear()

    def _key(self, channel: str, role: str, text: str) -> str:
        """The same words in the same turn get the same key on either channel; said again in
        the turn, the next key."""
        h = hashlib.blake2b(f"{role}\0{text}".encode(), digest_size=8).hexdigest()
        n = self._said.get((channel, h), 0) + 1
        self._said[(channel, h)] = n
        return f"{self._turn or 't0'}-{h}" + (f"-{n}" if n > 1 else "")

    def _message(
        self,
        batch: ReadBatch,
        f: SessionFacts,
        role: Role,
        blocks: list[dict[str, Any]],
        ts: str | None,
        line_no: int,
        *,
        channel: str = "r",
        meta: bool = False,
        key: str | None = None,
        native: str | None = None,
        usage: dict[str, Any] | None = None,
    ) -> None:
        if key is None:
            # the words alone: the event copy of a prompt carries no image
            text = "\n\n".join(str(b["text"]) for b in blocks if b["type"] in ("text", "thinking"))
            synth = self._key(channel, role, text)
            placed = self._placed.get(synth)
            if placed is not None:
                if channel == "e":
                    return  # the copy of a message already read
                key = placed  # the event copy came first: this one joins its message
            else:
                key = native or synth
                self._placed[synth] = key
        if role == "user" and not meta:
            f.first_user_seen = True
        part = MessagePart(
            key,
            key,
            role,
            blocks,
            ts,
            line_no,
            model=self._model if role != "user" else None,
            usage=usage,
            meta=meta,
            provider=f.provider,
        )
        batch.parts.setdefault(self.sid, []).append(part)
        if role in ("assistant", "reasoning", "tool_call"):
            self._spent_on = key

    def _item(
        self, batch: ReadBatch, f: SessionFacts, p: dict[str, Any], ts: str | None, line_no: int
    ) -> None:
        kind = p.get("type")
        native = _str(p.get("id"))
        if kind == "message":
            role = p.get("role")
            blocks, text = _texts(p.get("content"))
            if not blocks:
                return
            if role == "user":
                harness = is_harness(text)
                said: Role = "system" if harness else "user"
                self._message(batch, f, said, blocks, ts, line_no, meta=harness, native=native)
            elif role == "assistant":
                self._message(batch, f, "assistant", blocks, ts, line_no, native=native)
            else:  # developer / system instructions
                self._message(batch, f, "system", blocks, ts, line_no, meta=True, native=native)
        elif kind == "reasoning":
            _, text = _texts(p.get("summary"))
            if not text:
                _, text = _texts(p.get("content"))
            if text:
                thought = [{"type": "thinking", "text": text}]
                self._message(batch, f, "reasoning", thought, ts, line_no, native=native)
        elif kind in _CALLS:
            call_id = _str(p.get("call_id")) or native
            name = _str(p.get("name")) or str(kind).removesuffix("_call")
            args = _arguments(p.get(_CALLS[str(kind)]))
            if f.cwd is None and isinstance(args, dict) and _str(args.get("workdir")):
                f.cwd = args["workdir"]  # 0.20 writes no cwd; its shell calls name their dir
            block = {"type": "tool_use", "id": call_id, "name": name, "input": args}
            key = call_id or self._key("r", "tool_call", orjson.dumps(block).decode())
            self._message(batch, f, "tool_call", [block], ts, line_no, key=key)
        elif kind in _OUTPUTS:
            call_id = _str(p.get("call_id"))
            text, error = _output_text(p.get("output"))
            block = result_block(call_id, text, error)
            key = f"{call_id}-out" if call_id else self._key("r", "tool_result", text)
            self._message(batch, f, "tool_result", [block], ts, line_no, key=key)
        elif kind == "agent_message":  # another agent talking to this one
            blocks, _ = _texts(p.get("content"))
            if blocks:
                self._message(batch, f, "system", blocks, ts, line_no, meta=True)
        elif kind not in ("ghost_snapshot", "compaction", "compaction_summary"):
            name = f"response_item/{kind}"
            batch.unknown_types[name] = batch.unknown_types.get(name, 0) + 1

    def _event(
        self, batch: ReadBatch, f: SessionFacts, p: dict[str, Any], ts: str | None, line_no: int
    ) -> None:
        kind = p.get("type")
        if kind in ("task_started", "turn_started"):
            self._new_turn(_str(p.get("turn_id")))
        elif kind == "user_message":
            msg = p.get("message")
            if isinstance(msg, str) and msg:
                harness = is_harness(msg)
                role: Role = "system" if harness else "user"
                blocks = [{"type": "text", "text": msg}]
                self._message(batch, f, role, blocks, ts, line_no, channel="e", meta=harness)
        elif kind == "agent_message":
            msg = p.get("message")
            if isinstance(msg, str) and msg:
                blocks = [{"type": "text", "text": msg}]
                self._message(batch, f, "assistant", blocks, ts, line_no, channel="e")
        elif kind == "agent_reasoning":
            text = p.get("text")
            if isinstance(text, str) and text:
                blocks = [{"type": "thinking", "text": text}]
                self._message(batch, f, "reasoning", blocks, ts, line_no, channel="e")
        elif kind == "token_count":
            self._token_count(batch, f, p, ts)
        elif kind == "thread_name_updated":
            name = _str(p.get("thread_name")) or _str(p.get("name"))
            if name:
                f.title = name

    def _token_count(
        self, batch: ReadBatch, f: SessionFacts, p: dict[str, Any], ts: str | None
    ) -> None:
        now = tokens.totals(p)
        if now is None:
            return
        lineage = f.copied_from if f.forked and f.copied_from else self.sid
        key = self._spent_on or f"{self._turn or 't0'}-tokens"
        spent = tokens.step(
            self._total,
            now,
            key=key,
            lineage=lineage,
            ts=ts,
            model=self._model,
            provider=f.provider,
        )
        self._total = now
        if spent is not None:
            batch.usage.setdefault(self.sid, []).append(spent)


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None
