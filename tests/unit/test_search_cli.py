"""`lazy search`, `lazy conversations search`, `lazy index status|rebuild` as a user runs them
(subprocesses), and known answers on the shared corpus checked against a scan of the store."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from fabricate.claude import Session, subagent
from fabricate.codex import Rollout
from lazy.cli.links import EXTENSION_ID, transcript_link
from lazy.index.indexer import SearchIndex
from lazy.index.search import search
from lazy.store import Store
from lazy.store.queries import short_id
from support import CORPUS, require
from support.search import (
    IndexView,
    Oracle,
    analyse,
    lazy_json,
    message_ids,
    ro,
    run_lazy,
)


@dataclass
class World:
    lazy_home: Path
    user_home: Path
    repo: Path
    main: Session  # in repo, with a subagent and a tool call
    other: Session  # another project
    codex: Rollout  # Codex, in repo

    def lazy(self, *args: str, ok: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
        return run_lazy(self.lazy_home, self.user_home, *args, cwd=self.repo, ok=ok, **env)

    def json(self, *args: str) -> Any:
        return lazy_json(self.lazy_home, self.user_home, *args, cwd=self.repo)


def _tool_turn(s: Session, command: str, output: str) -> None:
    s.write(
        s.tool_use_line("Bash", {"command": command}, "toolu_1", message_id="msg_tool_1",
                        request_id="req_tool"),
        s.tool_result_line("toolu_1", output),
    )  # fmt: skip


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    base = tmp_path_factory.mktemp("search-cli")
    user_home = base / "home"
    repo = base / "work" / "myrepo"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    projects = user_home / ".claude" / "projects"
    main = Session(projects, str(repo))
    main.turn("design the retention policy for the cache", "Keep transcripts forever.")
    main.turn("what about getUserName", "renamed it to get_user_name in users.py")
    _tool_turn(main, "grep -rn toolcallmarker .", "toolresultmarker: 3 matches")
    main.turn("and the retention of the index?", "rebuilt from the store, retention unchanged")
    subagent(main, "a1b2c3", "look for quokkasidechain in the logs", "no quokkas here")
    other = Session(projects, "/elsewhere/otherproj")
    other.turn("retention elsewhere", "yes, retention here too")
    other.turn("second question", "second answer")
    codex = Rollout(user_home / ".codex", str(repo))
    codex.turn("codex retention question", "codex answer about wombatcodex")
    codex.turn("one more", "done")
    w = World(base / "lazy", user_home, repo, main, other, codex)
    w.lazy("import-conversation", "--all-projects", "--yes")
    w.lazy("import-conversation", "--tool", "codex", "--all-projects", "--yes")
    return w


def _groups(r: dict[str, Any]) -> list[tuple[str, list[int]]]:
    return [(g["builder_id"], [h["number"] for h in g["hits"]]) for g in r["groups"]]


def test_help_documents_the_query_language(world: World) -> None:
    text = world.lazy("search", "--help").stdout
    for part in ('"lock is held"', "-word", "writ*", " OR ", "in:tools", "project:NAME"):
        assert part in text, part
    for part in ("tool:claude|codex|opencode", "after:WHEN", "before:WHEN", "role:user"):
        assert part in text, part
    assert "--all-projects" in text and "--limit" in text and "--json" in text
    assert "query language" in world.lazy("conversations", "search", "--help").stdout


def test_results_are_grouped_by_builder(world: World) -> None:
    out = world.lazy("search", "retention").stdout
    lines = out.splitlines()
    head = next(line for line in lines if line.startswith(short_id(world.main.id)))
    assert "myrepo" in head and "claude" in head and "design the retention policy" in head
    assert "2026-11-01" in head  # the Builder's start (fabricate.claude's timestamps)
    assert any(line.strip().startswith("#1 user:") and "retention" in line for line in lines)
    assert any("codex" in line and "codex retention question" in line for line in lines)
    assert short_id(world.other.id) not in out  # another project: out of the default scope
    assert "matching message(s) in 2 conversation(s)" in out


def test_json_shape_and_highlights(world: World) -> None:
    r = world.json("search", "retention")
    assert r["query"].endswith("retention")
    assert r["total_hits"] == 4  # main: #1 #7 #8; codex: its first prompt
    by_builder = dict(_groups(r))
    assert sorted(by_builder[world.main.id]) == [1, 7, 8]
    for g in r["groups"]:
        assert set(g) >= {"builder_id", "short_id", "started_at", "project", "tool", "summary"}
        assert g["project"] == str(world.repo)
        for h in g["hits"]:
            assert set(h) >= {"number", "role", "snippet", "highlights", "sidechain"}
            assert h["role"] in ("user", "assistant")
            assert h["highlights"], h
            for start, end in h["highlights"]:
                assert h["snippet"][start:end].lower() == "retention"


def test_limit_caps_the_conversations(world: World) -> None:
    assert len(world.json("search", "retention", "--all-projects")["groups"]) == 3
    limited = world.json("search", "retention", "--all-projects", "--limit", "1")
    assert len(limited["groups"]) == 1
    assert limited["total_hits"] == 6  # the count of matching messages is not capped


def test_default_scope_is_the_current_project(world: World) -> None:
    here = {g[0] for g in _groups(world.json("search", "retention"))}
    everywhere = {g[0] for g in _groups(world.json("search", "retention", "--all-projects"))}
    assert world.other.id not in here
    assert everywhere == here | {world.other.id}
    named = {g[0] for g in _groups(world.json("search", "retention project:otherproj"))}
    assert named == {world.other.id}
    p = world.lazy("search", "elsewhere")
    assert "No matches" in p.stdout and "--all-projects" in p.stdout


def test_the_three_conversation_searches_agree(world: World) -> None:
    a = world.json("conversations", "search", "retention", "--all-projects")
    b = world.json("search", "--conversations", "retention", "--all-projects")
    c = world.json("search", "in:conversations retention", "--all-projects")
    d = world.json("search", "retention", "--all-projects")
    assert _groups(a) == _groups(b) == _groups(c) == _groups(d)
    assert a["total_hits"] == 6


def test_a_subagent_hit_points_at_the_parent_builder(world: World) -> None:
    r = world.json("search", "quokkasidechain")
    assert [g["builder_id"] for g in r["groups"]] == [world.main.id]
    (hit,) = r["groups"][0]["hits"]
    assert hit["sidechain"] is True and hit["role"] == "user"
    assert "(subagent)" in world.lazy("search", "quokkasidechain").stdout
    main_hit = world.json("search", "getUserName")["groups"][0]["hits"][0]
    assert main_hit["sidechain"] is False


def _hits_of(r: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {h["number"]: h for g in r["groups"] for h in g["hits"]}


def test_each_hit_carries_what_matched_in_it_as_written(world: World) -> None:
    # an identifier by its parts: each message's own spelling, to highlight where it opens
    hits = _hits_of(world.json("search", "getUserName"))
    assert [hits[n]["terms"] for n in sorted(hits)] == [["getUserName"], ["get_user_name"]]
    # a phrase as one term; filters and exclusions are not words to highlight
    hits = _hits_of(world.json("search", '"retention policy" tool:claude -wombat'))
    assert [h["terms"] for h in hits.values()] == [["retention policy"]]
    # a prefix: the whole word it started; the same word in another case once
    hits = _hits_of(world.json("search", "retent*"))
    assert hits and all(h["terms"] == ["retention"] for h in hits.values())
    # a subagent's hit too
    hits = _hits_of(world.json("search", "quokka*"))
    assert all(h["sidechain"] for h in hits.values())
    assert sorted(h["terms"] for h in hits.values()) == [["quokkas"], ["quokkasidechain"]]


def _links(out: str) -> list[str]:
    """The OSC 8 hyperlinks' targets in ``out``, in order."""
    return [m.group(1) for m in re.finditer(r"\x1b\]8;[^;]*;([^\x1b]+)\x1b\\", out)]


