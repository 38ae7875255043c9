"""Helpers for the search index tests, and the child programs they start.

Sessions carry one unique token per message, so "findable" and "indexed once" are exact
counts. The index is read straight through tantivy (term queries, the doc id column), so those
counts do not depend on the query language under test elsewhere.

    python tests/support/search.py capture HOME READY GO PATH...
    python tests/support/search.py search-loop HOME DONE TOKENS READY
    python tests/support/search.py catch-up HOME BATCH [HOLD RELEASE]

Each prints one JSON object as its last stdout line (``catch-up`` first prints
``progress DONE TOTAL`` after every index commit). Processes wait on each other through
marker files polled with a deadline, never by sleeping for a guessed time.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import sqlite3
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

HERE = Path(__file__).resolve().parents[1]  # tests/: its siblings import as support.*
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import tantivy  # noqa: E402

from lazy.index.schema import build_schema, register  # noqa: E402
from lazy.store import parse_iso  # noqa: E402
from support.claude_session import Session  # noqa: E402

PYTHON = sys.executable
LAZY = str(Path(sys.executable).with_name("lazy"))
ME = str(Path(__file__).resolve())
REBUILDING = "rebuilding the search index from the store"
HIDDEN_ROLES = ("tool_call", "tool_result")  # out of the default (conversations) scope

T = TypeVar("T")


# ---- waiting -------------------------------------------------------------------------------


def poll(probe: Callable[[], T | None], *, timeout: float, what: str, every: float = 0.005) -> T:
    """``probe()`` until it is truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(every)


# ---- sessions with a token per message ------------------------------------------------------


@dataclass
class Written:
    path: Path
    session_id: str
    cwd: str
    tokens: list[str]  # one per message, in order (user, assistant, user, ...)


def token(tag: str, session: int, message: int) -> str:
    # letters and digits only: one whole token for every analyser
    return f"zq{tag}s{session:03d}m{message:04d}"


def write_sessions(
    projects: Path, tag: str, sessions: int, turns: int, cwd: str = "/w/searchproj"
) -> list[Written]:
    """``sessions`` Claude Code sessions of ``turns`` prompt/answer pairs each; message i of
    session s says ``token(tag, s, i)`` and nothing else unique."""
    out = []
    for s in range(sessions):
        ses = Session(projects, cwd)
        toks = []
        for t in range(turns):
            ask, say = token(tag, s, 2 * t), token(tag, s, 2 * t + 1)
            ses.turn(f"please look at {ask} in the parser", f"done with {say} and the tests")
            toks += [ask, say]
        out.append(Written(ses.path, ses.id, cwd, toks))
    return out


# ---- the index, read directly ----------------------------------------------------------------


class IndexView:
    """The index under ``home`` opened read-only as tantivy sees it (never rebuilt)."""

    def __init__(self, home: Path) -> None:
        self.index = tantivy.Index(build_schema(), path=str(home / "index"), reuse=True)
        register(self.index)

    def searcher(self) -> tantivy.Searcher:
        self.index.reload()
        return self.index.searcher()

    def doc_ids(self) -> list[int]:
        """Every document's message id, duplicates included."""
        s = self.searcher()
        if s.num_docs == 0:
            return []
        found = s.search(tantivy.Query.all_query(), s.num_docs + 10)
        return [int(i) for i in s.fast_field_values("doc_id", [a for _, a in found.hits])]

    def count(self, word: str, field: str = "text") -> int:
        s = self.searcher()
        q = tantivy.Query.term_query(self.index.schema, field, word)
        return int(s.search(q, 1, count=True).count or 0)

    def counts(self, words: Iterable[str], field: str = "text") -> dict[str, int]:
        s = self.searcher()
        out = {}
        for w in words:
            q = tantivy.Query.term_query(self.index.schema, field, w)
            out[w] = int(s.search(q, 1, count=True).count or 0)
        return out


# ---- the store, read from outside -------------------------------------------------------------


def ro(home: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"file:{home / 'store.db'}?mode=ro", uri=True, timeout=30)
    conn.execute("PRAGMA busy_timeout = 30000")
    return conn


def message_ids(home: Path) -> set[int]:
    """Messages placed in a Builder: the ones the index must hold."""
    with ro(home) as c:
        return {r[0] for r in c.execute("SELECT id FROM messages WHERE builder_id IS NOT NULL")}


