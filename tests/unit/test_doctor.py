"""`lazy doctor`'s health sweep as a user runs it: a subprocess with its own HOME, LAZY_HOME,
CODEX_HOME and XDG_DATA_HOME, against sessions written on disk with the ages set by
``os.utime``. Each check in the situations that turn it ✓, ! and ✗; --json; exit codes."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import socketserver
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fabricate.claude import Session
from fabricate.codex import Rollout
from lazy.doctor.checks import CHECKS
from lazy.model import ONESHOT_MARKER
from lazy.store.schema import SCHEMA_VERSION
from support import require
from support.doctor import age, derived, rows
from support.search import LAZY, env_for, run_lazy

MINUTE, HOUR, DAY = 60, 3600, 86400
TITLES = [
    "Store is intact",
    "Search index is caught up",
    "Conversation capture is live",
    "No housekeeping conversations in the store",
    "No local-command scaffolding in stored conversations",
    "An Anthropic credential is set (for lazy ask)",
    "Docker is reachable (for lazy ask)",
    "Python and dependencies are supported",
    "Free disk where the store lives",
]


class World:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.lazy_home = base / "lazy"
        self.user_home = base / "home"
        self.projects = self.user_home / ".claude" / "projects"
        self.repo = "/w/proj"
        # the Docker engine is looked for where no test machine has one
        self.extra = {"DOCKER_HOST": f"unix://{base / 'no-docker.sock'}"}

    def session(self, words: str, ago: float, cwd: str | None = None) -> Session:
        s = Session(self.projects, cwd or self.repo)
        s.turn(words, "noted")
        age(s.path, ago)
        return s

    def doctor(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [LAZY, "doctor", *args],
            env=env_for(self.lazy_home, self.user_home, **{**self.extra, **env}),
            cwd=self.user_home,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            check=False,
        )

    def checks(self, *args: str, **env: str) -> tuple[int, dict[str, dict[str, Any]]]:
        p = self.doctor("--json", *args, **env)
        data = json.loads(p.stdout)
        return p.returncode, {c["title"]: c for c in data["checks"]}

    def imported(self) -> None:
        run_lazy(self.lazy_home, self.user_home, "import-conversation", "--all-projects", "--yes")


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def block(out: str, title: str) -> list[str]:
    """The line of a check and its indented detail, as printed."""
    lines = out.splitlines()
    i = next(i for i, line in enumerate(lines) if line[2:] == title)
    j = i + 1
    while j < len(lines) and lines[j].startswith("  "):
        j += 1
    return lines[i:j]


# ---- conversation capture is live ------------------------------------------------------------


def test_a_session_from_an_hour_ago_never_captured_fails(world: World) -> None:
    world.session("captured long ago", 2 * DAY)
    world.imported()
    stranded = world.session("written while nothing captured", 41 * MINUTE + 30)
    p = world.doctor()
    assert p.returncode == 1, p.stdout
    assert block(p.stdout, "Conversation capture is live") == [
        "✗ Conversation capture is live",
        "  1 conversation(s) written in the last 24h (most recent 41m ago) are on disk",
        "  but never reached the store — live capture is not running.",
        "  (Claude Code 1)",
        "  fix: lazy doctor --reimport-conversations",
    ]
    assert p.stdout.splitlines()[-1].startswith("1 failure(s), ")  # warnings: Docker, ...
    # report-only: the sweep wrote nothing
    before = derived(world.lazy_home)
    world.doctor()
    assert derived(world.lazy_home) == before
    assert rows(world.lazy_home, "SELECT COUNT(*) FROM sessions WHERE id=?", (stranded.id,)) == [
        (0,)
    ]


def test_recent_and_old_ones_are_counted_apart_across_agents(world: World) -> None:
    world.session("old one", 3 * DAY)
    world.session("older one", 9 * DAY)
    world.session("recent one", 5 * HOUR)
    rollout = Rollout(world.user_home / ".codex", world.repo)
    rollout.turn("codex, recently", "done")
    age(rollout.path, 2 * HOUR)
    code, checks = world.checks()
    assert code == 1
    live = checks["Conversation capture is live"]
    assert live["status"] == "fail"
    assert live["detail"][:3] == [
        "2 conversation(s) written in the last 24h (most recent 2h ago) are on disk",
        "but never reached the store — live capture is not running.",
        "(Claude Code 1, Codex CLI 1)",
    ]
    assert live["detail"][3] == (
        "2 older conversation(s) (most recent 3d ago) are on disk but never reached the"
        " store (Claude Code 2)."
    )


def test_only_old_ones_warn(world: World) -> None:
    world.session("captured", 4 * DAY)
    world.imported()
    world.session("three days old, never captured", 3 * DAY + HOUR)
    p = world.doctor()
    assert p.returncode == 0, p.stdout
    assert block(p.stdout, "Conversation capture is live") == [
        "! Conversation capture is live",
        "  1 older conversation(s) (most recent 3d ago) are on disk but never reached the"
        " store (Claude Code 1).",
        "  fix: lazy doctor --reimport-conversations",
    ]


def test_a_session_written_a_minute_ago_is_in_flight(world: World) -> None:
    world.session("captured", 2 * HOUR)
    world.imported()
    world.session("being written right now", MINUTE)
    code, checks = world.checks()
    live = checks["Conversation capture is live"]
    assert live["status"] == "ok", live
    assert code == 0
    assert (
        "1 written in the last 5 minutes are not in the store yet: treated as in flight"
        " (the sweep may not have ticked yet)"
    ) in live["detail"]


def test_lazy_one_shots_are_never_counted(world: World) -> None:
    world.session("captured", 2 * HOUR)
    world.imported()
    world.session(f"{ONESHOT_MARKER} Summarize this pull request: ...", HOUR)
    code, checks = world.checks()
    live = checks["Conversation capture is live"]
    assert live["status"] == "ok", live
    assert code == 0
    assert "1 lazy one-shot(s) on disk: never captured, not counted" in live["detail"]


def test_reimport_recovers_and_the_check_goes_green(world: World) -> None:
    world.session("captured", 2 * DAY)
    world.imported()
    stranded = world.session("stranded", 3 * HOUR)
    rollout = Rollout(world.user_home / ".codex", world.repo)
    rollout.turn("stranded in codex", "ok")
    age(rollout.path, 3 * HOUR)
    assert world.doctor().returncode == 1
    # without a terminal and without --yes: the bulk import's preview, nothing written
    p = world.doctor("--reimport-conversations")
    assert p.returncode == 0, p.stderr
    assert "Found 2 session(s) on disk; 1 missing from the store, 1 already imported." in p.stdout
    assert "Not a terminal: nothing written. Re-run with --yes to import." in p.stdout
    assert world.checks()[1]["Conversation capture is live"]["status"] == "fail"
    p = world.doctor("--reimport-conversations", "--yes")
    assert p.returncode == 0, p.stderr
    assert "imported 1 conversation(s)" in p.stdout  # Claude Code's, then Codex's
    stored = {r[0] for r in rows(world.lazy_home, "SELECT id FROM builders")}
    assert {stranded.id, rollout.id} <= stored
    code, checks = world.checks()
    assert checks["Conversation capture is live"]["status"] == "ok"
    assert code == 0


def test_no_store_yet_creates_none(world: World) -> None:
    world.session("on disk only", 2 * HOUR)
    code, checks = world.checks()
    assert code == 1
    assert checks["Store is intact"]["status"] == "ok"
    assert "no store yet" in checks["Store is intact"]["detail"][0]
    assert checks["Conversation capture is live"]["detail"][0].startswith("1 conversation(s)")
    assert not world.lazy_home.exists()


# ---- --json and exit codes -------------------------------------------------------------------


def test_json_shape_and_exit_codes(world: World) -> None:
    world.session("captured", 2 * DAY)
    world.imported()
    p = world.doctor("--json")
    assert p.returncode == 0, p.stdout
    data = json.loads(p.stdout)
    assert set(data) == {"status", "checks"}
    assert data["status"] == "warn"  # Docker is not there: a warning, not a failure
    titles = [c["title"] for c in data["checks"]]
    assert titles == [title for title, _ in CHECKS]  # every check of the registry, in order
    assert [t for t in titles if t in TITLES] == TITLES
    for c in data["checks"]:
        assert set(c) == {"title", "status", "detail", "fix"}
        assert c["status"] in ("ok", "info", "warn", "fail")
        assert isinstance(c["detail"], list) and c["detail"]
        assert (c["fix"] is None) == (c["status"] == "ok"), c
    world.session("stranded", 2 * HOUR)
    p = world.doctor("--json")
    assert p.returncode == 1
    assert json.loads(p.stdout)["status"] == "fail"


def test_flags_that_do_not_go_together_are_refused(world: World) -> None:
    for args, words in (
        (["--yes"], "--dry-run and --yes go with a repair flag"),
        (["--delete-empty-local-command-conversations"], "goes with"),
        (["--purge-housekeeping-conversations", "--reimport-conversations"], "one repair"),
        (["--purge-housekeeping-conversations", "--dry-run", "--yes"], "give one of them"),
        (["--reimport-conversations", "--dry-run"], "previews on its own"),
    ):
        p = world.doctor(*args)
        assert p.returncode == 2, args
        assert words in p.stderr, (args, p.stderr)


# ---- the store and the index -----------------------------------------------------------------


def test_a_damaged_store_fails_and_the_other_checks_still_run(world: World) -> None:
    world.lazy_home.mkdir()
    (world.lazy_home / "store.db").write_bytes(b"this is not a database at all" * 100)
    code, checks = world.checks()
    assert code == 1
    store = checks["Store is intact"]
    assert store["status"] == "fail"
    assert "could not be opened" in store["detail"][0]
    assert "SQLITE_NOTADB" in store["detail"][0]  # the machine detail
    assert "--reimport-conversations --yes" in store["fix"]
    live = checks["Conversation capture is live"]
    assert live["status"] == "warn" and live["detail"][0].startswith("not checked")
    assert live["fix"] == store["fix"]
    assert checks["Python and dependencies are supported"]["status"] == "ok"


def test_quick_check_problems_are_listed(world: World) -> None:
    world.session("captured", 2 * DAY)
    world.imported()
    db = world.lazy_home / "store.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE name='messages_placing'"
    ).fetchone()[0]
    conn.close()
    with open(db, "r+b") as f:  # an index page's cell pointers overwritten
        f.seek((root - 1) * page + 8)
        f.write(b"\xff" * 64)
    code, checks = world.checks()
    assert code == 1
    store = checks["Store is intact"]
    assert store["status"] == "fail"
    assert "quick_check found" in store["detail"][0]
    assert any(f"tree page {root}" in line for line in store["detail"][1:])


def test_a_store_of_a_newer_schema(world: World) -> None:
    world.session("captured", 2 * DAY)
    world.imported()
    with sqlite3.connect(world.lazy_home / "store.db") as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    code, checks = world.checks()
    assert code == 1
    store = checks["Store is intact"]
    assert store["status"] == "fail"
    assert f"schema v{SCHEMA_VERSION + 5}" in store["detail"][0]
    assert "upgrade lazy" in store["fix"]


def test_an_index_behind_the_store_warns_until_rebuilt(world: World) -> None:
    world.session("captured", 2 * DAY)
    world.imported()
    assert world.checks()[1]["Search index is caught up"]["status"] == "ok"
    with sqlite3.connect(world.lazy_home / "store.db") as conn:  # as a hook that had no writer
        conn.execute("INSERT INTO index_queue(message_id) SELECT id FROM messages")
    index = world.checks()[1]["Search index is caught up"]
    assert index["status"] == "warn"
    assert index["detail"] == [
        f"{world.lazy_home / 'index'}: 2 message(s) changed in the store are not searchable yet"
    ]
    assert index["fix"] == "lazy index rebuild"
    shutil.rmtree(world.lazy_home / "index")
    index = world.checks()[1]["Search index is caught up"]
    assert index["status"] == "warn"
    assert "there is no index yet" in index["detail"][0]
    run_lazy(world.lazy_home, world.user_home, "index", "rebuild")
    assert world.checks()[1]["Search index is caught up"]["status"] == "ok"


# ---- Docker, Python, disk --------------------------------------------------------------------


class _Ping(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        ok = self.path.endswith("/_ping")
        body = b"OK" if ok else b"{}"
        self.send_response(200 if ok else 404)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Api-Version", "1.45")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def address_string(self) -> str:
        return "unix"

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Path]:
    """The one thing not real here: something answering the Docker API's /_ping on a unix
    socket (no Docker engine on the test machines)."""
    sock = tmp_path / "docker.sock"
    server = socketserver.ThreadingUnixStreamServer(str(sock), _Ping)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield sock
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def test_docker_unreachable_is_a_warning_that_answers_it(world: World, engine: Path) -> None:
    code, checks = world.checks()
    docker = checks["Docker is reachable (for lazy ask)"]
    assert docker["status"] == "warn"
    assert code == 0
    assert str(world.base / "no-docker.sock") in docker["detail"][0]
    assert "did not answer /_ping" in docker["detail"][0]
    assert "systemctl start docker" in docker["fix"]
    code, checks = world.checks(DOCKER_HOST=f"unix://{engine}")
    docker = checks["Docker is reachable (for lazy ask)"]
    assert docker == {
        "title": "Docker is reachable (for lazy ask)",
        "status": "ok",
        "detail": [f"the Docker engine at unix://{engine} answered /_ping"],
        "fix": None,
    }


CREDENTIAL = "An Anthropic credential is set (for lazy ask)"


def test_the_credential_is_checked_and_never_shown(world: World) -> None:
    none = {"ANTHROPIC_API_KEY": "", "ANTHROPIC_AUTH_TOKEN": ""}
    p = world.doctor("--json", **none)
    check = {c["title"]: c for c in json.loads(p.stdout)["checks"]}[CREDENTIAL]
    assert check["status"] == "warn", check
    assert "ANTHROPIC_API_KEY" in check["fix"], check
    assert any("lazy ask" in line for line in check["detail"]), check
    secret = "sk-ant-api03-" + "S3cr3t" * 8
    for name, value in (("ANTHROPIC_API_KEY", secret), ("ANTHROPIC_AUTH_TOKEN", secret)):
        p = world.doctor("--json", **{**none, name: value})
        check = {c["title"]: c for c in json.loads(p.stdout)["checks"]}[CREDENTIAL]
        assert check["status"] == "ok", check
        assert name in check["detail"][0], check
        assert secret not in p.stdout and secret[-12:] not in p.stdout
        text = world.doctor(**{**none, name: value}).stdout
        assert f"✓ {CREDENTIAL}" in text.splitlines()
        assert secret[-12:] not in text


def test_a_dependency_outside_its_range_fails(world: World, tmp_path: Path) -> None:
    code, checks = world.checks()
    py = checks["Python and dependencies are supported"]
    assert py["status"] == "ok"
    assert py["detail"][0].startswith("Python 3.")
    assert "pydantic" in py["detail"][1] and "within pyproject's ranges" in py["detail"][1]
    # the metadata of an older click found first on the path, as an old install would be
    old = tmp_path / "site" / "click-7.0.dist-info"
    old.mkdir(parents=True)
    (old / "METADATA").write_text("Metadata-Version: 2.1\nName: click\nVersion: 7.0\n")
    code, checks = world.checks(PYTHONPATH=str(old.parent))
    py = checks["Python and dependencies are supported"]
    assert code == 1
    assert py["status"] == "fail"
    assert "click 7.0 is outside <9,>=8.1" in py["detail"]
    assert py["fix"].endswith("-m pip install 'click<9,>=8.1'")


@pytest.mark.parametrize(
    ("size", "status", "shown"),
    [("50m", "fail", " MiB free"), ("600m", "warn", " MiB free"), ("3g", "ok", " GiB free")],
)
def test_free_disk_says_the_figures(world: World, size: str, status: str, shown: str) -> None:
    require(
        os.geteuid() == 0 and shutil.which("unshare") is not None,
        "root and unshare, to mount a small tmpfs in a private mount namespace",
    )
    mount = world.base / "small"
    mount.mkdir()
    lazy_home = mount / "lazy"
    env = env_for(lazy_home, world.user_home, **world.extra)
    p = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c",
         f'mount -t tmpfs -o size={size} tmpfs "$1" && exec "$2" doctor --json',
         "sh", str(mount), LAZY],
        env=env, cwd=world.user_home, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    data = json.loads(p.stdout)
    disk = {c["title"]: c for c in data["checks"]}["Free disk where the store lives"]
    assert disk["status"] == status, disk
    line = disk["detail"][0]
    assert shown in line and f"on the filesystem of {lazy_home}" in line
    assert line.endswith("(warns under 1 GiB, fails under 100 MiB)")
    assert p.returncode == (1 if status == "fail" else 0)
    assert (disk["fix"] is None) == (status == "ok")


def test_every_repair_is_a_flag_of_lazy_doctor_and_the_fix_of_its_check() -> None:
    from lazy.cli.doctor import doctor
    from lazy.doctor import capture, housekeeping, scaffolding
    from lazy.doctor.repairs import REPAIRS

    flags = {opt for p in doctor.params for opt in getattr(p, "opts", [])}
    assert {r.flag for r in REPAIRS} <= flags
    fixes = {capture.TITLE: capture.FIX, housekeeping.TITLE: housekeeping.FIX}
    fixes[scaffolding.TITLE] = scaffolding.FIX
    for repair in REPAIRS:
        if repair.check in fixes:
            assert fixes[repair.check] == f"lazy doctor {repair.flag}"
    titles = {title for title, _ in CHECKS}
    assert {r.check for r in REPAIRS if r.check is not None} <= titles
