"""The sidecar end to end (issue 5): `lazy sidecar` started as VS Code starts it, spoken to
by pytest-lsp's client with VS Code's capabilities. Every method and notification: paging,
errors with codes and data, progress and cancellation, and live capture of a session
written while the sidecar runs."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from fabricate.claude import Session
from fabricate.codex import Rollout
from lazy.server.protocol import AMBIGUOUS, BAD_QUERY, NAME_TAKEN, NOT_FOUND
from support.lsp import TIMEOUT, call, plain, start_sidecar
from support.search import env_for, run_lazy


class World:
    def __init__(self, base: Path) -> None:
        self.lazy_home = base / "lazy store"  # a space: paths are quoted everywhere
        self.user_home = base / "home"
        self.repo = base / "work" / "repo"
        self.repo.mkdir(parents=True)
        self.projects = self.user_home / ".claude" / "projects"
        self.sessions: list[Session] = []
        for i in range(7):
            s = Session(self.projects, str(self.repo))
            s.turn(f"question {i} about the retention policy", f"answer {i}: keep it")
            self.sessions.append(s)
        self.long = Session(self.projects, str(self.repo))
        for i in range(130):
            self.long.turn(f"step {i} of the long one", f"done step {i}")
        other = Session(self.projects, "/elsewhere/other")
        other.turn("unrelated work", "fine")
        self.other = other
        # the wire counts bytes, not characters (the sidecar writes UTF-8 as it is)
        other.turn("naïve café — 日本語, 🎉", "ünïcödé ✓")
        self.gone = Session(self.projects, "/elsewhere/gone")  # deleted after its import
        self.gone.turn("a session its agent deleted", "lazy keeps it")
        helper = Session(self.user_home / "scratch", "/elsewhere/gone", session_id=self.gone.id)
        helper.turn("look at the store", "it holds everything")
        self.subagent = self.gone.path.parent / self.gone.id / "subagents" / "agent-a1b2c3d4.jsonl"
        self.subagent.parent.mkdir(parents=True)
        self.subagent.write_bytes(helper.path.read_bytes().replace(
            b'"isSidechain":false', b'"isSidechain":true,"agentId":"a1b2c3d4"'
        ))  # fmt: skip
        Rollout(self.user_home / ".codex", str(self.repo)).turn("codex on retention", "ok")
        for tool in ("claude", "codex"):
            run_lazy(self.lazy_home, self.user_home, "import-conversation", "--tool", tool,
                     "--all-projects", "--yes")  # fmt: skip
        self.gone.path.unlink()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("sidecar"))


async def start(world: World, **options: Any) -> LanguageClient:
    return await start_sidecar(env_for(world.lazy_home, world.user_home), world.repo, **options)


@pytest_asyncio.fixture
async def client(world: World) -> AsyncIterator[LanguageClient]:
    c = await start(world, live_capture=False)
    yield c
    await c.shutdown_session()


# ---- builders/list and builders/get -----------------------------------------------------------


@pytest.mark.asyncio
async def test_builders_list_pages_with_a_cursor(world: World, client: LanguageClient) -> None:
    scope = {"workspace_folders": [str(world.repo)]}
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = await call(client, "builders/list", {**scope, "limit": 3, "cursor": cursor})
        seen += [b["id"] for b in page["items"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == 9  # 7 + the long one + codex, each once
    assert pages == 3
    # the first page counts them all (an empty workspace says how many are elsewhere)
    first = await call(client, "builders/list", {**scope, "limit": 3})
    assert first["total"] == 9
    later = await call(
        client, "builders/list", {**scope, "limit": 3, "cursor": first["next_cursor"]}
    )
    assert later["total"] is None
    nowhere = await call(client, "builders/list", {"workspace_folders": ["/no/such/dir"]})
    assert (nowhere["items"], nowhere["total"]) == ([], 0)
    everything = await call(client, "builders/list", {"all_projects": True, "limit": 500})
    mine = [b for b in everything["items"] if b["project"] in (str(world.repo), "/elsewhere/other")]
    assert len(mine) == 10 and everything["next_cursor"] is None
    started = [b["started_at"] for b in everything["items"]]
    assert started == sorted(started, reverse=True)  # newest first
    codex = await call(client, "builders/list", {**scope, "tools": ["codex"]})
    assert [b["tool"] for b in codex["items"]] == ["codex"]
    found = await call(client, "builders/list", {**scope, "text": "QUESTION 3"})
    assert [b["summary"] for b in found["items"]] == ["question 3 about the retention policy"]


@pytest.mark.asyncio
async def test_builders_get_and_its_errors(world: World, client: LanguageClient) -> None:
    sid = world.long.id
    got = await call(client, "builders/get", {"id": sid[:10]})
    assert got["id"] == sid and got["message_count"] == 260
    with pytest.raises(JsonRpcException) as e:
        await call(client, "builders/get", {"id": "zzzz-no-such"})
    assert e.value.code == NOT_FOUND
    with pytest.raises(JsonRpcException) as e:
        await call(client, "builders/get", {"id": ""})  # a prefix of every Builder
    assert e.value.code in (AMBIGUOUS, NOT_FOUND)
    with pytest.raises(JsonRpcException) as e:
        await call(client, "builders/list", {"limit": 0})
    assert e.value.code == -32602 and "limit" in str(e.value)


@pytest.mark.asyncio
async def test_builders_sources_names_the_files_and_which_are_gone(
    world: World, client: LanguageClient
) -> None:
    got = await call(client, "builders/sources", {"id": world.long.id[:12]})
    assert got["builder_id"] == world.long.id
    assert [(f["path"], f["exists"], f["agent_id"]) for f in got["files"]] == [
        (str(world.long.path), True, None)
    ]
    assert got["files"][0]["size"] == world.long.path.stat().st_size
    gone = await call(client, "builders/sources", {"id": world.gone.id})
    assert [(f["path"], f["exists"], f["agent_id"]) for f in gone["files"]] == [
        (str(world.gone.path), False, None),  # deleted by its agent; the store keeps it
        (str(world.subagent), True, "a1b2c3d4"),
    ]
    with pytest.raises(JsonRpcException) as e:
        await call(client, "builders/sources", {"id": "zzzz-no-such"})
    assert e.value.code == NOT_FOUND


@pytest.mark.asyncio
async def test_builders_name_binds_an_alias_that_labels_the_builder(
    world: World, client: LanguageClient
) -> None:
    first, second = world.sessions[0], world.sessions[1]
    named = await call(client, "builders/name", {"id": first.id, "name": "reviewer"})
    assert named["id"] == first.id and named["alias"] == "reviewer"
    listed = await call(client, "builders/list", {"workspace_folders": [str(world.repo)]})
    assert {b["id"]: b["alias"] for b in listed["items"]}[first.id] == "reviewer"
    with pytest.raises(JsonRpcException) as e:  # the name is this project's other Builder's
        await call(client, "builders/name", {"id": second.id, "name": "reviewer"})
    assert e.value.code == NAME_TAKEN
    assert e.value.data == {"name": "reviewer", "builder_id": first.id}
    with pytest.raises(JsonRpcException) as e:
        await call(client, "builders/name", {"id": second.id, "name": "1-starts-with-a-digit"})
    assert e.value.code == -32602 and "letter" in str(e.value)
    # the name opens it, as its id does (VS Code's Open Builder…, a lazy search link)
    by_name = await call(client, "builders/get", {"id": "reviewer"})
    assert by_name["id"] == first.id and by_name["alias"] == "reviewer"
    page = await call(client, "transcripts/page", {"builder_id": "reviewer", "count": 1})
    assert page["builder"]["id"] == first.id and [m["number"] for m in page["messages"]] == [1]
    renamed = await call(client, "builders/name", {"id": first.id, "name": "reviewer-2"})
    assert renamed["alias"] == "reviewer-2"
    with pytest.raises(JsonRpcException) as e:  # the old name names nothing now
        await call(client, "builders/get", {"id": "reviewer"})
    assert e.value.code == NOT_FOUND
    aliases = run_lazy(world.lazy_home, world.user_home, "alias", "list", "--all-scopes", "--json")
    names = [a["name"] for a in json.loads(aliases.stdout)["aliases"]]
    assert names == ["reviewer-2"]  # renaming left no stale name behind
    # the alias opens it as its id does (the extension's quick open takes either)
    by_alias = await call(client, "builders/get", {"id": "reviewer-2"})
    assert by_alias["id"] == first.id and by_alias["alias"] == "reviewer-2"
    page = await call(client, "transcripts/page", {"builder_id": "reviewer-2", "count": 10})
    assert (
        page["builder"]["id"] == first.id
        and page["messages"][0]["text"] == "question 0 about the retention policy"
    )
    found = await call(client, "transcripts/find", {"builder_id": "reviewer-2", "query": "KEEP IT"})
    assert found["total"] == 1 and found["matches"] == [{"number": 2, "count": 1}]
    cleared = await call(client, "builders/name", {"id": first.id, "name": None})
    assert cleared["alias"] is None
    got = await call(client, "builders/get", {"id": first.id})
    assert got["alias"] is None


# ---- transcripts/page -------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_transcript_pages(world: World, client: LanguageClient) -> None:
    bid = world.long.id
    first = await call(client, "transcripts/page", {"builder_id": bid, "count": 100})
    assert [m["number"] for m in first["messages"]] == list(range(1, 101))
    assert first["total"] == 260 and first["next_start"] == 101
    last = await call(client, "transcripts/page", {"builder_id": bid, "start": 201, "count": 100})
    assert [m["number"] for m in last["messages"]] == list(range(201, 261))
    assert last["next_start"] is None
    assert last["messages"][-1]["text"] == "done step 129"
    with pytest.raises(JsonRpcException) as e:
        await call(client, "transcripts/page", {"builder_id": bid, "session_id": "nope"})
    assert e.value.code == NOT_FOUND


@pytest.mark.asyncio
async def test_text_beyond_ascii_crosses_the_wire_whole(
    world: World, client: LanguageClient
) -> None:
    page = await call(client, "transcripts/page", {"builder_id": world.other.id, "count": 10})
    texts = [m["text"] for m in page["messages"]]
    assert texts[-2:] == ["naïve café — 日本語, 🎉", "ünïcödé ✓"]
    # and the message after it is framed right: the next answer parses
    assert (await call(client, "builders/get", {"id": world.other.id}))["id"] == world.other.id


@pytest.mark.asyncio
async def test_export_builder_gives_the_text_and_its_range(
    world: World, client: LanguageClient
) -> None:
    got = await call(
        client,
        "export/builder",
        {"builder_id": world.long.id, "format": "md", "first": 3, "last": 4},
    )
    assert (got["first"], got["last"], got["of"], got["redacted"]) == (3, 4, 260, True)
    assert "### #3 · User" in got["text"] and "### #5" not in got["text"]
    doc = await call(client, "export/builder", {"builder_id": world.long.id, "format": "json"})
    assert json.loads(doc["text"])["schema"] == "lazy.export/1"
    with pytest.raises(JsonRpcException) as e:
        await call(client, "export/builder", {"builder_id": world.long.id, "first": 300})
    assert e.value.code == -32602 and "it has messages 1–260" in str(e.value)


# ---- search/query -----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_search_query_in_the_workspace(world: World, client: LanguageClient) -> None:
    r = await call(
        client, "search/query", {"query": "retention", "workspace_folders": [str(world.repo)]}
    )
    assert r["query"] == "retention"
    assert r["total_hits"] == 8 and len(r["groups"]) == 8  # 7 Claude sessions + Codex
    assert all("retention" in h["snippet"] for g in r["groups"] for h in g["hits"])
    # each hit says what to highlight where it opens: the matched word as written
    assert all(h["terms"] == ["retention"] for g in r["groups"] for h in g["hits"])
    scoped = await call(
        client, "search/query", {"query": "unrelated", "workspace_folders": [str(world.repo)]}
    )
    assert scoped["total_hits"] == 0
    everywhere = await call(client, "search/query", {"query": "unrelated", "all_projects": True})
    assert everywhere["total_hits"] == 1
    with pytest.raises(JsonRpcException) as e:
        await call(client, "search/query", {"query": "proj:x", "all_projects": True})
    assert e.value.code == BAD_QUERY and e.value.data["part"] == "proj:"


# ---- import/preview and import/run ------------------------------------------------------------


@pytest.mark.asyncio
async def test_import_preview_then_run_with_progress(world: World, client: LanguageClient) -> None:
    fresh = Session(world.projects, "/w/later")
    fresh.turn("a session written after the import", "imported by the sidecar")
    scope = {"workspace_folders": ["/w/later"], "tools": ["claude"]}
    preview = await call(client, "import/preview", scope)
    assert preview["dry_run"] is True
    assert preview["reports"]["claude"]["missing"] == 1
    listed = await call(client, "builders/list", {**scope, "limit": 100})
    assert fresh.id not in {b["id"] for b in listed["items"]}  # the preview wrote nothing
    waiting = asyncio.ensure_future(client.wait_for_notification("builders/didChange"))
    ran = await call(client, "import/run", scope)
    assert ran["dry_run"] is False and ran["cancelled"] is False
    assert ran["reports"]["claude"]["imported"] == [fresh.id]
    changed = plain(await asyncio.wait_for(waiting, TIMEOUT))
    assert changed["reason"] == "imported" and fresh.id in changed["builder_ids"]
    kinds = [p.kind for p in next(iter(client.progress_reports.values()))]
    assert kinds[0] == "begin" and kinds[-1] == "end"
    again = await call(client, "import/preview", scope)
    assert again["reports"]["claude"]["missing"] == 0


# ---- capture: status and live capture ---------------------------------------------------------


@pytest.mark.asyncio
async def test_a_session_written_while_running_appears(world: World) -> None:
    client = await start(world)  # live capture on
    try:
        status = await call(client, "capture/status", {})
        assert status["live"] is True
        assert str(world.projects) in status["roots"]
        live = Session(world.projects, "/w/live")
        waiting = asyncio.ensure_future(client.wait_for_notification("builders/didChange"))
        live.turn("written while the sidecar watches", "seen")
        changed = plain(await asyncio.wait_for(waiting, TIMEOUT))
        assert changed["reason"] == "captured" and live.id in changed["builder_ids"]
        got = await call(client, "builders/get", {"id": live.id})
        assert got["message_count"] == 2
        # it grows: a line appended is captured and told too (a telling may come for part of
        # what was appended, when the watcher saw the write half done: the next one follows)
        live.turn("and a second turn", "also seen")
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while True:
            waiting = asyncio.ensure_future(client.wait_for_notification("builders/didChange"))
            got = await call(client, "builders/get", {"id": live.id})
            if got["message_count"] == 4:
                waiting.cancel()
                break
            left = deadline - asyncio.get_running_loop().time()
            changed = plain(await asyncio.wait_for(waiting, max(left, 0.01)))
            assert live.id in changed["builder_ids"]
        hits = await call(client, "search/query", {"query": "second turn", "all_projects": True})
        assert hits["total_hits"] == 1
    finally:
        await client.shutdown_session()


@pytest.mark.asyncio
async def test_capture_status_without_live_capture(client: LanguageClient) -> None:
    status = await call(client, "capture/status", {})
    assert status == {"live": False, "roots": [], "last_sweep_at": None, "captured": 0,
                      "last_failure": None}  # fmt: skip


@pytest.mark.asyncio
async def test_import_run_is_cancelled_between_sessions(
    world: World, client: LanguageClient
) -> None:
    bulk = [Session(world.projects, "/w/bulk") for _ in range(400)]
    for s in bulk:
        s.turn("bulk prompt", "bulk answer")
    scope = {"workspace_folders": ["/w/bulk"], "tools": ["claude"]}
    request = asyncio.ensure_future(
        client.protocol.send_request_async("import/run", scope, msg_id="bulk-import")
    )

    async def first_report() -> None:
        while not any(
            getattr(r, "kind", "") == "report"
            for rs in client.progress_reports.values()
            for r in rs
        ):
            await asyncio.sleep(0.005)

    await asyncio.wait_for(first_report(), TIMEOUT)
    client.protocol.notify("$/cancelRequest", lsp.CancelParams(id="bulk-import"))
    partial = plain(await asyncio.wait_for(request, TIMEOUT))
    assert partial["cancelled"] is True
    done = len(partial["reports"]["claude"]["imported"])
    assert 0 < done < len(bulk)  # stopped between steps, what was done is kept
    rest = await call(client, "import/run", scope)
    assert rest["cancelled"] is False
    assert done + len(rest["reports"]["claude"]["imported"]) == len(bulk)


@pytest.mark.asyncio
async def test_a_bad_line_is_reported_with_its_file_and_line(world: World) -> None:
    client = await start(world)
    try:
        s = Session(world.projects, "/w/bad")
        s.turn("a good first turn", "fine")
        waiting = asyncio.ensure_future(client.wait_for_notification("builders/didChange"))
        await asyncio.wait_for(waiting, TIMEOUT)  # known to the store: appended lines are read
        failing = asyncio.ensure_future(client.wait_for_notification("capture/didFail"))
        with s.path.open("a") as fh:
            fh.write('{"type": "user", "this is not json\n')
        failure = plain(await asyncio.wait_for(failing, TIMEOUT))
        assert failure["file"] == str(s.path) and failure["line"] == 3
        assert failure["code"] == "bad-line" and failure["reason"]
        status = await call(client, "capture/status", {})
        assert status["last_failure"]["file"] == str(s.path)
        # and the output channel says so (window/logMessage)

        async def logged() -> None:
            while not any(str(s.path) in m.message for m in client.log_messages):
                await asyncio.sleep(0.01)

        await asyncio.wait_for(logged(), TIMEOUT)
    finally:
        await client.shutdown_session()


@pytest.mark.asyncio
async def test_two_sidecars_on_one_store_capture_once(world: World) -> None:
    """Two VS Code windows: both watch, both capture; every message is stored and indexed
    once."""
    first, second = await start(world), await start(world)
    try:
        s = Session(world.projects, "/w/twice")
        told = [
            asyncio.ensure_future(c.wait_for_notification("builders/didChange"))
            for c in (first, second)
        ]
        for i in range(5):
            s.turn(f"twicetoken{i} prompt", f"twicetoken{i} answer")
        await asyncio.wait_for(asyncio.gather(*told), TIMEOUT)

        async def settled() -> dict[str, Any]:
            while True:
                got = await call(first, "builders/get", {"id": s.id})
                if got["message_count"] == 10:
                    return got
                await asyncio.sleep(0.05)

        await asyncio.wait_for(settled(), TIMEOUT)
        for i in range(5):
            for c in (first, second):
                hits = await call(
                    c, "search/query", {"query": f"twicetoken{i}", "all_projects": True}
                )
                assert hits["total_hits"] == 2  # the prompt and the answer, each once
    finally:
        await first.shutdown_session()
        await second.shutdown_session()


# ---- bad params: every custom request refuses what it does not know -----------------------

PROTOCOL = Path(__file__).resolve().parents[2] / "protocol"
REQUESTS = [
    m
    for m in json.loads((PROTOCOL / "methods.json").read_text())
    if m["kind"] == "request" and m["direction"] == "client->server"
]


def _example(method: str) -> dict[str, Any]:
    """The method's valid params, as its fixture spells them out."""
    fixture = PROTOCOL / "fixtures" / (method.replace("/", "_") + ".json")
    params: dict[str, Any] = json.loads(fixture.read_text())["params"]
    return params


