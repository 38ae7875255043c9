"""Team benchmark: `lazy team push` of a whole history to PostgreSQL, an incremental push after
one appended turn, team search beside local search, and what the server stores.

    python -m bench.team [--messages 1M] [--reps 100] [--inc-reps 3] [--cli-reps 5] [--profile]
                         [--out bench/out] [--workdir DIR] [--keep]

One generated history (bench/corpus.py, ``dense=True``, with bench/search.py's planted words so
each query has a known answer) imported by ``lazy import-conversation`` and indexed by ``lazy
index rebuild`` in children (bench/harness.py's isolated environment). A PostgreSQL server of
its own (Debian's binaries, ``initdb`` in a temp dir as the ``postgres`` OS user when root, a
Unix socket only: ``listen_addresses=''``, trust; its settings otherwise stock), stopped by its
pid at the end. Set up as a team is: ``lazy team init`` as the owner, ``lazy team invite
bench``, ``lazy team join`` as the member (``LAZY_TEAM_NAME``/``LAZY_TEAM_EMAIL``), each
generated project (``/home/u/proj-N``: no repo, no remote) named ``acme/proj-N`` with ``lazy
team name``. Then:

* full push: ``lazy team push --json`` in a child: wall and CPU seconds, messages/s, MB/s of what
  it stored (each message's searchable text plus its view JSON, summed on the server after),
  the child's ``ru_maxrss`` and sampled tree RSS, and the server's CPU seconds (postmaster and
  every backend) over the same span;
* a push with nothing new, and an incremental push after one appended turn (``corpus.append_
  turn``, captured by ``lazy capture --hook``, untimed) to the largest Builder's session and to a
  median one: ``lazy team push --json`` spawn to exit, ``--inc-reps`` turns each;
* search, warm, in process: team search is ``lazy.team.browse.search`` (what ``lazy team
  search`` runs, limit 20, with snippets) through a psycopg connection as the member's role (RLS
  on), after ``VACUUM ANALYZE`` of the messages table (what autovacuum leaves); local search is
  ``lazy.index.search.search`` on the Tantivy index (bench/search.py's ``lazy_searcher``, its
  first page); p50/p99 for a common word, a rare word and a phrase, and the CLI children (``lazy
  team search --json`` and ``lazy search --all-projects --json``, ``--cli-reps``); hit counts
  against the planted ones; whether a search scanned the GIN index (``pg_stat_get_xact_
  numscans`` in its transaction); the team query's plan (``EXPLAIN ANALYZE``) kept in the JSON;
* sizes: ``pg_database_size``, the messages table's heap, TOAST, GIN (``messages_tsv``) and other
  indexes, beside the local store and index;
* ``--profile``: pushes in process under cProfile (not timed) as a second member (its projects
  named ``acme-profile/proj-N``, so the same Builders go again): the full push, then one after a
  turn appended to the largest Builder; top functions printed and kept in the JSON, and
  ``<out>/team.prof``, ``<out>/team-incremental.prof``.

``--keep`` keeps the temp dir and the server's cluster (``pg_ctl -D <dir>/data start`` as the
``postgres`` user starts it again on its socket in ``<dir>/run``).

Target (printed, never asserted): an incremental push after one appended turn in under 1 s.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import glob
import os
import pstats
import pwd
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

import orjson
import psutil

from bench import corpus, harness
from bench import search as sb
from bench.harness import console, fmt, parse_count, table, targets, verdict

TARGET_INCREMENTAL_S = 1.0
TEAM_LIMIT = 20  # lazy team search's default
MEMBER = "bench"
MEMBER_NAME, MEMBER_EMAIL = "Bench Member", "bench@acme.test"
PROFILER = "bench_profile"
PROFILER_EMAIL = "profile@acme.test"
PORT = 45432  # in the socket file's name only: the server listens on no TCP port

# (name, team query, local query, planted key): bench/search.py's words
QUERIES = (
    ("common word", "cache", "cache", None),
    ("rare word", sb.RARE, sb.RARE, "rare word"),
    ("phrase", f'"{sb.PHRASE}"', f'"{sb.PHRASE}"', "phrase"),
)

# --------------------------------------------------------------------------------------------------
# a PostgreSQL server of the bench's own


def pg_bindir() -> Path | None:
    """The newest Debian PostgreSQL server binaries (``/usr/lib/postgresql/N/bin``)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4])
    )
    return Path(found[-1]).parent if found else None


