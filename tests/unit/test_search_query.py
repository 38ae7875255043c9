"""The search query language (lazy.index.query) over a real tantivy index of fifteen
messages: each filter, phrases, exclusion, prefixes, OR and groups, identifiers found whole
and by their parts, tool text in and out of scope, absolute and relative dates, and the
message of every malformed query."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import tantivy

from lazy.index.query import QueryError, compile, parse
from lazy.index.schema import build_schema, document, register

NOW = datetime(2026, 3, 20, 12, 0, tzinfo=UTC)


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


LAZY = {"project": "/home/u/lazy", "project_name": "lazy"}
WEB = {"project": "/home/u/web", "project_name": "web"}
SRV_LAZY = {"project": "/srv/lazy", "project_name": "lazy"}  # same name, other path
B1 = {"builder": "b1aaaa-1111"}
B2 = {"builder": "b2bbbb-2222"}
B3 = {"builder": "c3cccc-3333"}
B4 = {"builder": "c3cdddd-4444"}  # shares 'c3c' with B3
CONV = {"kind": "conversation"}

DOCS: dict[int, dict[str, Any]] = {
    1: {**LAZY, **B1, **CONV, "tool": "claude", "role": "user", "ts": "2026-03-19T10:00",
        "text": "please fix index_writer.py so the lock is held"},
    2: {**LAZY, **B1, **CONV, "tool": "claude", "role": "assistant", "ts": "2026-03-19T10:05",
        "model": "claude-opus-4-1", "text": "the get_user_name helper returns None"},
    3: {**WEB, **B2, **CONV, "tool": "codex", "role": "assistant", "ts": "2026-03-10T00:00",
        "model": "gpt-5-codex", "text": "run pytest with --include-trivial and read the logs"},
    4: {**WEB, **B2, **CONV, "tool": "codex", "role": "user", "ts": "2026-03-01T00:00",
        "text": "database is locked again"},
    5: {**SRV_LAZY, **B3, **CONV, "tool": "opencode", "role": "reasoning",
        "ts": "2026-02-01T00:00", "model": "anthropic/claude-sonnet-4",
        "text": "thinking about the mutex and the lock"},
    6: {**LAZY, **B1, **CONV, "tool": "claude", "role": "tool_call", "ts": "2026-03-19T10:01",
        "tools": "rg -n 'def open_writer' sidecar/lazy/index/indexer.py"},
    7: {**LAZY, **B1, **CONV, "tool": "claude", "role": "tool_result", "ts": "2026-03-19T10:02",
        "tools": "Traceback: database is locked"},
    8: {**LAZY, **B1, "kind": "task", "tool": "claude", "role": "user", "ts": "2026-03-18T00:00",
        "text": "task: migrate the writerLock"},
    9: {**LAZY, **B1, "kind": "memory", "tool": "claude", "role": "assistant",
        "ts": "2026-03-17T00:00", "text": "memory about the writerLock config"},
    10: {**LAZY, **B1, **CONV, "tool": "claude", "role": "system", "ts": "2026-03-19T09:00",
         "text": "You are a coding agent"},
    11: {**WEB, **B2, **CONV, "tool": "codex", "role": "assistant", "ts": "2026-03-20T06:00",
         "model": "gpt-5", "text": "database locked", "tools": "sqlite3 error"},
    12: {**WEB, **B2, **CONV, "tool": "codex", "role": "user", "ts": "2026-03-05T00:00",
         "text": "parseConfig failed in config/loader.ts"},
    13: {**LAZY, **B1, **CONV, "tool": "claude", "role": "assistant", "ts": "2025-03-20T11:00",
         "model": "claude-opus-4-1", "text": "old message about a mutex"},
    14: {**LAZY, **B1, **CONV, "tool": "claude", "role": "user", "ts": "2026-03-15T00:00",
         "text": "the lock is not held"},
    15: {**SRV_LAZY, **B4, **CONV, "tool": "opencode", "role": "assistant",
         "ts": "2026-03-20T11:00", "model": "anthropic/claude-sonnet-4",
         "text": "fixing the parser"},
}  # fmt: skip

ROWS = [B1["builder"], B2["builder"], B3["builder"], B4["builder"]]

# what a text scope holds: conversation messages but tool calls and results
CONVERSATIONS = {n for n, d in DOCS.items() if d["kind"] == "conversation"} - {6, 7}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> tantivy.Index:
    path = tmp_path_factory.mktemp("search_index")
    idx = tantivy.Index(build_schema(), str(path))
    register(idx)
    writer = idx.writer(15_000_000, 1)
    for number, d in DOCS.items():
        fields = {k: v for k, v in d.items() if k not in ("ts", "project_name")}
        row = ROWS.index(d["builder"]) + 1  # the Builder's row number in a store
        writer.add_json(
            document(doc_id=number, ts=_utc(d["ts"]).timestamp(), builder_row=row, **fields)
        )
    writer.commit()
    writer.wait_merging_threads()
    idx.reload()
    return idx


@pytest.fixture
def local_tz() -> Iterator[Any]:
    """Sets the process's local time zone for naive dates; restores it after."""
    before = os.environ.get("TZ")

    def set_tz(name: str) -> None:
        os.environ["TZ"] = name
        time.tzset()

    set_tz("UTC")
    yield set_tz
    if before is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = before
    time.tzset()


