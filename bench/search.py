"""Search benchmark: lazy's index beside SQLite FTS5 and ripgrep, on generated histories.

    python -m bench.search [--sizes 100k,1M] [--reps 200] [--rg-reps 5] [--out bench/out] [--keep]

Per corpus size (stored messages; a message-dense corpus from bench/corpus.py, ``dense=True``,
with words planted in known prompts so each query has a known answer):

* import: ``lazy import-conversation --all --yes --all-projects --source <corpus>/projects`` in a
  child process (timed, not part of the index figure);
* index build: ``lazy index rebuild`` in a child (seconds, messages/s, text MB/s, index size /
  corpus size), and an FTS5 table over the same message texts (same figures): the conversation
  and the tool calls and output of every stored message, taken from the store by the same
  function lazy's indexer uses (``texts_of``), in two columns as lazy has two fields;
* latency, warm, in-process: lazy's search as ``lazy search`` shows its first page (its default
  --limit of 10 Builders, up to 3 messages each, every one with a highlighted snippet), FTS5
  ``MATCH ... ORDER BY rank LIMIT 20`` with ``snippet()``, ``rg -c`` over the raw ``.jsonl``
  files; p50/p99 over a fixed mix of queries (common word, rare word, phrase, identifier,
  filtered by project and date); hit counts checked against the planted counts.

Targets (printed, never asserted): p50 <= 2 ms and p99 <= 20 ms warm at 1M messages; >= 100x
faster than rg at ~1 GB; build throughput at least FTS5's; index <= 10% of the corpus size.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench import corpus, harness
from bench.harness import console, fmt, parse_count, ratio, table, targets, verdict

TARGET_P50_MS = 2.0
TARGET_P99_MS = 20.0
TARGET_RG_X = 100.0
TARGET_INDEX_FRACTION = 0.10
LIMIT = 20  # FTS5 rows per query
LAZY_LIMIT = 10  # Builders per query: lazy search's default first page

# --------------------------------------------------------------------------------------------------
# planted words: each query's known answer

RARE = "zanzibarite"
PHRASE = "velvet thunder migration"
DECOY = "migration thunder velvet"  # the same words out of order: a phrase query must not match
IDENT = "xylo_frob_parser"
FILTER_WORD = "quokkaflux"
FILTER_PROJECT = "/home/u/proj-0"
FILTER_SINCE = "2026-10-01"  # corpus dates run Sep 1 .. late Nov 2026
FILTER_RG = '"timestamp":"2026-1[012]-'  # FILTER_SINCE as a regex on a line's timestamp

# planted prompts per corpus, whatever its size (the real counts are recorded as written)
PLANT_TARGETS = {"rare": 7, "phrase": 12, "decoy": 5, "ident": 9}
FILTER_EVERY = 8  # one prompt in FILTER_EVERY carries FILTER_WORD
# stored messages per prompt in the dense corpus (measured), to spread the plants evenly
MESSAGES_PER_PROMPT = 25


class Planter:
    """Appends planted words to every k-th prompt and counts them (and where they went)."""

    def __init__(self, messages: int, seed: int) -> None:
        prompts = max(20, messages // MESSAGES_PER_PROMPT)
        self.stride = {k: max(1, prompts // n) for k, n in PLANT_TARGETS.items()}
        # distinct phases, so the words mostly land in different prompts
        self.phase = {k: (seed + 3 * i + 1) % self.stride[k] for i, k in enumerate(PLANT_TARGETS)}
        self.counts = dict.fromkeys(PLANT_TARGETS, 0)
        self.filter_plants: list[tuple[str, str]] = []  # (cwd, timestamp)
        self.prompts = 0

    def __call__(self, prompt: str, cwd: str, ts: str) -> str:
        i = self.prompts
        self.prompts += 1
        words = {"rare": RARE, "phrase": PHRASE, "decoy": DECOY, "ident": f"`{IDENT}()`"}
        for key, word in words.items():
            if i % self.stride[key] == self.phase[key] and self.counts[key] < PLANT_TARGETS[key]:
                prompt += f" {word}"
                self.counts[key] += 1
        if i % FILTER_EVERY == FILTER_EVERY // 2:
            prompt += f" ({FILTER_WORD})"
            self.filter_plants.append((cwd, ts))
        return prompt

    def expected(self) -> dict[str, int | None]:
        filtered = sum(
            1 for cwd, ts in self.filter_plants if cwd == FILTER_PROJECT and ts >= FILTER_SINCE
        )
        return {
            "common word": None,
            "rare word": self.counts["rare"],
            "phrase": self.counts["phrase"],
            "identifier": self.counts["ident"],
            "filtered": filtered,
        }


@dataclass(frozen=True)
class Query:
    name: str
    lazy: str
    fts: str  # FTS5 MATCH expression
    fts_where: str  # extra SQL conditions on the FTS5 table's columns
    rg: list[str]  # ripgrep arguments before the paths
    rg_project: str | None = None  # search only this project's directory


def queries() -> list[Query]:
    project_dir = corpus.project_dir_name(FILTER_PROJECT)
    name = FILTER_PROJECT.rsplit("/", 1)[-1]
    # a planted prompt's line has its timestamp after the message: the date filter as a regex
    return [
        # FTS5 searches its text column, as lazy's default scope is the conversation
        Query("common word", "cache", "text : cache", "", ["-i", "-w", "cache"]),
        Query("rare word", RARE, f"text : {RARE}", "", ["-i", "-F", RARE]),
        Query("phrase", f'"{PHRASE}"', f'text : "{PHRASE}"', "", ["-i", "-F", PHRASE]),
        Query("identifier", IDENT, f'text : "{IDENT}"', "", ["-F", IDENT]),
        Query(
            "filtered",
            f"{FILTER_WORD} project:{name} after:{FILTER_SINCE}T00:00Z",  # the corpus is UTC
            f"text : {FILTER_WORD}",
            f" AND project = '{FILTER_PROJECT}' AND ts >= '{FILTER_SINCE}'",
            ["-i", f"{FILTER_WORD}.*{FILTER_RG}"],
            rg_project=project_dir,
        ),
    ]


# --------------------------------------------------------------------------------------------------
# figures


@dataclass
class Latency:
    reps: int = 0
    p50_ms: float | None = None
    p99_ms: float | None = None
    hits: int | None = None  # matching messages (lazy: total_hits; FTS5: COUNT; rg: lines)
    error: str | None = None


@dataclass
class QueryRow:
    name: str
    lazy_query: str
    expected: int | None
    store_count: int | None = None  # messages whose text holds the planted word (SQL LIKE)
    lazy: Latency = field(default_factory=Latency)
    fts: Latency = field(default_factory=Latency)
    rg: Latency = field(default_factory=Latency)
    mismatch: str | None = None


@dataclass
class Build:
    seconds: float | None = None
    cpu_seconds: float | None = None
    documents: int | None = None
    size_bytes: int | None = None
    messages_per_s: float | None = None
    text_mb_per_s: float | None = None
    fraction_of_corpus: float | None = None
    peak_rss_bytes: int | None = None
    error: str | None = None


@dataclass
class SizeRun:
    label: str
    target_messages: int
    corpus_bytes: int = 0
    corpus_files: int = 0
    gen_seconds: float = 0.0
    planted: dict[str, Any] = field(default_factory=dict)
    messages: int = 0
    text_bytes: int = 0
    import_seconds: float | None = None
    import_error: str | None = None
    lazy_build: Build = field(default_factory=Build)
    fts_build: Build = field(default_factory=Build)
    rows: list[QueryRow] = field(default_factory=list)
    error: str | None = None


def timed(fn: Callable[[], Any], reps: int, warmup: int) -> tuple[list[float], Any]:
    """Run ``fn`` ``warmup`` times untimed, then ``reps`` times; milliseconds and the last result."""
    result = None
    for _ in range(warmup):
        result = fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return times, result


def latency(times: list[float], hits: int | None) -> Latency:
    return Latency(
        reps=len(times),
        p50_ms=harness.percentile(times, 50),
        p99_ms=harness.percentile(times, 99),
        hits=hits,
    )


# --------------------------------------------------------------------------------------------------
# lazy


def lazy_searcher(home: Path) -> tuple[Callable[[str, int], int], Callable[[], None]]:
    """``search(query, limit) -> total hits`` through lazy's in-process API, and a closer."""
    from lazy.index.indexer import SearchIndex
    from lazy.store.db import Store

    store = Store.open(home)
    ix = SearchIndex.open(home)
    try:
        from lazy.index.search import search as run
    except ImportError:  # the API as first announced: SearchIndex.search
        run = None

    def search(query: str, limit: int) -> int:
        if run is not None:
            res = run(ix, store.conn, query, limit=limit)
        else:
            res = ix.search(query, limit=limit)  # type: ignore[attr-defined]
        total = getattr(res, "total_hits", None)
        if total is None:
            total = sum(len(g.hits) for g in res.groups)
        return int(total)

    return search, store.close


