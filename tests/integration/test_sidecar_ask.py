"""ask/run's refusals, end to end through `lazy sidecar` (pytest-lsp's client): an id that
names no one conversation, and a machine where the sandbox cannot run. Answers from a real
container are tests/sandbox/test_sidecar_ask_sandboxed.py's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

import lsp_support
from claude_session import Session
from lazy.server.protocol import AMBIGUOUS, ASK_FAILED, NOT_FOUND
from lsp_support import TIMEOUT, call


class World(lsp_support.World):
    def __init__(self, base: Path) -> None:
        super().__init__(base)
        ids = ("abcd1234-0000-4000-8000-000000000001", "abcd5678-0000-4000-8000-000000000002")
        self.sessions = [Session(self.projects, str(self.repo), i) for i in ids]
        for s in self.sessions:
            s.turn("which compression for the archive?", "zstd, level 3")
        self.import_all()


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


@pytest_asyncio.fixture
async def no_docker(world: World, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    """A sidecar with a credential but no Docker engine where DOCKER_HOST points."""
    c = await world.sidecar(
        DOCKER_HOST=f"unix://{tmp_path}/no-docker.sock",
        ANTHROPIC_API_KEY="sk-ant-not-used",
        LAZY_ONESHOT_BASE_DIR=str(tmp_path / "oneshot"),
    )
    yield c
    await c.shutdown_session()


async def refused(client: LanguageClient, params: dict[str, str]) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as caught:
        await call(client, "ask/run", params)
    return caught.value


@pytest.mark.asyncio
async def test_an_id_that_names_no_one_conversation(
    world: World, no_docker: LanguageClient
) -> None:
    e = await refused(no_docker, {"id": "zzzzzzzz", "question": "q?"})
    assert e.code == NOT_FOUND
    e = await refused(no_docker, {"id": "abcd", "question": "q?"})
    assert e.code == AMBIGUOUS
    assert sorted(c["id"] for c in e.data["candidates"]) == [s.id for s in world.sessions]


@pytest.mark.asyncio
async def test_no_docker_fails_loud_with_the_guidance(
    world: World, no_docker: LanguageClient
) -> None:
    e = await refused(no_docker, {"id": world.sessions[0].id, "question": "which compression?"})
    assert e.code == ASK_FAILED
    assert "never on the host" in e.message and "Docker" in e.message, e.message
    assert e.data["code"] == "docker-unavailable", e.data
    assert "no-docker.sock" in str(e.message) + str(e.data["detail"])
    assert e.data["warnings"] == []
    # the sidecar still answers
    got = await asyncio.wait_for(
        no_docker.protocol.send_request_async("builders/get", {"id": world.sessions[0].id}), TIMEOUT
    )
    assert got is not None


@pytest.mark.asyncio
async def test_no_credential_is_said_before_docker(world: World, tmp_path: Path) -> None:
    c = await world.sidecar(
        DOCKER_HOST=f"unix://{tmp_path}/no-docker.sock",
        ANTHROPIC_API_KEY="",
        ANTHROPIC_AUTH_TOKEN="",
    )
    try:
        e = await refused(c, {"id": world.sessions[0].id, "question": "which compression?"})
    finally:
        await c.shutdown_session()
    assert e.code == ASK_FAILED
    assert e.data["code"] == "no-credential"
    assert "ANTHROPIC_API_KEY" in e.message


@pytest.mark.asyncio
async def test_an_empty_question_asks_nothing(world: World, no_docker: LanguageClient) -> None:
    e = await refused(no_docker, {"id": world.sessions[0].id, "question": "  \n"})
    assert e.code == ASK_FAILED
    assert e.data["code"] == "EMPTY_QUESTION"
