"""export/builder: a Builder as `lazy export` makes it, for the extension to save."""

from __future__ import annotations

from pygls.exceptions import JsonRpcInvalidParams

from lazy.aliases.named import resolve_named
from lazy.export import RangeError, document, rendered
from lazy.server.protocol import ExportBuilderParams, ExportBuilderResult
from lazy.server.rpc import request
from lazy.server.sidecar import Sidecar


def register(ls: Sidecar) -> None:
    @request(ls, "export/builder")
    def export_builder(ls: Sidecar, p: ExportBuilderParams) -> ExportBuilderResult:
        conn = ls.store().conn
        bid = resolve_named(conn, p.builder_id, home=ls.home)
        try:
            doc = document(conn, bid, p.first, p.last, redact=p.redact, home=ls.home)
        except RangeError as e:
            raise JsonRpcInvalidParams(str(e)) from None
        return ExportBuilderResult(
            text=rendered(doc, p.format),
            format=p.format,
            first=doc.range.first,
            last=doc.range.last,
            of=doc.range.of,
            redacted=doc.redacted,
            redactions=doc.redactions,
        )