def lazy_build(run: SizeRun, base: Path, home: Path, timeout: float) -> Build:
    env = harness.isolated_env(base, home)
    child = harness.rebuild_index(env, timeout)
    b = Build(seconds=child.seconds, cpu_seconds=child.cpu_seconds)
    b.peak_rss_bytes = child.maxrss_bytes
    if child.returncode != 0:
        b.error = f"exit {child.returncode}: {child.stderr_tail.strip()[-800:]}"
        return b
    index_dir = home / "index"
    b.size_bytes = harness.dir_size(index_dir) if index_dir.exists() else None
    with contextlib.suppress(ImportError, Exception):
        import tantivy

        from lazy.index import schema

        ix = tantivy.Index.open(str(index_dir))
        schema.register(ix)
        b.documents = ix.searcher().num_docs
    finish_build(b, run)
    return b


def finish_build(b: Build, run: SizeRun) -> None:
    if b.seconds:
        b.messages_per_s = run.messages / b.seconds
        b.text_mb_per_s = harness.mb(run.text_bytes) / b.seconds
    if b.size_bytes is not None and run.corpus_bytes:
        b.fraction_of_corpus = b.size_bytes / run.corpus_bytes


# --------------------------------------------------------------------------------------------------
# FTS5


def fts_build(run: SizeRun, store_db: Path, dest: Path) -> Build:
    """An FTS5 table over the same message texts as lazy's index (the conversation and the
    tool text, from the store, by lazy's own ``texts_of``), with the project and date to
    filter on. Timed from reading the store to the last commit, as lazy's build is."""
    from lazy.index.documents import texts_of

    dest.unlink(missing_ok=True)
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    conn = sqlite3.connect(dest)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(
        "CREATE VIRTUAL TABLE fts USING fts5(text, tools, project UNINDEXED, ts UNINDEXED, "
        "tokenize = 'unicode61')"
    )
    store = sqlite3.connect(f"file:{store_db}?mode=ro", uri=True)
    rows = store.execute(
        "SELECT m.id, m.role, m.text, m.blocks, m.meta, s.project, m.ts FROM messages m "
        "JOIN sessions s ON s.id = m.session_id WHERE m.builder_id IS NOT NULL"
    )
    with conn:
        conn.executemany(
            "INSERT INTO fts(rowid, text, tools, project, ts) VALUES (?, ?, ?, ?, ?)",
            (
                (mid, *texts_of(role, text, blocks, bool(meta)), project, ts)
                for mid, role, text, blocks, meta, project, ts in rows
            ),
        )
    store.close()
    n = conn.execute("SELECT COUNT(*) FROM fts").fetchone()[0]
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    b = Build(seconds=time.perf_counter() - t0, cpu_seconds=time.process_time() - cpu0)
    b.documents = n
    b.size_bytes = sum(p.stat().st_size for p in dest.parent.glob(dest.name + "*"))
    finish_build(b, run)
    return b