def pg_missing() -> str | None:
    """Why the bench cannot start a server here (None: it can)."""
    if pg_bindir() is None:
        return "PostgreSQL server binaries (Debian's postgresql: /usr/lib/postgresql/*/bin)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "a postgres OS user to run the server as (Debian's postgresql)"
    return None


@dataclass
class Server:
    bin: Path
    root: Path
    user: str | None  # the OS user the server runs as (None: this one)
    port: int = PORT
    pid: int = 0

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def sockets(self) -> Path:
        return self.root / "run"

    def conninfo(self, role: str = "postgres", dbname: str = "team") -> str:
        return f"host={self.sockets} port={self.port} dbname={dbname} user={role}"

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bin / argv[0]), *argv[1:]]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=check)

    def start(self) -> None:
        self.run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8")
        self.sockets.mkdir()
        if self.user:
            shutil.chown(self.sockets, user=self.user)
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.write(
                f"listen_addresses = ''\nunix_socket_directories = '{self.sockets}'\n"
                f"port = {self.port}\n"
            )
        log = self.root / "server.log"
        self.run("pg_ctl", "-D", str(self.data), "-l", str(log), "-w", "-t", "120", "start")
        self.pid = int((self.data / "postmaster.pid").read_text().splitlines()[0])

    def stop(self) -> None:
        """Fast shutdown; SIGKILL by pid when it lingers."""
        if not self.pid:
            return
        r = self.run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop",
                     check=False)  # fmt: skip
        if r.returncode != 0:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(psutil.Error):
                psutil.Process(self.pid).wait(30)
        self.pid = 0

    def children(self) -> set[int]:
        with contextlib.suppress(psutil.Error):
            return {c.pid for c in psutil.Process(self.pid).children()}
        return set()

    def settle(self, background: set[int], timeout: float = 10.0) -> None:
        """Wait until the backends of clients gone have exited and been reaped (their CPU is
        then in the postmaster's children's times), or ``timeout``."""
        deadline = time.monotonic() + timeout
        while self.children() - background and time.monotonic() < deadline:
            time.sleep(0.01)

    def cpu_seconds(self) -> float:
        """CPU of the postmaster, its reaped children (ended backends) and its live ones."""
        try:
            p = psutil.Process(self.pid)
            t = p.cpu_times()
            total = t.user + t.system + t.children_user + t.children_system
            for c in p.children():
                with contextlib.suppress(psutil.Error):
                    ct = c.cpu_times()
                    total += ct.user + ct.system
            return float(total)
        except psutil.Error:
            return 0.0


def _traversable(path: Path, user: str) -> bool:
    r = subprocess.run(["runuser", "-u", user, "--", "test", "-x", str(path)],
                       capture_output=True, check=False)  # fmt: skip
    return r.returncode == 0


@contextlib.contextmanager
def server(base: Path, keep: bool = False) -> Iterator[Server]:
    """A started server in a dir of its own (under ``base`` when the ``postgres`` user can reach
    it, else in the system temp dir), stopped and removed at the end (kept with ``keep``, to be
    started again with ``pg_ctl -D <dir>/data start``)."""
    b = pg_bindir()
    assert b is not None
    user = "postgres" if os.geteuid() == 0 else None
    parent = base
    if user:
        os.chmod(base, 0o711)  # ours: let the server's user through to its own dir
        if not _traversable(base, user):
            parent = Path(tempfile.gettempdir())
    root = Path(tempfile.mkdtemp(prefix="lazy-bench-pg-", dir=parent))
    if user:
        shutil.chown(root, user=user)
    srv = Server(b, root, user)
    if len(str(srv.sockets / f".s.PGSQL.{srv.port}")) > 100:
        shutil.rmtree(root, ignore_errors=True)
        root = Path(tempfile.mkdtemp(prefix="lazy-bench-pg-"))
        if user:
            shutil.chown(root, user=user)
        srv = Server(b, root, user)
    try:
        srv.start()
        import psycopg

        with psycopg.connect(srv.conninfo(dbname="postgres"), autocommit=True) as c:
            c.execute("CREATE DATABASE team")
        yield srv
    finally:
        srv.stop()
        if keep:
            console.print(f"[dim]kept the server's cluster in {root}[/dim]")
        else:
            shutil.rmtree(root, ignore_errors=True)


def owner_query(srv: Server, q: str, args: tuple[Any, ...] | None = None) -> list[Any]:
    """``q`` as the database's owner (``postgres``), in autocommit (VACUUM runs too)."""
    import psycopg

    with psycopg.connect(srv.conninfo(), autocommit=True) as c:
        cur = c.execute(q.encode(), args)
        return list(cur.fetchall()) if cur.description else []


# --------------------------------------------------------------------------------------------------
# figures


@dataclass
class Step:
    """One child: wall and CPU seconds, peak memory, what it said when it failed."""

    argv: str = ""
    seconds: float | None = None
    cpu_seconds: float | None = None
    maxrss_bytes: int | None = None
    tree_rss_peak_bytes: int | None = None
    server_cpu_seconds: float | None = None
    error: str | None = None

    @classmethod
    def of(cls, c: harness.ChildRun, server_cpu: float | None = None) -> Step:
        s = cls(" ".join(c.argv[-4:]), c.seconds, c.cpu_seconds, c.maxrss_bytes,
                c.tree_rss_peak_bytes, server_cpu)  # fmt: skip
        if c.returncode != 0:
            s.error = f"exit {c.returncode}: {c.stderr_tail.strip()[-1200:]}"
        return s


@dataclass
class FullPush:
    step: Step = field(default_factory=Step)
    builders: int | None = None  # sent, as the push's JSON says
    messages: int | None = None
    skipped: list[Any] = field(default_factory=list)
    redactions: int | None = None
    server_messages: int | None = None  # rows in lazy_team.messages after
    text_bytes: int | None = None  # their searchable text (octet_length), summed on the server
    view_bytes: int | None = None  # their view JSON (jsonb as text), summed on the server
    messages_per_s: float | None = None
    mb_per_s: float | None = None  # (text + view) / wall


@dataclass
class IncPush:
    case: str
    builder_id: str = ""
    builder_messages: int = 0  # the Builder's size before the first turn
    session_bytes: int = 0
    session_path: str = ""
    capture_s: list[float] = field(default_factory=list)  # lazy capture --hook, untimed setup
    push_s: list[float] = field(default_factory=list)
    push_cpu_s: list[float] = field(default_factory=list)
    push_maxrss_bytes: list[int] = field(default_factory=list)
    sent_messages: list[int] = field(default_factory=list)
    p50_s: float | None = None
    max_s: float | None = None
    error: str | None = None


