"""lazy_conversation_ask through the in-memory client: the prerequisites checked by the real
runner (no credential, no Docker engine), and the ask itself with the model's answers scripted
(the Docker one-shot end to end is tests/sandbox's)."""

from __future__ import annotations

import pytest
from mcp.shared.memory import create_connected_server_and_client_session

from lazy.mcp.server import build
from lazy.model import ONESHOT_MARKER
from support.mcp_world import A, World, call, fails

pytestmark = pytest.mark.asyncio


class Scripted:
    """The model's answers, scripted: every prompt kept, one answer to all."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    def check(self) -> None:
        """The model is scripted: nothing else is needed."""

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answer


async def test_ask_answers_from_the_whole_conversation(world: World) -> None:
    model = Scripted("Transcripts are kept forever (#2).")
    server = build(world.home, str(world.repo), runner=lambda project: model)
    async with create_connected_server_and_client_session(server) as c:
        r = await call(c, "lazy_conversation_ask", id="abcd1111", question="what is kept?")
    assert r == {
        "id": A,
        "answer": "Transcripts are kept forever (#2).",
        "chunks": 1,
        "relevant_chunks": 1,
        "warnings": [],
    }
    [prompt] = model.prompts
    assert prompt.startswith(ONESHOT_MARKER)  # the one-shot's own session is never captured
    assert "what is kept?" in prompt and "Keep transcripts forever." in prompt


async def test_ask_without_a_credential_says_what_to_set(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    async with create_connected_server_and_client_session(build(world.home, str(world.repo))) as c:
        text = await fails(c, "lazy_conversation_ask", id=A, question="what is kept?")
    assert "lazy cannot ask here" in text and "ANTHROPIC_API_KEY" in text


async def test_ask_without_docker_says_so(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")
    monkeypatch.setenv("DOCKER_HOST", f"unix://{world.home}/no-docker.sock")
    async with create_connected_server_and_client_session(build(world.home, str(world.repo))) as c:
        text = await fails(c, "lazy_conversation_ask", id=A, question="what is kept?")
    assert "lazy cannot ask here" in text and "Docker" in text


async def test_ask_of_an_unknown_conversation(world: World) -> None:
    model = Scripted("never asked")
    server = build(world.home, str(world.repo), runner=lambda project: model)
    async with create_connected_server_and_client_session(server) as c:
        text = await fails(c, "lazy_conversation_ask", id="feedface", question="anything?")
    assert "no conversation 'feedface'" in text and model.prompts == []
