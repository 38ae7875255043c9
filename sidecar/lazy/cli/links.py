"""Links from the terminal into the editor: a transcript opened at a message, its matched
words highlighted, by the extension's URI handler (extension/src/uriHandler.ts reads the
same query: ``builder``, ``n``, ``session``, one ``t`` per word)."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

EXTENSION_ID = "lazy-builders.lazy"  # publisher.name of extension/package.json
MAX_TERMS = 16  # as many as the handler takes
MAX_TERM_CHARS = 200


def transcript_link(
    scheme: str,
    builder_id: str,
    number: int,
    *,
    session_id: str | None = None,
    terms: Sequence[str] = (),
) -> str:
    """``scheme://lazy-builders.lazy/open?builder=…&n=…[&session=…]&t=…``: every value
    percent-encoded, so nothing of a transcript's text reaches the terminal raw."""
    query: list[tuple[str, str]] = [("builder", builder_id), ("n", str(number))]
    if session_id:
        query.append(("session", session_id))
    query += [("t", t[:MAX_TERM_CHARS]) for t in terms[:MAX_TERMS]]
    return f"{scheme}://{EXTENSION_ID}/open?{urlencode(query)}"
