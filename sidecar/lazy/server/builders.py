"""builders/list, builders/get and builders/sources."""

from __future__ import annotations

import base64
from pathlib import Path

import orjson
from pygls.exceptions import JsonRpcInvalidParams

from lazy.model import BuilderInfo
from lazy.server.app import Sidecar
from lazy.server.protocol import (
    BuildersGetParams,
    BuildersListParams,
    BuildersListResult,
    BuildersSourcesResult,
    SourceFile,
)
from lazy.server.rpc import request
from lazy.store.queries import builder_info, builders_page, resolve_builder, source_files


def _cursor(key: str, bid: str) -> str:
    return base64.urlsafe_b64encode(orjson.dumps([key, bid])).decode()


def _after(cursor: str | None) -> tuple[str, str] | None:
    if not cursor:
        return None
    try:
        key, bid = orjson.loads(base64.urlsafe_b64decode(cursor.encode()))
        return str(key), str(bid)
    except (ValueError, TypeError) as e:
        raise JsonRpcInvalidParams(f"not a cursor of builders/list: {cursor!r}") from e


def register(ls: Sidecar) -> None:
    @request(ls, "builders/list")
    def builders_list(ls: Sidecar, p: BuildersListParams) -> BuildersListResult:
        under = None if p.all_projects else p.workspace_folders
        items = builders_page(
            ls.store().conn,
            under=under,
            tools=list(p.tools),
            text=p.text,
            after=_after(p.cursor),
            limit=p.limit + 1,  # one more tells whether there is a next page
        )
        more = len(items) > p.limit
        items = items[: p.limit]
        last = items[-1] if items else None
        return BuildersListResult(
            items=items,
            next_cursor=_cursor(last.started_at or "", last.id) if more and last else None,
        )

    @request(ls, "builders/get")
    def builders_get(ls: Sidecar, p: BuildersGetParams) -> BuilderInfo:
        conn = ls.store().conn
        return builder_info(conn, resolve_builder(conn, p.id))

    @request(ls, "builders/sources")
    def builders_sources(ls: Sidecar, p: BuildersGetParams) -> BuildersSourcesResult:
        conn = ls.store().conn
        bid = resolve_builder(conn, p.id)
        files = []
        for key, tool, sid, agent, size in source_files(conn, bid):
            # an OpenCode database's sessions are stored as "<db>#<session>"
            path = key.rsplit("#", 1)[0] if tool == "opencode" and "#" in key else key
            found = Path(path).is_file()
            files.append(
                SourceFile.model_validate(
                    {"path": path, "tool": tool, "session_id": sid, "agent_id": agent,
                     "size": size, "exists": found}
                )
            )  # fmt: skip
        return BuildersSourcesResult(builder_id=bid, files=files)