def fts_searcher(db: Path) -> tuple[Callable[[Query, int], int], Callable[[Query], int], Any]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)

    def search(q: Query, limit: int) -> int:
        rows = conn.execute(
            "SELECT rowid, snippet(fts, 0, '[', ']', '…', 24) FROM fts "
            f"WHERE fts MATCH ?{q.fts_where} ORDER BY rank LIMIT ?",
            (q.fts, limit),
        ).fetchall()
        return len(rows)

    def count(q: Query) -> int:
        sql = f"SELECT COUNT(*) FROM fts WHERE fts MATCH ?{q.fts_where}"
        return int(conn.execute(sql, (q.fts,)).fetchone()[0])

    return search, count, conn


# --------------------------------------------------------------------------------------------------
# ripgrep


def rg_count(rg: str, q: Query, projects: Path) -> int:
    where = projects / q.rg_project if q.rg_project else projects
    r = subprocess.run(
        [rg, "-c", "--no-messages", *q.rg, "-g", "*.jsonl", str(where)],
        capture_output=True,
        check=False,
    )
    return sum(int(x.rsplit(b":", 1)[-1]) for x in r.stdout.splitlines() if x)


# --------------------------------------------------------------------------------------------------
# one corpus size


def store_counts(store_db: Path) -> tuple[int, int, dict[str, int]]:
    """Messages, their text bytes, and the messages holding each planted word."""
    conn = sqlite3.connect(f"file:{store_db}?mode=ro", uri=True)
    try:
        n, text = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(LENGTH(text)), 0) FROM messages"
        ).fetchone()
        like = "SELECT COUNT(*) FROM messages WHERE text LIKE ?"
        planted = {
            "rare word": conn.execute(like, (f"%{RARE}%",)).fetchone()[0],
            "phrase": conn.execute(like, (f"%{PHRASE}%",)).fetchone()[0],
            "identifier": conn.execute(like, (f"%{IDENT}%",)).fetchone()[0],
            "filtered": conn.execute(
                "SELECT COUNT(*) FROM messages m JOIN sessions s ON s.id = m.session_id "
                "WHERE m.text LIKE ? AND s.project = ? AND m.ts >= ?",
                (f"%{FILTER_WORD}%", FILTER_PROJECT, FILTER_SINCE),
            ).fetchone()[0],
        }
        return int(n), int(text), planted
    finally:
        conn.close()


