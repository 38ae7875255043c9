"""builders/list, builders/get, builders/name and builders/sources; a Builder is named by
its id, a session id, a unique prefix or its alias (``aliases.named.resolve_named``)."""

from __future__ import annotations

import base64

import orjson
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from lazy.aliases.named import (
    RegistryWriteFailed,
    named_builder,
    named_page,
    rename_builder,
    resolve_named,
)
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
from lazy.store.queries import BuilderSource, builder_sources
from lazy.usage.report import builder_usage, with_usage
from lazy.view.reading import builders_count


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
        conn, under = ls.store().conn, None if p.all_projects else p.workspace_folders
        items, after = named_page(
            conn,
            under=under,
            agents=list(p.tools),
            text=p.text,
            after=_after(p.cursor),
            limit=p.limit,
            home=ls.home,
        )
        # counted once, with the first page (an empty workspace says how many are elsewhere)
        total = None
        if p.cursor is None:
            total = builders_count(
                conn, under=under, tools=list(p.tools), text=p.text, home=ls.home
            )
        with_usage(conn, items, home=ls.home)  # the tree's tooltip shows tokens and cost
        return BuildersListResult(items=items, next_cursor=_cursor(after), total=total)

    @request(ls, "builders/get")
    def builders_get(ls: Sidecar, p: BuildersGetParams) -> BuilderInfo:
        conn = ls.store().conn
        info = named_builder(conn, p.id, home=ls.home)
        info.usage = builder_usage(conn, info.id, home=ls.home)
        return info

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
        bid = resolve_named(conn, p.id, home=ls.home)
        files = [_source_file(s) for s in builder_sources(conn, bid)]
        return BuildersSourcesResult(builder_id=bid, files=files)
