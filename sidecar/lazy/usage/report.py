"""Usage and cost over the store: a Builder's (its subagents apart, per model), a range of
its messages', and reports by day / week / project / agent / model over a time span. The
store sums the tokens; :mod:`lazy.usage.pricing` prices the sums."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from pydantic import BaseModel, Field

from lazy.model import BuilderInfo, MessageView, ModelTokens, Tokens, UsageInfo
from lazy.store import usage as rows
from lazy.store.usage import Sum
from lazy.usage import pricing

BY = ("day", "week", "project", "agent", "model")


def moment(value: str | None, name: str = "since") -> str | None:
    """A --since/--until as `lazy search`'s after:/before: take it (a date or time, local
    without a zone; today, yesterday; an age: 12h, 7d, 2w, 3m, 1y), as a UTC ISO time the
    stored timestamps compare with; ValueError when it is none of those."""
    if value is None or not value.strip():
        return None
    from lazy.index.query import QueryError
    from lazy.index.query import _when as parse_when

    try:
        t = parse_when(name, value.strip(), value, datetime.now(UTC))
    except QueryError as e:
        raise ValueError(
            f"{value!r} is not a date, a time, today, yesterday or an age (7d, 2w)"
        ) from e
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _priced(fetch: Callable[[dict[str, int] | None], list[Sum]], home: Path | None) -> list[Sum]:
    """Sums ready to price: fetched once; again, with a tiered model's big responses each
    alone, only when some group holds a response past its tier (rare: one scan usually)."""
    sums = fetch(None)
    split: dict[str, int] = {}
    for s in sums:
        r = pricing.rates(s.model, s.provider, s.day, home) if s.model else None
        if s.model and r is not None and r.tier_from is not None and s.biggest >= r.tier_from:
            split[s.model] = min(r.tier_from, split.get(s.model, r.tier_from))
    return fetch(split) if split else sums


def _add(t: Tokens, s: Sum, home: Path | None) -> None:
    t.responses += s.responses
    t.input += s.input
    t.output += s.output
    t.cache_read += s.cache_read
    t.cache_write += s.cache_write
    t.reasoning += s.reasoning
    r = pricing.rates(s.model, s.provider, s.day, home)
    if r is None:
        t.unpriced += s.responses
        return
    if s.responses == 1:
        cost = r.response_micros(s.input, s.output, s.cache_read, s.cache_write)
    else:
        cost = r.micros(s.input, s.output, s.cache_read, s.cache_write)
    t._exact = (t._exact or Decimal(0)) + cost
    t.cost_micros = int(t._exact.to_integral_value())


def total(sums: Iterable[Sum], home: Path | None = None) -> Tokens:
    t = Tokens()
    for s in sums:
        _add(t, s, home)
    return t


def per_model(sums: Iterable[Sum], home: Path | None = None) -> list[ModelTokens]:
    out: dict[tuple[str | None, str | None], ModelTokens] = {}
    for s in sums:
        m = out.setdefault((s.model, s.provider), ModelTokens(model=s.model, provider=s.provider))
        _add(m, s, home)
    return sorted(out.values(), key=lambda m: -(m.cost_micros or 0) - m.output / 1e12)


def builder_usage(c: sqlite3.Connection, bid: str, home: Path | None = None) -> UsageInfo:
    """A Builder's tokens and cost: each response once, its subagents' apart."""
    sums = _priced(lambda sp: rows.sums(c, "kind", builders=[bid], splits=sp), home)
    return UsageInfo(
        total=total(sums, home),
        main=total((s for s in sums if s.group == "main"), home),
        subagents=total((s for s in sums if s.group == "subagent"), home),
        models=per_model(sums, home),
        context=rows.last_context(c, bid),
        prices=pricing.provenance(home),
    )


def builders_totals(
    c: sqlite3.Connection, bids: list[str], home: Path | None = None
) -> dict[str, Tokens]:
    """Several Builders' totals (for a list), in one query a few hundred at a time."""
    out: dict[str, Tokens] = {b: Tokens() for b in bids}
    for i in range(0, len(bids), 500):
        chunk = bids[i : i + 500]
        for s in _priced(lambda sp: rows.sums(c, "builder", builders=chunk, splits=sp), home):  # noqa: B023
            _add(out.setdefault(s.group, Tokens()), s, home)
    return out


