"""builders/list, builders/get, builders/name and builders/sources."""

from __future__ import annotations

import base64

import orjson
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from lazy.aliases.named import RegistryWriteFailed, named_builder, named_page, rename_builder
from lazy.aliases.resolve import NameTaken
from lazy.model import BuilderInfo
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
from lazy.server.sidecar import Sidecar
from lazy.store.queries import BuilderSource, builder_sources, resolve_builder


def _cursor(after: tuple[str, str] | None) -> str | None:
    return base64.urlsafe_b64encode(orjson.dumps(list(after))).decode() if after else None


def _after(cursor: str | None) -> tuple[str, str] | None:
    if not cursor:
        return None
    try:
        key, bid = orjson.loads(base64.urlsafe_b64decode(cursor.encode()))
        return str(key), str(bid)
    except (ValueError, TypeError) as e:
        raise JsonRpcInvalidParams(f"not a cursor of builders/list: {cursor!r}") from e


def _source_file(s: BuilderSource) -> SourceFile:
    return SourceFile.model_validate(
        {"path": s.path, "tool": s.agent, "session_id": s.session_id, "agent_id": s.subagent_id,
         "size": s.size, "exists": s.exists}
    )  # fmt: skip


def register(ls: Sidecar) -> None:
    @request(ls, "builders/list")
    def builders_list(ls: Sidecar, p: BuildersListParams) -> BuildersListResult:
        items, after = named_page(
            ls.store().conn,
            under=None if p.all_projects else p.workspace_folders,
            agents=list(p.tools),
            text=p.text,
            after=_after(p.cursor),
            limit=p.limit,
            home=ls.home,
        )
        return BuildersListResult(items=items, next_cursor=_cursor(after))

    @request(ls, "builders/get")
    def builders_get(ls: Sidecar, p: BuildersGetParams) -> BuilderInfo:
        return named_builder(ls.store().conn, p.id, home=ls.home)

    @request(ls, "builders/name")
    def builders_name(ls: Sidecar, p: BuildersNameParams) -> BuilderInfo:
        try:
            return rename_builder(ls.store().conn, p.id, p.name, home=ls.home)
        except NameTaken as e:
            data = {"name": e.name, "builder_id": e.owner}
            raise JsonRpcException(str(e), code=NAME_TAKEN, data=data) from None
        except ValueError as e:
            raise JsonRpcInvalidParams(str(e)) from None
        except RegistryWriteFailed as e:
            w = e.warning
            raise JsonRpcException(
                str(w), code=STORE_ERROR, data={"code": w.code, "detail": str(w.error)}
            ) from None

    @request(ls, "builders/sources")
    def builders_sources(ls: Sidecar, p: BuildersGetParams) -> BuildersSourcesResult:
        conn = ls.store().conn
        bid = resolve_builder(conn, p.id)
        files = [_source_file(s) for s in builder_sources(conn, bid)]
        return BuildersSourcesResult(builder_id=bid, files=files)
