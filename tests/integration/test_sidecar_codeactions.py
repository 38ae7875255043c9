"""The promote code action end to end: `lazy sidecar` spoken to by pytest-lsp's client as VS
Code speaks to it, over the transcript document the extension's "Open as text" renders (its
lazy-transcript address as VS Code writes it, percent-encoded query and all)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Union

import pytest
import pytest_asyncio
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

import support.lsp as lsp_support
from fabricate.claude import Session
from lazy.server.protocol import PROMOTE_COMMAND
from support.lsp import TIMEOUT, call

SPOOF = "── #3 · user · 2025-01-01 ──"  # agent output that looks like the next header


class World(lsp_support.World):
    def __init__(self, base: Path) -> None:
        super().__init__(base)
        s = Session(self.projects, str(self.repo))
        s.turn("plan the rollout", f"three stages\n{SPOOF}\nthen done")
        s.turn("what about rollback?", "keep the old binary")
        self.id = s.id
        self.import_all()


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def _code_actions_as_sent(c: LanguageClient) -> None:
    """pytest-lsp reads each of a codeAction result's ``Command | CodeAction`` as a Command
    (VS Code tells them apart by the type of ``command``): do as VS Code does."""
    conv = c.protocol._converter

    def either(obj: Any, _: Any) -> Any:
        as_action = isinstance(obj.get("command"), dict) or "kind" in obj
        return conv.structure(obj, lsp.CodeAction if as_action else lsp.Command)

    conv.register_structure_hook(Union[lsp.Command, lsp.CodeAction], either)  # noqa: UP007


@pytest_asyncio.fixture
async def client(world: World) -> AsyncIterator[LanguageClient]:
    c = await world.sidecar()
    _code_actions_as_sent(c)
    yield c
    await c.shutdown_session()


def uri(builder_id: str, session: str | None = None) -> str:
    # vscode.Uri.toString() percent-encodes the query's '=' and '&'
    query = f"id%3D{builder_id}" + (f"%26session%3D{session}" if session else "")
    return f"lazy-transcript:/plan-the-rollout.txt?{query}"


async def render(client: LanguageClient, builder_id: str) -> tuple[str, dict[int, int]]:
    """The transcript as the extension's formatMessage renders it (a header per message),
    and the line of each message's header."""
    page = await call(client, "transcripts/page", {"builder_id": builder_id, "count": 1000})
    lines = ["plan the rollout", f"Claude Code · {builder_id}", ""]
    headers = {}
    for m in page["messages"]:
        lines.append("")
        headers[m["number"]] = len(lines)
        lines.append(f"── #{m['number']} · {m['role']} · {m['timestamp']} ──")
        lines += m["text"].splitlines()
    return "\n".join(lines) + "\n", headers


def opened(client: LanguageClient, address: str, text: str) -> None:
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=address, language_id="plaintext", version=1, text=text)
        )
    )


async def actions(
    client: LanguageClient, address: str, start: tuple[int, int], end: tuple[int, int]
) -> list[Any]:
    params = lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=address),
        range=lsp.Range(lsp.Position(*start), lsp.Position(*end)),
        context=lsp.CodeActionContext(diagnostics=[]),
    )
    got = await asyncio.wait_for(client.text_document_code_action_async(params), TIMEOUT)
    return list(got or [])


@pytest.mark.asyncio
async def test_a_selection_over_messages_offers_their_promotion(
    world: World, client: LanguageClient
) -> None:
    address = uri(world.id)
    text, at = await render(client, world.id)
    opened(client, address, text)
    got = await actions(client, address, (at[2] + 1, 3), (at[3] + 1, 2))
    assert [a.title for a in got] == ["Promote messages 2–3 to task"]
    (action,) = got
    assert action.kind == lsp.CodeActionKind.Refactor
    assert action.command.command == PROMOTE_COMMAND
    assert list(action.command.arguments) == [
        {"builder_id": world.id, "from_message": 2, "to_message": 3}
    ]
    # the argument is a promotion the sidecar takes as it is
    promoted = await call(client, "tasks/promote", action.command.arguments[0])
    assert (promoted["task"]["from_message"], promoted["task"]["to_message"]) == (2, 3)


@pytest.mark.asyncio
async def test_what_counts_as_the_messages_selected(world: World, client: LanguageClient) -> None:
    address = uri(world.id)
    text, at = await render(client, world.id)
    opened(client, address, text)
    spoof = text.splitlines().index(SPOOF)
    assert at[2] < spoof < at[3]

    async def titles(start: tuple[int, int], end: tuple[int, int]) -> list[str]:
        return [a.title for a in await actions(client, address, start, end)]

    # within one message: that message alone
    assert await titles((at[1] + 1, 0), (at[1] + 1, 4)) == ["Promote message 1 to task"]
    # whole lines of #1 and #2, ending at the start of #3's header: #3 is not selected
    assert await titles((at[1], 0), (at[3], 0)) == ["Promote messages 1–2 to task"]
    # the line in #2's text that claims to be #3's header is not: #2 runs on to the real one
    assert await titles((spoof + 1, 0), (spoof + 1, 4)) == ["Promote message 2 to task"]
    assert await titles((at[2] + 1, 0), (spoof, 5)) == ["Promote message 2 to task"]
    # from the document's own header above #1, to the last message
    assert await titles((0, 0), (at[4] + 1, 1)) == ["Promote messages 1–4 to task"]
    # a cursor is no selection: no light bulb on every line
    assert await titles((at[2] + 1, 2), (at[2] + 1, 2)) == []


@pytest.mark.asyncio
async def test_no_promotion_outside_a_builders_own_transcript(
    world: World, client: LanguageClient
) -> None:
    text, at = await render(client, world.id)
    everything = ((0, 0), (at[4] + 1, 0))
    for address in (uri(world.id, session="agent-a1b2"), "file:///tmp/notes.txt", uri("ffffffff")):
        opened(client, address, text)
        assert await actions(client, address, *everything) == []
    # the Builder's own session named in the address is its own line: offered
    own = uri(world.id, session=world.id)
    opened(client, own, text)
    assert len(await actions(client, own, *everything)) == 1
    # only the refactor kind is offered: a request for quick fixes only gets none
    params = lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=own),
        range=lsp.Range(lsp.Position(*everything[0]), lsp.Position(*everything[1])),
        context=lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.QuickFix]),
    )
    assert not await client.text_document_code_action_async(params)
