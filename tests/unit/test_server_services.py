"""The sidecar's shape (server/): one module per domain behind FEATURES, none importing the
composition root, the protocol's agents those of lazy.agents; and the service functions its
features call, on a store of real session files, without the sidecar (another surface, MCP,
calls them too)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import pytest

import lazy.server
from fabricate.claude import Session
from lazy import agents
from lazy.aliases.named import named_builder, named_page, rename_builder, resolve_named
from lazy.aliases.registry import SessionRegistry
from lazy.capture.folder_import import import_in_steps, plans, preview
from lazy.server import protocol
from lazy.server.features import FEATURES
from lazy.store import Store
from lazy.store.queries import (
    Ambiguous,
    NotFound,
    builder_sources,
    builders_of_sessions,
    own_line,
)
from lazy.tasks.listing import tasks_of_builder, tasks_under
from lazy.tasks.promote import promote
from lazy.view.reading import builders_count, transcript_page

SERVER = Path(lazy.server.__file__).parent
A = "feed1111-0000-4000-8000-000000000001"
B = "feed2222-0000-4000-8000-000000000002"


def test_the_protocols_agents_are_lazy_agents() -> None:
    assert get_args(protocol.Tool) == tuple(agents.TOOLS)
    assert tuple(agents.TOOLS) == protocol.TOOLS


def test_the_features_are_the_domain_modules_each_registered_once() -> None:
    modules = {p.stem for p in (SERVER / "features").glob("*.py")} - {"__init__"}
    assert len(modules) == len(FEATURES) == 12
    assert {f.__module__ for f in FEATURES} == {f"lazy.server.features.{m}" for m in modules}
    assert all(f.__name__ == "register" for f in FEATURES)


def test_the_composed_server_answers_every_request_of_the_protocol(tmp_path: Path) -> None:
    from lazy.server.app import create_server

    ls = create_server(tmp_path / "lazy")
    requests = {m.name for m in protocol.METHODS if m.kind == "request"}
    assert requests <= set(ls.protocol.fm.features)
    assert not (tmp_path / "lazy").exists()  # composing opens nothing


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_no_module_of_the_server_imports_the_composition_root() -> None:
    for path in SERVER.rglob("*.py"):
        if path.name != "app.py":
            assert "lazy.server.app" not in _imports(path), path


@pytest.fixture
def imported(store: Store, repo: Path, projects: Path) -> Session:
    """A (6 messages, in the repo) and B (2 messages, elsewhere), imported in steps."""
    a = Session(projects, str(repo), session_id=A)
    for i in range(3):
        a.turn(f"question {i} on the retention policy", f"answer {i}")
    Session(projects, "/elsewhere/other", session_id=B).turn("unrelated", "fine")
    planned = plans(store, ["claude"], None, {})
    assert preview(planned)["claude"].missing == 2
    told: list[tuple[int, int]] = []
    done = import_in_steps(store, planned, stop=lambda: False, report=lambda *n: told.append(n))
    assert told == [(0, 2), (2, 2)] and not done.cancelled
    assert done.changed == builders_of_sessions(store.conn, [A, B]) and len(done.changed) == 2
    assert preview(plans(store, ["claude"], [str(repo)], {}))["claude"].missing == 0
    return a


def test_an_import_stopped_before_its_first_step_imports_nothing(
    store: Store, projects: Path
) -> None:
    Session(projects, "/elsewhere/other", session_id=B).turn("unrelated", "fine")
    done = import_in_steps(
        store, plans(store, ["claude"], None, {}), stop=lambda: True, report=lambda *n: None
    )
    assert done.cancelled and not done.changed
    assert builders_of_sessions(store.conn, [B]) == set()


def test_a_transcript_is_read_a_page_at_a_time(store: Store, imported: Session) -> None:
    first = transcript_page(store.conn, A[:8], None, 1, 4)
    assert [m.number for m in first.messages] == [1, 2, 3, 4]
    assert (first.total, first.next_start, first.session_id) == (6, 5, None)
    last = transcript_page(store.conn, A, A, 5, 4)  # its own session: its own line
    assert [m.number for m in last.messages] == [5, 6] and last.next_start is None
    with pytest.raises(NotFound):
        transcript_page(store.conn, A, B, 1, 4)


def test_builders_are_listed_a_page_at_a_time_and_named(
    store: Store, imported: Session, repo: Path, tmp_path: Path
) -> None:
    registry = SessionRegistry(tmp_path / "sessions.json")
    page, after = named_page(
        store.conn, under=None, agents=[], text=None, after=None, limit=1, registry=registry
    )
    assert len(page) == 1 and after is not None
    rest, end = named_page(
        store.conn, under=None, agents=[], text=None, after=after, limit=1, registry=registry
    )
    assert len(rest) == 1 and end is None and rest[0].id != page[0].id
    mine, _ = named_page(
        store.conn, under=[str(repo)], agents=["claude"], text="retention", after=None,
        limit=5, registry=registry,
    )  # fmt: skip
    assert [b.session_ids for b in mine] == [[A]]
    named = rename_builder(store.conn, A, "reviewer", registry=registry)
    assert named.alias == "reviewer"
    assert named_builder(store.conn, A[:8], registry=registry).alias == "reviewer"
    assert rename_builder(store.conn, A, None, registry=registry).alias is None


def test_a_builder_is_found_by_its_alias_id_or_prefix(
    store: Store, imported: Session, tmp_path: Path
) -> None:
    registry = SessionRegistry(tmp_path / "sessions.json")
    bid_a = resolve_named(store.conn, A, registry=registry)
    bid_b = resolve_named(store.conn, B[:8], registry=registry)
    assert bid_a != bid_b
    with pytest.raises(NotFound):
        resolve_named(store.conn, "reviewer", registry=registry)
    rename_builder(store.conn, A, "reviewer", registry=registry)
    assert resolve_named(store.conn, " reviewer ", registry=registry) == bid_a
    assert named_builder(store.conn, "reviewer", registry=registry).id == bid_a
    # a name that is also a prefix: the alias, the user's own word, wins
    rename_builder(store.conn, B, "feed2", registry=registry)
    assert resolve_named(store.conn, "feed2", registry=registry) == bid_b
    assert resolve_named(store.conn, "feed1", registry=registry) == bid_a  # a prefix still
    # one name in two projects: both offered, never one picked
    rename_builder(store.conn, B, "reviewer", registry=registry)
    with pytest.raises(Ambiguous) as e:
        resolve_named(store.conn, "reviewer", registry=registry)
    assert sorted(c[0] for c in e.value.candidates) == sorted([bid_a, bid_b])
    # an exact id is never taken for a name
    assert resolve_named(store.conn, A, registry=registry) == bid_a


def test_builders_are_counted_across_pages(store: Store, imported: Session, repo: Path) -> None:
    assert builders_count(store.conn) == 2
    assert builders_count(store.conn, under=[str(repo)]) == 1
    assert builders_count(store.conn, under=[]) == 0
    assert builders_count(store.conn, under=None, text="retention") == 1
    assert builders_count(store.conn, tools=["codex"]) == 0


def test_a_builders_sources_and_own_line(store: Store, imported: Session) -> None:
    bid, count = own_line(store.conn, A) or ("", 0)
    assert count == 6 and own_line(store.conn, A, A) == (bid, 6)
    assert own_line(store.conn, A, B) is None and own_line(store.conn, "0000nope") is None
    [source] = builder_sources(store.conn, bid)
    assert (source.path, source.agent, source.session_id) == (str(imported.path), "claude", A)
    assert source.subagent_id is None and source.exists
    imported.path.unlink()
    assert not builder_sources(store.conn, bid)[0].exists


def test_promoted_tasks_are_listed_by_builder_and_by_folder(
    store: Store, imported: Session, repo: Path
) -> None:
    bid = (own_line(store.conn, A) or ("", 0))[0]
    task, overlapping = promote(store, bid, 1, 2, goal="  ", code=None)
    assert task.goal == "question 0 on the retention policy" and overlapping == []
    _, overlapping = promote(store, bid, 2, 3)
    assert overlapping == [task]
    assert [t.from_message for t in tasks_of_builder(store.conn, bid)] == [1, 2]
    assert len(tasks_under(store.conn, [str(repo)])) == 2
    assert len(tasks_under(store.conn, None)) == 2
    assert tasks_under(store.conn, [str(repo) + "2"]) == []
    assert tasks_under(store.conn, []) == []
