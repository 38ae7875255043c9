"""Every tool and every error, through the SDK's in-memory client."""

from __future__ import annotations

import pytest

from lazy.mcp.pages import CHARS_PER_TOKEN
from support.mcp_world import (
    LONG,
    LONG_TURNS,
    OTHER,
    TOOL_OUTPUT,
    A,
    B,
    World,
    call,
    connected,
    fails,
    text_of,
)

pytestmark = pytest.mark.asyncio

TOOLS = {
    "lazy_conversation_search",
    "lazy_conversation_list",
    "lazy_conversation_read",
    "lazy_conversation_ask",
}


async def test_four_tools_with_schemas_and_instructions(world: World) -> None:
    from mcp.shared.memory import create_connected_server_and_client_session

    from lazy.mcp.server import build

    async with create_connected_server_and_client_session(build(world.home, str(world.repo))) as c:
        init = await c.initialize()
        tools = (await c.list_tools()).tools
    assert init.instructions and "what was decided" in init.instructions
    assert {t.name for t in tools} == TOOLS
    for t in tools:
        assert t.description and len(t.description) > 80, t.name
        assert t.outputSchema is not None and t.outputSchema["type"] == "object", t.name
        assert t.annotations is not None and t.annotations.readOnlyHint, t.name
    read = next(t for t in tools if t.name == "lazy_conversation_read")
    assert read.inputSchema["required"] == ["id"]
    assert {"start", "end", "max_tokens", "full_outputs", "session_id"} <= set(
        read.inputSchema["properties"]
    )


async def test_search_finds_the_builder_and_its_message_numbers(world: World) -> None:
    async with connected(world) as client:
        r = await call(client, "lazy_conversation_search", query="retention policy")
        assert r["scope"].startswith("project ") and r["scope"].endswith("myrepo")
        [found] = r["conversations"]
        assert found["id"] == A and found["agent"] == "claude"
        assert found["summary"] == "design the retention policy for the cache"
        assert [m["number"] for m in found["matches"]] == [1]
        assert "retention" in found["matches"][0]["snippet"]
        phrase = await call(client, "lazy_conversation_search", query='"retention unchanged"')
        assert [
            (c["id"], [m["number"] for m in c["matches"]]) for c in phrase["conversations"]
        ] == [(A, [6])]


async def test_search_in_tools_and_role_filters(world: World) -> None:
    async with connected(world) as client:
        tools = await call(client, "lazy_conversation_search", query="in:tools grep output")
        assert [c["id"] for c in tools["conversations"]] == [A]
        users = await call(client, "lazy_conversation_search", query="retention role:assistant")
        assert {m["role"] for c in users["conversations"] for m in c["matches"]} == {"assistant"}


async def test_search_says_when_other_projects_match(world: World) -> None:
    async with connected(world) as client:
        here = await call(client, "lazy_conversation_search", query="quokkaelsewhere")
        assert here["conversations"] == [] and here["elsewhere"] == 1
        assert "all_projects=true" in here["hint"]
        wide = await call(
            client, "lazy_conversation_search", query="quokkaelsewhere", all_projects=True
        )
        assert [c["id"] for c in wide["conversations"]] == [OTHER]
        assert wide["scope"] == "all projects"


async def test_bad_query_is_an_error_that_explains_the_language(world: World) -> None:
    async with connected(world) as client:
        text = await fails(client, "lazy_conversation_search", query="role:nobody retention")
        assert "bad query" in text and "in:tools" in text


async def test_list_newest_first_with_sizes(world: World) -> None:
    async with connected(world) as client:
        r = await call(client, "lazy_conversation_list")
        ids = [c["id"] for c in r["conversations"]]
        assert set(ids) == {A, B, LONG}  # OTHER is another project's
        sizes = {c["id"]: c["messages"] for c in r["conversations"]}
        assert sizes == {A: 6, B: 2, LONG: 2 * LONG_TURNS}
        started = [c["started_at"] for c in r["conversations"]]
        assert started == sorted(started, reverse=True)
        assert all(c["tokens"] and c["tokens"] > 0 for c in r["conversations"])
        every = await call(client, "lazy_conversation_list", all_projects=True)
        assert OTHER in {c["id"] for c in every["conversations"]}


async def test_read_folds_outputs_unless_asked(world: World) -> None:
    async with connected(world) as client:
        r = await call(client, "lazy_conversation_read", id=A)
        assert (r["id"], r["total"], r["first"], r["next_start"]) == (A, 6, 1, None)
        numbers = [m["number"] for m in r["messages"]]
        assert numbers[0] == 1 and 3 in numbers
        call_msg = next(m for m in r["messages"] if "grep -rn retention" in m["text"])
        assert "line 2 of the grep output" in call_msg["text"]
        assert "line 39 of the grep output" not in call_msg["text"]
        assert "full_outputs=true" in call_msg["text"]
        assert "end of the range read" in r["next"]
        full = await call(client, "lazy_conversation_read", id=A, full_outputs=True)
        whole = next(m for m in full["messages"] if "grep -rn retention" in m["text"])
        assert TOOL_OUTPUT in whole["text"]


