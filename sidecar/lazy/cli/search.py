"""`lazy search`, `lazy index status|rebuild`: the Tantivy index over everything captured."""

from __future__ import annotations

import click
from rich.style import Style

from lazy.cli.common import (
    all_projects_option,
    counting,
    current_project,
    emit_json,
    err,
    facts_table,
    json_option,
    open_store,
    out,
    shown,
    when,
)
from lazy.cli.links import transcript_link
from lazy.config import editor_scheme
from lazy.index.indexer import IndexUnreadable, SearchIndex
from lazy.index.query import HELP, QueryError
from lazy.index.search import search_scoped
from lazy.model import SearchGroup, SearchHit, SearchResults
from lazy.projects import project_label
from lazy.store import Store


def searchable(store: Store) -> SearchIndex:
    """The index, caught up with the store (with a progress bar when that takes a while); a
    missing or damaged index is rebuilt from the store, and the user told why."""
    ix = SearchIndex.open(store.home)
    if ix.rebuilt:
        err.print(
            shown(f"rebuilding the search index from the store: {ix.rebuilt}", style="yellow")
        )
    with counting("[bold]indexing") as bar:
        task = bar.add_task("index", total=None)
        ix.catch_up(store, lambda done, total: bar.update(task, completed=done, total=total))
    return ix


def run_search(query: str, all_projects: bool, limit: int, as_json: bool) -> None:
    projects = None if all_projects else [current_project()]
    with open_store() as store:
        ix = searchable(store)
        try:
            results = search_scoped(ix, store.conn, query, projects, limit=limit)
        except QueryError as e:
            raise click.UsageError(str(e)) from e
        except IndexUnreadable as e:
            raise click.ClickException(str(e)) from e
    if as_json:
        emit_json(results)
    else:
        print_results(results, all_projects, editor_scheme(store.home))


def hit_link(scheme: str | None, g: SearchGroup, h: SearchHit) -> str | None:
    """Where the hit opens in the editor: the transcript at its message (a subagent's line
    for a hit in one), the matched words highlighted; None for a memory of no Builder."""
    if scheme is None or not g.builder_id or h.kind == "memory":
        return None
    sid = h.session_id if h.sidechain else None
    return transcript_link(scheme, g.builder_id, h.number, session_id=sid, terms=h.terms)


def print_results(r: SearchResults, all_projects: bool, scheme: str | None = None) -> None:
    if not r.groups:
        where = "" if all_projects else " in this project (--all-projects widens)"
        out.print(shown(f"No matches for {r.query!r}{where}.", multiline=False))
        return
    out.print(
        shown(f"{r.total_hits} matching message(s) in {len(r.groups)} conversation(s)", style="dim")
    )
    for g in r.groups:
        head = shown(g.short_id, "bold", multiline=False)
        head.append_text(
            shown(f"  {when(g.started_at)}  {project_label(g.project)}  {g.tool}  ", "dim",
                  multiline=False)
        )  # fmt: skip
        head.append_text(shown(g.summary[:100], multiline=False))
        out.print(head)
        for h in g.hits:
            where = f"#{h.number} {h.role}{' (subagent)' if h.sidechain else ''}"
            if h.kind == "memory":
                where = f"memory {h.memory_path}"
            elif h.kind == "task":
                where = f"task {h.task_code} (from #{h.number})"
            # on a terminal "#53 user" links to the editor (OSC 8; a pipe gets plain text)
            link = hit_link(scheme, g, h)
            line = shown("  ")
            line.append(shown(where, Style(color="cyan", link=link), multiline=False))
            line.append(": ", "cyan")
            # one line (its line breaks as spaces, as many characters, so the highlights'
            # offsets still fall on their words)
            marks = [(start, end, "bold yellow") for start, end in h.highlights]
            snippet = h.snippet.replace("\n", " ")
            line.append_text(shown(snippet, multiline=False, highlights=marks))
            out.print(line)
        out.print()


@click.command("search", help="Search everything captured.\n\n" + HELP)
@click.argument("words", nargs=-1, required=True)
@click.option("--conversations", is_flag=True, help="Search conversations (the default scope).")
@click.option(
    "--limit", type=int, default=10, show_default=True, help="Most conversations to show."
)
@all_projects_option
@json_option
def search_command(
    words: tuple[str, ...], conversations: bool, limit: int, all_projects: bool, as_json: bool
) -> None:
    query = " ".join(words)
    if conversations:
        query = "in:conversations " + query
    run_search(query, all_projects, limit, as_json)


@click.group("index")
def index_group() -> None:
    """The search index: its state, and rebuilding it from the store."""


@index_group.command("status")
@json_option
def index_status(as_json: bool) -> None:
    """Documents, lag behind the store, size on disk."""
    with open_store() as store:
        status = SearchIndex.open(store.home).status(store)
    if as_json:
        emit_json(status)
        return
    rows = [
        ("index", status.path),
        ("documents", f"{status.documents:,}"),
        ("lag", f"{status.lag:,} message(s) not yet searchable"),
        ("size", f"{status.size_bytes / 1e6:,.1f} MB"),
        ("schema", f"v{status.schema_version}"),
    ]
    if status.rebuilt:
        rows.append(("started afresh", status.rebuilt))
    out.print(facts_table(rows))


@index_group.command("rebuild")
@json_option
def index_rebuild(as_json: bool) -> None:
    """Build the index anew from the store, beside the old one, and swap it in (searches
    keep working on the old one meanwhile)."""
    with open_store() as store:
        ix = SearchIndex.open(store.home)
        with counting("[bold]rebuilding the index") as bar:
            task = bar.add_task("rebuild", total=None)
            n = ix.rebuild(store, lambda done, total: bar.update(task, completed=done, total=total))
        status = ix.status(store)
    if as_json:
        emit_json(status)
    else:
        out.print(f"Indexed {n:,} message(s); {status.size_bytes / 1e6:,.1f} MB.")
