"""lazy's search query language: words, phrases, exclusions, prefixes, OR, groups, filters.

``parse`` turns the text into a ``Parsed`` (scope, boolean structure, filters, date bounds)
and reports a malformed query as a ``QueryError`` naming the bad part; ``compile`` turns a
``Parsed`` into a tantivy query. Queries are built term by term rather than through
tantivy's own parser so every word gets the code-aware analysis documents get
(``schema.split_humps`` then ``schema.analyzer()``) and every error is ours.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

import tantivy

from lazy.agents import TOOLS
from lazy.index.schema import KINDS, MACHINE_ROLES, TAGS, analyzer, split_humps, tag

HELP = """\
QUERY is words, "phrases" and filters; a message must match all of them.

\b
  index_writer.py lock   both words (identifiers are found whole and by
                         their parts: getUserName finds get_user_name)
  "lock is held"         the words next to each other, in this order
  -word  -"a phrase"     leave out messages that contain it
  writ*                  words starting with writ
  lock OR mutex          either; a b OR c means a and (b or c)
  (a b) OR c             group with parentheses

\b
Filters (-tool:codex excludes; a repeated filter accepts any of its values):
  in:conversations       user and assistant text and reasoning (default)
  in:tools               tool calls and tool output
  in:tasks  in:memories  tasks, memories
  in:all                 everything
  project:NAME           a project by directory name, or project:/abs/path
  tool:claude|codex|opencode
  role:user|assistant|reasoning|tool_call|tool_result|system
  builder:ID             a Builder by id or unique prefix of it
  model:NAME             a model exactly, or model:gpt-5*
  after:WHEN             on or after WHEN
  before:WHEN            before WHEN

\b
WHEN is a date or time (2026-03-01, 2026-03-01T14:30, times without a zone
are local), today, yesterday, or an age: 12h, 7d, 2w, 3m (30-day months), 1y.

\b
Examples:
  lazy search 'getUserName project:lazy after:2w'
  lazy search '"database is locked" -sqlite3 tool:codex'
  lazy search 'in:tools pytest --tb OR --maxfail'