async def test_read_pages_under_the_budget_and_says_how_to_go_on(world: World) -> None:
    async with connected(world) as client:
        budget = 600
        seen: list[int] = []
        start: int | None = 1
        pages = 0
        while start is not None:
            r = await call(
                client, "lazy_conversation_read", id=LONG[:8], start=start, max_tokens=budget
            )
            pages += 1
            assert r["tokens"] <= budget
            assert sum(len(m["text"]) for m in r["messages"]) <= budget * CHARS_PER_TOKEN
            seen += [m["number"] for m in r["messages"]]
            if r["next_start"] is not None:
                assert f"start={r['next_start']}" in r["next"] and LONG in r["next"]
            start = r["next_start"]
        assert seen == list(range(1, 2 * LONG_TURNS + 1))  # every message once, in order
        assert pages > 5


async def test_read_a_range_and_the_text_content(world: World) -> None:
    async with connected(world) as client:
        r = await client.call_tool("lazy_conversation_read", {"id": LONG, "start": 11, "end": 14})
        data = r.structuredContent
        assert data is not None
        assert [m["number"] for m in data["messages"]] == [11, 12, 13, 14]
        assert data["next_start"] is None
        text = text_of(r)
        assert "--- #11 user" in text and "--- #14 assistant" in text and "step 5 of" in text


async def test_read_unknown_id_lists_candidates(world: World) -> None:
    async with connected(world) as client:
        text = await fails(client, "lazy_conversation_read", id="feedface")
        assert "no conversation 'feedface'" in text
        assert A in text and LONG in text  # the project's most recent, to pick from
        assert "lazy_conversation_search" in text


async def test_read_ambiguous_prefix_lists_them(world: World) -> None:
    async with connected(world) as client:
        text = await fails(client, "lazy_conversation_read", id="abcd")
        assert "ambiguous" in text and A in text and B in text


async def test_read_beyond_the_builder_says_its_size(world: World) -> None:
    async with connected(world) as client:
        text = await fails(client, "lazy_conversation_read", id=A, start=50)
        assert "has 6 message(s), numbered 1 to 6" in text


async def test_a_store_that_cannot_be_opened_says_what_to_run(world: World) -> None:
    from mcp.shared.memory import create_connected_server_and_client_session

    from lazy.mcp.server import build

    db = world.home / "store.db"
    for suffix in ("-wal", "-shm"):
        (world.home / f"store.db{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database at all " * 200)
    async with create_connected_server_and_client_session(build(world.home, str(world.repo))) as c:
        text = await fails(c, "lazy_conversation_list")
    assert "lazy's store could not be read" in text
    assert "To fix it" in text or "lazy doctor" in text


async def test_transcript_controls_are_shown_not_sent(world: World) -> None:
    import os
    from pathlib import Path

    from mcp.shared.memory import create_connected_server_and_client_session

    from fabricate.claude import Session
    from lazy.mcp.server import build
    from support.cli import lazy

    projects = Path(os.environ["HOME"]) / ".claude" / "projects"
    s = Session(projects, str(world.repo))
    s.turn("escapezebra \x1b]52;c;aGk=\x07 and \u202e", "ok")
    lazy("import-conversation", "--all-projects", "--yes", cwd=world.repo)
    async with create_connected_server_and_client_session(build(world.home, str(world.repo))) as c:
        r = await c.call_tool("lazy_conversation_read", {"id": s.id})
    assert r.structuredContent is not None
    said = r.structuredContent["messages"][0]["text"]
    assert "\x1b" not in said and "\u202e" not in said and "\\x1b]52" in said
    assert "\x1b" not in text_of(r) and "\\u202e" in text_of(r)


async def test_tool_descriptions_are_dedented(world: World) -> None:
    async with connected(world) as client:
        tools = (await client.list_tools()).tools
    for t in tools:
        assert t.description is not None and "\n " not in t.description, (t.name, t.description)


async def test_what_was_captured_after_start_is_found_and_its_secrets_never_leave(
    world: World,
) -> None:
    import json
    import os
    from pathlib import Path

    from fabricate.claude import Session
    from support.cli import lazy

    secret = "AKIAIOSFODNN7EXAMPLE"
    async with connected(world) as client:
        await call(client, "lazy_conversation_list")  # the server is up, its store open
        s = Session(Path(os.environ["HOME"]) / ".claude" / "projects", str(world.repo))
        s.turn(f"the deploy key for lateplatypus is {secret}", f"noted: {secret} for lateplatypus")
        lazy("import-conversation", "--all-projects", "--yes", cwd=world.repo)
        found = await client.call_tool("lazy_conversation_search", {"query": "lateplatypus"})
        page = await client.call_tool("lazy_conversation_read", {"id": s.id})
    assert found.structuredContent is not None and page.structuredContent is not None
    assert [g["id"] for g in found.structuredContent["conversations"]] == [s.id]
    for r in (found, page):
        sent = json.dumps(r.structuredContent) + text_of(r)
        assert secret not in sent and "[redacted:aws-access-key]" in sent