def hits(index: tantivy.Index, text: str, now: datetime = NOW) -> set[int]:
    query = compile(parse(text, now=now), index)
    searcher = index.searcher()
    found = searcher.search(query, 100).hits
    return {int(i) for i in searcher.fast_field_values("doc_id", [a for _, a in found])}


def error(text: str, index: tantivy.Index | None = None) -> QueryError:
    with pytest.raises(QueryError) as caught:
        parsed = parse(text, now=NOW)
        if index is not None:
            compile(parsed, index)
    return caught.value


# ---- words, phrases, exclusion, prefix, OR ------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("lock", {1, 5, 14}),
        ("lock held", {1, 14}),  # every word must match, in any order
        ('"lock is held"', {1}),  # a phrase keeps its order: 14 has "is not held"
        ('"held lock"', set()),
        ("lock -mutex", {1, 14}),
        ('lock -"is not"', {1, 5}),
        ("-lock tool:claude", {2, 10, 13}),  # only an exclusion: everything else in scope
        ("writ*", {1}),  # index_writer.py by its part 'writer'
        ("pars*", {12, 15}),  # parseConfig by its part, parser whole
        ("index_wr*", {1}),  # an identifier's prefix, whole
        ("-pars* tool:codex", {3, 4, 11}),
        ("mutex OR parser", {5, 13, 15}),
        ("lock held OR mutex", {1, 5, 14}),  # lock AND (held OR mutex): 13 has no lock
        ("(lock held) OR parser", {1, 14, 15}),
        ("database (locked OR held)", {4, 11}),
        ("mutex OR parser OR pytest", {3, 5, 13, 15}),
        ("lock -(mutex OR held)", set()),
        ("mutex OR -lock", CONVERSATIONS - {1, 14}),
        ("print(x) OR mutex", {5, 13}),  # parentheses inside a word belong to it
        ("or", set()),  # lowercase 'or' is a word
    ],
)
def test_terms(index: tantivy.Index, query: str, expected: set[int]) -> None:
    assert hits(index, query) == expected


# ---- identifiers whole and by parts -------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("index_writer.py", {1}),
        ("index writer", {1}),  # snake_case and dotted names by their parts
        ('"writer py"', {1}),
        ("getUserName", {2}),  # camelCase finds snake_case
        ("get_user_name", {2}),
        ("user_name", {2}),
        ("parse_config", {12}),  # snake_case finds camelCase
        ("parseConfig", {12}),
        ("config/loader.ts", {12}),  # a path whole
        ("loader", {12}),  # and by a part
        ("--include-trivial", {3}),  # a flag whole
        ("include-trivial", {3}),
        ("trivial", {3}),
        ("in:tasks writerLock", {8}),
        ("in:all writer_lock", {8, 9}),
        ("in:all writ*", {1, 6, 8, 9}),
    ],
)
def test_identifiers(index: tantivy.Index, query: str, expected: set[int]) -> None:
    assert hits(index, query) == expected


# ---- scope: tools out of default searches -------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("database", {4, 11}),
        ("in:tools database", {7}),
        ("in:all database", {4, 7, 11}),
        ("sqlite3", set()),
        ("in:tools sqlite3", {11}),
        ("open_writer", set()),
        ("in:tools open_writer", {6}),
        ("in:tools open writer", {6}),
        ("in:tools sidecar/lazy/index/indexer.py", {6}),
        ("role:tool_call open_writer", {6}),  # asking for a tool role searches tool text
        ("role:tool_call in:conversations open_writer", set()),
        ("in:memories writerLock", {9}),
        ("in:tasks migrate", {8}),
        ("migrate", set()),
        ("in:memories", {9}),
        ("in:task", {8}),
        ("in:all", set(DOCS)),
        ("in:tools tool:claude", {1, 2, 6, 7, 8, 9, 10, 13, 14}),  # any kind
    ],
)
def test_scope(index: tantivy.Index, query: str, expected: set[int]) -> None:
    assert hits(index, query) == expected


