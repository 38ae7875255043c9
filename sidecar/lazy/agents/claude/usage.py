"""The tokens of one Claude Code API message (formats.md §1.4): ``message.usage`` of the
Anthropic Messages API. One message is written over several lines (one a content block),
each repeating its usage; before 2.1.97 the earlier lines held streaming placeholders, so the
store keeps the largest it sees of one ``(message.id, requestId)``, as ccusage does."""

from __future__ import annotations

from typing import Any

from lazy.records import Usage


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0


def usage_of(
    key: str, usage: Any, request_id: str | None, ts: str | None, model: str | None
) -> Usage | None:
    """A message's usage, or None when its line carries none."""
    if not isinstance(usage, dict):
        return None
    return Usage(
        key=key,
        ukey=f"{key}:{request_id or ''}",
        timestamp=ts,
        model=model,
        provider="anthropic",
        input=_int(usage.get("input_tokens")),
        output=_int(usage.get("output_tokens")),
        cache_read=_int(usage.get("cache_read_input_tokens")),
        cache_write=_int(usage.get("cache_creation_input_tokens")),
    )
