"""textDocument/codeAction on a transcript opened as text (the extension's "Open as text",
scheme lazy-transcript): a selection over messages offers "Promote messages N–M to task",
whose command opens the extension's promote form on that range.

The document is the extension's rendering, synced to the sidecar like any open document;
each message starts with a header line ``── #N · role · … ──``. Message text is agent output
and may hold a line that looks like a header: see message_starts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import parse_qs, unquote, urlsplit

from lsprotocol import types as lsp

from lazy.server.protocol import PROMOTE_COMMAND, TasksPromoteParams
from lazy.server.sidecar import Sidecar
from lazy.store.queries import own_line

SCHEME = "lazy-transcript"
_HEADER = re.compile(r"^── #(\d+) · .* ──$")


def address_of(uri: str) -> tuple[str, str | None] | None:
    """The Builder and session a transcript document shows, from its address (VS Code
    percent-encodes the query); None for any other document."""
    parts = urlsplit(uri)
    if parts.scheme != SCHEME:
        return None
    query = parse_qs(unquote(parts.query))
    ids, sessions = query.get("id"), query.get("session")
    return (ids[0], sessions[0] if sessions else None) if ids else None


def message_starts(lines: Sequence[str], total: int) -> list[tuple[int, int]]:
    """(line, number) of each message's header, in order; [] when they are not all there.

    Read backwards from the last message shown: each header is the last line claiming its
    number before the next one's. A line in a message's text that claims another number
    then never counts, and one claiming its own message's number only moves where that
    message seems to start."""
    claims = [(i, int(m.group(1))) for i, line in enumerate(lines) if (m := _HEADER.match(line))]
    claims = [(i, n) for i, n in claims if 1 <= n <= total]
    if not claims:
        return []
    want, before, out = max(n for _, n in claims), len(lines), []
    for i, n in reversed(claims):
        if n == want and i < before:
            out.append((i, n))
            want, before = want - 1, i
    return out[::-1] if want == 0 else []


def message_at(starts: list[tuple[int, int]], line: int) -> int:
    """The message a line belongs to; the document's header above #1 counts as #1."""
    number = starts[0][1]
    for first, n in starts:
        if first > line:
            break
        number = n
    return number


def promote_range(lines: Sequence[str], total: int, sel: lsp.Range) -> tuple[int, int] | None:
    starts = message_starts(lines, total)
    if not starts:
        return None
    end = sel.end.line
    if sel.end.character == 0 and end > sel.start.line:
        end -= 1  # a selection of whole lines ends at the start of the next
    return message_at(starts, sel.start.line), message_at(starts, end)


def title(first: int, last: int) -> str:
    if first == last:
        return f"Promote message {first} to task"
    return f"Promote messages {first}–{last} to task"


def register(ls: Sidecar) -> None:
    @ls.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.Refactor]),
    )
    @ls.thread()  # reads the store
    def code_action(ls: Sidecar, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
        only = params.context.only
        if only and not any(lsp.CodeActionKind.Refactor.startswith(k) for k in only):
            return None
        if params.range.start == params.range.end:
            return None  # a cursor is not a choice of messages (and asks before any store read)
        uri = params.text_document.uri
        address = address_of(uri)
        # the Builder's own messages are what a task is promoted from, not a subagent's
        own = own_line(ls.store().conn, *address) if address else None
        if own is None:
            return None
        bid, total = own
        span = promote_range(ls.workspace.get_text_document(uri).lines, total, params.range)
        if span is None:
            return None
        first, last = span
        # the range alone: the form the command opens asks for the rest
        arg = TasksPromoteParams(builder_id=bid, from_message=first, to_message=last).model_dump(
            include={"builder_id", "from_message", "to_message"}
        )
        name = title(first, last)
        return [
            lsp.CodeAction(
                title=name,
                kind=lsp.CodeActionKind.Refactor,
                command=lsp.Command(title=name, command=PROMOTE_COMMAND, arguments=[arg]),
            )
        ]