def test_on_a_terminal_each_hit_links_to_its_message_in_the_editor(world: World) -> None:
    out = world.lazy("search", "getUserName", TTY_COMPATIBLE="1").stdout
    links = [urlsplit(u) for u in _links(out)]
    assert [(u.scheme, u.netloc, u.path) for u in links] == [("vscode", EXTENSION_ID, "/open")] * 2
    queries = [parse_qs(u.query) for u in links]
    assert queries == [
        {"builder": [world.main.id], "n": ["3"], "t": ["getUserName"]},
        {"builder": [world.main.id], "n": ["4"], "t": ["get_user_name"]},
    ]
    # a subagent's hit opens its line; another editor's scheme by the setting
    out = world.lazy("search", "quokkasidechain", TTY_COMPATIBLE="1",
                     LAZY_EDITOR_SCHEME="code-oss").stdout  # fmt: skip
    (link,) = [urlsplit(u) for u in _links(out)]
    q = parse_qs(link.query)
    assert link.scheme == "code-oss" and q["n"] == ["1"] and q["t"] == ["quokkasidechain"]
    assert q["session"] == [_sidechain_hit(world)["session_id"]] != [world.main.id]
    # a pipe gets the text alone; no scheme, no links
    assert "\x1b" not in world.lazy("search", "getUserName").stdout
    world.lazy("config", "set", "editor.url_scheme", "")
    try:
        out = world.lazy("search", "getUserName", TTY_COMPATIBLE="1").stdout
    finally:
        world.lazy("config", "set", "editor.url_scheme", "vscode")
    assert _links(out) == [] and "#3 user" in out