# ---- filters ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("tool:codex", {3, 4, 11, 12}),
        ("tool:opencode", {5, 15}),
        ("tool:CLAUDE lock", {1, 14}),
        ("tool:codex tool:opencode", {3, 4, 5, 11, 12, 15}),  # repeated: any of them
        ("-tool:claude -tool:codex", {5, 15}),
        ("project:lazy lock", {1, 5, 14}),  # by name: both lazy projects
        ("project:/srv/lazy", {5, 15}),  # by path: exactly that one
        ("project:/srv/lazy/", {5, 15}),
        ("project:/home/u/lazy lock", {1, 14}),
        ("project:web", {3, 4, 11, 12}),
        ("project:/home/u", set()),  # a path matches exactly, not its children
        ("project:nope", set()),
        ("role:reasoning", {5}),
        ("role:system", {10}),
        ("role:user -tool:codex", {1, 14}),
        ("role:user role:assistant tool:opencode", {15}),
        ("builder:b2bbbb-2222", {3, 4, 11, 12}),
        ("builder:b2", {3, 4, 11, 12}),  # a unique prefix
        ("builder:c3cc", {5}),
        ("builder:c3cd*", {15}),
        ("-builder:b1 -builder:b2", {5, 15}),
        ("builder:zz", set()),
        ("model:gpt-5", {11}),  # exact
        ("model:gpt-5*", {3, 11}),
        ("model:claude*", {2, 13}),
        ("model:anthropic/claude-sonnet-4", {5, 15}),
        ('project:"lazy" model:"claude-opus-4-1"', {2, 13}),
    ],
)
def test_filters(index: tantivy.Index, query: str, expected: set[int]) -> None:
    assert hits(index, query) == expected


def test_ambiguous_builder_prefix(index: tantivy.Index) -> None:
    e = error("builder:c3c", index)
    assert str(e).startswith("builder:: 'c3c' starts more than one Builder (")
    assert "c3cccc-3333" in str(e) and "c3cdddd-4444" in str(e)
    assert e.part == "builder:c3c"


# ---- dates --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("after:2026-03-19", {2, 10, 11, 15} | {1}),
        ("after:2026-03-01 before:2026-03-10", {4, 12}),  # after inclusive, before exclusive
        ("before:2026-03-01", {5, 13}),
        ("after:2026-03-19T10:00 before:2026-03-19T10:05", {1}),
        ("after:2026-03-19T10:00:00Z before:2026-03-19T10:05:00Z", {1}),
        ("after:2026-03-20T08:00+02:00", {11, 15}),  # 06:00Z inclusive
        ("after:12h", {11, 15}),  # since 2026-03-20T00:00Z
        ("after:7d", {1, 2, 10, 11, 14, 15}),
        ("after:2w", {1, 2, 3, 10, 11, 14, 15}),
        ("after:3m before:2w", {4, 5, 12}),  # 30-day months
        ("after:1y", CONVERSATIONS - {13}),
        ("before:1y", {13}),
        ("after:today", {11, 15}),
        ("after:yesterday before:today", {1, 2, 10}),
        ("in:all after:2026-03-17 before:2026-03-19", {8, 9}),
    ],
)
def test_dates(index: tantivy.Index, local_tz: Any, query: str, expected: set[int]) -> None:
    assert hits(index, query) == expected


def test_naive_dates_are_local_time(index: tantivy.Index, local_tz: Any) -> None:
    local_tz("Asia/Tokyo")  # UTC+9, no daylight saving
    # 2026-03-01T09:00 in Tokyo is message 4's 2026-03-01T00:00Z
    assert hits(index, "after:2026-03-01T09:00 before:2026-03-05T09:00") == {4}
    assert hits(index, "before:2026-03-01T09:00 after:2026-02-01") == {5}
    assert hits(index, "after:2026-03-20") == {11, 15}  # Tokyo midnight is 15:00Z the day before
    assert hits(index, "after:today", now=NOW) == {11, 15}  # 2026-03-20 21:00 in Tokyo


def test_naive_now_is_local_time(index: tantivy.Index, local_tz: Any) -> None:
    local_tz("Asia/Tokyo")
    naive_now = datetime(2026, 3, 20, 21, 0)  # == NOW
    assert hits(index, "after:12h", now=naive_now) == {11, 15}


# ---- the parsed form ----------------------------------------------------------------