def all_message_ids(home: Path) -> set[int]:
    with ro(home) as c:
        return {r[0] for r in c.execute("SELECT id FROM messages")}


def queued_ids(home: Path) -> set[int]:
    with ro(home) as c:
        return {r[0] for r in c.execute("SELECT message_id FROM index_queue")}


# ---- known answers: a scan of the store ----------------------------------------------------------

# What the index promises (schema.py's docstring), restated here so the scan does not run
# lazy's own analysis: split at camelCase humps and at every character that is not a letter
# or digit; lowercase; a token of 40 bytes or more is dropped but keeps its position. An
# identifier or phrase is then its tokens in a row.
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[^\W_]+")


def analyse(text: str) -> list[str | None]:
    words = _WORD.findall(_HUMP.sub(" ", text))
    return [t.lower() if len(t.encode()) < 40 else None for t in words]


def _contains(tokens: list[str | None], seq: list[str | None]) -> bool:
    n = len(seq)
    if n == 0:
        return False
    first = seq[0]
    return any(tokens[i] == first and tokens[i : i + n] == seq for i in range(len(tokens) - n + 1))


@dataclass
class _Msg:
    id: int
    tool: str
    role: str
    ts: datetime | None
    text: str
    tokens: list[str | None]

    def has(self, term: str) -> bool:
        """A word or phrase: its tokens in a row."""
        return _contains(self.tokens, analyse(term))


class Oracle:
    """The conversation text of every message placed in a Builder (text and thinking blocks
    of non-meta messages), scanned in Python to count what a query must find. The default
    scope leaves tool calls and tool results out, whatever reasoning they carry."""

    def __init__(self, messages: list[_Msg]) -> None:
        self.messages = messages

    @classmethod
    def load(cls, home: Path) -> Oracle:
        from lazy.store.archive import unpack_blocks  # only to decode the stored blocks

        out = []
        with ro(home) as c:
            rows = c.execute(
                "SELECT m.id, s.tool, m.role, m.ts, m.meta, m.text, m.blocks FROM messages m"
                " JOIN sessions s ON s.id = m.session_id WHERE m.builder_id IS NOT NULL"
            ).fetchall()
        for mid, tool, role, ts, meta, text, packed in rows:
            said = ""
            if not meta:
                blocks = unpack_blocks(packed, text)
                said = "\n\n".join(
                    str(b.get("text", "")) for b in blocks if b["type"] in ("text", "thinking")
                )
            out.append(_Msg(mid, tool, role, parse_iso(ts), said, analyse(said)))
        return cls(out)

    def count(self, query: str) -> int:
        """Matches of the small query forms the corpus tests use: words, "phrases",
        ``a OR b``, ``tool:X``/``-tool:X``, ``after:``/``before:`` (ISO with a zone)."""
        items = shlex.split(query)
        terms: list[list[str]] = []  # an AND of ORs
        keep: list[Callable[[_Msg], bool]] = [lambda m: m.role not in HIDDEN_ROLES]
        i = 0
        while i < len(items):
            item = items[i]
            if item == "OR":
                terms[-1].append(items[i + 1])
                i += 2
                continue
            name, _, value = item.partition(":")
            if name == "tool":
                keep.append(lambda m, v=value: m.tool == v)
            elif name == "-tool":
                keep.append(lambda m, v=value: m.tool != v)
            elif name in ("after", "before"):
                bound = parse_iso(value)
                assert bound is not None, item
                if name == "after":
                    keep.append(lambda m, b=bound: m.ts is not None and m.ts >= b)
                else:
                    keep.append(lambda m, b=bound: m.ts is not None and m.ts < b)
            else:
                terms.append([item])
            i += 1
        return sum(
            all(f(m) for f in keep) and all(any(m.has(t) for t in alts) for alts in terms)
            for m in self.messages
        )

    def literal(self, text: str) -> int:
        return sum(text in m.text for m in self.messages)


# ---- the CLI ----------------------------------------------------------------------------------


def env_for(lazy_home: Path, user_home: Path, **extra: str) -> dict[str, str]:
    """An environment that points lazy at ``lazy_home`` and every agent's default location
    under ``user_home``, never at this machine's own history."""
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "LAZY_HOME")}
    user_home.mkdir(parents=True, exist_ok=True)
    env.update(LAZY_HOME=str(lazy_home), HOME=str(user_home), PYTHONUNBUFFERED="1")
    env.update(CODEX_HOME=str(user_home / ".codex"), XDG_DATA_HOME=str(user_home / ".local"))
    env.update(extra)
    return env


