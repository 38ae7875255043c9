"""Tokens per model response (table ``usage``): written beside the messages a batch holds,
read back as sums. Pricing is not the store's: :mod:`lazy.usage` prices the sums it reads.

Each response is counted once. A response copied into another session (a Claude Code fork
or resume copy, a Codex fork's copied lines, an OpenCode fork's cloned messages) has the same
``ukey`` there; of the rows holding one ukey only the earliest (by time, a session that is not
a copy first, then session id) has ``counted = 1``, whatever order the files were read in.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from lazy.records import ReadBatch, Usage

TOKENS = ("input", "output", "cache_read", "cache_write", "reasoning")


def apply(c: sqlite3.Connection, batch: ReadBatch) -> None:
    """Store a batch's usage rows (a line seen again with a larger usage replaces its row:
    Claude Code's streaming placeholders, OpenCode's message edited as it streams)."""
    rows = [(sid, u) for sid, items in batch.usage.items() for u in items]
    if not rows:
        return
    c.executemany(
        "INSERT INTO usage(session_id, ukey, key, ts, model, provider, input, output,"
        " cache_read, cache_write, reasoning) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
        " ON CONFLICT(session_id, ukey) DO UPDATE SET key=excluded.key,"
        " ts=COALESCE(usage.ts, excluded.ts), model=COALESCE(excluded.model, usage.model),"
        " provider=COALESCE(excluded.provider, usage.provider), input=excluded.input,"
        " output=excluded.output, cache_read=excluded.cache_read,"
        " cache_write=excluded.cache_write, reasoning=excluded.reasoning"
        " WHERE excluded.output + excluded.input + excluded.cache_read + excluded.cache_write"
        " >= usage.output + usage.input + usage.cache_read + usage.cache_write",
        [_row(sid, u) for sid, u in rows],
    )
    recount(c, {u.ukey for _, u in rows})


def _row(sid: str, u: Usage) -> tuple[object, ...]:
    return (
        sid,
        u.ukey,
        u.key,
        u.timestamp,
        u.model,
        u.provider,
        u.input,
        u.output,
        u.cache_read,
        u.cache_write,
        u.reasoning,
    )


def recount(c: sqlite3.Connection, ukeys: Iterable[str]) -> None:
    """Which row of each ukey counts: one outside a fork's Builder, of a session that is not
    a copy, the earliest."""
    keys = list(ukeys)
    for i in range(0, len(keys), 500):
        chunk = keys[i : i + 500]
        marks = ",".join("?" * len(chunk))
        c.execute(
            f"UPDATE usage SET counted = (rowid = (SELECT u2.rowid FROM usage u2"
            f" LEFT JOIN sessions s2 ON s2.id = u2.session_id"
            f" LEFT JOIN builders b2 ON b2.id = s2.builder_id WHERE u2.ukey = usage.ukey"
            f" ORDER BY b2.forked_from IS NOT NULL, COALESCE(s2.copied_from, '') != '',"
            f" u2.ts IS NULL, u2.ts, s2.started_at, u2.session_id LIMIT 1))"
            f" WHERE ukey IN ({marks})",
            chunk,
        )


def recount_builders(c: sqlite3.Connection, bids: Iterable[str]) -> None:
    """After regrouping (a Builder found to be a fork, a copy joined): recount the responses
    of those Builders that are held more than once."""
    ids = list(bids)
    shared: set[str] = set()
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        shared.update(
            r[0]
            for r in c.execute(
                "SELECT DISTINCT u.ukey FROM usage u JOIN sessions s ON s.id = u.session_id"
                f" WHERE s.builder_id IN ({','.join('?' * len(chunk))}) AND EXISTS"
                " (SELECT 1 FROM usage u2 WHERE u2.ukey = u.ukey AND u2.rowid != u.rowid)",
                chunk,
            )
        )
    recount(c, shared)


def forget(c: sqlite3.Connection, keys: list[str]) -> None:
    """Delete the sessions' usage rows; a copy elsewhere of what they held counts now."""
    ukeys: set[str] = set()
    for k in keys:
        ukeys.update(r[0] for r in c.execute("SELECT ukey FROM usage WHERE session_id=?", (k,)))
        c.execute("DELETE FROM usage WHERE session_id=?", (k,))
    recount(c, ukeys)


