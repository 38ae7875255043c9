"""The tokens of one OpenCode assistant message (formats.md §3): ``tokens{input, output,
reasoning, cache{read, write}}`` on the message record, written once per message (edited in
place as it streams: the last version read is kept). OpenCode counts reasoning apart from
output; lazy's ``output`` includes it, as OpenAI's and Anthropic's do.

A fork copies its origin's messages under new ids, times and tokens kept: the ukey is the
message's creation time (to the millisecond) and model, so the copy is counted once with its original."""

from __future__ import annotations

from typing import Any

from lazy.records import Usage


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0


def usage_of(
    key: str, tokens: Any, ts: str | None, model: str | None, provider: str | None
) -> Usage | None:
    if not isinstance(tokens, dict):
        return None
    got = tokens.get("cache")
    cache: dict[str, Any] = got if isinstance(got, dict) else {}
    u = Usage(
        key=key,
        ukey="",
        timestamp=ts,
        model=model,
        provider=provider,
        input=_int(tokens.get("input")),
        output=_int(tokens.get("output")) + _int(tokens.get("reasoning")),
        cache_read=_int(cache.get("read")),
        cache_write=_int(cache.get("write")),
        reasoning=_int(tokens.get("reasoning")),
    )
    if not (u.input or u.output or u.cache_read or u.cache_write):
        return None  # a message still streaming, or one that failed before any token
    # (tokens grow while the message streams: they are not part of its identity)
    u.ukey = f"{ts}:{provider}/{model}" if ts else key
    return u
