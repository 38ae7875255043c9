"""What each MCP tool does, over the functions `lazy search`, `lazy conversations`, `lazy show`
and `lazy ask` call (lazy.index.search, lazy.view.reading, lazy.ask): no query of its own.

Read-only: the store is opened, never written (no capture, no re-derivation); the search
index, which is derived, is caught up with the store before each search, as `lazy search`
does, so what live capture added a moment ago is found. Every failure is a
:class:`ToolFailure` whose sentence tells the calling agent what to do next.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from lazy.aliases.registry import default_session_registry
from lazy.aliases.resolve import resolve_conversation
from lazy.ask.ask import AskError, ask_transcript
from lazy.ask.oneshot import OneShot, OneShotError
from lazy.ask.subject import subject
from lazy.config import ConfigError
from lazy.index.indexer import IndexUnreadable, SearchIndex
from lazy.index.query import QueryError
from lazy.index.search import search_scoped
from lazy.mcp.pages import Page, fill
from lazy.mcp.results import (
    AskOutput,
    Found,
    Listed,
    ListOutput,
    Match,
    ReadOutput,
    SearchOutput,
)
from lazy.model import BuilderInfo, MessageView, SearchGroup
from lazy.projects import project_of
from lazy.store import Store, StoreError
from lazy.store.queries import Ambiguous, NotFound
from lazy.store.tasks import get_task
from lazy.usage.report import with_usage
from lazy.view.reading import TranscriptPage, list_builders, transcript_page

Runner = Callable[[str], OneShot]
BATCH = 40  # messages read from the store at a time while a page fills
MIN_TOKENS, MAX_TOKENS, DEFAULT_TOKENS = 500, 60_000, 8_000


class ToolFailure(Exception):
    """A tool call that cannot be answered; the message is for the agent that called."""


def _docker_runner(project: str) -> OneShot:
    from lazy.ask.runner import default_runner  # brings Docker with it: only when asked

    return default_runner(project)


class History:
    """The store of ``home`` as the tools read it, for the project of ``cwd``. A connection
    and an index handle per thread: an ask runs in a worker thread."""

    def __init__(self, home: Path, cwd: str, runner: Runner | None = None) -> None:
        self.home = home
        self.cwd = cwd
        self.project = project_of(cwd)
        self.runner = runner or _docker_runner
        self._local = threading.local()

    def store(self) -> Store:
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            try:
                store = self._local.store = Store.open(self.home)
            except StoreError as e:
                raise ToolFailure(failed_store(e)) from e
        return store

    def index(self) -> SearchIndex:
        ix: SearchIndex | None = getattr(self._local, "index", None)
        if ix is None:
            ix = self._local.index = SearchIndex.open(self.home)
        try:
            ix.catch_up(self.store())
        except StoreError as e:
            raise ToolFailure(failed_store(e)) from e
        return ix

    def close(self) -> None:
        store: Store | None = getattr(self._local, "store", None)
        if store is not None:
            store.close()
            self._local.store = None

    def scope(self, project: str | None, all_projects: bool) -> list[str] | None:
        if all_projects:
            return None
        return [project_of(project) if project else self.project]


def failed_store(e: StoreError) -> str:
    fix = f" To fix it: {e.fix}." if e.fix else " Run `lazy doctor` to see why."
    return f"lazy's store could not be read: {e}.{fix}"


def _scope_word(projects: list[str] | None) -> str:
    return "all projects" if projects is None else f"project {projects[0]}"


# ---- search ---------------------------------------------------------------------------------


def _found(g: SearchGroup) -> Found:
    return Found(
        id=g.builder_id,
        short_id=g.short_id,
        summary=g.summary,
        started_at=g.started_at,
        project=g.project,
        agent=g.tool,
        matches=[
            Match(
                number=h.number,
                role=h.role,
                timestamp=h.timestamp,
                snippet=h.snippet,
                subagent_session=h.session_id if h.sidechain else None,
                kind=h.kind,
            )
            for h in g.hits
        ],
    )


def search(
    h: History, query: str, *, project: str | None, all_projects: bool, limit: int
) -> SearchOutput:
    projects = h.scope(project, all_projects)
    limit = max(1, min(limit, 50))
    ix = h.index()
    try:
        r = search_scoped(ix, h.store().conn, query, projects, limit=limit)
        elsewhere = 0
        if not r.groups and projects is not None and "project:" not in query:
            wide = search_scoped(ix, h.store().conn, query, None, limit=50)
            elsewhere = len(wide.groups)
    except QueryError as e:
        raise ToolFailure(
            f'bad query: {e} (at {e.part!r}). The query is words, "phrases" and filters'
            " such as in:tools, project:NAME, tool:codex, role:user, after:2w, before:2026-01-01"
        ) from e
    except IndexUnreadable as e:
        raise ToolFailure(
            f"the search index could not be read: {e}. Run `lazy index rebuild`."
        ) from e
    out = SearchOutput(
        query=query,
        scope=_scope_word(projects),
        total_matches=r.total_hits,
        conversations=[_found(g) for g in r.groups],
        elsewhere=elsewhere,
    )
    if elsewhere:
        out.hint = (
            f"nothing in {out.scope}, but {elsewhere} conversation(s) in other projects match:"
            " call again with all_projects=true"
        )
    elif not r.groups:
        out.hint = f"no conversation in {out.scope} matches; try fewer or other words"
    else:
        out.hint = "read one with lazy_conversation_read(id=<id>, start=<a match's number>)"
    return out


# ---- list -----------------------------------------------------------------------------------


def _listed(b: BuilderInfo) -> Listed:
    t = b.usage.total if b.usage else None
    return Listed(
        id=b.id,
        short_id=b.short_id,
        summary=b.summary,
        agent=b.tool,
        project=b.project,
        started_at=b.started_at,
        updated_at=b.updated_at,
        messages=b.message_count,
        subagents=len(b.sidechains),
        alias=b.alias,
        tokens=(t.input + t.output + t.cache_read + t.cache_write) if t else None,
        cost_usd=(t.cost_micros / 1e6) if t and t.cost_micros is not None else None,
    )


def list_conversations(
    h: History, *, project: str | None, all_projects: bool, limit: int, agent: str | None
) -> ListOutput:
    from lazy.aliases.resolve import label_builders

    projects = h.scope(project, all_projects)
    conn = h.store().conn
    builders = list_builders(
        conn, projects, max(1, min(limit, 200)), [agent] if agent else None, home=h.home
    )
    # own prices the user must fix: costs left unknown, the list still given
    with contextlib.suppress(ConfigError):
        with_usage(conn, builders, h.home)
    builders = label_builders(default_session_registry(), builders) if builders else builders
    out = ListOutput(scope=_scope_word(projects), conversations=[_listed(b) for b in builders])
    if not builders:
        out.hint = (
            f"no conversations in {out.scope}: call again with all_projects=true, or have the"
            " user run `lazy import-conversation --all-projects` to bring history in"
        )
    return out


# ---- read -----------------------------------------------------------------------------------


def resolve(h: History, ident: str) -> str:
    conn = h.store().conn
    try:
        return resolve_conversation(conn, ident, registry=default_session_registry(), cwd=h.cwd)
    except Ambiguous as e:
        lines = [f"{ident!r} is ambiguous; it matches {len(e.candidates)} conversations:"]
        lines += [
            f"  {bid}  {started or '?'}  {(s or '')[:80]}" for bid, started, s in e.candidates
        ]
        lines.append("Call again with more of the id.")
        raise ToolFailure("\n".join(lines)) from e
    except NotFound as e:
        recent = list_builders(conn, [h.project], 5, home=h.home)
        lines = [f"no conversation {ident!r} in lazy's store."]
        if recent:
            lines.append(f"The most recent in project {h.project}:")
            lines += [f"  {b.id}  {b.started_at or '?'}  {b.summary[:80]}" for b in recent]
        lines.append(
            "Find one with lazy_conversation_search or lazy_conversation_list (all_projects=true"
            " widens)."
        )
        raise ToolFailure("\n".join(lines)) from e


def read(
    h: History,
    ident: str,
    *,
    start: int,
    end: int | None,
    max_tokens: int,
    full_outputs: bool,
    session_id: str | None,
) -> ReadOutput:
    bid = resolve(h, ident)
    conn = h.store().conn
    budget = max(MIN_TOKENS, min(max_tokens, MAX_TOKENS))
    try:
        first = transcript_page(conn, bid, session_id, max(start, 1), BATCH, home=h.home)
    except NotFound as e:
        raise ToolFailure(
            f"session {session_id} is not one of conversation {bid}'s; its subagent sessions"
            " are named in the tool calls that spawned them"
        ) from e
    b, total = first.builder, first.total
    if start < 1 or start > total or (end is not None and end < start):
        raise ToolFailure(
            f"conversation {b.id} has {total} message(s), numbered 1 to {total}: start={start}"
            f"{f', end={end}' if end is not None else ''} is outside it"
        )
    last_wanted = min(end, total) if end is not None else total
    page = _fill(h, first, bid, session_id, last_wanted, budget, full_outputs)
    shown_last = max(
        [m.number for m in page.messages] + [a for m in page.messages for a in m.absorbed]
    )
    next_start = page.stopped_at or (shown_last + 1 if shown_last < last_wanted else None)
    where = f", session_id={session_id!r}" if session_id else ""
    if next_start is not None:
        nxt = f"more: lazy_conversation_read(id={b.id!r}, start={next_start}{where})"
    else:
        nxt = f"end of the range read ({total} messages in all)"
    return ReadOutput(
        id=b.id,
        short_id=b.short_id,
        summary=b.summary,
        agent=b.tool,
        project=b.project,
        session_id=first.session_id,
        total=total,
        first=page.messages[0].number if page.messages else start,
        last=shown_last,
        messages=page.messages,
        tokens=page.tokens,
        next_start=next_start,
        next=nxt,
    )


def _fill(
    h: History, first: TranscriptPage, bid: str, side: str | None, last: int, budget: int,
    full: bool,
) -> Page:  # fmt: skip
    """Whole messages from ``first`` on, batch by batch, up to number ``last``, under
    ``budget`` tokens."""

    def views() -> Iterator[MessageView]:
        page: TranscriptPage | None = first
        while page is not None:
            for m in page.messages:
                if m.number > last:
                    return
                yield m
            if page.next_start is None or page.next_start > last:
                return
            page = transcript_page(h.store().conn, bid, side, page.next_start, BATCH, home=h.home)

    return fill(views(), budget, full=full)


# ---- ask ------------------------------------------------------------------------------------


def ask(h: History, ident: str, question: str) -> AskOutput:
    store = h.store()
    if get_task(store.conn, ident) is None:
        ident = resolve(h, ident)
    try:
        t = subject(store, ident).transcript
    except (NotFound, Ambiguous) as e:
        raise ToolFailure(f"no conversation or task {ident!r} in lazy's store") from e
    one_shot = h.runner(t.builder.project or h.project)
    try:
        one_shot.check()
    except OneShotError as e:
        raise ToolFailure(f"lazy cannot ask here: {e.line()}") from e
    try:
        r = ask_transcript(t, question, one_shot)
    except AskError as e:
        warned = "".join(f"\nwarning: {w}" for w in e.warnings)
        raise ToolFailure(f"the ask failed: {e}{warned}") from e
    return AskOutput(
        id=t.builder.id,
        answer=r.answer,
        chunks=r.chunks,
        relevant_chunks=r.relevant_chunks,
        warnings=r.warnings,
    )
