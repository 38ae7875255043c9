"""OpenCode reader: one session's records (see ``storage``) in, normalized records out.
Pure. The format notes behind every rule are in shared/research/formats.md §3.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson

from lazy.agents.jsonl import unreadable
from lazy.agents.nesting import bounded
from lazy.agents.opencode.records import (
    RAW_KEPT,
    Record,
    bad_json,
    iso_ms,
    mapping,
    string,
)
from lazy.agents.opencode.usage import usage_of
from lazy.blocks import clip, result_block
from lazy.records import ONESHOT_MARKER, MessagePart, Quarantined, ReadBatch, SessionFacts

PART_TYPES = frozenset(
    [
        "text",
        "reasoning",
        "tool",
        "file",
        "subtask",
        "agent",
        "patch",
        "compaction",
        "step-start",
        "step-finish",
        "snapshot",
        "retry",
    ]
)


def _tool_blocks(part: dict[str, Any]) -> list[dict[str, Any]]:
    state = mapping(part.get("state"))
    call = part.get("callID")
    inp = state.get("input", part.get("input"))
    blocks: list[dict[str, Any]] = [
        {"type": "tool_use", "id": call, "name": part.get("tool"), "input": clip(inp)}
    ]
    status = state.get("status")
    if status in ("completed", "error", "success"):  # "success": a drifted older spelling
        is_error = status == "error"
        if is_error:
            out = state.get("error", part.get("error"))
        else:
            out = state.get("output", part.get("output"))
        if isinstance(out, dict | list):
            out = orjson.dumps(out).decode()
        text = "" if out is None else str(out)
        result = result_block(call, text, is_error)
        code = mapping(state.get("metadata")).get("exit")
        if isinstance(code, int) and not isinstance(code, bool):
            result["exit_code"] = code
        time = mapping(state.get("time"))
        start, end = time.get("start"), time.get("end")
        if isinstance(start, int | float) and isinstance(end, int | float) and end >= start:
            result["duration_ms"] = int(end - start)
        blocks.append(result)
    return blocks


def _file_block(part: dict[str, Any]) -> dict[str, Any]:
    mime = string(part.get("mime"))
    url = part.get("url")
    name = string(part.get("filename"))
    if mime is not None and mime.startswith("image/"):
        out: dict[str, Any] = {"type": "image", "media_type": mime}
        if name:
            out["filename"] = name
        if isinstance(url, str) and url.startswith("data:") and "," in url:
            data = url.split(",", 1)[1]  # base64 payload: only its size and a digest are kept
            out["bytes"] = len(data) * 3 // 4
            out["sha256"] = hashlib.sha256(data.encode()).hexdigest()[:16]
        elif isinstance(url, str):
            out["url"] = url
        return out
    out = {"type": "file", "filename": name, "media_type": mime}
    if isinstance(url, str) and not url.startswith("data:"):
        out["url"] = url
    return out


@dataclass(slots=True)
class _Msg:
    sid: str
    mid: str
    data: dict[str, Any]
    parts: list[dict[str, Any]]
    origin: str
    raw: bytes


def _blocks(msg: _Msg, batch: ReadBatch) -> tuple[list[dict[str, Any]], bool]:
    """The message's blocks and whether it is only harness (synthetic text, a compaction)."""
    blocks: list[dict[str, Any]] = []
    synthetic: list[dict[str, Any]] = []
    real = compaction = False
    for p in msg.parts:
        kind = p.get("type")
        if not isinstance(kind, str) or kind not in PART_TYPES:
            name = kind if isinstance(kind, str) else "<none>"
            batch.unknown_types[name] = batch.unknown_types.get(name, 0) + 1
            continue
        if kind == "text":
            block = {"type": "text", "text": str(p.get("text") or "")}
            if p.get("synthetic") is True:
                synthetic.append(block)
            elif p.get("ignored") is not True:
                blocks.append(block)
                real = True
            continue
        if kind == "reasoning":
            blocks.append({"type": "thinking", "text": str(p.get("text") or "")})
        elif kind == "tool":
            blocks.extend(_tool_blocks(p))
        elif kind == "file":
            blocks.append(_file_block(p))
        elif kind == "subtask":
            blocks.append(
                {
                    "type": "subtask",
                    "agent": p.get("agent"),
                    "description": p.get("description"),
                    "prompt": p.get("prompt"),
                }
            )
        elif kind == "agent":
            blocks.append({"type": "agent", "name": p.get("name")})
        elif kind == "patch":
            files = p.get("files")
            blocks.append({"type": "patch", "files": files if isinstance(files, list) else []})
        elif kind == "compaction":
            blocks.append({"type": "compaction", "auto": bool(p.get("auto"))})
            compaction = True
            continue
        else:
            continue  # step-start, step-finish, snapshot, retry: bookkeeping, no words
        real = True
    summary = msg.data.get("role") == "assistant" and msg.data.get("summary") is True
    meta = summary or (not real and bool(synthetic or compaction))
    if meta and synthetic:
        # nothing but harness text: keep it (as a system message) rather than an empty one
        blocks = synthetic + blocks
    return blocks, meta


def _facts(batch: ReadBatch, sid: str) -> SessionFacts:
    f = batch.facts.get(sid)
    if f is None:
        f = batch.facts[sid] = SessionFacts()
    return f


def _session_facts(batch: ReadBatch, sid: str, obj: dict[str, Any]) -> None:
    f = _facts(batch, sid)
    for src, attr in (("directory", "cwd"), ("title", "title"), ("version", "version")):
        v = string(obj.get(src))
        if v is not None:
            setattr(f, attr, v)
    parent = string(obj.get("parentID"))
    if parent is not None and parent != sid:
        batch.sidechain_of[sid] = (parent, sid)


