"""search/query: lazy search's query language over the index, scoped to the workspace."""

from __future__ import annotations

from lazy.index.search import search_scoped
from lazy.model import SearchResults
from lazy.server.protocol import SearchQueryParams
from lazy.server.rpc import request
from lazy.server.sidecar import Sidecar


def register(ls: Sidecar) -> None:
    @request(ls, "search/query")
    def search_query(ls: Sidecar, p: SearchQueryParams) -> SearchResults:
        under = None if p.all_projects else p.workspace_folders
        return search_scoped(ls.index(), ls.store().conn, p.query, under, limit=p.limit)
