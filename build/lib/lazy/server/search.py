"""search/query: lazy search's query language over the index, scoped to the workspace."""

from __future__ import annotations

from lazy.index.search import search
from lazy.model import SearchResults
from lazy.server.app import Sidecar
from lazy.server.protocol import SearchQueryParams
from lazy.server.rpc import request


def scoped(query: str, p: SearchQueryParams) -> str:
    """The query limited to the workspace's projects, unless it names projects itself."""
    if p.all_projects or not p.workspace_folders or "project:" in query:
        return query
    # repeated project: filters accept any of them; quoted, a path may hold spaces
    folders = " ".join(
        f'project:"{f.rstrip("/").replace(chr(34), "")}"' for f in p.workspace_folders
    )
    return f"{folders} {query}"


def register(ls: Sidecar) -> None:
    @request(ls, "search/query")
    def search_query(ls: Sidecar, p: SearchQueryParams) -> SearchResults:
        ix = ls.index()
        results = search(ix, ls.store().conn, scoped(p.query, p), limit=p.limit)
        results.query = p.query  # as typed; the scope is the params'
        return results
