"""Records no reader was written for (issue 13 §1): nesting past the parsers' recursion limits
(arrays, objects and both mixed; deeper than orjson writes back, than Python's recursion limit,
than orjson reads), numbers past 64 bits and past Python's digit limit, a string where a dict
belongs, times past what SQLite's integers hold. Each reader (Claude Code, Codex, OpenCode's
1.1 JSON storage and opencode.db) gets them between good lines, beside good files copied from
the shared corpus; every surface that captures (`lazy import-conversation` for each agent,
`lazy doctor --reimport-conversations --yes`, one `lazy daemon` sweep, `lazy capture --hook`)
must quarantine each bad line with its file, line and raw bytes, keep the good lines of its file,
store every other file's Builder, and exit 0 without a traceback."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import psutil
import pytest
from harness import ro_connect, unzstd

from fabricate.claude import Session
from fabricate.codex import Rollout
from fabricate.opencode import Conv, create_db, oc_conv, tool, write_v1_tree
from lazy.capture import daemon
from support import CORPUS, require
from support.agent_sessions import invoke
from support.search import env_for, run_lazy

TIMEOUT = 120
DEEP = "@@DEEP@@"
KINDS = ("arrays", "objects", "mixed")
# 600: orjson reads it, orjson cannot write it back (255 levels); 1000: Python's recursion
# limit in a reader's walk over it; 1100: past orjson's 1024, where the stdlib parser recursed
DEPTHS = (600, 1000, 1100)

CLAUDE_CORPUS = (
    CORPUS
    / "claude-code"
    / "handgemacht-ai__claude-code-log"
    / "test"
    / "test_data"
    / "real_projects"
    / "-Users-dain-workspace-claude-code-log-sample"
)
CLAUDE_GOOD = ("07f2e15c-a38b-454b-9148-60edc06de401", "89488521-e2e7-4d97-bc02-38197efdddc8")
CODEX_CORPUS = (
    CORPUS
    / "codex"
    / "madshn__localpush"
    / "src-tauri"
    / "tests"
    / "fixtures"
    / "codex"
    / "2026-02-23"
    / "raw"
    / "sessions"
)
CODEX_GOOD = ("019c8a4c-ed82-79a1-aa28-7738fc5ab61a", "019c8a4d-8f45-7010-8b5d-7fad920aa6f9")
OPENCODE_CORPUS = (
    CORPUS
    / "opencode"
    / "jazzyalex__agent-sessions"
    / "Resources"
    / "Fixtures"
    / "stage0"
    / "agents"
    / "opencode"
    / "storage_v2"
)
OPENCODE_GOOD = ("s_stage0_small", "s_stage0_large")


def nested(kind: str, depth: int) -> str:
    """JSON text ``depth`` levels deep: ``[[…]]``, ``{"a":{"a":…}}`` or ``[{"a":[{…}]}]``."""
    opens, closes = [], []
    for i in range(depth):
        if kind == "arrays" or (kind == "mixed" and i % 2 == 0):
            opens.append("[")
            closes.append("]")
        else:
            opens.append('{"a":')
            closes.append("}")
    return "".join(opens) + "1" + "".join(reversed(closes))


def spliced(obj: dict[str, Any], deep: str) -> bytes:
    """``obj`` as a JSON line with its ``DEEP`` placeholder replaced by ``deep`` (orjson would
    refuse to write such nesting itself)."""
    return orjson.dumps(obj).replace(f'"{DEEP}"'.encode(), deep.encode()) + b"\n"


@dataclass
class Bad:
    """A line (or OpenCode record) that must be quarantined, and where."""

    file: str
    line: int | None  # None: an OpenCode record, whose report names where the parser stopped
    raw: bytes


@dataclass
class World:
    lazy_home: Path
    user_home: Path
    good: dict[str, list[str]] = field(default_factory=dict)  # tool -> session ids
    bad: dict[str, list[Bad]] = field(default_factory=dict)  # tool -> what must be quarantined
    # a bad file's session -> (its agent, the words of its good lines)
    kept: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    files: dict[str, list[str]] = field(default_factory=dict)  # tool -> the bad files

    def env(self) -> dict[str, str]:
        return env_for(self.lazy_home, self.user_home, NO_COLOR="1", COLUMNS="400")

    def lazy(self, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
        p = run_lazy(self.lazy_home, self.user_home, *args, ok=False, stdin=stdin,
                     timeout=TIMEOUT, NO_COLOR="1", COLUMNS="400")  # fmt: skip
        assert "Traceback" not in p.stderr, p.stderr
        assert p.returncode == 0, f"`lazy {' '.join(args)}` exited {p.returncode}:\n{p}"
        return p


def _claude(w: World) -> None:
    projects = w.user_home / ".claude" / "projects"
    dest = projects / "-Users-dain-workspace-claude-code-log-sample"
    dest.mkdir(parents=True)
    for sid in CLAUDE_GOOD:
        shutil.copy(CLAUDE_CORPUS / f"{sid}.jsonl", dest / f"{sid}.jsonl")
    s = Session(projects, "/w/bad-claude")
    s.turn("claude before the bad lines", "claude fine before")
    bad = []

    def add(line: bytes, quarantined: bool = True) -> None:
        with s.path.open("ab") as f:
            f.write(line)
        if quarantined:
            bad.append(Bad(str(s.path), sum(1 for _ in s.path.open("rb")), line[:-1]))

    for kind in KINDS:
        for depth in DEPTHS:
            call = {"type": "tool_use", "id": f"toolu_{kind}_{depth}", "name": "Probe"}
            msg = {
                "id": f"msg_{kind}_{depth}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{**call, "input": {"deep": DEEP}}],
                "usage": {"input_tokens": 3, "output_tokens": 7},
            }
            add(spliced(s.line("assistant", message=msg), nested(kind, depth)))
    # a string where the image block's source dict belongs: read, an image of unknown kind
    image = {"type": "image", "source": "not a dict"}
    user = s.line("user", message={"role": "user", "content": [image]})
    add(orjson.dumps(user) + b"\n", quarantined=False)
    # NaN is not JSON: orjson refuses the line and the stdlib parser reads it, whole integers
    # and all: past 64 bits (orjson cannot write them back), past 4300 digits (Python refuses).
    # Read as orjson reads such numbers (a float), they are not quarantined.
    for big in ("123456789012345678901234567890", "9" * 5000):
        usage = {"input_tokens": 3, "output_tokens": DEEP, "nan": "@@NAN@@"}
        msg = {
            "id": f"msg_big_{len(big)}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "big"}],
            "usage": usage,
        }
        line = spliced(s.line("assistant", message=msg), big).replace(b'"@@NAN@@"', b"NaN")
        add(line, quarantined=False)
    s.turn("claude after the bad lines", "claude fine after")
    w.good["claude"] = list(CLAUDE_GOOD)
    w.bad["claude"] = bad
    w.kept[s.id] = ("claude", ["claude before the bad lines", "big", "claude after the bad lines"])
    w.files["claude"] = [str(s.path)]


def _codex(w: World) -> None:
    home = w.user_home / ".codex"
    dest = home / "sessions" / "2026" / "02" / "23"
    dest.mkdir(parents=True)
    for src in CODEX_CORPUS.glob("*.jsonl"):
        if any(sid in src.name for sid in CODEX_GOOD):
            shutil.copy(src, dest / src.name)
    r = Rollout(home, "/w/bad-codex")
    r.turn("codex before the bad lines", "codex fine before")
    bad = []

    def add(line: bytes, quarantined: bool = True) -> None:
        r.write(line)
        if quarantined:
            bad.append(Bad(str(r.path), sum(1 for _ in r.path.open("rb")), line[:-1]))

    for kind in KINDS:
        for depth in DEPTHS:
            call = {
                "type": "function_call",
                "name": "shell",
                "arguments": DEEP,
                "call_id": f"call_{kind}_{depth}",
            }
            add(spliced(orjson.loads(r.line("response_item", call)), nested(kind, depth)))
    # arguments as a JSON string (as Codex writes them) nested past what orjson writes back:
    # kept as the string it is
    call = {
        "type": "function_call",
        "name": "shell",
        "arguments": nested("objects", 600),
        "call_id": "call_string_600",
    }
    add(r.line("response_item", call), quarantined=False)
    r.turn("codex after the bad lines", "codex fine after")
    w.good["codex"] = list(CODEX_GOOD)
    w.bad["codex"] = bad
    w.kept[r.id] = ("codex", ["codex before the bad lines", "codex after the bad lines"])
    w.files["codex"] = [str(r.path)]


def _deep_conv(sid: str) -> Conv:
    c = oc_conv(sid, cwd=f"/w/{sid}", turns=1)
    parts = [
        tool("probe", f"call_{kind}_{depth}", "completed", {"deep": DEEP}, output="ok")
        for kind in KINDS
        for depth in DEPTHS
    ]
    c.assistant(*parts)
    c.user({"type": "text", "text": f"{sid} after the deep parts"})
    return c


def _opencode(w: World) -> None:
    data = w.user_home / ".local" / "opencode"
    shutil.copytree(OPENCODE_CORPUS, data / "storage")
    # 1.1.x JSON storage: one session with deep tool parts, one whose times overflow SQLite
    deep = _deep_conv("ses_deepjsonpartsdeepjsonpa01")
    huge = oc_conv("ses_hugetimeshugetimeshuget01", cwd="/w/huge", turns=1)
    huge.info["time"] = {"created": 1e300, "updated": 123456789012345678901234567890}
    write_v1_tree(data, deep, huge)
    bad = []
    info, parts = deep.messages[-2]
    variants = [nested(k, d) for k in KINDS for d in DEPTHS]
    for p, text in zip(parts, variants, strict=True):
        path = data / "storage" / "part" / info["id"] / f"{p['id']}.json"
        raw = path.read_bytes().replace(f'"{DEEP}"'.encode(), text.encode())
        path.write_bytes(raw)
        bad.append(Bad(str(path), None, raw))
    # opencode.db: the same, in the part rows' JSON data column
    db = data / "opencode.db"
    in_db = _deep_conv("ses_deepdbrowsdeepdbrowsdee01")
    create_db(db, oc_conv("ses_gooddbsessiongooddbsess01", cwd="/w/good-db"), in_db)
    con = sqlite3.connect(db)
    try:
        info, parts = in_db.messages[-2]
        for p, text in zip(parts, variants, strict=True):
            con.execute(
                "UPDATE part SET data = replace(data, ?, ?) WHERE id=?",
                (f'"{DEEP}"', text, p["id"]),
            )
            (data_,) = con.execute("SELECT data FROM part WHERE id=?", (p["id"],)).fetchone()
            bad.append(Bad(f"{db}#part/{p['id']}", None, data_.encode()))
        con.commit()
    finally:
        con.close()
    w.good["opencode"] = [*OPENCODE_GOOD, "ses_gooddbsessiongooddbsess01", huge.sid]
    w.bad["opencode"] = bad
    for c in (deep, in_db):
        w.kept[c.sid] = ("opencode", [f"{c.sid} question 0", f"{c.sid} after the deep parts"])
    w.files["opencode"] = sorted({b.file.split("#")[0] for b in bad})


@pytest.fixture
def world(tmp: Path) -> World:
    for d in (CLAUDE_CORPUS, CODEX_CORPUS, OPENCODE_CORPUS):
        require(d.is_dir(), f"the shared corpus at {d}")
    w = World(tmp / "lazy-home", tmp / "user-home")
    w.user_home.mkdir(exist_ok=True)
    _claude(w)
    _codex(w)
    _opencode(w)
    return w


# ---- what the store must hold afterwards --------------------------------------------------


def _query(w: World, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    conn = ro_connect(w.lazy_home)
    assert conn is not None, "no store was made"
    with conn:
        return list(conn.execute(sql, args).fetchall())


def assert_captured(w: World, tools: tuple[str, ...], out: str | None) -> None:
    """Every good file's Builder stored, every bad line quarantined with its bytes (and named
    as file:line in ``out`` when given), the good lines of the bad files kept."""
    for t in tools:
        for sid in w.good[t]:
            rows = _query(
                w,
                "SELECT s.message_count, b.id FROM sessions s LEFT JOIN builders b"
                " ON b.id = s.builder_id WHERE s.id=?",
                sid,
            )
            assert rows and rows[0][0] > 0 and rows[0][1], f"{t} session {sid} has no Builder"
        held: dict[tuple[str, int | None], bytes] = {}
        for p, n, raw in _query(w, "SELECT path, line_no, raw FROM quarantine"):
            held[(p, n)] = held[(p, None)] = unzstd(raw)
        for b in w.bad[t]:
            where = f"{b.file}:{b.line}" if b.line is not None else b.file
            assert (b.file, b.line) in held, f"{where} is not quarantined: {list(held)}"
            assert held[(b.file, b.line)] == b.raw, f"{where}: its raw bytes are not kept"
            if out is not None:
                assert f"{where}:" in out, f"{where} is not reported:\n{out}"
    for sid, (t, words) in w.kept.items():
        if t in tools:
            texts = {r[0] for r in _query(w, "SELECT text FROM messages WHERE session_id=?", sid)}
            assert set(words) <= texts, f"the good lines of {sid}'s bad file were lost: {texts}"


# ---- each surface -------------------------------------------------------------------------


@pytest.mark.parametrize("tool_name", ["claude", "codex", "opencode"])
def test_import_conversation_quarantines_each_bad_line_and_stores_the_rest(
    world: World, tool_name: str
) -> None:
    p = world.lazy("import-conversation", "--tool", tool_name, "--yes", "--all-projects")
    assert_captured(world, (tool_name,), p.stdout)
    rep = json.loads(
        world.lazy(
            "import-conversation", "--tool", tool_name, "--yes", "--all-projects", "--json"
        ).stdout
    )
    assert rep["skipped"] == [] and rep["refused"] == [], rep  # nothing left failing
    again = _query(world, "SELECT COUNT(*) FROM quarantine")
    world.lazy("import-conversation", "--tool", tool_name, "--yes", "--all-projects", "--all")
    assert _query(world, "SELECT COUNT(*) FROM quarantine") == again, "quarantined twice"


def test_doctor_reimport_stores_every_agents_other_files(world: World) -> None:
    p = world.lazy("doctor", "--reimport-conversations", "--yes")
    assert_captured(world, ("claude", "codex", "opencode"), p.stdout)


@pytest.fixture
def daemons(world: World) -> Iterator[World]:
    try:
        yield world
    finally:
        h = daemon.pid_file(world.lazy_home).read()
        if h is not None and psutil.pid_exists(h.pid):
            proc = psutil.Process(h.pid)
            if abs(proc.create_time() - h.create_time) < 1:
                proc.kill()
                proc.wait(30)


def test_one_daemon_sweep_stores_every_agents_other_files(daemons: World) -> None:
    w = daemons
    started = json.loads(w.lazy("daemon", "start", "--json").stdout)
    assert started["state"] == "ready", started
    first = started["status"]["last_sweep"]  # the start waits for the first sweep to end
    assert first["error"] is None, first
    assert first["failures"] and all(f["code"] == "bad-line" for f in first["failures"]), first
    assert_captured(w, ("claude", "codex", "opencode"), None)
    log = (w.lazy_home / daemon.LOG_FILE).read_text()
    for files in w.files.values():
        for f in files:
            assert f in log, f"the daemon's log does not name {f}"
    w.lazy("daemon", "stop")


def test_the_hook_quarantines_and_captures_the_transcript_and_its_subagents(
    world: World,
) -> None:
    projects = world.user_home / ".claude" / "projects"
    s = Session(projects, "/w/hooked")
    s.turn("hooked before", "hooked fine before")
    lines = []
    for kind in KINDS:
        for depth in DEPTHS:
            call = {
                "type": "tool_use",
                "id": f"toolu_h_{kind}_{depth}",
                "name": "Probe",
                "input": {"deep": DEEP},
            }
            msg = {
                "id": f"msg_h_{kind}_{depth}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [call],
            }
            lines.append(spliced(s.line("assistant", message=msg), nested(kind, depth)))
    first = sum(1 for _ in s.path.open("rb")) + 1
    with s.path.open("ab") as f:
        f.write(b"".join(lines))
    s.turn("hooked after", "hooked fine after")
    subs = []
    for n, deep in enumerate((None, nested("mixed", 1100))):
        agent = f"a{n}b2c3d4e5f6a7b8c"
        sub = Session(projects, "/w/hooked", session_id=s.id)
        sub.path = s.path.parent / s.id / "subagents" / f"agent-{agent}.jsonl"
        sub.path.parent.mkdir(parents=True, exist_ok=True)
        side = {"isSidechain": True, "agentId": agent}
        if deep is not None:
            sub.path.write_bytes(spliced(sub.line("user", x=DEEP, **side), deep))
        sub.write(sub.line("user", message={"role": "user", "content": f"sub {n}"}, **side))
        subs.append(sub)
    p = world.lazy("capture", "--hook", stdin=json.dumps(s.hook_input()).encode())
    assert p.stdout == ""
    texts = {
        r[0] for r in _query(world, "SELECT text FROM messages WHERE session_id LIKE ?", f"{s.id}%")
    }
    assert {"hooked before", "hooked after", "sub 0", "sub 1"} <= texts, texts
    held = {(r[0], r[1]) for r in _query(world, "SELECT path, line_no FROM quarantine")}
    want = {(str(s.path), first + i) for i in range(len(lines))} | {(str(subs[1].path), 1)}
    assert want <= held, f"not quarantined: {want - held}"
    logged = _query(world, "SELECT path FROM capture_log WHERE code='BAD_LINE'")
    assert {str(s.path), str(subs[1].path)} <= {r[0] for r in logged}
    assert not (world.lazy_home / "hook-failures.log").exists()
    bid = _query(world, "SELECT builder_id FROM sessions WHERE id=?", s.id)
    assert bid and bid[0][0], "the hooked session has no Builder"


# ---- a failure no rule foresaw, per file ---------------------------------------------------


@pytest.fixture
def in_process(world: World, monkeypatch: pytest.MonkeyPatch) -> World:
    """The world's environment for code run in this process (to plant a failure in it)."""
    for k, v in world.env().items():
        if k in ("HOME", "LAZY_HOME", "CODEX_HOME", "XDG_DATA_HOME"):
            monkeypatch.setenv(k, v)
    return world