@dataclass
class Latency:
    reps: int = 0
    p50_ms: float | None = None
    p99_ms: float | None = None
    hits: int | None = None  # team: matching messages (COUNT); local: total_hits
    shown: int | None = None  # rows (team) or Builders (local) on the page
    error: str | None = None


@dataclass
class QueryRow:
    name: str
    team_query: str
    local_query: str
    expected: int | None
    team: Latency = field(default_factory=Latency)
    local: Latency = field(default_factory=Latency)
    team_cli_p50_ms: float | None = None
    local_cli_p50_ms: float | None = None
    team_plan: list[str] = field(default_factory=list)  # EXPLAIN (ANALYZE, BUFFERS)
    team_plan_ms: float | None = None
    # scans of the GIN index (messages_tsv) one search made, from pg_stat_get_xact_numscans
    # in its transaction (the plan does not show inside a function the query calls)
    team_gin_scans: int | None = None


@dataclass
class Sizes:
    database_bytes: int | None = None
    messages_total_bytes: int | None = None  # pg_total_relation_size: heap + TOAST + indexes
    messages_heap_bytes: int | None = None
    messages_toast_bytes: int | None = None
    gin_bytes: int | None = None  # messages_tsv
    pkey_bytes: int | None = None
    project_index_bytes: int | None = None
    builders_total_bytes: int | None = None


@dataclass
class Report:
    target_messages: int
    corpus_bytes: int = 0
    corpus_files: int = 0
    gen_seconds: float = 0.0
    planted: dict[str, Any] = field(default_factory=dict)
    store_messages: int = 0  # every stored message (Builders' and their sidechains')
    store_builders: int = 0
    projects: list[str] = field(default_factory=list)
    store_bytes: int = 0  # store.db (+ WAL)
    index_bytes: int = 0
    import_step: Step = field(default_factory=Step)
    index_step: Step = field(default_factory=Step)
    server_version: str = ""
    server_settings: dict[str, str] = field(default_factory=dict)
    setup_seconds: float | None = None  # init, invite, join, name
    full: FullPush = field(default_factory=FullPush)
    sizes_after_push: Sizes = field(default_factory=Sizes)
    vacuum_seconds: float | None = None
    sizes: Sizes = field(default_factory=Sizes)  # after VACUUM ANALYZE
    noop_push_s: list[float] = field(default_factory=list)
    noop_error: str | None = None
    floor_s: list[float] = field(default_factory=list)  # lazy team --help: start-up, imports
    incremental: list[IncPush] = field(default_factory=list)
    rows: list[QueryRow] = field(default_factory=list)
    profile: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


# --------------------------------------------------------------------------------------------------
# the store


def member_env(base: Path, home: Path, name: str, email: str) -> dict[str, str]:
    env = harness.isolated_env(base, home)
    env.update(LAZY_TEAM_NAME=name, LAZY_TEAM_EMAIL=email)
    for k in ("PGPASSWORD", "PGSERVICE", "PGHOST", "PGPORT", "PGUSER", "PGDATABASE"):
        env.pop(k, None)  # the conninfo says all
    return env


def prepare(args: argparse.Namespace, base: Path, r: Report) -> corpus.CorpusInfo | None:
    planter = sb.Planter(r.target_messages, args.seed)
    nbytes = r.target_messages * corpus.DENSE_BYTES_PER_MESSAGE
    console.print(
        f"generating ~{r.target_messages:,} messages ({corpus.format_size(nbytes)}) of history …"
    )
    info = corpus.generate(base / "corpus", nbytes, args.seed, dense=True, planter=planter)
    os.sync()
    files = harness.jsonl_files(info.projects_dir)
    r.corpus_bytes = sum(f.stat().st_size for f in files)
    r.corpus_files = len(files)
    r.gen_seconds = info.seconds
    r.planted = {"prompts": planter.prompts, "counts": dict(planter.counts),
                 "expected": planter.expected()}  # fmt: skip
    home = base / "lazy"
    env = harness.isolated_env(base, home)
    console.print(f"lazy import-conversation (LAZY_HOME={home}) …")
    r.import_step = Step.of(harness.import_history(info.projects_dir, env, args.timeout))
    if r.import_step.error:
        r.error = f"import failed: {r.import_step.error}"
        return None
    console.print("lazy index rebuild …")
    r.index_step = Step.of(harness.rebuild_index(env, args.timeout))
    if r.index_step.error:
        r.error = f"index rebuild failed: {r.index_step.error}"
        return None
    conn = sqlite3.connect(f"file:{home / 'store.db'}?mode=ro", uri=True)
    try:
        r.store_messages = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        r.store_builders = conn.execute("SELECT COUNT(*) FROM builders").fetchone()[0]
        r.projects = [row[0] for row in conn.execute(
            "SELECT DISTINCT project FROM sessions WHERE project IS NOT NULL ORDER BY 1")]  # fmt: skip
    finally:
        conn.close()
    r.store_bytes = sum(p.stat().st_size for p in home.glob("store.db*"))
    r.index_bytes = harness.dir_size(home / "index") if (home / "index").exists() else 0
    return info


# --------------------------------------------------------------------------------------------------
# the team


def lazy(env: dict[str, str], timeout: float, *args: str) -> harness.ChildRun:
    return harness.run_child([*harness.lazy_command(), *args], env, timeout)


def must(c: harness.ChildRun, what: str) -> harness.ChildRun:
    if c.returncode != 0:
        raise RuntimeError(f"{what}: exit {c.returncode}: {c.stderr_tail.strip()[-1500:]}")
    return c


