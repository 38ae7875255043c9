"""team/* end to end: `lazy sidecar` started as VS Code starts it (pytest-lsp's client), on a
member's store, against the real PostgreSQL server: status, push, the team's Builders with the
grew mark, a teammate's page read-only (marking it seen), search with its marks, and a machine
with no team told so with the team error code."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException
from team_world import fresh_team, git_repo

from lazy.server.protocol import TEAM_FAILED
from support.lsp import call, start_sidecar
from support.postgres import Postgres
from support.search import env_for


@pytest.mark.asyncio
async def test_the_team_methods(postgres: Postgres, tmp_path: Path) -> None:
    alice, bob = fresh_team(postgres, tmp_path, ("alice", "Alice Archer"), ("bob", "Bob Baker"))
    repo = git_repo(tmp_path / "src" / "app", "git@github.com:acme/app.git")
    alice.session(repo, "How do we retry when the lock is held?", "Back off, then retry.")
    bob.session(repo, "Plan the tangerine migration", "Inventory first.")
    for m in (alice, bob):
        m.capture()
    alice.lazy("team", "push")
    alice.lazy("team", "add", bob.email, "--project", "github.com/acme/app")
    bob.lazy("team", "push")

    client = await start_sidecar(
        env_for(alice.lazy_home, alice.home, **alice.env()), repo, live_capture=False
    )
    try:
        st = await call(client, "team/status", {})
        assert st["joined"] is True and st["email"] == "alice@acme.test" and st["unpushed"] == 0
        assert st["database"] == f"alice@{postgres.sockets}:{postgres.port}/team"
        dry = await call(client, "team/push", {"dry_run": True})
        assert dry["builders"] == 0 and dry["unchanged"] == 0  # nothing grew since the push
        items = (await call(client, "team/builders", {}))["items"]
        assert {(i["member"], i["grew"]) for i in items} == {
            ("Alice Archer", False),
            ("Bob Baker", True),
        }
        bobs = next(i for i in items if i["member"] == "Bob Baker")
        page = await call(client, "team/page", {"builder_id": bobs["builder_id"][:8]})
        assert page["member"] == "Bob Baker" and page["total"] == 2 and page["next_start"] is None
        assert [m["number"] for m in page["messages"]] == [1, 2]
        assert page["messages"][0]["text"] == "Plan the tangerine migration"
        again = (await call(client, "team/builders", {"member": "bob@acme.test"}))["items"]
        assert [i["grew"] for i in again] == [False]
        [hit] = (await call(client, "team/search", {"query": '"lock is held"'}))["hits"]
        assert hit["member"] == "Alice Archer" and hit["number"] == 1
        assert [hit["snippet"][a:b].lower() for a, b in hit["marks"]] == ["lock", "held"]
        made = await call(
            client,
            "team/promote",
            {"builder_id": bobs["builder_id"], "from_message": 1, "to_message": 2},
        )
        assert (
            made["task"]["code"] == "plan-the-tangerine-migration"
            and made["task"]["by"] == "Alice Archer"
        )
        assert made["overlaps"] == []
        with pytest.raises(JsonRpcException) as e:  # the same range again: refused, saying whose
            await call(
                client,
                "team/promote",
                {"builder_id": bobs["builder_id"], "from_message": 1, "to_message": 2},
            )
        assert (
            e.value.code == -32602
            and "already promoted, as task plan-the-tangerine-migration" in str(e.value)
        )
        wide = await call(
            client,
            "team/promote",
            {
                "builder_id": bobs["builder_id"],
                "from_message": 2,
                "to_message": 2,
                "goal": "Inventory",
                "code": "inv",
            },
        )
        assert wide["task"]["code"] == "inv"
        assert wide["overlaps"] == [
            "message 2 also went into Alice Archer's task plan-the-tangerine-migration"
            " (messages 1–2: Plan the tangerine migration)"
        ]
        with pytest.raises(JsonRpcException) as e:
            await call(client, "team/page", {"builder_id": "nope"})
        assert e.value.code == TEAM_FAILED and "no Builder 'nope' on the team" in str(e.value)
    finally:
        await client.shutdown_session()

    lone = tmp_path / "lone"
    client = await start_sidecar(env_for(lone / "lazy", lone / "home"), repo, live_capture=False)
    try:
        assert (await call(client, "team/status", {}))["joined"] is False
        with pytest.raises(JsonRpcException) as e:
            await call(client, "team/builders", {})
        assert e.value.code == TEAM_FAILED and "has not joined a team" in str(e.value)
    finally:
        await client.shutdown_session()
