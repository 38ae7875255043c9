"""Memory paths: the label rules of lazy.memories.tree, and the project slugs an import gives out
(git repo root name, else basename(cwd); collisions get a 4-hex suffix, first seen wins,
stable across re-imports and across tools)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fabricate import APP_CWD
from fabricate.claude import Session
from fabricate.codex import Rollout
from fabricate.opencode import create_db, oc_conv
from lazy.memories.tree import (
    TreeError,
    check_node_name,
    home_path,
    join,
    label,
    parse_path,
    split,
)
from lazy.store.memories import slug_base, slug_with_hash
from support.agent_sessions import memories, report


@pytest.fixture(autouse=True)
def _agent_homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


# ---- pure rules -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "want"),
    [
        ("/share/projects", "/share/projects"),
        ("/share/projects/", "/share/projects"),
        ("  /a/B-c/d_9 ", "/a/B-c/d_9"),
        ("/", "/"),
    ],
)
def test_parse_path_normalizes(given: str, want: str) -> None:
    assert parse_path(given) == want


def test_home_in_a_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "Home.Dir" / "me+you"
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    labels = [re.sub(r"[^A-Za-z0-9_-]+", "_", p).strip("_") for p in home.parts[1:]]
    assert home_path() == "/" + "/".join(labels)
    assert labels[-2:] == ["Home_Dir", "me_you"]
    assert parse_path("~") == home_path()
    assert parse_path("~/projects") == home_path() + "/projects"
    assert parse_path("~/projects/") == home_path() + "/projects"


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("share/projects", "must start with / (an absolute tree path) or ~"),
        ("~projects", "must start with /"),
        ("/share//projects", "empty label (a doubled /) at part 2"),
        ("/share/my projects", "label 'my projects' holds ' '"),
        ("/share/a.b", "label 'a.b' holds '.'"),
        ("/share/ü", "label 'ü' holds 'ü'"),
    ],
)
def test_parse_path_errors_name_the_label(given: str, says: str) -> None:
    with pytest.raises(TreeError) as e:
        parse_path(given, "--tree-root")
    assert says in str(e.value) and "--tree-root" in str(e.value)


@pytest.mark.parametrize("name", ["agent_sessions", "a", "x9_", "0"])
def test_node_name_accepted(name: str) -> None:
    assert check_node_name(name) == name


@pytest.mark.parametrize("name", ["Agent", "a-b", "a b", "", "a/b", "é"])
def test_node_name_refused(name: str) -> None:
    with pytest.raises(TreeError, match=r"must match \[a-z0-9_\]\+"):
        check_node_name(name)


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ("019c8a4c-ed82-79a1-aa28-7738fc5ab61a", "019c8a4c-ed82-79a1-aa28-7738fc5ab61a"),
        ("ses_dd348188affeNkQB7UR8az74Ne", "ses_dd348188affeNkQB7UR8az74Ne"),
        ("turn-1-2754f17a:1", "turn-1-2754f17a_1"),
        ("a..b//c", "a_b_c"),
        ("..x..", "x"),
        ("...", "_"),
    ],
)
def test_label(raw: str, want: str) -> None:
    assert label(raw) == want
    assert re.fullmatch(r"[A-Za-z0-9_-]+", label(raw))


@pytest.mark.parametrize(
    ("project", "want"),
    [
        ("/Users/me/dev/memory-engine", "memory_engine"),
        ("/home/u/dev/App", "app"),
        ("/home/u/dev/My.Site v2", "my_site_v2"),
        ("/home/u/dev/app/", "app"),
        ("/", "root"),
        ("/home/u/---", "project"),
    ],
)
def test_slug_base(project: str, want: str) -> None:
    assert slug_base(project) == want
    assert re.fullmatch(r"[a-z0-9_]+", slug_base(project))


def test_slug_with_hash_is_stable_and_per_project() -> None:
    a = slug_with_hash("app", "/home/u/work/app")
    assert re.fullmatch(r"app_[0-9a-f]{4}", a)
    assert slug_with_hash("app", "/home/u/work/app") == a
    assert slug_with_hash("app", "/home/v/work/app") != a


def test_join_and_split() -> None:
    assert join("/share/projects", "app", "agent_sessions", "s1") == (
        "/share/projects/app/agent_sessions/s1"
    )
    assert join("/", "a") == "/a"
    assert split("/share/projects/app/agent_sessions/s1/msg_x") == (
        "/share/projects/app/agent_sessions/s1",
        "msg_x",
    )
    with pytest.raises(TreeError, match="names no node above the memory"):
        split("/msg_x")
    with pytest.raises(TreeError, match="'s 1'"):
        split("/a/s 1/msg_x")


# ---- slugs given out by an import -----------------------------------------------------------


def nodes(rep: dict[str, Any]) -> dict[str, str]:
    return {s["session_id"]: s["node"] for s in rep["sessions"]}


def rollout(codex: Path, cwd: str, started: str = "2026-03-01T10:00:00") -> Rollout:
    r = Rollout(codex, cwd, started=started)
    r.turn("first", "one")
    r.turn("second", "two")
    return r


def test_layout_is_root_slug_node_session_message(tmp_path: Path) -> None:
    r = rollout(tmp_path / "codex", "/home/u/dev/my-app")
    report("import", "codex", "--tree-root", "/t", "--sessions-node-name", "sess")
    got = memories(tmp_path / "lazy")
    assert len(got) == 4
    for m in got:
        msg = m["meta"]["source_message_id"]
        assert m["path"] == f"/t/my_app/sess/{r.id}/msg_{label(msg)}"
        assert m["meta"]["source_project_slug"] == "my_app"
        assert m["meta"]["source_cwd"] == "/home/u/dev/my-app"


def test_slug_is_the_git_repo_root_name(tmp_path: Path) -> None:
    repo = tmp_path / "dev" / "memory-engine"
    sub = repo / "packages" / "core"
    sub.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    plain = tmp_path / "dev" / "Notes.d"
    plain.mkdir()
    in_repo = rollout(tmp_path / "codex", str(sub))
    at_root = rollout(tmp_path / "codex", str(repo), started="2026-03-02T10:00:00")
    bare = rollout(tmp_path / "codex", str(plain), started="2026-03-03T10:00:00")
    # pytest's tmp dirs lie under /tmp: taken only with --include-temp-cwd
    rep = report("import", "codex", "--include-temp-cwd")
    got = nodes(rep)
    assert got[in_repo.id] == f"/share/projects/memory_engine/agent_sessions/{in_repo.id}"
    assert got[at_root.id] == f"/share/projects/memory_engine/agent_sessions/{at_root.id}"
    assert got[bare.id] == f"/share/projects/notes_d/agent_sessions/{bare.id}"
    metas = {m["meta"]["source_session_id"]: m["meta"] for m in memories(tmp_path / "lazy")}
    assert metas[in_repo.id]["source_cwd"] == str(sub)
    assert metas[in_repo.id]["source_git_root"] == str(repo)
    assert metas[at_root.id]["source_git_root"] is None  # the cwd is the root itself
    assert metas[bare.id]["source_git_root"] is None
    assert metas[bare.id]["source_project_slug"] == "notes_d"


def test_slug_collision_first_seen_wins_stable_across_runs_and_tools(tmp_path: Path) -> None:
    codex = tmp_path / "codex"
    first = rollout(codex, "/home/u/dev/app", started="2026-03-01T10:00:00")
    second = rollout(codex, "/home/u/work/app", started="2026-03-02T10:00:00")
    got = nodes(report("import", "codex"))
    assert got[first.id] == f"/share/projects/app/agent_sessions/{first.id}"
    m = re.fullmatch(
        r"/share/projects/(app_[0-9a-f]{4})/agent_sessions/" + second.id, got[second.id]
    )
    assert m, got[second.id]
    hashed = m.group(1)
    metas = {x["meta"]["source_session_id"]: x["meta"] for x in memories(tmp_path / "lazy")}
    assert metas[second.id]["source_project_slug"] == hashed
    assert metas[second.id]["source_cwd"] == "/home/u/work/app"  # the full cwd is kept

    # a third project named app, and the re-import: the slugs given out stay
    third = rollout(codex, "/home/v/app", started="2026-02-01T10:00:00")
    got = nodes(report("import", "codex"))
    assert got[first.id].split("/")[3] == "app"
    assert got[second.id].split("/")[3] == hashed
    third_slug = got[third.id].split("/")[3]
    assert re.fullmatch(r"app_[0-9a-f]{4}", third_slug) and third_slug != hashed

    # other tools get the same slug for the same project
    create_db(
        tmp_path / "xdg" / "opencode" / "opencode.db",
        oc_conv("ses_workappworkappworkapp0001", cwd="/home/u/work/app"),
        oc_conv("ses_devappdevappdevappdevap01", cwd="/home/u/dev/app"),
    )
    oc = nodes(report("import", "opencode"))
    assert oc["ses_workappworkappworkapp0001"].split("/")[3] == hashed
    assert oc["ses_devappdevappdevappdevap01"].split("/")[3] == "app"
    s = Session(tmp_path / "home" / ".claude" / "projects", "/home/u/work/app")
    s.turn("q", "a")
    s.turn("q2", "a2")
    assert nodes(report("import", "claude"))[s.id].split("/")[3] == hashed


def test_dry_run_shows_the_slugs_a_real_import_gives(tmp_path: Path) -> None:
    codex = tmp_path / "codex"
    rollout(codex, APP_CWD)
    report("import", "codex")
    later = rollout(codex, "/srv/other/app", started="2026-03-05T10:00:00")
    dry = nodes(report("import", "codex", "--dry-run"))[later.id]
    assert re.fullmatch(r"/share/projects/app_[0-9a-f]{4}/agent_sessions/" + later.id, dry)
    assert nodes(report("import", "codex"))[later.id] == dry


def test_in_one_run_the_earliest_session_gets_the_plain_slug(tmp_path: Path) -> None:
    codex = tmp_path / "codex"
    late = rollout(codex, "/home/u/dev/app", started="2026-03-09T10:00:00")
    early = rollout(codex, "/home/u/work/app", started="2026-03-01T10:00:00")
    got = nodes(report("import", "codex"))
    assert got[early.id].split("/")[3] == "app"
    assert got[late.id].split("/")[3] != "app"