def set_up(srv: Server, base: Path, r: Report, timeout: float) -> dict[str, str]:
    """init, invite, join, name every project; the member's environment."""
    t0 = time.perf_counter()
    owner = member_env(base, base / "owner", "Owner", "owner@acme.test")
    must(lazy(owner, timeout, "team", "init", srv.conninfo()), "lazy team init")
    must(lazy(owner, timeout, "team", "invite", MEMBER, "--db", srv.conninfo()), "invite")
    env = member_env(base, base / "lazy", MEMBER_NAME, MEMBER_EMAIL)
    must(lazy(env, timeout, "team", "join", srv.conninfo(MEMBER)), "lazy team join")
    for p in r.projects:
        must(lazy(env, timeout, "team", "name", p, f"acme/{Path(p).name}"), "lazy team name")
    r.setup_seconds = time.perf_counter() - t0
    rows = owner_query(srv, "SELECT name, setting FROM pg_settings WHERE name = ANY(%s)", ((
        ["shared_buffers", "work_mem", "maintenance_work_mem", "fsync", "synchronous_commit",
         "max_wal_size", "gin_pending_list_limit", "autovacuum", "effective_cache_size"],
    )))  # fmt: skip
    r.server_settings = {str(k): str(v) for k, v in rows}
    r.server_version = str(owner_query(srv, "SHOW server_version")[0][0])
    return env


def timed_push(srv: Server, env: dict[str, str], timeout: float) -> tuple[Step, Any]:
    background = srv.children()
    cpu0 = srv.cpu_seconds()
    c = lazy(env, timeout, "team", "push", "--json")
    srv.settle(background)
    step = Step.of(c, srv.cpu_seconds() - cpu0)
    return step, harness.parse_json(c.stdout) if c.returncode == 0 else None


def full_push(srv: Server, env: dict[str, str], r: Report, timeout: float) -> None:
    console.print(f"lazy team push ({r.store_messages:,} stored messages) …")
    f = r.full
    f.step, out = timed_push(srv, env, timeout)
    if f.step.error or not isinstance(out, dict):
        r.error = f"lazy team push failed: {f.step.error or 'no JSON'}"
        return
    f.builders = len(out.get("builders") or [])
    f.messages = int(out.get("messages") or 0)
    f.skipped = list(out.get("skipped") or [])
    f.redactions = sum((out.get("redactions") or {}).values())
    n, text, view = owner_query(
        srv,
        "SELECT count(*), COALESCE(sum(octet_length(text)), 0),"
        " COALESCE(sum(octet_length(view::text)), 0) FROM lazy_team.messages",
    )[0]
    f.server_messages, f.text_bytes, f.view_bytes = int(n), int(text), int(view)
    if f.step.seconds:
        f.messages_per_s = f.messages / f.step.seconds
        f.mb_per_s = harness.mb(f.text_bytes + f.view_bytes) / f.step.seconds


def sizes(srv: Server) -> Sizes:
    row = owner_query(
        srv,
        "SELECT pg_database_size(current_database()),"
        " pg_total_relation_size('lazy_team.messages'), pg_relation_size('lazy_team.messages'),"
        " COALESCE((SELECT pg_total_relation_size(reltoastrelid) FROM pg_class"
        "   WHERE oid = 'lazy_team.messages'::regclass AND reltoastrelid <> 0), 0),"
        " pg_relation_size('lazy_team.messages_tsv'), pg_relation_size('lazy_team.messages_pkey'),"
        " pg_relation_size('lazy_team.messages_project'),"
        " pg_total_relation_size('lazy_team.builders')",
    )[0]
    return Sizes(*(int(x) for x in row))


def tail_entry(path: Path) -> tuple[str | None, str]:
    """The uuid and cwd of the file's last line that has a uuid."""
    with path.open("rb") as fh:
        fh.seek(max(0, path.stat().st_size - (1 << 20)))
        lines = fh.read().splitlines()
    for raw in reversed(lines):
        with contextlib.suppress(orjson.JSONDecodeError):
            obj = orjson.loads(raw)
            if isinstance(obj, dict) and isinstance(obj.get("uuid"), str):
                return str(obj["uuid"]), str(obj.get("cwd") or "/")
    return None, "/"


