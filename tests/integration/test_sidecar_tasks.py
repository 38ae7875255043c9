"""tasks/promote and tasks/list end to end: `lazy sidecar` spoken to by pytest-lsp's client,
over a store imported from Claude Code sessions; the refusals' codes and data."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

import support.lsp as lsp_support
from fabricate.claude import Session
from lazy.server.protocol import ALREADY_PROMOTED, NOT_FOUND
from support.lsp import call
from support.search import run_lazy


class World(lsp_support.World):
    def __init__(self, base: Path) -> None:
        super().__init__(base)
        projects = self.projects
        self.a = Session(projects, str(self.repo))
        self.a.turn("plan the frobnicator rollout", "three stages")
        self.a.turn("what about rollback?", "keep the old binary")
        self.a.turn("ship it", "shipped")
        self.other = Session(projects, "/elsewhere/other")
        self.other.turn("unrelated work in another project", "fine")
        self.import_all()


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


@pytest_asyncio.fixture
async def client(world: World) -> AsyncIterator[LanguageClient]:
    c = await world.sidecar()
    yield c
    await c.shutdown_session()


@pytest.mark.asyncio
async def test_promote_falls_back_overlaps_and_refuses_a_repeat(
    world: World, client: LanguageClient
) -> None:
    bid = world.a.id
    first = await call(
        client, "tasks/promote", {"builder_id": bid[:8], "from_message": 1, "to_message": 3}
    )
    task = first["task"]
    assert first["overlapping"] == []
    assert (task["code"], task["goal"], task["status"], task["parent"]) == (
        "plan-the-frobnicator-rollout", "plan the frobnicator rollout", "backlog", None
    )  # fmt: skip
    assert (task["builder_id"], task["from_message"], task["to_message"]) == (bid, 1, 3)
    assert task["prompt"] == (
        "#1 user\nplan the frobnicator rollout\n\n#2 assistant\nthree stages\n\n"
        "#3 user\nwhat about rollback?\n"
    )
    second = await call(
        client,
        "tasks/promote",
        {"builder_id": bid, "from_message": 3, "to_message": 4, "goal": "Rollback",
         "code": "", "parent": task["code"], "prompt": "Write the rollback runbook."},
    )  # fmt: skip
    assert second["task"]["code"] == "rollback" and second["task"]["parent"] == task["code"]
    assert second["task"]["prompt"] == "Write the rollback runbook."
    assert [t["code"] for t in second["overlapping"]] == [task["code"]]

    with pytest.raises(JsonRpcException) as e:
        await call(client, "tasks/promote", {"builder_id": bid, "from_message": 1, "to_message": 3})
    assert e.value.code == ALREADY_PROMOTED
    assert e.value.data == {
        "task": task["code"], "builder_id": bid, "from_message": 1, "to_message": 3
    }  # fmt: skip
    assert task["code"] in str(e.value)

    with pytest.raises(JsonRpcException) as e:
        await call(client, "tasks/promote", {"builder_id": bid, "from_message": 5, "to_message": 9})
    assert e.value.code == -32602
    assert e.value.data["errors"][0]["field"] == "to_message"
    assert "it has messages 1–6" in e.value.data["errors"][0]["message"]
    with pytest.raises(JsonRpcException) as e:
        await call(client, "tasks/promote", {"builder_id": bid, "from_message": 4, "to_message": 2})
    assert e.value.code == -32602 and e.value.data["errors"][0]["field"] == "from_message"
    with pytest.raises(JsonRpcException) as e:
        await call(
            client, "tasks/promote",
            {"builder_id": bid, "from_message": 5, "to_message": 6, "parent": "no-such"},
        )  # fmt: skip
    assert e.value.code == -32602 and e.value.data["errors"][0]["field"] == "parent"
    with pytest.raises(JsonRpcException) as e:
        await call(
            client, "tasks/promote", {"builder_id": "zzzz-none", "from_message": 1, "to_message": 1}
        )
    assert e.value.code == NOT_FOUND

    # what the CLI sees is what the sidecar wrote
    listed = run_lazy(world.lazy_home, world.user_home, "tasks", "--all-projects", "--json")
    assert [t["code"] for t in json.loads(listed.stdout)["tasks"]] == ["rollback", task["code"]]


@pytest.mark.asyncio
async def test_list_by_builder_and_by_workspace(world: World, client: LanguageClient) -> None:
    for lo, hi in ((3, 4), (1, 2)):
        await call(
            client,
            "tasks/promote",
            {"builder_id": world.a.id, "from_message": lo, "to_message": hi},
        )
    await call(
        client, "tasks/promote", {"builder_id": world.other.id, "from_message": 1, "to_message": 2}
    )
    mine = await call(client, "tasks/list", {"builder_id": world.a.id[:8]})
    assert [(t["from_message"], t["to_message"]) for t in mine["items"]] == [(1, 2), (3, 4)]
    scoped = await call(client, "tasks/list", {"workspace_folders": [str(world.repo)]})
    assert {t["builder_id"] for t in scoped["items"]} == {world.a.id}
    assert len(scoped["items"]) == 2
    everything = await call(client, "tasks/list", {"all_projects": True})
    assert len(everything["items"]) == 3
    found = await call(
        client, "search/query", {"query": "in:tasks frobnicator", "all_projects": True}
    )
    hits = [h for g in found["groups"] for h in g["hits"]]
    assert [(h["kind"], h["task_code"]) for h in hits] == [("task", "plan-the-frobnicator-rollout")]