def _camel(field: str) -> str:
    head, *rest = field.split("_")
    return head + "".join(w.capitalize() for w in rest)


def _mistyped(value: Any) -> Any:
    """A value of the wrong JSON type that lax validation would turn into the right one
    where it can ("true" for true, "2" for 2)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return 1
    return "not a list"


def _mistype_target(params: dict[str, Any]) -> str | None:
    """The field whose silent coercion would hurt most: a bool, then a number, then any."""
    for kind in (bool, int, list, str):
        for field, value in params.items():
            if type(value) is kind:
                return field
    return None


async def _refused(client: LanguageClient, method: str, params: dict[str, Any]) -> Any:
    with pytest.raises(JsonRpcException) as e:
        await call(client, method, params)
    return e.value


@pytest.mark.asyncio
@pytest.mark.parametrize("method", [m["name"] for m in REQUESTS])
async def test_unknown_and_mistyped_params_are_refused_naming_the_field(
    client: LanguageClient, method: str
) -> None:
    """The wire is snake_case: a camelCase spelling of a real field (allProjects) is not
    that field, and an unknown one is never ignored into a default answer. A value of the
    wrong type is refused rather than coerced ("true" is not true)."""
    valid = _example(method)
    snake = [f for f in valid if "_" in f]
    unknown = _camel(snake[0]) if snake else "noSuchField"
    err = await _refused(client, method, {**valid, unknown: True})
    assert err.code == -32602, (method, err.code, err.message)
    assert [x["field"] for x in err.data["errors"]] == [unknown], err.data
    assert unknown in err.message and method in err.message, err.message
    if snake:  # the field meant, by its wire name
        assert snake[0] in err.data["errors"][0]["message"], err.data

    target = _mistype_target(valid)
    if target is None:  # capture/status, doctor/run: no field to mistype
        assert valid == {}, method
        return
    err = await _refused(client, method, {**valid, target: _mistyped(valid[target])})
    assert err.code == -32602, (method, err.code, err.message)
    assert [x["field"] for x in err.data["errors"]] == [target], err.data
    assert target in err.message, err.message


@pytest.mark.asyncio
async def test_a_camel_case_scope_is_refused_not_answered_with_an_empty_page(
    client: LanguageClient,
) -> None:
    """Issue 13's report: builders/list with {"allProjects": true} answered an empty page."""
    err = await _refused(client, "builders/list", {"allProjects": True})
    assert err.code == -32602
    assert err.data["errors"][0]["field"] == "allProjects"
    assert "all_projects" in err.data["errors"][0]["message"]
    everything = await call(client, "builders/list", {"all_projects": True})
    assert everything["items"]  # the field spelt right: the store's Builders


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"liveCapture": False}, "liveCapture"),  # camelCase: not live_capture
        ({"live_capture": "false"}, "live_capture"),  # bool("false") was True
        ({"extra_roots": {"claude": "/more"}}, "extra_roots.claude"),
    ],
)
async def test_bad_initialization_options_fail_initialize_naming_the_field(
    world: World, options: dict[str, Any], field: str
) -> None:
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "lazy.cli.main", "sidecar"],
        server_env=env_for(world.lazy_home, world.user_home),
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    try:
        with pytest.raises(JsonRpcException) as e:
            await asyncio.wait_for(
                client.initialize_session(
                    lsp.InitializeParams(capabilities=lsp.ClientCapabilities(),
                                         initialization_options=options)
                ),
                TIMEOUT,
            )  # fmt: skip
        assert e.value.code == -32602
        assert [x["field"] for x in e.value.data["errors"]] == [field], e.value.data
        assert "initializationOptions" in e.value.message
    finally:
        server = client._server
        assert server is not None
        server.kill()  # its initialize failed: no session to shut down
        await asyncio.wait_for(server.wait(), TIMEOUT)
        await client.stop()
