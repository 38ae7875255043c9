"""transcripts/page: a range of messages, so a long Builder opens as fast as a short one;
transcripts/find: where a text occurs in the whole of it. Either names its Builder by id,
session id, unique prefix or alias."""

from __future__ import annotations

from lazy.aliases.named import resolve_named
from lazy.server.protocol import (
    FindMatch,
    TranscriptsFindParams,
    TranscriptsFindResult,
    TranscriptsPageParams,
    TranscriptsPageResult,
)
from lazy.server.rpc import request
from lazy.server.sidecar import Sidecar
from lazy.usage.report import message_tokens
from lazy.view.reading import find, transcript_page


def register(ls: Sidecar) -> None:
    @request(ls, "transcripts/page")
    def transcripts_page(ls: Sidecar, p: TranscriptsPageParams) -> TranscriptsPageResult:
        conn = ls.store().conn
        bid = resolve_named(conn, p.builder_id, home=ls.home)  # an alias too
        page = transcript_page(conn, bid, p.session_id, p.start, p.count, home=ls.home)
        # the messages' tokens; the Builder's totals (its whole usage, ~0.1 s on a long one)
        # are the header's, which builders/get gives once, not every page
        message_tokens(conn, bid, page.messages)
        return TranscriptsPageResult(
            builder=page.builder,
            session_id=page.session_id,
            messages=page.messages,
            total=page.total,
            next_start=page.next_start,
        )

    @request(ls, "transcripts/find")
    def transcripts_find(ls: Sidecar, p: TranscriptsFindParams) -> TranscriptsFindResult:
        conn = ls.store().conn
        bid = resolve_named(conn, p.builder_id, home=ls.home)
        found, total = find(conn, bid, p.session_id, p.query, limit=p.limit, home=ls.home)
        return TranscriptsFindResult(
            matches=[FindMatch(number=n, count=c) for n, c in found], total=total
        )
