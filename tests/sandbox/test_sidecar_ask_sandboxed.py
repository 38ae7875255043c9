"""ask/run end to end: `lazy sidecar` (pytest-lsp's client, as VS Code speaks to it) asking a
stored conversation through the real one-shot runner (Claude Code in the hardened container,
the audited channel, the fake model API on the host): the excerpts read as $/progress, and a
$/cancelRequest that kills the one-shot and leaves no container behind."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_anthropic import Rule, text
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

import support.lsp as lsp_support
from fabricate.claude import Session
from support.docker import Engine
from support.lsp import TIMEOUT, call, plain
from support.oneshot_api import REAL_KEY, fake_api

LONG = 60 * 1024  # two answers this long do not fit one 96 KiB prompt: two excerpts
REQUEST_CANCELLED = -32800


class World(lsp_support.World):
    def __init__(self, base: Path) -> None:
        super().__init__(base)
        self.session = Session(self.projects, str(self.repo))
        self.session.turn("which compression for the archive?", "zstd, level 3. " + "z" * LONG)
        self.session.turn("and the index?", "tantivy, rebuilt on upgrade. " + "t" * LONG)
        self.import_all()
        # the sidecar's own temp dir, where its run folders go (short: the proxy socket's path)
        self.tmp = Path(tempfile.mkdtemp(prefix="ask-", dir="/tmp"))


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    try:
        yield w
    finally:
        shutil.rmtree(w.tmp, ignore_errors=True)


async def ask_sidecar(world: World, base_url: str) -> LanguageClient:
    return await world.sidecar(
        DOCKER_HOST=os.environ["DOCKER_HOST"],  # the test engine's (the engine fixture)
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY=REAL_KEY,
        TMPDIR=str(world.tmp),
    )


def files_left(world: World) -> list[Path]:
    """The sidecar's run folders, and the session files of its one-shots."""
    state = world.lazy_home / "oneshot"
    sessions = [p for p in state.glob("*/.claude/projects/**/*") if p.is_file()]
    return [*world.tmp.glob("lazy-oneshot-*"), *sessions]


def reports(client: LanguageClient) -> list[str]:
    return [
        r.message
        for rs in client.progress_reports.values()
        for r in rs
        if isinstance(r, lsp.WorkDoneProgressReport) and r.message
    ]


@pytest.mark.asyncio
async def test_ask_run_reads_excerpts_with_progress_and_answers(
    world: World, engine: Engine
) -> None:
    rules = [
        Rule("notes 1", [text("zstd at level 3 was chosen (#2)")], user_contains="excerpt 1 of 2"),
        Rule("notes 2", [text("NONE")], user_contains="excerpt 2 of 2"),
        Rule("answer", [text("zstd, level 3 (#2)")], user_contains="Below are the notes"),
    ]
    with fake_api(rules) as fake:
        client = await ask_sidecar(world, fake.base_url)
        try:
            got = await call(
                client,
                "ask/run",
                {"id": world.session.id[:8], "question": "which compression did we choose?"},
                timeout=600,
            )
            progress = reports(client)
            kinds = [type(r).__name__ for rs in client.progress_reports.values() for r in rs]
        finally:
            await client.shutdown_session()
    assert got == {
        "builder_id": world.session.id,
        "task": None,
        "answer": "zstd, level 3 (#2)",
        "chunks": 2,
        "relevant_chunks": 1,
        "warnings": [],
    }
    assert [r.used for r in rules] == [1, 1, 1]  # two excerpts read, one final pass
    assert progress == ["1 of 2 excerpts read", "2 of 2 excerpts read"]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"
    assert engine.labelled() == []  # every container gone
    assert files_left(world) == []  # every run folder, and no session kept


@pytest.mark.asyncio
async def test_a_cancelled_ask_kills_its_one_shot(world: World, engine: Engine) -> None:
    hang = Rule("hang", [text("too late")], delay=600)  # the model never answers in time
    with fake_api([hang]) as fake:
        client = await ask_sidecar(world, fake.base_url)
        try:
            request = asyncio.ensure_future(
                client.protocol.send_request_async(
                    "ask/run", {"id": world.session.id, "question": "which?"}, msg_id="the-ask"
                )
            )

            async def asked() -> None:  # the one-shot is in the container, waiting on the model
                while hang.used == 0:
                    await asyncio.sleep(0.05)

            await asyncio.wait_for(asked(), 300)
            assert len(engine.labelled()) == 1
            assert len(list(world.tmp.glob("lazy-oneshot-*"))) == 1  # the run's folder
            client.protocol.notify("$/cancelRequest", lsp.CancelParams(id="the-ask"))
            with pytest.raises(JsonRpcException) as caught:
                plain(await asyncio.wait_for(request, TIMEOUT * 4))
            # answered only once nothing of the ask is left: no container, no run folder,
            # no session file, no later excerpt
            assert engine.labelled() == []
            assert files_left(world) == []
            assert hang.used == 1
            # the sidecar asks on afterwards
            got = await call(client, "builders/get", {"id": world.session.id})
            assert got["id"] == world.session.id
        finally:
            await client.shutdown_session()
    assert caught.value.code == REQUEST_CANCELLED


@pytest.mark.asyncio
async def test_a_killed_sidecar_leaves_nothing_of_its_ask(world: World, engine: Engine) -> None:
    """VS Code reloading, or the sidecar killed -9, mid-ask: the ask's watchdog removes its
    container and run folder at once."""
    hang = Rule("hang", [text("too late")], delay=600)
    with fake_api([hang]) as fake:
        client = await ask_sidecar(world, fake.base_url)
        server = client._server  # the sidecar's process (pytest-lsp started it)
        assert server is not None
        request = asyncio.ensure_future(
            client.protocol.send_request_async(
                "ask/run", {"id": world.session.id, "question": "which?"}, msg_id="the-ask"
            )
        )
        try:

            async def asked() -> None:
                while hang.used == 0:
                    await asyncio.sleep(0.05)

            await asyncio.wait_for(asked(), 300)
            assert len(engine.labelled()) == 1
            assert not request.done()  # mid-ask
            server.kill()
            await asyncio.wait_for(server.wait(), TIMEOUT)

            async def gone() -> None:
                while engine.labelled() or files_left(world):
                    await asyncio.sleep(0.1)

            await asyncio.wait_for(gone(), 30)
        finally:
            request.cancel()  # its answer will never come
            if server.returncode is None:
                server.kill()
                await server.wait()
    assert engine.labelled() == []
    assert files_left(world) == []


@pytest.mark.asyncio
async def test_ask_run_about_a_task_reads_its_prompt_and_its_messages_only(
    world: World, engine: Engine
) -> None:
    rule = Rule(
        "task",
        [text("it was asked at #3")],
        user_contains="Task pick-index (backlog): Pick the index",
    )
    with fake_api([rule]) as fake:
        client = await ask_sidecar(world, fake.base_url)
        try:
            await call(
                client,
                "tasks/promote",
                {"builder_id": world.session.id, "from_message": 3, "to_message": 3,
                 "goal": "Pick the index", "code": "pick-index"},
            )  # fmt: skip
            got = await call(
                client, "ask/run", {"id": "pick-index", "question": "why?"}, timeout=600
            )
        finally:
            await client.shutdown_session()
    assert (got["task"], got["builder_id"], got["chunks"]) == (
        "pick-index",
        world.session.id,
        1,  # the task's one message fits one pass, though the whole conversation does not
    )
    assert got["answer"] == "it was asked at #3"
    assert rule.used == 1
