"""builders/list, builders/get, builders/name and builders/sources."""

from __future__ import annotations

import base64
import warnings
from pathlib import Path

import orjson
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from lazy.aliases.registry import RegistryWriteWarning, default_session_registry
from lazy.aliases.resolve import NameTaken, label_builders, name_builder
from lazy.model import BuilderInfo
from lazy.server.app import Sidecar
from lazy.server.protocol import (
    NAME_TAKEN,
    STORE_ERROR,
    BuildersGetParams,
    BuildersListParams,
    BuildersListResult,
    BuildersNameParams,
    BuildersSourcesResult,
    SourceFile,
)
from lazy.server.rpc import request
from lazy.store.queries import resolve_builder, source_files
from lazy.view.reading import builder_info, builders_page


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
            home=ls.home,
        )
        more = len(items) > p.limit
        items = label_builders(default_session_registry(), items[: p.limit])
        last = items[-1] if items else None
        return BuildersListResult(
            items=items,
            next_cursor=_cursor(last.started_at or "", last.id) if more and last else None,
        )

    @request(ls, "builders/get")
    def builders_get(ls: Sidecar, p: BuildersGetParams) -> BuilderInfo:
        conn = ls.store().conn
        info = builder_info(conn, resolve_builder(conn, p.id), home=ls.home)
        return label_builders(default_session_registry(), [info])[0]

    @request(ls, "builders/name")
    def builders_name(ls: Sidecar, p: BuildersNameParams) -> BuilderInfo:
        conn = ls.store().conn
        bid = resolve_builder(conn, p.id)
        registry = default_session_registry()
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", RegistryWriteWarning)
            try:
                name_builder(registry, conn, bid, p.name)
            except NameTaken as e:
                data = {"name": e.name, "builder_id": e.owner}
                raise JsonRpcException(str(e), code=NAME_TAKEN, data=data) from None
            except ValueError as e:
                raise JsonRpcInvalidParams(str(e)) from None
        for w in said:  # the registry never raises a failed save: it is the answer here
            if isinstance(w.message, RegistryWriteWarning):
                raise JsonRpcException(
                    str(w.message), code=STORE_ERROR,
                    data={"code": w.message.code, "detail": str(w.message.error)},
                )  # fmt: skip
        return label_builders(registry, [builder_info(conn, bid, home=ls.home)])[0]

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