def range_usage(
    c: sqlite3.Connection, bid: str, first: int, last: int, home: Path | None = None
) -> Tokens:
    """What the model responses of a Builder's messages ``first``..``last`` cost."""
    return total(_priced(lambda sp: rows.range_sums(c, bid, first, last, sp), home), home)


class ReportRow(BaseModel):
    group: str  # the day, week, project, agent or model
    tokens: Tokens


class Report(BaseModel):
    """``lazy usage`` / ``usage/report``: tokens and cost per group over a span."""

    by: str
    since: str | None = None
    until: str | None = None
    projects: list[str] | None = None  # None: every project
    rows: list[ReportRow] = Field(default_factory=list)
    total: Tokens = Field(default_factory=Tokens)
    subagents: Tokens = Field(default_factory=Tokens)  # of the total, what subagents spent
    models: list[ModelTokens] = Field(default_factory=list)
    prices: str = ""


def report(
    c: sqlite3.Connection,
    by: str,
    *,
    since: str | None = None,
    until: str | None = None,
    projects: list[str] | None = None,
    nested: bool = False,
    home: Path | None = None,
) -> Report:
    """Totals per ``by`` group (sorted by group; day and week in time order), the whole,
    what subagents spent of it and per model, over ``since`` <= time < ``until``, in some
    projects (``nested``: or below them) or all."""
    if by not in BY:
        raise ValueError(f"--by takes one of {', '.join(BY)}, not {by!r}")
    scope = {"since": since, "until": until, "projects": projects, "nested": nested}
    grouped = _priced(lambda sp: rows.sums(c, by, splits=sp, kinds=True, **scope), home)  # type: ignore[arg-type]
    groups: dict[str, Tokens] = {}
    for s in grouped:
        _add(groups.setdefault(s.group, Tokens()), s, home)
    return Report(
        by=by,
        since=since,
        until=until,
        projects=projects,
        rows=[ReportRow(group=g, tokens=t) for g, t in sorted(groups.items())],
        total=total(grouped, home),
        subagents=total((s for s in grouped if s.sub), home),
        models=per_model(grouped, home),
        prices=pricing.provenance(home),
    )


def money(t: Tokens) -> str:
    """A cost as people read it: $1.45; "unknown" when no response had a price; a "+?"
    when some had none."""
    if t.cost_micros is None:
        return "unknown" if t.responses else "-"
    dollars = t.cost_micros / 1_000_000
    text = f"${dollars:,.2f}" if dollars >= 0.01 or dollars == 0 else f"${dollars:.4f}"
    return text + ("+?" if t.unpriced else "")


def tokens_short(n: int) -> str:
    """72.4k, 1.2M."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1_000:
        return f"{n / 1_000:.1f}k"
    return str(n)


def annotate(
    c: sqlite3.Connection,
    builder: BuilderInfo,
    messages: Iterable[MessageView],
    home: Path | None = None,
) -> None:
    """Put the Builder's usage on its info and each model response's tokens on its
    message view (in place)."""
    builder.usage = builder_usage(c, builder.id, home)
    message_tokens(c, builder.id, messages)


def message_tokens(c: sqlite3.Connection, bid: str, messages: Iterable[MessageView]) -> None:
    """Put each model response's tokens on its message view (in place): what a page of a
    transcript shows, without the whole Builder's totals its header has already."""
    views = list(messages)
    if not views:
        return
    nums = [v.number for v in views]
    spent = rows.of_messages(c, bid, (min(nums), max(nums)))
    for v in views:
        t = spent.get((v.session_id, v.number))
        if t is not None:
            v.tokens = Tokens(
                responses=t.responses,
                input=t.input,
                output=t.output,
                cache_read=t.cache_read,
                cache_write=t.cache_write,
                reasoning=t.reasoning or 0,
            )


def with_usage(
    c: sqlite3.Connection, builders: list[BuilderInfo], home: Path | None = None
) -> None:
    """Put each listed Builder's totals on its info (in place): the total alone, and only
    for those that have any."""
    totals = builders_totals(c, [b.id for b in builders], home)
    prices = pricing.provenance(home) if builders else ""
    for b in builders:
        t = totals.get(b.id)
        if t is not None and t.responses:
            b.usage = UsageInfo(total=t, prices=prices)