def _sidechain_hit(world: World) -> dict[str, Any]:
    (hit,) = _hits_of(world.json("search", "quokkasidechain")).values()
    return hit


def test_a_link_never_carries_text_raw(world: World) -> None:
    link = transcript_link("vscode", "b1", 2, terms=["a\x1b]8;;x\x07 b&t=c", "é"])
    assert link.isascii() and "\x1b" not in link and "\x07" not in link
    assert parse_qs(urlsplit(link).query)["t"] == ["a\x1b]8;;x\x07 b&t=c", "é"]


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("retention (cache", "unclosed '('"),
        ("retention)", "unmatched ')'"),
        ("colour:blue", "colour:"),
        ("after:soonish", "soonish"),
        ("tool:cursor", "cursor"),
        ('"retention', '"retention'),
    ],
)
def test_a_malformed_query_names_the_bad_part(world: World, query: str, names: str) -> None:
    p = world.lazy("search", query, ok=False)
    assert p.returncode != 0
    assert names in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_tool_output_is_searched_only_when_asked(world: World) -> None:
    for word in ("toolresultmarker", "toolcallmarker"):
        assert world.json("search", word)["total_hits"] == 0
        r = world.json("search", f"in:tools {word}")
        assert r["total_hits"] == 1, word
        (hit,) = r["groups"][0]["hits"]
        assert hit["field"] == "tools" and word in hit["snippet"]
        assert world.json("search", f"in:all {word}")["total_hits"] == 1
    # and the conversation is out of in:tools
    assert world.json("search", "in:tools retention")["total_hits"] == 0


def test_index_status(world: World) -> None:
    s = world.json("index", "status")
    assert s["documents"] == len(message_ids(world.lazy_home)) > 0
    assert s["lag"] == 0 and s["size_bytes"] > 0
    assert s["schema_version"] >= 1
    text = world.lazy("index", "status").stdout
    assert "documents" in text and f"{s['documents']:,}" in text


def test_index_rebuild_keeps_documents_and_searches_work_across_it(world: World) -> None:
    before = world.json("index", "status")["documents"]
    answer = world.json("search", "retention", "--all-projects")
    with Store.open(world.lazy_home) as store:
        old = SearchIndex.open(world.lazy_home)  # a reader opened before the swap
        rebuilt = world.json("index", "rebuild")
        assert rebuilt["documents"] == before
        # the old reader still answers after its files were swapped out
        assert search(old, store.conn, "retention").total_hits == answer["total_hits"]
    assert world.json("index", "status")["documents"] == before
    assert _groups(world.json("search", "retention", "--all-projects")) == _groups(answer)
    assert sorted(IndexView(world.lazy_home).doc_ids()) == sorted(message_ids(world.lazy_home))


# ---- known answers on the shared corpus ---------------------------------------------------------


@pytest.fixture(scope="module")
def corpus_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Oracle]:
    claude, codex = CORPUS / "claude-code", CORPUS / "codex"
    require(claude.is_dir() and codex.is_dir(), f"the shared corpus at {CORPUS}")
    base = tmp_path_factory.mktemp("search-corpus")
    home, user = base / "lazy", base / "home"
    for args in (("--source", str(claude)), ("--tool", "codex", "--source", str(codex))):
        run_lazy(home, user, "import-conversation", "--all", "--all-projects", "--yes", *args)
    return home, user, Oracle.load(home)


@pytest.mark.parametrize(
    "query",
    [
        "directory",  # a word
        "Directory",  # case does not matter
        '"test data"',  # a phrase
        "get_project_display_name",  # an identifier, whole
        "getProjectDisplayName",  # the same identifier by its parts
        "directory tool:codex",
        "directory -tool:codex",
        "directory tool:claude",
        "directory after:2025-11-01T00:00:00Z",
        "directory before:2025-08-01T00:00:00Z",
        "session after:2025-07-01T00:00:00Z before:2026-01-01T00:00:00Z",
        "process_zip_contents OR process_tar_contents",
    ],
)
def test_known_answers_on_the_corpus(corpus_home: tuple[Path, Path, Oracle], query: str) -> None:
    home, _, oracle = corpus_home
    expected = oracle.count(query)
    assert expected > 0, f"{query!r} matches nothing in the corpus: pick another query"
    with Store.open(home) as store:  # in-process: the CLI's answers are compared below
        got = search(SearchIndex.open(home), store.conn, query, limit=500)
    assert got.total_hits == expected, query
    assert 0 < sum(len(g.hits) for g in got.groups) <= expected