def test_parsed_structure_and_words() -> None:
    p = parse('index_writer.py "lock is held" -mutex writ* a OR b tool:codex', now=NOW)
    assert p.scope == "conversations"
    assert p.kinds == ("conversation",)
    assert p.fields == ("text",)
    assert p.words() == ["index_writer.py", "lock is held", "writ", "a", "b"]
    assert [t.kind for t in p.terms()] == ["word", "phrase", "prefix", "word", "word"]
    assert p.terms()[0].tokens == ("index", "writer", "py")
    assert parse("getUserName HTTPServer").terms()[0].tokens == ("get", "user", "name")
    assert parse("getUserName HTTPServer").terms()[1].tokens == ("http", "server")
    assert [(f.name, f.value, f.negated) for f in p.filters] == [("tool", "codex", False)]
    assert p.query is not None and len(p.query.children) == 5  # the OR is one item


def test_filters_only_and_scopes() -> None:
    p = parse("in:all tool:claude after:7d", now=NOW)
    assert p.query is None and p.words() == []
    assert p.kinds == () and p.fields == ("text", "tools", "memory")
    assert parse("in:memories x").fields == ("memory",)
    assert p.after == datetime(2026, 3, 13, 12, 0, tzinfo=UTC)
    assert parse("in:tools x").fields == ("tools",)
    assert parse("in:memories x").kinds == ("memory",)


# ---- malformed queries --------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "message", "part"),
    [
        ("", "empty query", ""),
        ("   ", "empty query", "   "),
        ('"foo bar', "unterminated quote in '\"foo bar'", '"foo bar'),
        ('lock -"foo bar', "unterminated quote in '\"foo bar'", '"foo bar'),
        ('project:"my proj', "unterminated quote in '\"my proj'", '"my proj'),
        ('lock ""', "empty phrase '\"\"'", '""'),
        ("proj:lazy", "unknown filter 'proj:' (filters: in:, project:, tool:, role:,", "proj:"),
        ("after:2026-13-01", "after:: '2026-13-01' is not a date", "after:2026-13-01"),
        ("before:soon", "before:: 'soon' is not a date", "before:soon"),
        ("after:7x", "after:: '7x' is not a date", "after:7x"),
        ("OR lock", "OR needs a term on both sides", "OR"),
        ("lock OR", "OR needs a term on both sides", "OR"),
        ("lock OR OR held", "OR needs a term on both sides", "OR"),
        ("(lock OR) held", "OR needs a term on both sides", "OR"),
        ("tool:codex OR lock", "OR joins terms, phrases and groups, not filters like 'tool:codex'",
         "tool:codex"),
        ("lock OR -tool:codex", "OR joins terms, phrases and groups, not filters like",
         "-tool:codex"),
        ("in:code", "in:: 'code' is not one of conversations, tasks, memories, tools, all",
         "in:code"),
        ("tool:cursor", "tool:: 'cursor' is not one of claude, codex, opencode", "tool:cursor"),
        ("role:bot", "role:: 'bot' is not one of user, assistant, reasoning,", "role:bot"),
        ("tool:", "tool: needs a value", "tool:"),
        ("lock in:tools in:all", "in: given twice ('in:all')", "in:all"),
        ("after:1d after:2d", "after: given twice ('after:2d')", "after:2d"),
        ("-in:tools lock", "in: can't be excluded: '-in:tools'", "-in:tools"),
        ("after:1d before:2d", "'after:1d' is not before 'before:2d': nothing can match",
         "after:1d"),
        ("(lock tool:codex)", "filters go outside parentheses: 'tool:codex'", "tool:codex"),
        ("(lock held", "unclosed '('", "("),
        ("lock held)", "unmatched ')'", ")"),
        ("lock ()", "empty group '()'", "()"),
        ("lock -", "'-' needs something to exclude", "-"),
        ("lock - held", "'-' needs something to exclude", "-"),
        ("*", "'*' needs a prefix before the '*'", "*"),
        ("lock -**", "'-**' needs a prefix before the '*'", "-**"),
        ("+++", "nothing to search for in '+++'", "+++"),
        ("model:*", "model:: '*' needs a name before the '*'", "model:*"),
    ],
)  # fmt: skip
def test_malformed(query: str, message: str, part: str) -> None:
    e = error(query)
    assert str(e).startswith(message), str(e)
    assert e.part == part
    assert isinstance(e, ValueError)


@pytest.mark.parametrize(
    "query",
    ["http://example.com/x", "TODO:", "std::vector", "10:30", "fixme:"],
)
def test_colons_that_are_not_filters(query: str) -> None:
    p = parse(query)
    assert p.filters == () and p.words() == [query]


def test_tilde_project_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    p = parse("project:~/code/lazy/ lock")
    assert p.filters[0].value == str(tmp_path / "code" / "lazy")
