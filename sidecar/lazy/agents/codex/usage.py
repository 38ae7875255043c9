"""The tokens of Codex's model responses (formats.md §2.2): ``event_msg/token_count`` events,
whose ``info.total_token_usage`` is cumulative over the thread; Codex writes the event again
when only its rate limits changed, so a response is the step from one total to the next
(``last_token_usage`` alone would count those repeats). OpenAI's ``input_tokens`` include the
cached ones and ``output_tokens`` the reasoning ones.

A fork copies its origin's lines, token counts included: a step's ukey is the thread it was
counted in first (the fork's origin) and the cumulative total it reached, so the copied steps
are the origin's and are counted once."""

from __future__ import annotations

from typing import Any

from lazy.records import Usage

FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens")


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0


def totals(payload: dict[str, Any]) -> tuple[int, ...] | None:
    """The cumulative (input, cached, output, reasoning) a token_count event says."""
    info = payload.get("info")
    total = info.get("total_token_usage") if isinstance(info, dict) else None
    if not isinstance(total, dict):
        return None
    return tuple(_int(total.get(k)) for k in FIELDS)


def step(
    before: tuple[int, ...] | None,
    now: tuple[int, ...],
    *,
    key: str,
    lineage: str,
    ts: str | None,
    model: str | None,
    provider: str | None,
) -> Usage | None:
    """The response between two cumulative totals, or None when nothing was spent (a rate
    limit update). A total below the one before (a thread that restarted its count) is a
    step from zero."""
    base = before or (0, 0, 0, 0)
    if now == base:
        return None
    if any(n < b for n, b in zip(now, base, strict=True)):
        base = (0, 0, 0, 0)
    inp, cached, out, reasoning = (n - b for n, b in zip(now, base, strict=True))
    return Usage(
        key=key,
        ukey=f"{lineage}:" + "/".join(str(n) for n in now),
        timestamp=ts,
        model=model,
        provider=provider or "openai",
        input=max(inp - cached, 0),
        output=out,
        cache_read=cached,
        cache_write=0,
        reasoning=reasoning,
    )