def test_the_cli_gives_the_known_answer(corpus_home: tuple[Path, Path, Oracle]) -> None:
    home, user, oracle = corpus_home
    query = "directory -tool:codex after:2025-11-01T00:00:00Z"
    got = lazy_json(home, user, "search", "--all-projects", "--limit", "500", query)
    assert got["total_hits"] == oracle.count(query) > 0


def test_an_identifier_is_found_by_its_parts_and_whole(
    corpus_home: tuple[Path, Path, Oracle],
) -> None:
    home, user, oracle = corpus_home
    whole = lazy_json(home, user, "search", "--all-projects", "get_project_display_name")
    parts = lazy_json(home, user, "search", "--all-projects", "getProjectDisplayName")
    assert _groups(whole) == _groups(parts)
    # literally written as get_project_display_name in at least as many messages
    assert 0 < oracle.literal("get_project_display_name") <= whole["total_hits"]


def test_corpus_index_holds_every_placed_message(corpus_home: tuple[Path, Path, Oracle]) -> None:
    home, user, _ = corpus_home
    status = lazy_json(home, user, "index", "status")
    assert (status["documents"], status["lag"]) == (len(message_ids(home)), 0)


# ---- memories (lazy import <tool>) -------------------------------------------------------------


@pytest.fixture(scope="module")
def memory_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    codex = CORPUS / "codex"
    require(codex.is_dir(), f"the shared corpus at {CORPUS}")
    base = tmp_path_factory.mktemp("search-memories")
    home, user = base / "lazy", base / "home"
    run_lazy(home, user, "import", "codex", "--source", str(codex), "--include-temp-cwd",
             "--include-trivial")  # fmt: skip
    return home, user


def _memories_saying(home: Path, word: str) -> dict[str, str]:
    """path -> content of the memories whose content has ``word`` (the index's analysis
    restated by search_support), among those whose session is in a Builder."""
    with ro(home) as c:
        rows = c.execute(
            "SELECT mem.tree || '/' || mem.name, mem.content FROM memories mem"
            " JOIN sessions s ON s.id = json_extract(mem.meta, '$.source_session_id')"
            " WHERE s.builder_id IS NOT NULL"
        ).fetchall()
    return {path: text for path, text in rows if word in analyse(text)}


def test_memories_are_searched_in_their_own_scope(memory_home: tuple[Path, Path]) -> None:
    home, user = memory_home
    expected = _memories_saying(home, "directory")
    assert expected, "the Codex corpus has memories saying 'directory'"
    got = lazy_json(
        home, user, "search", "--all-projects", "--limit", "500", "in:memories directory"
    )
    hits = [h for g in got["groups"] for h in g["hits"]]
    assert got["total_hits"] == len(expected)
    assert {h["kind"] for h in hits} == {"memory"} and {h["field"] for h in hits} == {"memory"}
    assert {h["memory_path"] for h in hits} <= set(expected)
    assert all("directory" in h["snippet"].lower() for h in hits)
    # the default scope is the conversations; in:all is both
    said = lazy_json(home, user, "search", "--all-projects", "directory")["total_hits"]
    both = lazy_json(home, user, "search", "--all-projects", "in:all directory")["total_hits"]
    assert said > 0 and both >= said + len(expected)
    # a hit's path is what lazy get reads
    path = hits[0]["memory_path"]
    assert lazy_json(home, user, "get", path)["content"] == expected[path]


def test_a_deleted_memory_leaves_the_index(memory_home: tuple[Path, Path]) -> None:
    home, user = memory_home
    before = lazy_json(home, user, "index", "status")["documents"]
    with Store.open(home) as store, store.write() as c:
        rowid, path = c.execute(
            "SELECT rowid, tree || '/' || name FROM memories WHERE content LIKE '%directory%'"
            " ORDER BY rowid LIMIT 1"
        ).fetchone()
        c.execute("DELETE FROM memories WHERE rowid=?", (rowid,))
    got = lazy_json(
        home, user, "search", "--all-projects", "--limit", "500", "in:memories directory"
    )
    assert path not in {h["memory_path"] for g in got["groups"] for h in g["hits"]}
    assert lazy_json(home, user, "index", "status")["documents"] == before - 1