def time_lazy(rows: list[QueryRow], qs: list[Query], home: Path, args: argparse.Namespace) -> None:
    console.print(f"  lazy search × {args.reps} per query …")
    try:
        search, close = lazy_searcher(home)
    except Exception as e:  # the API not there (yet): report, keep the baselines
        for row in rows:
            row.lazy.error = f"{type(e).__name__}: {e}"
        return
    try:
        for q, row in zip(qs, rows, strict=True):
            try:
                total = search(q.lazy, 10_000)  # untimed: the hit count to check
                times, _ = timed(lambda q=q: search(q.lazy, LAZY_LIMIT), args.reps, args.warmup)
                row.lazy = latency(times, total)
            except Exception as e:
                row.lazy.error = f"{type(e).__name__}: {e}"
    finally:
        close()


def time_fts(rows: list[QueryRow], qs: list[Query], fts_db: Path, args: argparse.Namespace) -> None:
    console.print(f"  FTS5 × {args.reps} per query …")
    fsearch, fcount, fconn = fts_searcher(fts_db)
    try:
        for q, row in zip(qs, rows, strict=True):
            try:
                times, _ = timed(lambda q=q: fsearch(q, LIMIT), args.reps, args.warmup)
                row.fts = latency(times, fcount(q))
            except sqlite3.Error as e:
                row.fts.error = str(e)
    finally:
        fconn.close()


