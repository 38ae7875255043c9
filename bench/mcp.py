"""MCP benchmark: `lazy mcp` over stdio on a large generated store, beside AgentsView's MCP
server (`agentsview mcp`) over the same corpus.

    python -m bench.mcp [--messages 1M] [--reps 50] [--startups 5] [--out bench/out] [--keep]

One run: a message-dense Claude Code corpus (bench/corpus.py, ``dense=True``, with bench.search's
planted words), imported with `lazy import-conversation` and indexed with `lazy index rebuild`
in children; then, through the official SDK's stdio client, each a child process:

* start-up to first answer: spawn `lazy mcp`, initialize, one search answered (``--startups``
  fresh processes, p50 and max);
* search: lazy_conversation_search, all projects, for bench.search's queries (common word, rare
  word, phrase, identifier, filtered), ``--reps`` timed calls each after ``--warmup``; p50/p99;
* read: lazy_conversation_read of messages 1-200 of the longest Builder at the largest budget
  (60k tokens), and the whole Builder paged at the default budget (pages, tokens per page);
* list: lazy_conversation_list, 20 Builders;
* result sizes in tokens (characters / 4) of the structured content (what Claude Code 2.1 sends
  the model) and of the text content.

AgentsView (``pip install agentsview``; its binary syncs the same corpus into its own SQLite):
search_sessions for the same words, get_messages (100 a call, so two calls for 200 messages),
list_sessions; run in a loopback-only network namespace (``unshare --net``) with its own HOME,
its daemon stopped at the end. Ratios are AgentsView p50 / lazy p50. Never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench import corpus, harness
from bench import search as planted
from bench.harness import console, fmt, parse_count, ratio, table, targets, verdict

TARGET_SEARCH_P50_MS = 50.0  # a tool call an agent makes mid-turn: well under its own latency
TARGET_STARTUP_S = 2.0
READ_BUDGET = 60_000
AGENTSVIEW_QUERIES = {  # bench.search's queries as AgentsView's search_sessions takes them
    "common word": {"query": "cache"},
    "rare word": {"query": planted.RARE},
    "phrase": {"query": f'"{planted.PHRASE}"'},
    "identifier": {"query": planted.IDENT},
    "filtered": {"query": planted.FILTER_WORD, "date_from": planted.FILTER_SINCE},
}


@dataclass
class Call:
    name: str
    reps: int = 0
    p50_ms: float | None = None
    p99_ms: float | None = None
    structured_tokens: int | None = None
    text_tokens: int | None = None
    note: str = ""
    error: str | None = None


@dataclass
class Side:
    """One server's figures."""

    server: str
    startup_p50_s: float | None = None
    startup_max_s: float | None = None
    calls: list[Call] = field(default_factory=list)
    long_builder: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def tokens(value: Any) -> int:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return -(-len(text) // 4)


def _sizes(result: Any) -> tuple[int | None, int | None]:
    text = "\n".join(getattr(c, "text", "") for c in result.content)
    structured = result.structuredContent
    return (tokens(structured) if structured is not None else None), tokens(text)


async def timed_call(
    c: Any, name: str, tool: str, args: dict[str, Any], reps: int, warmup: int
) -> tuple[Call, Any]:
    """``reps`` timed calls after ``warmup`` untimed ones: the figures and the last result."""
    result = None
    for _ in range(warmup):
        result = await c.call_tool(tool, args)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        result = await c.call_tool(tool, args)
        times.append((time.perf_counter() - t0) * 1000)
    call = Call(name, reps, harness.percentile(times, 50), harness.percentile(times, 99))
    if result is not None:
        call.structured_tokens, call.text_tokens = _sizes(result)
        if result.isError:
            call.error = "\n".join(getattr(x, "text", "") for x in result.content)[:300]
    return call, result


def stdio(command: str, args: list[str], env: dict[str, str], cwd: Path) -> Any:
    from mcp.client.stdio import stdio_client

    from mcp import StdioServerParameters

    return stdio_client(StdioServerParameters(command=command, args=args, env=env, cwd=str(cwd)))


async def startup(
    spawn: Callable[[], Any], first: Callable[[Any], Awaitable[Any]], n: int
) -> list[float]:
    """Seconds from spawning the server to its first answer, ``n`` fresh processes."""
    from mcp import ClientSession

    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        async with spawn() as (r, w), ClientSession(r, w) as c:
            await c.initialize()
            await first(c)
            out.append(time.perf_counter() - t0)
    return out


# ---- lazy ------------------------------------------------------------------------------------


async def measure_lazy(env: dict[str, str], cwd: Path, args: argparse.Namespace) -> Side:
    from mcp import ClientSession

    side = Side("lazy mcp")
    cmd = harness.lazy_command()

    def spawn() -> Any:
        return stdio(cmd[0], [*cmd[1:], "mcp"], env, cwd)

    async def first(c: Any) -> Any:
        return await c.call_tool(
            "lazy_conversation_search", {"query": planted.RARE, "all_projects": True}
        )

    starts = await startup(spawn, first, args.startups)
    side.startup_p50_s, side.startup_max_s = harness.percentile(starts, 50), max(starts)
    async with spawn() as (r, w), ClientSession(r, w) as c:
        await c.initialize()
        for q in planted.queries():
            call, _ = await timed_call(
                c, f"search: {q.name}", "lazy_conversation_search",
                {"query": q.lazy, "all_projects": True}, args.reps, args.warmup,
            )  # fmt: skip
            side.calls.append(call)
        call, _ = await timed_call(
            c, "list 20", "lazy_conversation_list", {"all_projects": True, "limit": 20},
            args.reps, args.warmup,
        )  # fmt: skip
        side.calls.append(call)
        await read_long(c, side, args)
    return side


async def read_long(c: Any, side: Side, args: argparse.Namespace) -> None:
    """The longest Builder: a 200-message page at the largest budget, then read whole at the
    default budget, page by page."""
    every = await c.call_tool("lazy_conversation_list", {"all_projects": True, "limit": 200})
    builders = (every.structuredContent or {}).get("conversations") or []
    if not builders:
        side.error = "no Builders listed"
        return
    longest = max(builders, key=lambda b: b["messages"])
    page = {"id": longest["id"], "start": 1, "end": 200, "max_tokens": READ_BUDGET}
    reps = max(3, args.reps // 5)
    call, result = await timed_call(c, "read 1-200", "lazy_conversation_read", page, reps, 1)
    got = (result.structuredContent or {}) if result is not None else {}
    call.note = f"{len(got.get('messages') or [])} shown for #1-{got.get('last')}"
    side.calls.append(call)
    pages, times, sizes, start = 0, [], [], 1
    while start is not None and pages < args.max_pages:
        t0 = time.perf_counter()
        r = await c.call_tool("lazy_conversation_read", {"id": longest["id"], "start": start})
        times.append((time.perf_counter() - t0) * 1000)
        data = r.structuredContent or {}
        sizes.append(tokens(data))
        start = data.get("next_start")
        pages += 1
    side.long_builder = {
        "id": longest["id"],
        "messages": longest["messages"],
        "pages_at_default_budget": pages,
        "read_whole": start is None,
        "page_p50_ms": harness.percentile(times, 50),
        "structured_tokens_per_page_max": max(sizes),
        "structured_tokens_total": sum(sizes),
    }


# ---- AgentsView --------------------------------------------------------------------------------


def agentsview_binary() -> str | None:
    """The Go binary the agentsview wheel ships (pip install agentsview)."""
    try:
        import agentsview  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        found = shutil.which("agentsview")
        return found
    exe = Path(agentsview.__file__).parent / "bin" / "agentsview"
    return str(exe) if exe.is_file() else shutil.which("agentsview")


async def measure_agentsview(spec: dict[str, Any]) -> Side:
    """Inside the namespace: sync the corpus, then time the MCP calls."""
    from mcp import ClientSession

    exe, home, reps, warmup = spec["exe"], Path(spec["home"]), spec["reps"], spec["warmup"]
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    side = Side("agentsview mcp")
    t0 = time.perf_counter()
    sync = subprocess.run(
        [exe, "sync"], env=env, capture_output=True, text=True, timeout=spec["timeout"]
    )
    side.long_builder["sync_seconds"] = time.perf_counter() - t0
    if sync.returncode != 0:
        side.error = f"sync failed: {sync.stderr[-400:]}"
        return side

    def spawn() -> Any:
        return stdio(exe, ["mcp"], env, home)

    async def first(c: Any) -> Any:
        return await c.call_tool("search_sessions", AGENTSVIEW_QUERIES["rare word"])

    starts = await startup(spawn, first, spec["startups"])
    side.startup_p50_s, side.startup_max_s = harness.percentile(starts, 50), max(starts)
    async with spawn() as (r, w), ClientSession(r, w) as c:
        await c.initialize()
        for name, q in AGENTSVIEW_QUERIES.items():
            call, _ = await timed_call(c, f"search: {name}", "search_sessions", q, reps, warmup)
            side.calls.append(call)
        call, _ = await timed_call(c, "list 20", "list_sessions", {"limit": 20}, reps, warmup)
        side.calls.append(call)
        listed = await c.call_tool("list_sessions", {"limit": 100, "include_one_shot": True})
        sessions = _sessions_of(listed)
        if not sessions:
            side.error = f"list_sessions gave no sessions: {_text(listed)[:300]}"
            return side
        longest = max(sessions, key=_count)
        side.long_builder.update(id=_id(longest), messages=_count(longest), keys=sorted(longest))
        call, _ = await timed_call(
            c, "read 1-100 (of 200: 2 calls)", "get_messages",
            {"session_id": _id(longest), "from": 0, "limit": 100}, max(3, reps // 5), 1,
        )  # fmt: skip
        side.calls.append(call)
    return side


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def _sessions_of(result: Any) -> list[dict[str, Any]]:
    data = result.structuredContent
    if data is None:
        try:
            data = json.loads(_text(result))
        except json.JSONDecodeError:
            return []
    rows = data.get("sessions") if isinstance(data, dict) else data
    return [r for r in rows or [] if isinstance(r, dict) and _id(r)]


def _id(session: dict[str, Any]) -> str:
    return str(session.get("id") or session.get("session_id") or "")


def _count(session: dict[str, Any]) -> int:
    for key in ("message_count", "messages", "user_message_count"):
        if isinstance(session.get(key), int):
            return int(session[key])
    return 0


def stop_daemons(home: Path) -> None:
    """The daemons agentsview started under ``home``, stopped by their pid (from its own
    daemon.<pid>.json), once each is checked to be agentsview."""
    import psutil

    for f in (home / ".agentsview").glob("daemon.*.json"):
        try:
            pid = int(json.loads(f.read_text())["pid"])
            p = psutil.Process(pid)
            if "agentsview" in " ".join(p.cmdline()):
                p.terminate()
                p.wait(10)
        except (OSError, ValueError, KeyError, psutil.Error):
            continue


def run_agentsview(projects: Path, base: Path, args: argparse.Namespace) -> Side | None:
    exe = agentsview_binary()
    if exe is None:
        console.print(
            "[yellow]agentsview not installed (pip install agentsview): no baseline[/yellow]"
        )
        return None
    if shutil.which("unshare") is None or os.geteuid() != 0:
        console.print(
            "[yellow]agentsview runs only in a loopback-only namespace (root + unshare)[/yellow]"
        )
        return None
    home = base / "agentsview-home"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "projects").symlink_to(projects, target_is_directory=True)
    spec = {
        "exe": exe, "home": str(home), "reps": args.reps, "warmup": args.warmup,
        "startups": args.startups, "timeout": args.timeout,
    }  # fmt: skip
    spec_path, out_path = base / "agentsview-spec.json", base / "agentsview-out.json"
    spec_path.write_text(json.dumps(spec))
    console.print(f"  agentsview sync + MCP calls ({exe}) …")
    try:
        p = subprocess.run(
            ["unshare", "--net", "--", sys.executable, "-m", "bench.mcp", "--peer", str(spec_path), str(out_path)],
            capture_output=True, text=True, timeout=args.timeout,
            cwd=Path(__file__).resolve().parent.parent,
        )  # fmt: skip
    finally:
        stop_daemons(home)
    if p.returncode != 0 or not out_path.exists():
        return Side("agentsview mcp", error=f"exit {p.returncode}: {p.stderr[-600:]}")
    data = json.loads(out_path.read_text())
    return Side(**{**data, "calls": [Call(**c) for c in data["calls"]]})


def peer_main(spec_path: str, out_path: str) -> int:
    """``python -m bench.mcp --peer spec out``: the AgentsView side, in its namespace."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False)
    spec = json.loads(Path(spec_path).read_text())
    try:
        side = asyncio.run(measure_agentsview(spec))
    finally:
        exe, home = spec["exe"], spec["home"]
        subprocess.run(
            [exe, "daemon", "stop"],
            env=dict(os.environ, HOME=home),
            capture_output=True,
            timeout=60,
        )
        stop_daemons(Path(home))
    Path(out_path).write_text(json.dumps(asdict(side)))
    return 0


# ---- the run ---------------------------------------------------------------------------------


def render(lazy: Side, peer: Side | None, messages: int) -> None:
    by_name = {c.name: c for c in peer.calls} if peer else {}
    rows = []
    for c in lazy.calls:
        other = by_name.get(c.name) or by_name.get(
            c.name.replace("read 1-200", "read 1-100 (of 200: 2 calls)")
        )
        if c.name == "read 1-200":
            other = by_name.get("read 1-100 (of 200: 2 calls)")
        rows.append([
            c.name, fmt(c.p50_ms, ".1f"), fmt(c.p99_ms, ".1f"), fmt(c.structured_tokens, ",.0f"),
            fmt(c.text_tokens, ",.0f"), c.note or (c.error or "")[:60],
            fmt(other.p50_ms, ".1f") if other else "—", fmt(other.p99_ms, ".1f") if other else "—",
            fmt(other.text_tokens, ",.0f") if other else "—",
            fmt(ratio(other.p50_ms * (2 if c.name == "read 1-200" else 1), c.p50_ms) if other and other.p50_ms else None, ".2f", "×"),
        ])  # fmt: skip
    table(
        f"lazy mcp over stdio, {messages:,} messages: ms per tool call (warm), result tokens",
        ("call", "lazy p50", "lazy p99", "structured tok", "text tok", "lazy note",
         "AgentsView p50", "AgentsView p99", "AgentsView tok", "AgentsView ÷ lazy p50"),
        rows, right=1,
    )  # fmt: skip
    starts = [
        ["lazy mcp", fmt(lazy.startup_p50_s, ".2f"), fmt(lazy.startup_max_s, ".2f")],
    ]
    if peer:
        starts.append([
            "agentsview mcp (daemon running)", fmt(peer.startup_p50_s, ".2f"), fmt(peer.startup_max_s, ".2f"),
        ])  # fmt: skip
    table(
        "start-up to first answer, s (spawn, initialize, one search)",
        ("server", "p50", "max"),
        starts,
    )
    lb = lazy.long_builder
    if lb:
        console.print(
            f"longest Builder {lb['id']}: {lb['messages']:,} messages, read whole in "
            f"{lb['pages_at_default_budget']} page(s) at the default budget (whole: {lb['read_whole']}),"
            f" {lb['structured_tokens_total']:,} tokens in all, at most "
            f"{lb['structured_tokens_per_page_max']:,} a page, page p50 {fmt(lb['page_p50_ms'], '.1f')} ms"
        )
    if peer and peer.error:
        console.print(f"[red]agentsview: {peer.error}[/red]")
    search_p50 = max((c.p50_ms or 0) for c in lazy.calls if c.name.startswith("search"))
    targets([
        [f"search p50 ≤ {TARGET_SEARCH_P50_MS:.0f} ms (worst query)", fmt(search_p50, ".1f", " ms"),
         verdict(search_p50 <= TARGET_SEARCH_P50_MS)],
        [f"start-up to first answer ≤ {TARGET_STARTUP_S:.0f} s", fmt(lazy.startup_p50_s, ".2f", " s"),
         verdict(lazy.startup_p50_s is not None and lazy.startup_p50_s <= TARGET_STARTUP_S)],
    ])  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--peer"]:
        return peer_main(argv[1], argv[2])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--messages", default="1M", help="stored messages in the corpus (default 1M)")
    ap.add_argument("--reps", type=int, default=50, help="timed calls per query")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--startups", type=int, default=5, help="fresh server processes timed")
    ap.add_argument("--max-pages", type=int, default=500, help="pages read of the longest Builder")
    ap.add_argument("--no-agentsview", action="store_true", help="skip the AgentsView baseline")
    harness.common_args(ap, "mcp")
    args = ap.parse_args(argv)
    messages = parse_count(args.messages)
    env_info = harness.machine_info()
    with harness.workdir(args.workdir, args.keep) as base:
        cdir, home = base / "corpus", base / "home"
        console.print(f"generating ~{messages:,} messages …")
        info = corpus.generate(
            cdir, messages * corpus.DENSE_BYTES_PER_MESSAGE, args.seed, dense=True,
            planter=planted.Planter(messages, args.seed),
        )  # fmt: skip
        env = harness.isolated_env(base, home)
        console.print("  lazy import-conversation, lazy index rebuild …")
        imported = harness.import_history(info.projects_dir, env, args.timeout)
        built = harness.rebuild_index(env, args.timeout)
        if imported.returncode != 0 or built.returncode != 0:
            console.print(
                f"[red]import or index failed[/red] {imported.stderr_tail[-400:]}{built.stderr_tail[-400:]}"
            )
            return 1
        cwd = base / "empty" / "home"
        console.print("  lazy mcp calls …")
        lazy = asyncio.run(measure_lazy(env, cwd, args))
        peer = None if args.no_agentsview else run_agentsview(info.projects_dir, base, args)
    env_info["loadavg_end"] = os.getloadavg()
    render(lazy, peer, messages)
    harness.save(args.out, "mcp", {
        "env": env_info, "messages": messages, "import_seconds": imported.seconds,
        "index_seconds": built.seconds, "lazy": asdict(lazy), "agentsview": asdict(peer) if peer else None,
    })  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