"""

Scope = Literal["conversations", "tasks", "memories", "tools", "all"]
TermKind = Literal["word", "prefix", "phrase"]

SCOPES: tuple[Scope, ...] = ("conversations", "tasks", "memories", "tools", "all")
ROLES = ("user", "assistant", "reasoning", "tool_call", "tool_result", "system")
# keyword filters: (value, negated) pairs; the rest (in:, after:, before:) are single
KEYWORD_FILTERS = ("project", "tool", "role", "builder", "model")
FILTERS = ("in", "project", "tool", "role", "builder", "model", "after", "before")

_SCOPE_ALIASES: dict[str, Scope] = {
    **{s: s for s in SCOPES},
    "conversation": "conversations",
    "task": "tasks",
    "memory": "memories",
    "tool": "tools",
}
_SCOPE_KINDS: dict[Scope, tuple[str, ...]] = {
    "conversations": ("conversation",),
    "tasks": ("task",),
    "memories": ("memory",),
    "tools": (),
    "all": (),
}
_SCOPE_FIELDS: dict[Scope, tuple[str, ...]] = {
    "conversations": ("text",),
    "tasks": ("text",),
    "memories": ("memory",),
    "tools": ("tools",),
    "all": ("text", "tools", "memory"),
}
# the kinds of document a field holds text of
_FIELD_KINDS = {"text": {"conversation", "task"}, "tools": {"conversation"}, "memory": {"memory"}}
_AGE_UNITS = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}
_AGE_UNITS |= {"m": timedelta(days=30), "y": timedelta(days=365)}
_AGE_RE = re.compile(r"(\d+)([hdwmy])")
_FILTER_RE = re.compile(r"([A-Za-z_]+):(.*)", re.S)
# the metacharacters of tantivy's (Rust) regex syntax; escaping anything else is an error
_REGEX_META = frozenset("\\.+*?()|[]{}^$#&-~")


class QueryError(ValueError):
    """A malformed query; ``part`` is the piece of the query text at fault."""

    def __init__(self, message: str, part: str) -> None:
        super().__init__(message)
        self.part = part


# ---- the parsed form -----------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    """A word, a prefix (``writ*``, text without the star) or a phrase (text without quotes),
    with its tokens as the index holds them (``index_writer.py``: index, writer, py)."""

    text: str
    kind: TermKind
    tokens: tuple[str, ...]


@dataclass(frozen=True)
class Not:
    node: Node


@dataclass(frozen=True)
class And:
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    children: tuple[Node, ...]


Node = Term | Not | And | Or


@dataclass(frozen=True)
class Filter:
    """A keyword filter: ``name`` one of KEYWORD_FILTERS. ``value`` as typed, except a
    ``project:`` path, which is absolute without a trailing slash, and a ``model:`` prefix,
    which keeps its ``*``."""

    name: str
    value: str
    negated: bool = False


@dataclass(frozen=True)
class Parsed:
    scope: Scope
    # the text part: an And of the top-level items, None when the query is only filters
    query: And | None
    filters: tuple[Filter, ...] = ()
    after: datetime | None = None  # inclusive, aware
    before: datetime | None = None  # exclusive, aware
    # text fields searched ("text", "tools", "memory")
    fields: tuple[str, ...] = ("text",)
    # message kinds in scope; empty means any
    kinds: tuple[str, ...] = ("conversation",)
    # roles left out: a scope without the tools fields leaves out tool calls and results,
    # which would otherwise fill queries of only filters or exclusions
    hidden_roles: tuple[str, ...] = ("tool_call", "tool_result")
    scope_given: bool = field(default=False, compare=False)

    def words(self) -> list[str]:
        """The positive terms, for highlighting: words and phrases as typed, prefixes
        without their star; nothing under an exclusion."""
        return [t.text for t in _positive_terms(self.query)] if self.query else []

    def terms(self) -> list[Term]:
        """The positive terms with their kinds and analyses."""
        return list(_positive_terms(self.query)) if self.query else []


def _positive_terms(node: Node) -> Iterator[Term]:
    if isinstance(node, Term):
        yield node
    elif isinstance(node, And | Or):
        for child in node.children:
            yield from _positive_terms(child)


# ---- lexing --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tok:
    kind: Literal["word", "phrase", "filter", "or", "(", ")"]
    raw: str  # as typed, for error messages
    text: str = ""  # word/phrase text; filter value
    name: str = ""  # filter name
    neg: bool = False


def _lex(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        start = i
        neg = False
        if text[i] == "-" and (i + 1 == n or text[i + 1] != "-"):
            # a lone dash, or one before a space or ')', excludes nothing; '--x' is a flag
            if i + 1 == n or text[i + 1].isspace() or text[i + 1] == ")":
                raise QueryError("'-' needs something to exclude: -word, -\"a phrase\"", "-")
            neg = True
            i += 1
        c = text[i]
        if c == '"':
            end = text.find('"', i + 1)
            if end < 0:
                raise QueryError(f"unterminated quote in '{text[i:]}'", text[i:])
            raw = text[start : end + 1]
            if not text[i + 1 : end].strip():
                raise QueryError(f"empty phrase '{raw}'", raw)
            toks.append(_Tok("phrase", raw, text[i + 1 : end], neg=neg))
            i = end + 1
            continue
        if c == "(":
            toks.append(_Tok("(", text[start : i + 1], neg=neg))
            i += 1
            continue
        if c == ")":
            toks.append(_Tok(")", ")"))
            i += 1
            continue
        i = _word_end(text, i)
        word = text[start:i]
        body = word[1:] if neg else word
        if body == "OR" and not neg:
            toks.append(_Tok("or", word))
            continue
        m = _FILTER_RE.fullmatch(body)
        if m is not None:
            name, value = m[1].lower(), m[2]
            if name in FILTERS:
                if not value and i < n and text[i] == '"':
                    end = text.find('"', i + 1)
                    if end < 0:
                        raise QueryError(f"unterminated quote in '{text[i:]}'", text[i:])
                    value, i = text[i + 1 : end], end + 1
                    word = text[start:i]
                if not value.strip():
                    raise QueryError(f"{name}: needs a value", word)
                toks.append(_Tok("filter", word, value.strip(), name=name, neg=neg))
                continue
            # a lowercase name before a value is meant as a filter; 'http://x', 'TODO:',
            # 'std::vector' are text
            if m[1].islower() and value and value[0] not in "/:":
                raise QueryError(
                    f"unknown filter '{m[1]}:' (filters: {', '.join(f + ':' for f in FILTERS)};"
                    f' quote it to search for the text: "{body}")',
                    f"{m[1]}:",
                )
        toks.append(_Tok("word", word, body, neg=neg))
    return toks


def _word_end(text: str, i: int) -> int:
    """The end of the word starting at i: at whitespace, a quote, or a ')' that closes a
    group rather than one opened inside the word (``print(x)`` is one word)."""
    depth = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c.isspace() or c == '"':
            break
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                break
            depth -= 1
        i += 1
    return i


# ---- parsing -------------------------------------------------------------------------


@functools.cache
def _analyzer() -> tantivy.TextAnalyzer:
    return analyzer()


def _term(tok: _Tok) -> Term:
    if tok.kind == "phrase":
        kind: TermKind = "phrase"
        text = tok.text
    elif tok.text.endswith("*"):
        kind, text = "prefix", tok.text.rstrip("*")
        if not text:
            raise QueryError(f"'{tok.raw}' needs a prefix before the '*': writ*", tok.raw)
    else:
        kind, text = "word", tok.text
    tokens = tuple(_analyzer().analyze(split_humps(text)))
    if not tokens:
        raise QueryError(f"nothing to search for in '{tok.raw}'", tok.raw)
    return Term(text, kind, tokens)


class _Parser:
    def __init__(self, toks: list[_Tok]) -> None:
        self.toks = toks
        self.pos = 0
        self.filters: list[_Tok] = []

    def peek(self) -> _Tok | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def sequence(self, depth: int) -> list[Node]:
        """Items up to the end or a ')'; OR binds tighter than the implicit AND."""
        items: list[Node | _Tok] = []
        while (tok := self.peek()) is not None and tok.kind != ")":
            if tok.kind == "or":
                if not items:
                    raise QueryError("OR needs a term on both sides", tok.raw)
                left = items[-1]
                if isinstance(left, _Tok):
                    raise _or_filter(left)
                self.pos += 1
                nxt = self.peek()
                if nxt is None or nxt.kind in ("or", ")"):
                    raise QueryError("OR needs a term on both sides", tok.raw)
                right = self.unit(depth)
                if isinstance(right, _Tok):
                    raise _or_filter(right)
                lefts = left.children if isinstance(left, Or) else (left,)
                items[-1] = Or((*lefts, right))
            else:
                items.append(self.unit(depth))
        nodes: list[Node] = []
        for item in items:
            if isinstance(item, _Tok):
                self.filters.append(item)
            else:
                nodes.append(item)
        return nodes

    def unit(self, depth: int) -> Node | _Tok:
        tok = self.toks[self.pos]
        self.pos += 1
        if tok.kind == "filter":
            if depth:
                raise QueryError(f"filters go outside parentheses: '{tok.raw}'", tok.raw)
            return tok
        if tok.kind == "(":
            children = self.sequence(depth + 1)
            close = self.peek()
            if close is None:
                raise QueryError("unclosed '('", "(")
            self.pos += 1
            if not children:
                raise QueryError("empty group '()'", "()")
            node: Node = children[0] if len(children) == 1 else And(tuple(children))
            return Not(node) if tok.neg else node
        term = _term(tok)
        return Not(term) if tok.neg else term


def _or_filter(tok: _Tok) -> QueryError:
    return QueryError(
        f"OR joins terms, phrases and groups, not filters like '{tok.raw}'"
        " (a repeated filter accepts any of its values)",
        tok.raw,
    )


def scoped(query: str, projects: list[str] | None) -> str:
    """``query`` limited to ``projects`` (None: every project), unless it names projects
    itself. Repeated ``project:`` filters accept any of them; quoted, as a path may hold
    spaces."""
    if not projects or "project:" in query:
        return query
    filters = " ".join(f'project:"{p.replace(chr(34), "")}"' for p in projects)
    return f"{filters} {query}"


def parse(text: str, now: datetime | None = None) -> Parsed:
    """Parse a query; ``now`` anchors relative dates (default: the current time; a naive
    ``now`` is local time)."""
    if not text.strip():
        raise QueryError("empty query", text)
    parser = _Parser(_lex(text))
    nodes = parser.sequence(0)
    if parser.peek() is not None:  # only a ')' stops the top level early
        raise QueryError("unmatched ')'", ")")
    now = _aware(now) if now is not None else datetime.now(UTC)

    scope: Scope = "conversations"
    scope_tok: _Tok | None = None
    after: datetime | None = None
    before: datetime | None = None
    after_tok: _Tok | None = None
    before_tok: _Tok | None = None
    filters: list[Filter] = []
    seen_bounds: set[str] = set()
    for tok in parser.filters:
        name, value = tok.name, tok.text
        if name in ("in", "after", "before"):
            if tok.neg:
                raise QueryError(f"{name}: can't be excluded: '{tok.raw}'", tok.raw)
            if name in seen_bounds:
                raise QueryError(f"{name}: given twice ('{tok.raw}')", tok.raw)
            seen_bounds.add(name)
        if name == "in":
            found = _SCOPE_ALIASES.get(value.lower())
            if found is None:
                raise QueryError(f"in:: '{value}' is not one of {', '.join(SCOPES)}", tok.raw)
            scope, scope_tok = found, tok
        elif name == "after":
            after, after_tok = _when(name, value, tok.raw, now), tok
        elif name == "before":
            before, before_tok = _when(name, value, tok.raw, now), tok
        elif name == "tool":
            if value.lower() not in TOOLS:
                raise QueryError(f"tool:: '{value}' is not one of {', '.join(TOOLS)}", tok.raw)
            filters.append(Filter(name, value.lower(), tok.neg))
        elif name == "role":
            if value.lower() not in ROLES:
                raise QueryError(f"role:: '{value}' is not one of {', '.join(ROLES)}", tok.raw)
            filters.append(Filter(name, value.lower(), tok.neg))
        elif name == "project":
            filters.append(Filter(name, _project(value), tok.neg))
        elif name == "model":
            if not value.rstrip("*"):
                raise QueryError(f"model:: '{value}' needs a name before the '*'", tok.raw)
            filters.append(Filter(name, value, tok.neg))
        else:  # builder
            if value.endswith("*"):  # a prefix already is one
                value = value.rstrip("*")
            if not value:
                raise QueryError(f"builder:: '{tok.text}' is not an id", tok.raw)
            filters.append(Filter(name, value, tok.neg))
    if after is not None and before is not None and after >= before:
        assert after_tok is not None and before_tok is not None
        raise QueryError(
            f"'{after_tok.raw}' is not before '{before_tok.raw}': nothing can match",
            after_tok.raw,
        )
    fields = _fields(scope, scope_tok is not None, filters)
    return Parsed(
        scope=scope,
        query=And(tuple(nodes)) if nodes else None,
        filters=tuple(filters),
        after=after,
        before=before,
        fields=fields,
        kinds=_SCOPE_KINDS[scope],
        # memories are what the user chose to keep, tool calls among them
        hidden_roles=() if "tools" in fields or scope == "memories" else MACHINE_ROLES,
        scope_given=scope_tok is not None,
    )


def _fields(scope: Scope, scope_given: bool, filters: list[Filter]) -> tuple[str, ...]:
    """The fields a query searches: its scope's, or, asking for tool calls or results by role
    with no scope named, their text too (they live in the tools fields)."""
    tool_roles = {f.value for f in filters if f.name == "role" and not f.negated}
    if not scope_given and tool_roles & {"tool_call", "tool_result"}:
        return ("text", "tools")
    return _SCOPE_FIELDS[scope]


def _aware(moment: datetime) -> datetime:
    # astimezone() reads a naive datetime as local time
    return moment.astimezone(UTC)


def _when(name: str, value: str, raw: str, now: datetime) -> datetime:
    low = value.lower()
    if m := _AGE_RE.fullmatch(low):
        return now - int(m[1]) * _AGE_UNITS[m[2]]
    if low in ("today", "yesterday"):
        midnight = now.astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
        return _aware(midnight - timedelta(days=1 if low == "yesterday" else 0))
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise QueryError(f"{name}:: '{value}' is not a date", raw) from None
    return _aware(moment)


def _project(value: str) -> str:
    if value.startswith("~"):
        value = str(Path(value).expanduser())
    if value.startswith("/") and len(value) > 1:
        value = value.rstrip("/") or "/"
    return value


# ---- compiling -----------------------------------------------------------------------

_Clause = tuple[tantivy.Occur, tantivy.Query]


def compile(parsed: Parsed, schema_index: tantivy.Index) -> tantivy.Query:
    """The tantivy query for ``parsed``. A ``builder:`` prefix is resolved against the
    index: one matching more than one Builder is a ``QueryError``."""
    schema = schema_index.schema
    Q, Occur = tantivy.Query, tantivy.Occur
    clauses: list[_Clause] = []
    if parsed.query is not None:
        clauses += _and_clauses(parsed.query, parsed.fields, schema)

    # filters restrict without scoring
    def restrict(q: tantivy.Query, negated: bool = False) -> None:
        clauses.append((Occur.MustNot if negated else Occur.Must, Q.const_score_query(q, 0.0)))

    # kinds are left out by a clause only where the words alone would not: words match in
    # the fields searched, and those hold the text of a few kinds; a kind no document has
    # needs no clause either (a clause costs even when it matches nothing)
    searcher = schema_index.searcher()
    present = [k for k in KINDS if searcher.doc_freq(TAGS, tag("kind", k))]
    others = [k for k in present if k not in parsed.kinds]
    if parsed.query is not None and not _matches_empty(parsed.query):
        reach = set().union(*(_FIELD_KINDS[f] for f in parsed.fields))
        others = [k for k in others if k in reach]
    if parsed.kinds and others:
        # conversations are nearly every document, tasks and memories few: leaving the few
        # out costs a lookup per hit, requiring the many would walk all of them
        if parsed.kinds == ("conversation",):
            restrict(_any([_tag_query(schema, "kind", k) for k in others]), negated=True)
        else:
            restrict(_any([_tag_query(schema, "kind", k) for k in parsed.kinds]))
    # a tool call or result has no conversation text, so only a query that can match a
    # message without any needs to leave those roles out
    if parsed.query is None or _matches_empty(parsed.query):
        for role in parsed.hidden_roles:
            restrict(_tag_query(schema, "role", role), negated=True)
    for name in KEYWORD_FILTERS:
        wanted = [f for f in parsed.filters if f.name == name]
        positive = [_filter_query(f, schema, schema_index) for f in wanted if not f.negated]
        if positive:
            restrict(_any(positive))
        for f in wanted:
            if f.negated:
                restrict(_filter_query(f, schema, schema_index), negated=True)
    if parsed.after is not None or parsed.before is not None:
        restrict(
            Q.range_query(
                schema,
                "ts",
                tantivy.FieldType.Integer,
                lower_bound=_seconds(parsed.after),
                upper_bound=_seconds(parsed.before),
                include_lower=True,
                # tantivy requires an unbounded side to be inclusive
                include_upper=parsed.before is None,
            )
        )
    return _conjunction(clauses)


def _seconds(moment: datetime | None) -> int | None:
    """A bound as the index's ``ts`` (floored seconds): floor keeps after: inclusive and
    before: exclusive for the messages within that second."""
    return None if moment is None else math.floor(moment.timestamp())


def _matches_empty(node: Node) -> bool:
    """Whether ``node`` can match a message with no text in the fields searched."""
    if isinstance(node, Term):
        return False
    if isinstance(node, Not):
        return True
    if isinstance(node, And):
        return all(_matches_empty(c) for c in node.children)
    return any(_matches_empty(c) for c in node.children)


def _conjunction(clauses: list[_Clause]) -> tantivy.Query:
    # tantivy matches nothing when no clause must match
    if not any(occur == tantivy.Occur.Must for occur, _ in clauses):
        clauses = [(tantivy.Occur.Must, tantivy.Query.all_query()), *clauses]
    if len(clauses) == 1:
        return clauses[0][1]
    return tantivy.Query.boolean_query(clauses)


def _any(queries: list[tantivy.Query]) -> tantivy.Query:
    if len(queries) == 1:
        return queries[0]
    return tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in queries])


def _and_clauses(node: And, fields: tuple[str, ...], schema: tantivy.Schema) -> list[_Clause]:
    out: list[_Clause] = []
    for child in node.children:
        if isinstance(child, Not):
            out.append((tantivy.Occur.MustNot, _node_query(child.node, fields, schema)))
        else:
            out.append((tantivy.Occur.Must, _node_query(child, fields, schema)))
    return out


def _node_query(node: Node, fields: tuple[str, ...], schema: tantivy.Schema) -> tantivy.Query:
    if isinstance(node, Term):
        return _term_query(node, fields, schema)
    if isinstance(node, Not):
        return _conjunction([(tantivy.Occur.MustNot, _node_query(node.node, fields, schema))])
    if isinstance(node, And):
        return _conjunction(_and_clauses(node, fields, schema))
    return _any([_node_query(child, fields, schema) for child in node.children])


def _term_query(term: Term, fields: tuple[str, ...], schema: tantivy.Schema) -> tantivy.Query:
    """A word of one token is a term; an identifier (several tokens) and a phrase are the
    phrase of their tokens, so ``getUserName`` finds ``get_user_name``; a prefix's last
    token is a prefix."""
    build = _prefix_query if term.kind == "prefix" else _phrase_query
    return _any([build(schema, name, term.tokens) for name in fields])


def _phrase_query(schema: tantivy.Schema, name: str, tokens: tuple[str, ...]) -> tantivy.Query:
    # a one-word phrase panics in tantivy
    if len(tokens) == 1:
        return tantivy.Query.term_query(schema, name, tokens[0])
    return tantivy.Query.phrase_query(schema, name, list(tokens))


def _prefix_query(schema: tantivy.Schema, name: str, tokens: tuple[str, ...]) -> tantivy.Query:
    if len(tokens) == 1:
        return tantivy.Query.regex_query(schema, name, _regex_escape(tokens[0]) + ".*")
    return tantivy.Query.phrase_prefix_query(schema, name, list(tokens))


def _regex_escape(text: str) -> str:
    return "".join("\\" + c if c in _REGEX_META else c for c in text)


def _tag_query(schema: tantivy.Schema, name: str, value: str) -> tantivy.Query:
    return tantivy.Query.term_query(schema, TAGS, tag(name, value))


def _filter_query(f: Filter, schema: tantivy.Schema, index: tantivy.Index) -> tantivy.Query:
    if f.name == "project":
        field_name = "project" if f.value.startswith("/") else "project_name"
        return _tag_query(schema, field_name, f.value)
    if f.name == "model" and f.value.endswith("*"):
        prefix = tag("model", f.value.rstrip("*"))
        return tantivy.Query.regex_query(schema, TAGS, _regex_escape(prefix) + ".*")
    if f.name == "builder":
        return _tag_query(schema, "builder", _resolve_builder(f, index))
    return _tag_query(schema, f.name, f.value)


def _resolve_builder(f: Filter, index: tantivy.Index) -> str:
    """The one Builder id ``f.value`` is or starts; an id nothing matches stays as typed
    (so the query finds nothing)."""
    prefix = tag("builder", "")
    found = index.searcher().terms_with_prefix(TAGS, prefix + f.value, limit=6)
    ids = sorted(str(term).removeprefix(prefix) for term, _ in found)
    if f.value in ids or not ids:
        return f.value
    if len(ids) > 1:
        shown = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
        raise QueryError(
            f"builder:: '{f.value}' starts more than one Builder ({shown})", f"builder:{f.value}"
        )
    return ids[0]