def run_lazy(
    lazy_home: Path, user_home: Path, *args: str, cwd: Path | None = None, ok: bool = True
) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(
        [LAZY, *args],
        env=env_for(lazy_home, user_home),
        cwd=cwd or user_home,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if ok and p.returncode != 0:
        raise AssertionError(
            f"`lazy {' '.join(args)}` exited {p.returncode}\nstdout:\n{p.stdout}\n"
            f"stderr:\n{p.stderr}"
        )
    return p


def lazy_json(lazy_home: Path, user_home: Path, *args: str, cwd: Path | None = None) -> Any:
    p = run_lazy(lazy_home, user_home, *args, "--json", cwd=cwd)
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError as e:
        raise AssertionError(f"`lazy {' '.join(args)} --json` printed {p.stdout!r}") from e


def child(cmd: str, *args: str) -> list[str]:
    return [PYTHON, ME, cmd, *args]


def last_json(out: str) -> dict[str, Any]:
    lines = out.strip().splitlines()
    assert lines, "the child printed nothing"
    result: dict[str, Any] = json.loads(lines[-1])
    return result


# ---- child programs ---------------------------------------------------------------------------


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _wait_for(marker: Path) -> None:
    poll(marker.exists, timeout=60, what=str(marker))


def _capture(argv: list[str]) -> int:
    """Capture each file and catch the index up after each, as hooks and imports do."""
    from lazy.capture.source_file import capture_file
    from lazy.index.indexer import SearchIndex
    from lazy.store import Store

    home, ready, go = Path(argv[0]), Path(argv[1]), Path(argv[2])
    store = Store.open(home)
    ready.touch()
    _wait_for(go)
    added = indexed = 0
    for p in argv[3:]:
        added += capture_file(store, Path(p)).messages_added
        indexed += SearchIndex.open(home).catch_up(store)
    store.close()
    _emit({"messages_added": added, "indexed": indexed})
    return 0


def _search_loop(argv: list[str]) -> int:
    """Search (through lazy's own search) until DONE exists, then once more; report the
    most hits any single token ever had (a token is in one message: more is a duplicate)."""
    from lazy.index.indexer import SearchIndex
    from lazy.index.search import search
    from lazy.store import Store

    home, done, tokens_file, ready = (Path(a) for a in argv[:4])
    tokens = tokens_file.read_text().split()
    rng = random.Random(4)
    rounds = most = seen_some = 0
    store = Store.open(home)
    ix = SearchIndex.open(home)
    ready.touch()
    while True:
        finished = done.exists()
        ix.catch_up(store)  # the CLI catches up before each search: a third writer
        for word in rng.sample(tokens, 10):
            hits = search(ix, store.conn, word, limit=5).total_hits
            most = max(most, hits)
            seen_some += hits > 0
        rounds += 1
        if finished:
            break
    store.close()
    _emit({"rounds": rounds, "most": most, "found": seen_some})
    return 0


def _catch_up(argv: list[str]) -> int:
    """A catch-up in batches of BATCH; with HOLD and RELEASE it stops after its first
    commit, writer still held, until RELEASE exists."""
    import lazy.index.indexer as indexer
    from lazy.store import Store

    home, batch = Path(argv[0]), int(argv[1])
    hold = Path(argv[2]) if len(argv) > 2 else None
    release = Path(argv[3]) if len(argv) > 3 else None
    indexer.BATCH = batch
    store = Store.open(home)
    ix = indexer.SearchIndex.open(home)

    def progress(done: int, total: int) -> None:
        sys.stdout.write(f"progress {done} {total}\n")
        sys.stdout.flush()
        if hold is not None and release is not None and not hold.exists():
            hold.touch()
            _wait_for(release)

    try:
        n = ix.catch_up(store, progress)
    except Exception as e:
        _emit({"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()})
        return 0
    store.close()
    _emit({"indexed": n})
    return 0


def main() -> int:
    cmd, argv = sys.argv[1], sys.argv[2:]
    programs = {"capture": _capture, "search-loop": _search_loop, "catch-up": _catch_up}
    return programs[cmd](argv)


if __name__ == "__main__":
    sys.exit(main())