def incremental(
    srv: Server, env: dict[str, str], info: corpus.CorpusInfo, r: Report, args: argparse.Namespace
) -> None:
    """A turn appended to the largest Builder's session, and to a median Builder's; each
    captured by the hook (untimed), then ``lazy team push`` timed, spawn to exit."""
    store = sqlite3.connect(f"file:{base_of(env) / 'store.db'}?mode=ro", uri=True)
    try:
        sized = []
        for path in info.session_files:
            row = store.execute(
                "SELECT b.id, b.message_count FROM sessions s JOIN builders b"
                " ON b.id = s.builder_id WHERE s.id = ?",
                (path.stem,),
            ).fetchone()
            if row and path.stat().st_size > 0:
                sized.append((int(row[1]), str(row[0]), path))
    finally:
        store.close()
    sized.sort()
    if not sized:
        r.error = "no session of a Builder to append to"
        return
    cases = [("largest Builder", sized[-1]), ("median Builder", sized[len(sized) // 2])]
    for name, (count, bid, path) in cases:
        inc = IncPush(name, bid, count, path.stat().st_size, str(path))
        r.incremental.append(inc)
        console.print(f"incremental push: a turn appended to the {name} ({count:,} messages) …")
        parent, cwd = tail_entry(path)
        for i in range(args.inc_reps):
            turn = corpus.append_turn(path, path.stem, parent, seed=args.seed + i + 1)
            parent = turn.last_uuid
            try:
                inc.capture_s.append(capture(env, path, cwd))
            except RuntimeError as e:
                inc.error = str(e)
                break
            step, out = timed_push(srv, env, args.timeout)
            if step.error or not isinstance(out, dict):
                inc.error = step.error or "no JSON"
                break
            inc.push_s.append(step.seconds or 0.0)
            inc.push_cpu_s.append(step.cpu_seconds or 0.0)
            inc.push_maxrss_bytes.append(step.maxrss_bytes or 0)
            inc.sent_messages.append(int(out.get("messages") or 0))
        if inc.push_s:
            inc.p50_s = harness.percentile(inc.push_s, 50)
            inc.max_s = max(inc.push_s)


def capture(env: dict[str, str], path: Path, cwd: str) -> float:
    """``lazy capture --hook`` of the session at ``path``, as its Stop hook runs it; seconds."""
    hook = [*harness.lazy_command(), "capture", "--hook"]
    payload = orjson.dumps({"session_id": path.stem, "transcript_path": str(path), "cwd": cwd,
                            "hook_event_name": "Stop"})  # fmt: skip
    t0 = time.perf_counter()
    cap = subprocess.run(hook, input=payload, env=env, capture_output=True, check=False)
    if cap.returncode != 0:
        raise RuntimeError(f"capture: exit {cap.returncode}: {cap.stderr.decode()[-800:]}")
    return time.perf_counter() - t0


def base_of(env: dict[str, str]) -> Path:
    return Path(env["LAZY_HOME"])


# --------------------------------------------------------------------------------------------------
# search


class _Explained(Exception):
    pass


class _Explainer:
    """Stands in for the connection ``browse.search`` is given: runs its query under EXPLAIN."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.plan: list[str] = []

    def execute(self, q: Any, args: Any = None) -> Any:
        from psycopg import sql

        cur = self.conn.execute(sql.SQL("EXPLAIN (ANALYZE, BUFFERS) ") + q, args)
        self.plan = [str(row[0]) for row in cur.fetchall()]
        raise _Explained


def timed(fn: Callable[[], Any], reps: int, warmup: int, budget: float) -> list[float]:
    """``warmup`` untimed runs, then up to ``reps`` timed ones (ms), stopping once ``budget``
    seconds are spent."""
    for _ in range(warmup):
        fn()
    times: list[float] = []
    start = time.perf_counter()
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
        if time.perf_counter() - start > budget:
            break
    return times


def latency(times: list[float], hits: int | None, shown: int | None) -> Latency:
    return Latency(len(times), harness.percentile(times, 50), harness.percentile(times, 99),
                   hits, shown)  # fmt: skip


def search_team(srv: Server, rows: list[QueryRow], args: argparse.Namespace) -> None:
    from lazy.team import browse
    from lazy.team.db import connect
    from lazy.team.schema import Conn

    console.print(f"team search (browse.search as role {MEMBER}) × {args.reps} per query …")
    with connect(srv.conninfo(MEMBER), "bench") as conn:
        for row in rows:
            try:
                q = row.team_query
                hits = browse.search(conn, q, limit=TEAM_LIMIT)
                tsq, targs = browse.tsquery(q)
                from psycopg import sql

                count = conn.execute(
                    sql.SQL("SELECT count(*) FROM lazy_team.messages WHERE line = '' AND tsv @@ ")
                    + tsq,
                    targs,
                ).fetchone()

                def once(q: str = q) -> object:
                    return browse.search(conn, q, limit=TEAM_LIMIT)

                times = timed(once, args.reps, args.warmup, args.budget)
                row.team = latency(times, int(count[0]) if count else None, len(hits))
                ex = _Explainer(conn)
                with contextlib.suppress(_Explained):
                    browse.search(cast(Conn, ex), q, limit=TEAM_LIMIT)
                row.team_plan = ex.plan
                row.team_gin_scans = gin_scans(conn, q)
                for line in ex.plan:
                    if line.startswith("Execution Time:"):
                        row.team_plan_ms = float(line.split(":")[1].split()[0])
            except Exception as e:
                row.team.error = f"{type(e).__name__}: {e}"


def gin_scans(conn: Any, q: str) -> int | None:
    """How many times one team search scanned the GIN index (its transaction's statistics)."""
    from lazy.team import browse

    with conn.transaction():
        browse.search(conn, q, limit=TEAM_LIMIT)
        row = conn.execute(
            "SELECT pg_stat_get_xact_numscans('lazy_team.messages_tsv'::regclass)"
        ).fetchone()
    return int(row[0]) if row else None


def search_local(home: Path, rows: list[QueryRow], args: argparse.Namespace) -> None:
    console.print(f"local search (lazy.index.search, in process) × {args.reps} per query …")
    try:
        search, close = sb.lazy_searcher(home)
    except Exception as e:
        for row in rows:
            row.local.error = f"{type(e).__name__}: {e}"
        return
    try:
        for row in rows:
            try:
                q = row.local_query
                total = search(q, 10_000)

                def once(q: str = q) -> object:
                    return search(q, sb.LAZY_LIMIT)

                times = timed(once, args.reps, args.warmup, args.budget)
                row.local = latency(times, total, None)
            except Exception as e:
                row.local.error = f"{type(e).__name__}: {e}"
    finally:
        close()


def search_cli(env: dict[str, str], rows: list[QueryRow], args: argparse.Namespace) -> None:
    if args.cli_reps <= 0:
        return
    console.print(f"lazy team search / lazy search as children × {args.cli_reps} per query …")
    for row in rows:
        team = [lazy(env, args.timeout, "team", "search", row.team_query, "--json")
                for _ in range(args.cli_reps)]  # fmt: skip
        local = [lazy(env, args.timeout, "search", "--all-projects", "--json", row.local_query)
                 for _ in range(args.cli_reps)]  # fmt: skip
        if all(c.returncode == 0 for c in team):
            row.team_cli_p50_ms = harness.percentile([c.seconds * 1000 for c in team], 50)
        elif not row.team.error:
            row.team.error = f"lazy team search: {team[0].stderr_tail.strip()[-400:]}"
        if all(c.returncode == 0 for c in local):
            row.local_cli_p50_ms = harness.percentile([c.seconds * 1000 for c in local], 50)
        elif not row.local.error:
            row.local.error = f"lazy search: {local[-1].stderr_tail.strip()[-400:]}"


# --------------------------------------------------------------------------------------------------
# the profile


@contextlib.contextmanager
def environ(env: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def profile_push(
    srv: Server, base: Path, r: Report, args: argparse.Namespace, env: dict[str, str]
) -> None:
    """Two pushes in process under cProfile (not timed), as a second member whose projects have
    other names: everything (every Builder goes again, whole), then after one turn appended to
    the largest Builder's session (captured by the hook first)."""
    from lazy.team import state as team_state

    console.print(f"profiling a full push in process (role {PROFILER}) …")
    owner = member_env(base, base / "owner", "Owner", "owner@acme.test")
    must(lazy(owner, args.timeout, "team", "invite", PROFILER, "--db", srv.conninfo()), "invite")
    phome = base / "profile-home"
    penv = member_env(base, phome, "Profile Member", PROFILER_EMAIL)
    must(lazy(penv, args.timeout, "team", "join", srv.conninfo(PROFILER)), "lazy team join")
    st = team_state.load(phome)
    assert st is not None
    st.names = {p: f"acme-profile/{Path(p).name}" for p in r.projects}
    r.profile["full"] = profiled(srv, base, st, phome, args.out / "team.prof")
    largest = next((x for x in r.incremental if x.case == "largest Builder"), None)
    if largest is None or not largest.session_path:
        return
    console.print("profiling an incremental push in process (a turn appended to the largest) …")
    path = Path(largest.session_path)
    parent, cwd = tail_entry(path)
    corpus.append_turn(path, path.stem, parent, seed=args.seed + 1000)
    capture(env, path, cwd)
    st = team_state.load(phome)
    assert st is not None
    r.profile["incremental"] = profiled(srv, base, st, phome, args.out / "team-incremental.prof")


def profiled(srv: Server, base: Path, st: Any, phome: Path, dest: Path) -> dict[str, Any]:
    """``lazy.team.push.run`` under cProfile, as the member of ``st``; its top functions."""
    from lazy.store.db import Store
    from lazy.team import push as pushing

    home = base / "lazy"
    prof = cProfile.Profile()
    with environ(member_env(base, home, "Profile Member", PROFILER_EMAIL)):
        store = Store.open(home)
        try:
            background = srv.children()
            cpu0 = srv.cpu_seconds()
            t0 = time.perf_counter()
            prof.enable()
            try:
                p = pushing.run(store.conn, st, home=phome)
            finally:
                prof.disable()
            took = time.perf_counter() - t0
            srv.settle(background)
            server_cpu = srv.cpu_seconds() - cpu0
        finally:
            store.close()
    dest.parent.mkdir(parents=True, exist_ok=True)
    prof.dump_stats(str(dest))
    stats = pstats.Stats(prof)
    return {
        "file": str(dest),
        "seconds": took,
        "server_cpu_seconds": server_cpu,
        "builders": len(p.builders),
        "messages": p.messages,
        "by_cumulative": top(stats, "cumulative", 40),
        "by_tottime": top(stats, "tottime", 30),
    }


def top(stats: pstats.Stats, key: str, n: int) -> list[dict[str, Any]]:
    rows = []
    raw = cast(dict[Any, Any], stats.stats)  # type: ignore[attr-defined]
    for (file, line, func), (_cc, nc, tt, ct, _callers) in raw.items():
        rows.append({"function": f"{Path(file).name}:{line}({func})", "file": file, "calls": nc,
                     "tottime": tt, "cumtime": ct})  # fmt: skip
    rows.sort(key=lambda x: x["cumtime" if key == "cumulative" else "tottime"], reverse=True)
    return rows[:n]


# --------------------------------------------------------------------------------------------------
# output


def gb(n: int | None) -> str:
    return corpus.format_size(n) if n is not None else "—"


def render(r: Report, env: dict[str, Any]) -> None:
    f = r.full
    table(
        f"history: {r.store_messages:,} stored messages in {r.store_builders:,} Builders, "
        f"{len(r.projects)} projects; corpus {gb(r.corpus_bytes)} in {r.corpus_files} files "
        f"(generated in {r.gen_seconds:.0f} s)",
        ("step", "wall s", "CPU s", "server CPU s", "ru_maxrss", "tree RSS", "msgs/s", "MB/s"),
        [
            ["lazy import-conversation", *step_cells(r.import_step), "—", "—"],
            ["lazy index rebuild", *step_cells(r.index_step), "—", "—"],
            [
                f"lazy team push (full: {f.builders or 0:,} Builders, {f.messages or 0:,} messages)",
                *step_cells(f.step),
                fmt(f.messages_per_s, ",.0f"),
                fmt(f.mb_per_s, ".2f"),
            ],
        ],
    )
    if f.text_bytes is not None:
        console.print(
            f"  pushed: {f.server_messages:,} rows on the server, text {gb(f.text_bytes)} + view "
            f"JSON {gb(f.view_bytes)}; {f.redactions} redaction(s); skipped: {f.skipped or 'none'}"
        )
    rows = [["lazy team --help (start-up and imports: the floor)", str(len(r.floor_s)), "—", "—",
             fmt(harness.percentile(r.floor_s, 50) if r.floor_s else None, ".2f"),
             fmt(max(r.floor_s) if r.floor_s else None, ".2f"), "—", "—"]]  # fmt: skip
    rows += [["push with nothing new", str(len(r.noop_push_s)), "—", "—",
             fmt(harness.percentile(r.noop_push_s, 50) if r.noop_push_s else None, ".2f"),
             fmt(max(r.noop_push_s) if r.noop_push_s else None, ".2f"), "—", "—"]]  # fmt: skip
    for inc in r.incremental:
        rows.append([
            f"a turn appended to the {inc.case}", str(len(inc.push_s)),
            f"{inc.builder_messages:,}", ",".join(str(x) for x in inc.sent_messages) or "—",
            fmt(inc.p50_s, ".2f"), fmt(inc.max_s, ".2f"),
            fmt(harness.percentile(inc.push_cpu_s, 50) if inc.push_cpu_s else None, ".2f"),
            fmt(harness.mb(max(inc.push_maxrss_bytes)) if inc.push_maxrss_bytes else None, ".0f"),
        ])  # fmt: skip
    table(
        "lazy team push as a child, spawn to exit (s); capture of the turn by the hook not in it",
        ("case", "pushes", "Builder msgs", "sent", "wall p50", "wall max", "CPU p50",
         "ru_maxrss MB"),
        rows,
    )  # fmt: skip
    if r.noop_error:
        console.print(f"  [red]push with nothing new: {r.noop_error[:600]}[/red]")
    for inc in r.incremental:
        if inc.error:
            console.print(f"  [red]{inc.case}: {inc.error[:600]}[/red]")
    qrows = []
    for q in r.rows:
        qrows.append([
            q.name, str(q.expected) if q.expected is not None else "—",
            hits(q.team, q.expected), hits(q.local, q.expected),
            fmt(q.team.p50_ms, ".2f"), fmt(q.team.p99_ms, ".2f"),
            fmt(q.local.p50_ms, ".2f"), fmt(q.local.p99_ms, ".2f"),
            fmt(harness.ratio(q.team.p50_ms, q.local.p50_ms), ".1f", "×"),
            fmt(q.team_cli_p50_ms, ".0f"), fmt(q.local_cli_p50_ms, ".0f"),
            "—" if q.team_gin_scans is None
            else str(q.team_gin_scans) if q.team_gin_scans else "[yellow]0[/yellow]",
        ])  # fmt: skip
    reps = max((q.team.reps for q in r.rows), default=0)
    table(
        f"search at {r.store_messages:,} messages, warm, ms: team = browse.search in process as "
        f"role {MEMBER} (RLS on, {TEAM_LIMIT} rows with ts_headline), local = lazy.index.search "
        f"in process (first page, {sb.LAZY_LIMIT} Builders); up to {reps} reps; CLI = child p50",
        ("query", "planted", "team hits", "local hits", "team p50", "team p99", "local p50",
         "local p99", "team÷local", "team CLI", "local CLI", "GIN scans"),
        qrows,
    )  # fmt: skip
    for q in r.rows:
        for side, lat in (("team", q.team), ("local", q.local)):
            if lat.error:
                console.print(f"  [red]{q.name}: {side}: {lat.error[:400]}[/red]")
    s, a = r.sizes, r.sizes_after_push
    table(
        "sizes (after the push / after VACUUM ANALYZE)",
        ("what", "after push", "after vacuum", "per message"),
        [
            ["PostgreSQL database (pg_database_size)", gb(a.database_bytes), gb(s.database_bytes),
             per(s.database_bytes, f.server_messages)],
            ["lazy_team.messages, total", gb(a.messages_total_bytes), gb(s.messages_total_bytes),
             per(s.messages_total_bytes, f.server_messages)],
            ["  heap", gb(a.messages_heap_bytes), gb(s.messages_heap_bytes),
             per(s.messages_heap_bytes, f.server_messages)],
            ["  TOAST", gb(a.messages_toast_bytes), gb(s.messages_toast_bytes),
             per(s.messages_toast_bytes, f.server_messages)],
            ["  GIN index (messages_tsv)", gb(a.gin_bytes), gb(s.gin_bytes),
             per(s.gin_bytes, f.server_messages)],
            ["  primary key + project index", gb(sum2(a.pkey_bytes, a.project_index_bytes)),
             gb(sum2(s.pkey_bytes, s.project_index_bytes)),
             per(sum2(s.pkey_bytes, s.project_index_bytes), f.server_messages)],
            ["lazy_team.builders, total", gb(a.builders_total_bytes), gb(s.builders_total_bytes),
             "—"],
            ["local store.db (+WAL)", gb(r.store_bytes), "", per(r.store_bytes, r.store_messages)],
            ["local index (Tantivy)", gb(r.index_bytes), "", per(r.index_bytes, r.store_messages)],
            ["corpus (JSONL)", gb(r.corpus_bytes), "", per(r.corpus_bytes, r.store_messages)],
        ],
    )  # fmt: skip
    if r.profile:
        render_profile(r.profile)
    maxima = [x.max_s for x in r.incremental if x.max_s is not None]
    worst = max(maxima) if maxima else None
    ok = worst is not None and all(x.error is None for x in r.incremental)
    targets([[f"incremental push after one appended turn < {TARGET_INCREMENTAL_S:g} s "
              "(worst push of every case)",
              f"{fmt(worst, '.2f', ' s')} at {r.store_messages:,} msgs",
              verdict(worst < TARGET_INCREMENTAL_S if ok and worst is not None else None)]])  # fmt: skip
    console.print(
        f"[dim]{env['cpu_count']} CPUs, load {env['loadavg_start']} → {env.get('loadavg_end')}, "
        f"PostgreSQL {r.server_version} (settings: {r.server_settings}), Python {env['python']}, "
        f"{env['platform']}. Team queries: {'; '.join(q.team_query for q in r.rows)}.[/dim]"
    )


def step_cells(s: Step) -> list[str]:
    if s.error:
        return ["[red]failed[/red]", "—", "—", "—", "—"]
    return [fmt(s.seconds, ".1f"), fmt(s.cpu_seconds, ".1f"), fmt(s.server_cpu_seconds, ".1f"),
            fmt(harness.mb(s.maxrss_bytes or 0), ".0f", " MB"),
            fmt(harness.mb(s.tree_rss_peak_bytes or 0), ".0f", " MB")]  # fmt: skip


def hits(lat: Latency, expected: int | None) -> str:
    if lat.error:
        return "[red]error[/red]"
    if lat.hits is None:
        return "—"
    if expected is not None and lat.hits != expected:
        return f"[yellow]{lat.hits}[/yellow]"
    return str(lat.hits)


def per(n: int | None, messages: int | None) -> str:
    return f"{n / messages:,.0f} B" if n is not None and messages else "—"


def sum2(a: int | None, b: int | None) -> int | None:
    return a + b if a is not None and b is not None else None


def render_profile(profile: dict[str, Any]) -> None:
    for what, p in profile.items():
        console.rule(
            f"cProfile of the {what} push in process (not timed): {p['seconds']:.1f} s under the "
            f"profiler, server CPU {p['server_cpu_seconds']:.1f} s, {p['builders']:,} Builder(s), "
            f"{p['messages']:,} messages"
        )
        for key, title in (("by_cumulative", "cumulative"), ("by_tottime", "own time")):
            table(
                f"{what} push: top functions by {title}",
                ("function", "calls", "own s", "cumulative s"),
                [[x["function"], f"{x['calls']:,}", f"{x['tottime']:.2f}", f"{x['cumtime']:.2f}"]
                 for x in p[key][:25]],
                right=1,
            )  # fmt: skip


# --------------------------------------------------------------------------------------------------


def run(args: argparse.Namespace, base: Path, r: Report) -> None:
    info = prepare(args, base, r)
    if info is None:
        return
    with server(base, args.keep) as srv:
        env = set_up(srv, base, r, args.timeout)
        full_push(srv, env, r, args.timeout)
        if r.error:
            return
        r.sizes_after_push = sizes(srv)
        for _ in range(3):
            step, _out = timed_push(srv, env, args.timeout)
            if step.error:
                r.noop_error = step.error
                break
            r.noop_push_s.append(step.seconds or 0.0)
        # the floor of a push as a child: the team CLI's start-up and imports
        r.floor_s = [lazy(env, args.timeout, "team", "--help").seconds for _ in range(3)]
        incremental(srv, env, info, r, args)
        t0 = time.perf_counter()
        owner_query(srv, "VACUUM ANALYZE lazy_team.messages")
        r.vacuum_seconds = time.perf_counter() - t0
        r.sizes = sizes(srv)
        expected = r.planted.get("expected", {})
        r.rows = [QueryRow(n, t, loc, expected.get(k) if k else None) for n, t, loc, k in QUERIES]
        with environ(env):
            search_team(srv, r.rows, args)
            search_local(base / "lazy", r.rows, args)
        search_cli(env, r.rows, args)
        if args.profile:
            profile_push(srv, base, r, args, env)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--messages", default="1M", help="stored messages of the history (default 1M)")
    ap.add_argument("--reps", type=int, default=100, help="timed runs per query, team and local")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs first")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds of timed runs per query")
    ap.add_argument("--cli-reps", type=int, default=5, help="search CLI children per query")
    ap.add_argument("--inc-reps", type=int, default=3, help="appended turns per Builder")
    ap.add_argument("--profile", action="store_true",
                    help="also push everything again in process under cProfile (not timed)")  # fmt: skip
    harness.common_args(ap, "team")
    args = ap.parse_args(argv)
    env_info = harness.machine_info()
    r = Report(target_messages=parse_count(args.messages))
    missing = pg_missing()
    if missing:
        r.error = f"cannot start PostgreSQL: missing {missing}"
    else:
        with harness.workdir(args.workdir, args.keep) as base:
            try:
                run(args, base.resolve(), r)
            except Exception as e:  # a failed step: say which, keep what was measured
                r.error = f"{type(e).__name__}: {e}"
    env_info["loadavg_end"] = os.getloadavg()
    if r.error:
        console.print(f"[red]{r.error}[/red]")
    render(r, env_info)
    harness.save(args.out, "team", {"env": env_info, "report": asdict(r)})
    return 1 if r.error else 0


if __name__ == "__main__":
    raise SystemExit(main())