def _planted(monkeypatch: pytest.MonkeyPatch, module: Any, victim: str) -> None:
    """``module.apply_batch`` fails, for ``victim`` only, the way a reader bug would."""
    real = module.apply_batch

    def failing(c: sqlite3.Connection, batch: Any, spath: str, *a: Any, **kw: Any) -> Any:
        if spath == victim:
            raise LookupError("a shape no rule foresaw")
        return real(c, batch, spath, *a, **kw)

    monkeypatch.setattr(module, "apply_batch", failing)


@pytest.mark.parametrize("tool_name", ["claude", "opencode"])
def test_an_unforeseen_failure_on_one_file_is_logged_and_the_rest_imported(
    in_process: World, monkeypatch: pytest.MonkeyPatch, tool_name: str
) -> None:
    from lazy.capture import opencode, source_file

    w = in_process
    if tool_name == "claude":
        victim = str(next(p for p in (w.user_home / ".claude").rglob(f"{CLAUDE_GOOD[1]}.jsonl")))
        _planted(monkeypatch, source_file, victim)
    else:
        victim = str(w.user_home / ".local" / "opencode" / "opencode.db") + (
            "#ses_gooddbsessiongooddbsess01"
        )
        _planted(monkeypatch, opencode, victim)
    r = invoke("import-conversation", "--tool", tool_name, "--yes", "--all-projects", "--json")
    rep = json.loads(r.stdout)
    (skip,) = rep["skipped"]
    assert skip["path"] == victim
    why = "could not be captured: LookupError: a shape no rule foresaw"
    assert skip["reason"] == f"{why} [LookupError]"
    w.good[tool_name] = [s for s in w.good[tool_name] if s not in victim]
    assert_captured(w, (tool_name,), None)
    logged = _query(w, "SELECT level, code, detail FROM capture_log WHERE path=?", victim)
    assert logged == [("error", "LookupError", "LookupError: a shape no rule foresaw")]
    text = invoke("import-conversation", "--tool", tool_name, "--yes", "--all-projects").stdout
    assert f"{why} [LookupError] ({victim})" in " ".join(text.split())  # as wrapped


