"""Typed custom methods on pygls: params validated into the protocol's models, results and
notifications dumped from them, and lazy's failures as JSON-RPC errors with a code and data."""

from __future__ import annotations

import asyncio
import inspect
import logging
import re
from collections.abc import Callable
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    LanguageServerProtocol,
    default_converter,
)

from lazy.index.query import QueryError
from lazy.server.protocol import AMBIGUOUS, BAD_QUERY, METHODS, NOT_FOUND, STORE_ERROR, Method
from lazy.store.db import StoreError
from lazy.store.queries import Ambiguous, NotFound

log = logging.getLogger("lazy.server")

P = TypeVar("P", bound=BaseModel)
BY_NAME: dict[str, Method] = {m.name: m for m in METHODS}


def converter() -> Any:
    """pygls' converter, but a custom method's params stay the JSON object they were (pygls
    would make namedtuples of them), for the protocol's models to validate."""
    conv = default_converter()  # type: ignore[no-untyped-call]

    def keep(obj: dict[str, Any], cls: type[Any]) -> Any:
        return cls(**obj)

    conv.register_structure_hook(JsonRPCRequestMessage, keep)
    conv.register_structure_hook(JsonRPCNotification, keep)
    return conv


_WRITING: set[asyncio.Future[Any]] = set()


class Wire(LanguageServerProtocol):
    """pygls' protocol, writing with orjson. A result is pydantic's JSON already (an
    orjson.Fragment, see ``request``), so a page of 200 messages is dumped once, in Rust,
    instead of walked by the converter and again by json.dumps (a third of the page's time,
    on the event loop's thread)."""

    def _send_data(self, data: Any) -> None:
        if not data:
            return
        if self.writer is None:
            log.error("no transport to send on")
            return
        try:
            body = orjson.dumps(data, default=self._serialize_message)
            if self._include_headers:
                head = f"Content-Length: {len(body)}\r\nContent-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
                body = head.encode("ascii") + body
            res = self.writer.write(body)
            if inspect.isawaitable(res):
                write = asyncio.ensure_future(res)
                _WRITING.add(write)  # (held until done: the loop keeps only a weak one)
                write.add_done_callback(_WRITING.discard)
        except BrokenPipeError:
            log.exception("sending: the pipe is broken")
            raise
        except Exception as error:
            log.exception("sending")
            self._server._report_server_error(error, JsonRpcInternalError)


def params_of(method: str, model: type[P], raw: Any) -> P:
    """``raw`` validated as ``method``'s params; else InvalidParams naming each field as it
    was sent (``allProjects``, not the field it was perhaps meant for) and why."""
    try:
        return model.model_validate(raw if raw is not None else {})
    except ValidationError as e:
        errors = [_field_error(model, err) for err in e.errors(include_url=False)]
        raise JsonRpcInvalidParams(
            f"invalid params for {method}: "
            + "; ".join(f"{x['field']}: {x['message']}" for x in errors),
            data={"errors": errors},
        ) from None


def _field_error(model: type[BaseModel], err: Any) -> dict[str, str]:
    field = ".".join(str(p) for p in err["loc"]) or "params"
    message = str(err["msg"])
    if err["type"] == "extra_forbidden":
        known = list(model.model_fields)
        # the wire is snake_case: a camelCase spelling is the likeliest slip
        meant = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", field).lower()
        hint = f"; did you mean {meant}?" if meant != field and meant in known else ""
        fields = ", ".join(known) or "none"
        message = f"not a field of these params (its fields: {fields}){hint}"
    elif not err["loc"]:
        message = "params must be a JSON object"
    return {"field": field, "message": message}


def as_rpc_error(e: Exception) -> JsonRpcException:
    """lazy's own failures as JSON-RPC errors the extension can tell apart."""
    if isinstance(e, NotFound):
        return JsonRpcException(f"no Builder {e}", code=NOT_FOUND, data={"id": str(e)})
    if isinstance(e, Ambiguous):
        candidates = [{"id": c[0], "started_at": c[1], "summary": c[2]} for c in e.candidates]
        return JsonRpcException(
            str(e), code=AMBIGUOUS, data={"prefix": e.prefix, "candidates": candidates}
        )
    if isinstance(e, QueryError):
        return JsonRpcException(str(e), code=BAD_QUERY, data={"part": e.part})
    if isinstance(e, StoreError):
        return JsonRpcException(
            e.message, code=STORE_ERROR, data={"code": e.code, "detail": e.detail}
        )
    raise e


Handler = Callable[[Any, Any], BaseModel | None]


def request(
    server: LanguageServer, name: str, *, thread: bool = True
) -> Callable[[Handler], Handler]:
    """Register ``fn(ls, params)`` for the request ``name``: params validated against the
    method's model, the result dumped as JSON, lazy's errors mapped. In a worker thread by
    default: the store and the index are read there, never on the event loop."""
    method = BY_NAME[name]

    def decorate(fn: Handler) -> Handler:
        def handle(ls: LanguageServer, raw: Any) -> Any:
            params = params_of(name, method.params, raw)
            try:
                result = fn(ls, params)
            except (NotFound, Ambiguous, QueryError, StoreError) as e:
                raise as_rpc_error(e) from None
            return orjson.Fragment(result.model_dump_json()) if result is not None else None

        handle.__name__ = fn.__name__
        registered = server.thread()(handle) if thread else handle
        server.feature(name)(registered)
        return fn

    return decorate
