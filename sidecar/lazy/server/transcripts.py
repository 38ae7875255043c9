"""transcripts/page: a range of messages, so a long Builder opens as fast as a short one."""

from __future__ import annotations

from lazy.server.app import Sidecar
from lazy.server.protocol import TranscriptsPageParams, TranscriptsPageResult
from lazy.server.rpc import request
from lazy.store.queries import NotFound, resolve_builder
from lazy.view.reading import builder_info, message_page


def register(ls: Sidecar) -> None:
    @request(ls, "transcripts/page")
    def transcripts_page(ls: Sidecar, p: TranscriptsPageParams) -> TranscriptsPageResult:
        conn = ls.store().conn
        info = builder_info(conn, resolve_builder(conn, p.builder_id), home=ls.home)
        if p.session_id is not None and p.session_id not in {
            s.session_id for s in info.sidechains
        } | set(info.session_ids):
            raise NotFound(f"{p.session_id} in {info.id}")
        side = p.session_id if p.session_id not in (None, *info.session_ids) else None
        total = (
            info.message_count
            if side is None
            else next(s.message_count for s in info.sidechains if s.session_id == side)
        )
        messages = message_page(conn, info.id, side, p.start, p.count, home=ls.home)
        end = p.start + p.count
        return TranscriptsPageResult(
            builder=info,
            session_id=side,
            messages=messages,
            total=total,
            next_start=end if end <= total else None,
        )