@dataclass(slots=True)
class Sum:
    """Tokens summed over a group of responses of one model."""

    model: str | None
    provider: str | None
    day: str | None  # YYYY-MM-DD (UTC): prices are as of the day
    responses: int = 0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    group: str = ""  # what the caller grouped by (a day, a project, "main"/"subagent"...)
    biggest: int = 0  # the largest input of one response (a tiered price's threshold)
    sub: bool = False  # subagents' responses (when the caller asked to have them apart)


_SUMS = (
    "u.model, u.provider, substr(u.ts, 1, 10), COUNT(*), SUM(u.input), SUM(u.output),"
    " SUM(u.cache_read), SUM(u.cache_write), COALESCE(SUM(u.reasoning), 0),"
    " MAX(u.input + u.cache_read + u.cache_write)"
)


def _sums(rows: Iterable[tuple[object, ...]]) -> list[Sum]:
    out = []
    for r in rows:
        model, provider, day, n, i, o, cr, cw, rs, big, group, *kind = r
        out.append(
            Sum(
                model if isinstance(model, str) else None,
                provider if isinstance(provider, str) else None,
                day if isinstance(day, str) else None,
                int(n or 0),  # type: ignore[call-overload]
                int(i or 0),  # type: ignore[call-overload]
                int(o or 0),  # type: ignore[call-overload]
                int(cr or 0),  # type: ignore[call-overload]
                int(cw or 0),  # type: ignore[call-overload]
                int(rs or 0),  # type: ignore[call-overload]
                str(group) if group is not None else "",
                int(big or 0),  # type: ignore[call-overload]
                bool(kind and kind[0]),
            )
        )
    return out


# what a report may group by: the SQL of the group's name
GROUPS = {
    "day": "substr(u.ts, 1, 10)",
    "week": "date(substr(u.ts, 1, 10), 'weekday 0', '-6 days')",  # its Monday
    "project": "COALESCE(s.project, '')",
    "agent": "s.tool",
    "model": "COALESCE(u.model, '')",
    "builder": "COALESCE(s.builder_id, '')",
    "kind": "CASE s.kind WHEN 'sidechain' THEN 'subagent' ELSE 'main' END",
}


def sums(
    c: sqlite3.Connection,
    by: str,
    *,
    since: str | None = None,
    until: str | None = None,
    projects: list[str] | None = None,
    nested: bool = False,
    builders: list[str] | None = None,
    splits: dict[str, int] | None = None,
    kinds: bool = False,
) -> list[Sum]:
    """Counted responses summed per (group, model, provider, day) (``kinds``: and main line
    or subagent, in the same scan), over a time span
    (ISO 8601 bounds, ``until`` exclusive), some projects, or some Builders; a response of a
    model in ``splits`` at least that big is summed alone (its price is tiered)."""
    where = ["u.counted = 1"]
    args: list[object] = []
    if since:
        where.append("u.ts >= ?")
        args.append(since)
    if until:
        where.append("u.ts < ?")
        args.append(until)
    if projects is not None:
        # a project named, or (``nested``) any project at or below one of those folders
        one = "(s.project = ? OR substr(s.project, 1, length(?) + 1) = ? || '/')"
        where.append(
            "(" + " OR ".join([one if nested else "s.project = ?"] * len(projects)) + ")"
            if projects
            else "0"
        )
        for p in projects:
            args.extend([p, p, p] if nested else [p])
    if builders is not None:
        where.append(f"s.builder_id IN ({','.join('?' * len(builders))})")
        args.extend(builders)
        # a few Builders: their sessions first, then each one's rows by the primary key; the
        # index on counted would walk every response in the store (0.5 s at 1M messages)
        where[0] = "+u.counted = 1"
    g = GROUPS[by]
    alone, alone_args = _alone(splits or {})
    kind = ", s.kind = 'sidechain'" if kinds else ""
    sql = (
        f"SELECT {_SUMS}, {g}{kind} FROM usage u JOIN sessions s ON s.id = u.session_id"
        f" WHERE {' AND '.join(where)}"
        f" GROUP BY {g}, u.model, u.provider, substr(u.ts, 1, 10), {alone}{kind}"
    )
    return _sums(c.execute(sql, [*args, *alone_args]))


