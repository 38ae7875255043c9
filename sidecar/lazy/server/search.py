"""search/query: lazy search's query language over the index, scoped to the workspace."""

from __future__ import annotations

from lazy.index.query import scoped
from lazy.index.search import search
from lazy.model import SearchResults
from lazy.server.app import Sidecar
from lazy.server.protocol import SearchQueryParams
from lazy.server.rpc import request


def register(ls: Sidecar) -> None:
    @request(ls, "search/query")
    def search_query(ls: Sidecar, p: SearchQueryParams) -> SearchResults:
        ix = ls.index()
        results = search(
            ix,
            ls.store().conn,
            scoped(p.query, None if p.all_projects else p.workspace_folders),
            limit=p.limit,
        )
        results.query = p.query  # as typed; the scope is the params'
        return results
