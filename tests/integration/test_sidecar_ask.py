"""ask/run's refusals, end to end through `lazy sidecar` (pytest-lsp's client): an id that
names no one conversation, and a machine where the sandbox cannot run. Answers from a real
container are tests/sandbox/test_sidecar_ask_sandboxed.py's."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

import support.lsp as lsp_support
from fabricate.claude import Session
from lazy.server.protocol import AMBIGUOUS, ASK_FAILED, NOT_FOUND
from support.lsp import TIMEOUT, call
from support.search import LAZY, env_for


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


def no_docker_env(tmp_path: Path) -> dict[str, str]:
    """A credential, but no Docker engine where DOCKER_HOST points."""
    return {
        "DOCKER_HOST": f"unix://{tmp_path}/no-docker.sock",
        "ANTHROPIC_API_KEY": "sk-ant-not-used",
        "ANTHROPIC_AUTH_TOKEN": "",
        "LAZY_ONESHOT_BASE_DIR": str(tmp_path / "oneshot"),
    }


def cli_ask(world: World, ident: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LAZY, "ask", ident, "-m", "which compression?"],
        env=env_for(world.lazy_home, world.user_home, NO_COLOR="1", **env),
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest_asyncio.fixture
async def no_docker(world: World, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    """A sidecar with a credential but no Docker engine where DOCKER_HOST points."""
    c = await world.sidecar(**no_docker_env(tmp_path))
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


@pytest.mark.asyncio
@pytest.mark.parametrize("missing", ["credential", "docker"])
async def test_an_unmet_prerequisite_is_the_sentence_lazy_ask_prints(
    world: World, tmp_path: Path, missing: str
) -> None:
    """The sidecar answers with the very sentence the CLI prints (its message), the code and
    the machine detail beside it (its data), before any excerpt is read."""
    env = no_docker_env(tmp_path)
    if missing == "credential":
        env["ANTHROPIC_API_KEY"] = ""
    c = await world.sidecar(**env)
    try:
        e = await refused(c, {"id": world.sessions[0].id, "question": "which compression?"})
        begun = dict(c.progress_reports)
    finally:
        await c.shutdown_session()
    assert begun == {}  # refused before the ask began: no progress shown for it
    printed = cli_ask(world, world.sessions[0].id, **env)
    assert printed.returncode == 1
    assert e.code == ASK_FAILED
    assert "\n" not in e.message and "[" not in e.message, e.message
    code, detail = e.data["code"], e.data["detail"]
    assert code == {"credential": "no-credential", "docker": "docker-unavailable"}[missing]
    opening = {
        "credential": "lazy ask needs an Anthropic credential",
        "docker": "lazy ask runs every one-shot in a Docker container",
    }[missing]
    assert e.message.startswith(opening), e.message
    machine = f"{code}: {detail}" if detail else code
    assert printed.stderr == f"Error: {e.message} [{machine}]\n"
    assert e.data["warnings"] == []