def _alone(splits: dict[str, int]) -> tuple[str, list[object]]:
    """The SQL that gives each response of a model at least its split (a tiered price's
    threshold) a group of its own, and 0 to every other."""
    if not splits:
        return "NULL", []  # (a bare integer would name a column)
    whens = " ".join("WHEN ? THEN ?" for _ in splits)
    args: list[object] = [x for kv in splits.items() for x in kv]
    return (
        f"CASE WHEN u.input + u.cache_read + u.cache_write >= (CASE u.model {whens} END)"
        " THEN u.rowid ELSE 0 END",
        args,
    )


def range_sums(
    c: sqlite3.Connection, bid: str, first: int, last: int, splits: dict[str, int] | None = None
) -> list[Sum]:
    """The counted responses spent on a Builder's main messages ``first``..``last``."""
    alone, alone_args = _alone(splits or {})
    sql = (
        f"SELECT {_SUMS}, '' FROM usage u JOIN messages m ON m.session_id = u.session_id"
        " AND m.key = u.key JOIN sessions s ON s.id = u.session_id"
        " WHERE u.counted = 1 AND m.builder_id = ? AND s.kind = 'main'"
        " AND m.number BETWEEN ? AND ?"
        f" GROUP BY u.model, u.provider, substr(u.ts, 1, 10), {alone}"
    )
    return _sums(c.execute(sql, (bid, first, last, *alone_args)))


@dataclass(slots=True)
class MessageTokens:
    input: int
    output: int
    cache_read: int
    cache_write: int
    reasoning: int | None
    responses: int


def of_messages(
    c: sqlite3.Connection, bid: str, numbers: tuple[int, int] | None = None
) -> dict[tuple[str, int], MessageTokens]:
    """The tokens spent on each numbered message of a Builder (its subagents' too), by
    (session id, number); ``numbers``: only those first..last."""
    span = ""
    args: list[object] = [bid]
    if numbers is not None:
        span = " AND m.number BETWEEN ? AND ?"
        args += [numbers[0], numbers[1]]
    out: dict[tuple[str, int], MessageTokens] = {}
    for sid, number, i, o, cr, cw, rs, n in c.execute(
        "SELECT m.session_id, m.number, SUM(u.input), SUM(u.output), SUM(u.cache_read),"
        " SUM(u.cache_write), SUM(u.reasoning), COUNT(*) FROM messages m"
        " JOIN usage u ON u.session_id = m.session_id AND u.key = m.key"
        f" WHERE m.builder_id = ? AND m.number IS NOT NULL{span}"
        " GROUP BY m.session_id, m.number",
        args,
    ):
        out[(sid, number)] = MessageTokens(i, o, cr, cw, rs, n)
    return out


def last_context(c: sqlite3.Connection, bid: str) -> int | None:
    """The context the Builder's latest main response was sent: its whole input."""
    row = c.execute(
        "SELECT u.input + u.cache_read + u.cache_write FROM usage u"
        " JOIN sessions s ON s.id = u.session_id WHERE s.builder_id = ? AND s.kind = 'main'"
        " ORDER BY u.ts DESC LIMIT 1",
        (bid,),
    ).fetchone()
    return int(row[0]) if row else None