def time_rg(
    rows: list[QueryRow], qs: list[Query], rg: str, projects: Path, args: argparse.Namespace
) -> None:
    console.print(f"  rg × {args.rg_reps} per query …")
    for q, row in zip(qs, rows, strict=True):
        times, hits = timed(
            lambda q=q: rg_count(rg, q, projects), args.rg_reps, min(1, args.warmup)
        )
        row.rg = latency(times, hits)


def mismatch(row: QueryRow) -> str | None:
    """Where a count differs from the planted one (reported under the table, never asserted)."""
    if row.expected is None:
        return row.mismatch
    problems = []
    if row.store_count is not None and row.store_count != row.expected:
        problems.append(f"store {row.store_count}")
    if row.lazy.hits is not None and row.lazy.hits != row.expected:
        problems.append(f"lazy {row.lazy.hits}")
    if row.fts.hits is not None and row.fts.hits != row.expected:
        problems.append(f"FTS5 {row.fts.hits}")
    return f"planted {row.expected}: " + ", ".join(problems) if problems else row.mismatch


def run_size(
    label: str,
    messages: int,
    args: argparse.Namespace,
    base: Path,
    rg: str | None,
) -> SizeRun:
    run = SizeRun(label=label, target_messages=messages)
    cdir, home = base / f"corpus-{label}", base / f"home-{label}"
    planter = Planter(messages, args.seed)
    nbytes = messages * corpus.DENSE_BYTES_PER_MESSAGE
    console.print(
        f"[bold]{label}[/bold]: generating ~{messages:,} messages ({corpus.format_size(nbytes)}) …"
    )
    info = corpus.generate(cdir, nbytes, args.seed, dense=True, planter=planter)
    os.sync()
    files = harness.jsonl_files(info.projects_dir)
    run.corpus_bytes = sum(f.stat().st_size for f in files)
    run.corpus_files = len(files)
    run.gen_seconds = info.seconds
    expected = planter.expected()
    run.planted = {
        "prompts": planter.prompts,
        "counts": dict(planter.counts),
        "filter_plants": len(planter.filter_plants),
        "expected": expected,
    }

    env = harness.isolated_env(base, home)
    console.print(f"  lazy import-conversation … (LAZY_HOME={home})")
    child = harness.import_history(info.projects_dir, env, args.timeout)
    run.import_seconds = child.seconds
    if child.returncode != 0:
        run.import_error = f"exit {child.returncode}: {child.stderr_tail.strip()[-800:]}"
        console.print(f"  [red]import failed[/red] {run.import_error[:400]}")
        run.error = "import failed"
        return run
    store_db = home / "store.db"
    run.messages, run.text_bytes, in_store = store_counts(store_db)

    console.print(f"  lazy index rebuild ({run.messages:,} messages) …")
    run.lazy_build = lazy_build(run, base, home, args.timeout)
    if run.lazy_build.error:
        console.print(f"  [red]lazy index rebuild failed[/red] {run.lazy_build.error[:400]}")
    console.print("  FTS5 build …")
    fts_db = base / f"fts-{label}.db"
    run.fts_build = fts_build(run, store_db, fts_db)

    qs = queries()
    run.rows = [QueryRow(q.name, q.lazy, expected.get(q.name), in_store.get(q.name)) for q in qs]
    if not run.lazy_build.error:
        time_lazy(run.rows, qs, home, args)
    time_fts(run.rows, qs, fts_db, args)
    if rg:
        time_rg(run.rows, qs, rg, info.projects_dir, args)
    for row in run.rows:
        row.mismatch = mismatch(row)
    if not args.keep:
        shutil.rmtree(cdir, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
        for p in base.glob(fts_db.name + "*"):
            p.unlink(missing_ok=True)
    return run


# --------------------------------------------------------------------------------------------------
# output


def render(runs: list[SizeRun], env: dict[str, Any]) -> None:
    for run in runs:
        table(
            f"{run.label}: {run.messages:,} messages, corpus "
            f"{corpus.format_size(run.corpus_bytes)} in {run.corpus_files} files, message text "
            f"{corpus.format_size(run.text_bytes)}; import {fmt(run.import_seconds, '.1f', ' s')}",
            ("index", "build s", "CPU s", "msg/s", "text MB/s", "size", "size ÷ corpus", "docs"),
            [build_row("lazy (lazy index rebuild)", run.lazy_build),
             build_row("SQLite FTS5", run.fts_build)],
        )  # fmt: skip
        cols = ["query", "planted", "lazy hits", "FTS5 hits", "rg lines"]
        cols += ["lazy p50", "lazy p99", "FTS5 p50", "FTS5 p99", "rg p50", "rg p99"]
        cols += ["FTS5÷lazy p50", "rg÷lazy p50"]
        table(
            f"{run.label}: latency, warm, ms (lazy: first page, {LAZY_LIMIT} Builders with "
            f"snippets; FTS5: {LIMIT} rows with snippet(); rg -c)",
            cols,
            [latency_row(r) for r in run.rows],
        )
        for r in run.rows:
            if r.mismatch:
                console.print(f"  [yellow]{r.name}: {r.mismatch}[/yellow]")
            if r.lazy.error:
                console.print(f"  [red]{r.name}: lazy: {r.lazy.error[:300]}[/red]")
        console.print(f"[dim]lazy queries: {'; '.join(r.lazy_query for r in run.rows)}[/dim]")
    targets(target_rows(runs[-1]) if runs else [])
    console.print(
        f"[dim]{env['cpu_count']} CPUs, Python {env['python']}, SQLite {env['sqlite']}, "
        f"{env['platform']}. lazy and FTS5 index the same texts: each message's conversation "
        "and its tool calls and output, in two fields/columns; queries search the conversation. "
        "Warm: page cache warm, a few untimed runs first. rg counts matching "
        "lines (a prompt is also copied in queue-operation / last-prompt lines).[/dim]"
    )


def build_row(name: str, x: Build) -> list[str]:
    return [
        name,
        fmt(x.seconds, ".2f") if not x.error else "[red]failed[/red]",
        fmt(x.cpu_seconds, ".2f"),
        fmt(x.messages_per_s, ",.0f"),
        fmt(x.text_mb_per_s, ".1f"),
        corpus.format_size(x.size_bytes) if x.size_bytes is not None else "—",
        fmt(x.fraction_of_corpus * 100 if x.fraction_of_corpus is not None else None, ".1f", "%"),
        f"{x.documents:,}" if x.documents is not None else "—",
    ]


def latency_row(r: QueryRow) -> list[str]:
    lazy_hits = str(r.lazy.hits) if r.lazy.hits is not None else "—"
    if r.mismatch and r.lazy.hits != r.expected:
        lazy_hits = f"[red]{lazy_hits}[/red]"
    return [
        r.name,
        str(r.expected) if r.expected is not None else "—",
        lazy_hits if not r.lazy.error else "[red]error[/red]",
        str(r.fts.hits) if r.fts.hits is not None else "—",
        str(r.rg.hits) if r.rg.hits is not None else "—",
        fmt(r.lazy.p50_ms, ".2f"),
        fmt(r.lazy.p99_ms, ".2f"),
        fmt(r.fts.p50_ms, ".2f"),
        fmt(r.fts.p99_ms, ".2f"),
        fmt(r.rg.p50_ms, ".0f"),
        fmt(r.rg.p99_ms, ".0f"),
        fmt(ratio(r.fts.p50_ms, r.lazy.p50_ms), ".1f", "×"),
        fmt(ratio(r.rg.p50_ms, r.lazy.p50_ms), ",.0f", "×"),
    ]


def target_rows(big: SizeRun) -> list[list[str]]:
    """The verdicts, taken at the largest size run."""
    at = f"{big.messages:,} msgs"
    lazy_rows = [r for r in big.rows if r.lazy.p50_ms is not None]
    p50 = max((r.lazy.p50_ms or 0 for r in lazy_rows), default=None)
    p99 = max((r.lazy.p99_ms or 0 for r in lazy_rows), default=None)
    ok = bool(lazy_rows) and len(lazy_rows) == len(big.rows)
    rg_x = [ratio(r.rg.p50_ms, r.lazy.p50_ms) for r in big.rows]
    rg_ok = [x for x in rg_x if x is not None]
    lb, fb = big.lazy_build, big.fts_build
    frac = lb.fraction_of_corpus
    fts_frac = fb.fraction_of_corpus * 100 if fb.fraction_of_corpus else None
    return [
        [f"p50 ≤ {TARGET_P50_MS:g} ms warm at 1M messages (worst query)",
         f"{fmt(p50, '.2f', ' ms')} at {at}",
         verdict(p50 <= TARGET_P50_MS if ok and p50 is not None else None)],
        [f"p99 ≤ {TARGET_P99_MS:g} ms warm at 1M messages (worst query)",
         f"{fmt(p99, '.2f', ' ms')} at {at}",
         verdict(p99 <= TARGET_P99_MS if ok and p99 is not None else None)],
        [f"≥ {TARGET_RG_X:g}× faster than rg at ~1 GB (slowest query's p50 ratio)",
         f"{fmt(min(rg_ok) if rg_ok else None, ',.0f', '×')} at "
         f"{corpus.format_size(big.corpus_bytes)}",
         verdict(min(rg_ok) >= TARGET_RG_X if rg_ok and len(rg_ok) == len(rg_x) else None)],
        ["build throughput ≥ FTS5's (messages/s)",
         f"lazy {fmt(lb.messages_per_s, ',.0f')} vs FTS5 {fmt(fb.messages_per_s, ',.0f')}",
         verdict(lb.messages_per_s >= fb.messages_per_s
                 if lb.messages_per_s and fb.messages_per_s else None)],
        [f"index ≤ {TARGET_INDEX_FRACTION:.0%} of the corpus size",
         f"{fmt(frac * 100 if frac is not None else None, '.1f', '%')} "
         f"(FTS5 {fmt(fts_frac, '.1f', '%')})",
         verdict(frac <= TARGET_INDEX_FRACTION if frac is not None else None)],
    ]  # fmt: skip


# --------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", default="100k,1M", help="corpus sizes in messages (default 100k,1M)")
    ap.add_argument("--reps", type=int, default=200, help="timed runs per query, lazy and FTS5")
    ap.add_argument("--rg-reps", type=int, default=5, help="timed runs per query, rg")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs first")
    harness.common_args(ap, "search")
    args = ap.parse_args(argv)
    sizes = [(s.strip(), parse_count(s)) for s in args.sizes.split(",") if s.strip()]
    env_info = harness.machine_info()
    rg = harness.ensure_rg()
    if not rg:
        console.print("[yellow]ripgrep not found: the rg baseline is skipped[/yellow]")
    runs: list[SizeRun] = []
    with harness.workdir(args.workdir, args.keep) as base:
        for label, n in sizes:
            runs.append(run_size(label, n, args, base, rg))
    env_info["loadavg_end"] = os.getloadavg()
    render(runs, env_info)
    out = {
        "env": env_info,
        "targets": {
            "p50_ms_at_1M": TARGET_P50_MS,
            "p99_ms_at_1M": TARGET_P99_MS,
            "x_faster_than_rg_at_1GB": TARGET_RG_X,
            "build_throughput": "at least FTS5's (messages/s)",
            "index_fraction_of_corpus": TARGET_INDEX_FRACTION,
        },
        "queries": [asdict(q) for q in queries()],
        "runs": [asdict(r) for r in runs],
    }
    harness.save(args.out, "search", out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