def test_a_sweep_goes_on_with_the_next_agent(
    in_process: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lazy.capture import live

    w = in_process
    real = live.discover_tool

    def failing(tool_name: str, *a: Any, **kw: Any) -> Any:
        if tool_name == "claude":
            raise LookupError("a shape no rule foresaw")
        return real(tool_name, *a, **kw)

    monkeypatch.setattr(live, "discover_tool", failing)
    threads = live.PerThread(w.lazy_home, 16)
    sweep = live.LiveCapture(w.lazy_home, threads.store).sweep()
    assert sweep.error is None
    (f,) = [f for f in sweep.failures if f.code == "sweep-error"]
    assert f.reason == "the claude sweep failed" and "LookupError" in f.detail
    assert_captured(w, ("codex", "opencode"), None)
    threads.store().close()


# ---- times and paths no rule foresaw -------------------------------------------------------


def test_times_past_local_years_and_a_nul_in_the_cwd_are_imported_and_listed(
    world: World,
) -> None:
    """ISO times Python reads but cannot turn into local time (year 1 east of UTC, year 9999
    west of it), and a cwd with a NUL (no path holds one): read, listed, imported as memories."""
    s = Session(world.user_home / ".claude" / "projects", "/w/odd\x00times")
    for n, ts in (("one", "9999-12-31T23:59:59-05:00"), ("two", "0001-01-01T00:00:00+05:00")):
        s.write(s.line("user", message={"role": "user", "content": f"odd times {n}"}, timestamp=ts))
        s.assistant(f"odd answer {n}")
    world.lazy("import-conversation", "--yes", "--all-projects")
    listed = world.lazy("conversations", "--all-projects").stdout
    assert "odd times" in listed, listed
    rep = json.loads(world.lazy("import", "claude", "--json", "--include-trivial").stdout)
    assert rep["errors"] == [] and s.id in [x["session_id"] for x in rep["sessions"]], rep
    assert_captured(world, ("claude",), None)


def test_an_unforeseen_failure_planning_one_sessions_memories_is_its_error(
    in_process: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lazy.memories import session_import as agent_import

    real = agent_import.plan
    victim = CLAUDE_GOOD[1]

    def failing(c: sqlite3.Connection, s: sqlite3.Row, *a: Any) -> Any:
        if s["id"] == victim:
            raise LookupError("a shape no rule foresaw")
        return real(c, s, *a)

    monkeypatch.setattr(agent_import, "plan", failing)
    rep = json.loads(invoke("import", "claude", "--json", "--include-trivial").stdout)
    (err,) = rep["errors"]
    assert err["session_id"] == victim and err["path"].endswith(f"{victim}.jsonl")
    assert (
        err["reason"] == "could not be imported as memories: LookupError: a shape no rule foresaw"
    )
    assert CLAUDE_GOOD[0] in {s["session_id"] for s in rep["sessions"]}, rep["sessions"]
    logged = _query(in_process, "SELECT code, detail FROM capture_log WHERE session_id=?", victim)
    assert logged == [("LookupError", "LookupError: a shape no rule foresaw")]


def test_a_batch_too_big_for_sqlite_is_that_files_error(in_process: World) -> None:
    """SQLite holds at most SQLITE_LIMIT_LENGTH bytes in a value (1 GB by default): a file
    whose raw batch is past it is that file's failure, not the store's. Here the limit is
    lowered, on the one connection this capture uses, to what a test can write."""
    from lazy.capture.bulk_import import run_import
    from lazy.capture.discovery import discover_tool
    from lazy.store import Store

    w = in_process
    projects = w.user_home / ".claude" / "projects"
    s = Session(projects, "/w/too-big")
    s.turn(os.urandom(300_000).hex(), "an answer to a prompt SQLite cannot hold")
    with Store.open(w.lazy_home) as store:
        store.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 500_000)
        d = discover_tool("claude", [projects], None, default_roots=False)
        rep = run_import(store, d, list(d.sessions))
    (skip,) = rep.skipped
    assert skip.path == str(s.path) and "SQLITE_TOOBIG" in skip.reason, skip
    assert_captured(w, ("claude",), None)
    logged = _query(w, "SELECT code FROM capture_log WHERE path=?", str(s.path))
    assert logged == [("SQLITE_TOOBIG",)], logged