def _part_of(msg: _Msg, batch: ReadBatch) -> MessagePart | None:
    d = msg.data
    role = d.get("role")
    if role not in ("user", "assistant"):
        name = f"role:{role}" if isinstance(role, str) else "role:<none>"
        batch.unknown_types[name] = batch.unknown_types.get(name, 0) + 1
        return None
    blocks, meta = _blocks(msg, batch)
    time = mapping(d.get("time"))
    ts = iso_ms(time.get("created"))
    model = mapping(d.get("model"))
    if role == "assistant":
        model_id = string(d.get("modelID")) or string(model.get("modelID"))
        provider = string(d.get("providerID")) or string(model.get("providerID"))
    else:
        model_id = string(model.get("modelID")) or string(d.get("modelID"))
        provider = string(model.get("providerID")) or string(d.get("providerID"))
    tokens = d.get("tokens")
    usage = tokens if role == "assistant" and isinstance(tokens, dict) else None

    if usage is not None and (spent := usage_of(msg.mid, usage, ts, model_id, provider)):
        batch.usage.setdefault(msg.sid, []).append(spent)
    f = _facts(batch, msg.sid)
    f.saw(ts)
    f.saw(iso_ms(time.get("completed")))
    if role == "assistant":
        if f.provider is None and provider is not None:
            f.provider = provider
        if f.cwd is None:
            path = d.get("path")
            cwd = string(mapping(path).get("cwd")) if isinstance(path, dict) else string(path)
            f.cwd = cwd
    if not meta:
        if f.head_uuid is None:
            f.head_uuid = msg.mid
        f.tail_uuid = msg.mid
        if role == "user" and not f.first_user_seen:
            first = next((b["text"] for b in blocks if b["type"] == "text"), None)
            if first is not None:
                f.first_user_seen = True
                f.oneshot = first.startswith(ONESHOT_MARKER)
    for p in msg.parts:  # the task tool names the child session it ran
        if p.get("type") == "tool":
            child = string(mapping(mapping(p.get("state")).get("metadata")).get("sessionId"))
            if child is not None:
                batch.spawns.add((msg.sid, child))
    return MessagePart(
        msg.mid,
        msg.mid,
        "system" if meta else role,
        blocks,
        ts,
        0,
        model=model_id,
        usage=usage,
        meta=meta,
        provider=provider,
        agent_mode=string(d.get("agent")) or string(d.get("mode")),
    )


def _problem(rec: Record | _Msg, reason: str) -> Quarantined:
    """A record kept whole in quarantine, with why."""
    raw = rec.raw if isinstance(rec, _Msg) else rec.data
    return Quarantined(0, 0, reason, raw, rec.origin)


def read(records: list[Record]) -> ReadBatch:
    """Records (as load_session returns them) in, one MessagePart per OpenCode message out,
    keyed by session id. Pure. A record that cannot be read (or is nested too deep, then
    read cut) is quarantined whole with why; the others are read."""
    batch = ReadBatch()
    batch.lines = len(records)
    msgs: dict[tuple[str, str], _Msg] = {}
    order: list[_Msg] = []
    last: dict[str, str] = {}  # session -> the message its part files follow
    sessions: dict[str, dict[str, Any]] = {}
    for rec in records:
        try:
            obj = orjson.loads(rec.data)
        except orjson.JSONDecodeError as e:
            batch.quarantine.append(bad_json(rec.origin, rec.data, e))
            continue
        if not isinstance(obj, dict):
            batch.quarantine.append(
                Quarantined(
                    0, 0, f"{rec.origin}: not a JSON object", rec.data[:RAW_KEPT], rec.origin
                )
            )
            continue
        obj, why = bounded(obj, rec.data)
        if why is not None:
            batch.quarantine.append(_problem(rec, why))
        try:
            _record(batch, rec, obj, sessions, msgs, order, last)
        except Exception as e:
            batch.quarantine.append(_problem(rec, unreadable(e)))
    for msg in order:
        try:
            part = _part_of(msg, batch)
        except Exception as e:
            batch.quarantine.append(_problem(msg, unreadable(e)))
            continue
        if part is not None:
            batch.parts.setdefault(msg.sid, []).append(part)
    for sid, obj in sessions.items():
        f = _facts(batch, sid)
        if f.first_timestamp is None:  # a session with no messages yet: its own times
            time = mapping(obj.get("time"))
            f.saw(iso_ms(time.get("created")))
            f.saw(iso_ms(time.get("updated")))
    return batch


def _record(
    batch: ReadBatch,
    rec: Record,
    obj: dict[str, Any],
    sessions: dict[str, dict[str, Any]],
    msgs: dict[tuple[str, str], _Msg],
    order: list[_Msg],
    last: dict[str, str],
) -> None:
    sid = rec.session_id
    if rec.kind == "session":
        sessions[sid] = obj
        _session_facts(batch, sid, obj)
    elif rec.kind == "message":
        msg = _Msg(sid, rec.id, obj, [], rec.origin, rec.data)
        if (sid, rec.id) not in msgs:
            order.append(msg)
        msgs[(sid, rec.id)] = msg
        last[sid] = rec.id
    elif rec.kind == "part":
        # Drifted part files may not name their message: they follow it in the records.
        mid = string(obj.get("messageID")) or last.get(sid)
        target = msgs.get((sid, mid)) if mid is not None else None
        if target is None:
            batch.quarantine.append(
                Quarantined(
                    0,
                    0,
                    f"part {rec.id} names message {mid}, which is missing",
                    rec.data[:RAW_KEPT],
                    rec.origin,
                )
            )
            return
        target.parts.append(obj)
    else:
        batch.unknown_types[f"record:{rec.kind}"] = (
            batch.unknown_types.get(f"record:{rec.kind}", 0) + 1
        )
