"""Transcript benchmark: opening and reading a long Builder, in the sidecar, the webview and the
terminal, beside claude-code-log converting the same session.

    python -m bench.transcript [--long 50k] [--show 10k] [--reps 100] [--webview-reps 10]
                               [--out bench/out] [--workdir DIR] [--keep]
    python -m bench.transcript --reuse DIR     # measure again on a store kept by --keep

One store, two Claude Code sessions written by bench/rich_session.py (tests/fabricate/claude.py's
2.1.114 lines, with Markdown, code fences, thinking, Bash/Read/Edit/Write/Grep/Glob/TodoWrite/
WebFetch calls and their results): a Builder of ``--long`` messages and one of ``--show``,
imported by ``lazy import-conversation`` and indexed by ``lazy index rebuild`` in children
(bench/harness.py's isolated environment). Then:

* sidecar: ``lazy sidecar`` driven as the extension drives it (bench/sidecar.py's client, live
  capture on). Cold, ``--cold-runs`` times: spawn → ``initialize`` → ``builders/get`` → the
  first ``transcripts/page`` (200 messages), each step and the sum. Warm: ``--reps`` pages of
  200 at the start, middle and end, p50/p99. The first ``--capture-pages`` pages (start 1,
  then each answer's ``next_start``) are kept as ``pages.json`` for the webview;
* webview: bench/transcript_webview.mjs loads the extension's built webview
  (``extension/dist/webview/transcript.js``, ``npm run build``) in the extension's own shell
  (``transcriptHtml``) in headless Chromium, with ``acquireVsCodeApi`` stubbed to answer from
  ``pages.json``: first paint (navigation start → the first page painted) and render time of
  a 200-message page (posted → painted: the first, and each loaded by scrolling to the end),
  ``--webview-reps`` loads, each in a new page (VS Code opens each transcript in a new webview:
  nothing of the last one to tear down, no compiled script to reuse), p50/p90; what the DOM holds after (headings, code blocks,
  highlighted spans: whether Markdown and highlighting happened);
* terminal: ``lazy show`` of the ``--show``-message Builder into a file (not a terminal, as a
  pipe), ``--show-reps`` times: wall, CPU, peak RSS, output size; and ``--full`` when lazy
  has it. Beside it claude-code-log (``--ccl-version``, installed with pip into its own venv
  under ``$XDG_CACHE_HOME/lazy-bench/``) converting the same session file to HTML
  (``--no-cache``), the same figures and the ratios.

Targets (printed, never asserted): first paint <= 150 ms, a 200-message page rendered <= 50 ms
(p90 both), sidecar transcripts/page <= 50 ms (p99).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from bench import harness
from bench import rich_session as rs
from bench import sidecar as sb
from bench.harness import console, fmt, parse_count, percentile, ratio, table, targets, verdict
from tests.fabricate.claude import session_id

TARGET_FIRST_PAINT_MS = 150.0
TARGET_RENDER_MS = 50.0
TARGET_PAGE_MS = 50.0
PAGE = 200
LONG_CWD = rs.LONG_CWD
SHOW_CWD = "/home/u/show-builder"
PREPARED = "prepared.json"
PAGES = "pages.json"
REPO = Path(__file__).resolve().parent.parent
WEBVIEW_SCRIPT = Path(__file__).resolve().parent / "transcript_webview.mjs"
CHROMIUM = Path(os.environ.get("LAZY_CHROMIUM") or "/usr/bin/chromium")
CCL_VERSION = "1.7.0"

# --------------------------------------------------------------------------------------------------
# figures


@dataclass
class Prepared:
    long_id: str = ""
    long_written: int = 0  # messages the generator wrote
    long_bytes: int = 0
    show_id: str = ""
    show_written: int = 0
    show_bytes: int = 0
    show_path: str = ""
    gen_seconds: float = 0.0
    import_seconds: float | None = None
    index_seconds: float | None = None
    store_messages: int = 0
    error: str | None = None


@dataclass
class Cold:
    runs: int = 0
    initialize_ms: list[float] = field(default_factory=list)
    builders_get_ms: list[float] = field(default_factory=list)
    first_page_ms: list[float] = field(default_factory=list)
    spawn_to_page_ms: list[float] = field(default_factory=list)
    error: str | None = None


@dataclass
class SidecarFigures:
    long_messages: int | None = None  # as builders/get counts them
    cold: Cold = field(default_factory=Cold)
    warm: list[sb.Latency] = field(default_factory=list)
    pages_captured: int = 0
    page_bytes: list[int] = field(default_factory=list)  # JSON of each captured answer
    error: str | None = None


@dataclass
class Dist:
    n: int = 0
    p50: float | None = None
    p90: float | None = None
    max: float | None = None

    @classmethod
    def of(cls, values: list[float]) -> Dist:
        if not values:
            return cls()
        return cls(len(values), percentile(values, 50), percentile(values, 90), max(values))


@dataclass
class WebviewFigures:
    loads: int = 0
    first_paint_ms: Dist = field(default_factory=Dist)
    ready_ms: Dist = field(default_factory=Dist)  # navigation start → the webview's "ready"
    first_posted_ms: Dist = field(default_factory=Dist)  # → the first page posted to it
    first_page_render_ms: Dist = field(default_factory=Dist)
    page_render_ms: Dist = field(default_factory=Dist)  # pages loaded by scrolling
    dom: dict[str, Any] = field(default_factory=dict)  # after the last load
    requests: list[list[int]] = field(default_factory=list)  # (start, count) of the last load
    refused: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    chromium: str | None = None
    bundle_bytes: int | None = None
    screenshot: str | None = None
    error: str | None = None


@dataclass
class Conversion:
    name: str
    argv: list[str]
    reps: int = 0
    seconds: list[float] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)
    maxrss_mb: float | None = None
    tree_rss_mb: float | None = None
    output_bytes: int | None = None
    output_lines: int | None = None
    error: str | None = None

    @property
    def p50_s(self) -> float | None:
        return percentile(self.seconds, 50) if self.seconds else None

    @property
    def cpu_p50_s(self) -> float | None:
        return percentile(self.cpu_seconds, 50) if self.cpu_seconds else None


@dataclass
class Report:
    prepared: Prepared
    sidecar: SidecarFigures = field(default_factory=SidecarFigures)
    webview: WebviewFigures = field(default_factory=WebviewFigures)
    show: list[Conversion] = field(default_factory=list)


# --------------------------------------------------------------------------------------------------
# the store


def env_for(base: Path) -> dict[str, str]:
    return sb.sidecar_env(base, base / "lazy-home", base / "claude")


def prepare(args: argparse.Namespace, base: Path) -> Prepared:
    p = Prepared()
    projects = base / "claude" / "projects"
    long_n, show_n = parse_count(args.long), parse_count(args.show)
    console.print(f"writing a {long_n:,}-message and a {show_n:,}-message session …")
    t0 = time.perf_counter()
    long = rs.write_session(projects, session_id(long_n, "long"), long_n, seed=args.seed)
    show = rs.write_session(
        projects, session_id(show_n, "show"), show_n, seed=args.seed + 1, cwd=SHOW_CWD
    )
    p.gen_seconds = time.perf_counter() - t0
    p.long_id, p.long_written, p.long_bytes = long.session_id, long.messages, long.bytes
    p.show_id, p.show_written, p.show_bytes = show.session_id, show.messages, show.bytes
    p.show_path = str(show.path)
    env = env_for(base)
    console.print(f"  lazy import-conversation ({harness.mb(long.bytes + show.bytes):.0f} MB) …")
    child = harness.import_history(projects, env, args.timeout)
    p.import_seconds = child.seconds
    if child.returncode != 0:
        p.error = f"import failed: exit {child.returncode}: {child.stderr_tail.strip()[-800:]}"
        return p
    conn = sqlite3.connect(f"file:{base / 'lazy-home' / 'store.db'}?mode=ro", uri=True)
    try:
        p.store_messages = int(conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0])
    finally:
        conn.close()
    console.print("  lazy index rebuild …")
    child = harness.rebuild_index(env, args.timeout)
    p.index_seconds = child.seconds
    (base / PREPARED).write_bytes(orjson.dumps(asdict(p)))
    return p


# --------------------------------------------------------------------------------------------------
# the sidecar


async def cold_runs(env: dict[str, str], bid: str, runs: int) -> Cold:
    c = Cold()
    for _ in range(runs):
        client: sb.BenchClient | None = None
        try:
            t0 = time.perf_counter()
            client, init_ms = await sb.start(env, live=True)
            t1 = time.perf_counter()
            got = await client.call("builders/get", {"id": bid})
            t2 = time.perf_counter()
            params = {"builder_id": got["id"], "start": 1, "count": PAGE}
            await client.call("transcripts/page", params)
            t3 = time.perf_counter()
            c.initialize_ms.append(init_ms)
            c.builders_get_ms.append((t2 - t1) * 1000)
            c.first_page_ms.append((t3 - t2) * 1000)
            c.spawn_to_page_ms.append((t3 - t0) * 1000)
        except Exception as e:
            c.error = sb.failure(e, client)
            break
        finally:
            if client is not None:
                await sb.stop(client)
    c.runs = len(c.first_page_ms)
    return c


async def capture(client: sb.BenchClient, bid: str, pages: int, dest: Path) -> list[int]:
    """The first ``pages`` pages as the webview asks for them, with the Builder, to ``dest``."""
    builder = await client.call("builders/get", {"id": bid})
    got: list[dict[str, Any]] = []
    start: int | None = 1
    while start is not None and len(got) < pages:
        params = {"builder_id": bid, "session_id": None, "start": start, "count": PAGE}
        result = await client.call("transcripts/page", params)
        got.append({"params": params, "result": result})
        start = result.get("next_start")
    dest.write_bytes(orjson.dumps({"builder": builder, "pages": got}))
    return [len(orjson.dumps(p["result"])) for p in got]


async def measure_sidecar(args: argparse.Namespace, base: Path, p: Prepared) -> SidecarFigures:
    f = SidecarFigures()
    env = env_for(base)
    console.print(f"sidecar: {args.cold_runs} cold starts to the first page …")
    f.cold = await cold_runs(env, p.long_id, args.cold_runs)
    client: sb.BenchClient | None = None
    try:
        t0 = time.perf_counter()
        client, _ = await sb.start(env, live=True)
        got = await client.call("builders/get", {"id": p.long_id})
        bid, total = str(got["id"]), int(got["message_count"])
        f.long_messages = total
        await sb.first_sweep(client, t0)
        await client.quiet()
        console.print(f"sidecar: transcripts/page × {args.reps} at the start, middle and end …")
        for where, at in (("start", 1), ("middle", max(1, total // 2)), ("end", total - PAGE + 1)):
            f.warm.append(
                await sb.timed(
                    client,
                    f"transcripts/page, {PAGE} at the {where} (from {at:,})",
                    "transcripts/page",
                    {"builder_id": bid, "start": max(1, at), "count": PAGE},
                    args.reps,
                    3,
                    lambda r: len(r["messages"]),
                )
            )
        f.page_bytes = await capture(client, bid, args.capture_pages, base / PAGES)
        f.pages_captured = len(f.page_bytes)
    except Exception as e:
        f.error = sb.failure(e, client)
        console.print(f"  [red]sidecar failed[/red] {f.error[:600]}")
    finally:
        if client is not None:
            await sb.stop(client)
    return f


# --------------------------------------------------------------------------------------------------
# the webview


def sh(argv: list[str], cwd: Path, timeout: float = 900, **env: str) -> str | None:
    """Run a setup step; None when it worked, else what went wrong."""
    try:
        r = subprocess.run(
            argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=os.environ | env
        )
    except (OSError, subprocess.SubprocessError) as e:
        return f"{' '.join(argv)}: {e}"
    return None if r.returncode == 0 else f"{' '.join(argv)}: {(r.stderr or r.stdout)[-600:]}"


def webview_setup(build: bool) -> str | None:
    """Chromium, the extension's and tests/vscode's node modules, the built bundle."""
    if not CHROMIUM.is_file():
        if os.geteuid() == 0 and shutil.which("apt-get"):
            console.print("[dim]chromium missing: apt-get install -y chromium[/dim]")
            sh(["apt-get", "update", "-qq"], REPO)
            sh(["apt-get", "install", "-y", "-qq", "chromium"], REPO)
        if not CHROMIUM.is_file():
            return f"no {CHROMIUM} (apt-get install chromium)"
    npm = ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"]
    ext = REPO / "extension"
    if not (ext / "node_modules" / "esbuild").is_dir() and (err := sh(npm, ext)):
        return err
    tv = REPO / "tests" / "vscode"
    if not (tv / "node_modules" / "playwright-core").is_dir() and (
        err := sh(npm, tv, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1")
    ):
        return err
    if build and (err := sh(["npm", "run", "build"], ext)):
        return err
    if not (ext / "dist" / "webview" / "transcript.js").is_file():
        return "no extension/dist/webview/transcript.js (cd extension && npm run build)"
    return None


def measure_webview(args: argparse.Namespace, base: Path) -> WebviewFigures:
    w = WebviewFigures()
    if not (base / PAGES).is_file():
        w.error = f"no {PAGES}: the sidecar captured no page"
        return w
    console.print("webview: building the bundle, headless Chromium …")
    if err := webview_setup(not args.no_build):
        w.error = err
        return w
    out = base / "webview.json"
    shot = args.out / "transcript-webview.png"
    args.out.mkdir(parents=True, exist_ok=True)
    argv = ["node", str(WEBVIEW_SCRIPT), "--repo", str(REPO), "--pages", str(base / PAGES)]
    argv += ["--out", str(out), "--reps", str(args.webview_reps), "--scrolls", str(args.scrolls)]
    argv += ["--chromium", str(CHROMIUM), "--screenshot", str(shot)]
    if err := sh(argv, REPO, timeout=args.timeout):
        w.error = err
        return w
    return webview_figures(orjson.loads(out.read_bytes()), w, shot)


def webview_figures(raw: dict[str, Any], w: WebviewFigures, shot: Path) -> WebviewFigures:
    first: list[float] = []
    first_render: list[float] = []
    render: list[float] = []
    ready: list[float] = []
    posted: list[float] = []
    for load in raw["loads"]:
        recs = [r for r in load["records"] if r.get("end") is not None]
        ready += [m[1] for m in load.get("marks", [])[:1] if m[0] == "ready"]
        if recs:
            posted.append(recs[0]["t0"])
            first.append(recs[0]["end"])
            first_render.append(recs[0]["end"] - recs[0]["t0"])
            render += [r["end"] - r["t0"] for r in recs[1:]]
    w.loads = len(raw["loads"])
    w.first_paint_ms = Dist.of(first)
    w.ready_ms = Dist.of(ready)
    w.first_posted_ms = Dist.of(posted)
    w.first_page_render_ms = Dist.of(first_render)
    w.page_render_ms = Dist.of(render)
    last = raw["loads"][-1] if raw["loads"] else {}
    w.dom = last.get("counts", {})
    w.requests = last.get("requests", [])
    w.refused = sorted({u for load in raw["loads"] for u in load.get("refused", [])})
    w.console = raw.get("console", [])
    errors = [e for load in raw["loads"] for e in load.get("errors", [])]
    if errors:
        w.error = "; ".join(errors[:3])
    w.chromium, w.bundle_bytes = raw.get("chromium"), raw.get("bundle_bytes")
    w.screenshot = str(shot) if shot.is_file() else None
    return w


# --------------------------------------------------------------------------------------------------
# the terminal, and claude-code-log


def ccl_install(version: str) -> tuple[Path | None, str | None]:
    """claude-code-log ``version`` in its own venv under the cache dir (pip, from PyPI)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lazy-bench"
    venv = cache / f"ccl-{version}"
    exe = venv / "bin" / "claude-code-log"
    if exe.is_file():
        return exe, None
    console.print(f"[dim]pip install claude-code-log=={version} into {venv} …[/dim]")
    cache.mkdir(parents=True, exist_ok=True)
    err = sh([sys.executable, "-m", "venv", str(venv)], cache) or sh(
        [str(venv / "bin" / "pip"), "install", "-q", f"claude-code-log=={version}"], cache
    )
    return (exe, None) if exe.is_file() else (None, err or "claude-code-log not installed")


def convert(name: str, argv: list[str], env: dict[str, str], reps: int, timeout: float,
            output: Path | None = None) -> Conversion:  # fmt: skip
    """``argv`` run ``reps`` times; its output is its stdout, or the file ``output``."""
    c = Conversion(name, argv)
    for _ in range(reps):
        if output is not None:
            output.unlink(missing_ok=True)
        child = harness.run_child(argv, env, timeout)
        if child.returncode != 0:
            c.error = f"exit {child.returncode}: {child.stderr_tail.strip()[-600:]}"
            break
        c.seconds.append(child.seconds)
        c.cpu_seconds.append(child.cpu_seconds)
        c.maxrss_mb = max(c.maxrss_mb or 0, harness.mb(child.maxrss_bytes))
        c.tree_rss_mb = max(c.tree_rss_mb or 0, harness.mb(child.tree_rss_peak_bytes))
        text = output.read_bytes() if output is not None else child.stdout.encode()
        c.output_bytes, c.output_lines = len(text), text.count(b"\n")
    c.reps = len(c.seconds)
    return c


def measure_show(args: argparse.Namespace, base: Path, p: Prepared) -> list[Conversion]:
    env = env_for(base)
    lazy = harness.lazy_command()
    n = f"{p.show_written:,}"
    console.print(f"terminal: lazy show of {n} messages × {args.show_reps} …")
    rows = [convert(f"lazy show ({n} msgs) > file", [*lazy, "show", p.show_id], env,
                    args.show_reps, args.timeout)]  # fmt: skip
    helptext = harness.run_child([*lazy, "show", "--help"], env, 60).stdout
    if "--full" in helptext:
        argv = [*lazy, "show", "--full", p.show_id]
        rows.append(
            convert(f"lazy show --full ({n} msgs)", argv, env, args.show_reps, args.timeout)
        )
    if args.no_ccl:
        return rows
    exe, err = ccl_install(args.ccl_version)
    name = f"claude-code-log {args.ccl_version} → HTML ({n} msgs)"
    if exe is None:
        rows.append(Conversion(name, [], error=err))
        return rows
    src = base / "ccl" / Path(p.show_path).name
    src.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(p.show_path, src)
    html = base / "ccl" / "out.html"
    argv = [str(exe), str(src), "-o", str(html), "--no-cache"]
    console.print(f"terminal: claude-code-log on the same session × {args.show_reps} …")
    rows.append(convert(name, argv, env, args.show_reps, args.timeout, output=html))
    return rows


# --------------------------------------------------------------------------------------------------
# output


def ms(d: Dist, spec: str = ".1f") -> list[str]:
    return [str(d.n), fmt(d.p50, spec), fmt(d.p90, spec), fmt(d.max, spec)]


def render_sidecar(r: Report) -> None:
    s, c = r.sidecar, r.sidecar.cold

    def cold_row(name: str, v: list[float]) -> list[str]:
        return [name, str(len(v)), fmt(percentile(v, 50) if v else None, ".1f"), "—",
                fmt(max(v) if v else None, ".1f")]  # fmt: skip

    rows = [
        cold_row("cold: spawn → initialize", c.initialize_ms),
        cold_row("cold: builders/get", c.builders_get_ms),
        cold_row(f"cold: first transcripts/page ({PAGE})", c.first_page_ms),
        cold_row("cold: spawn → first page", c.spawn_to_page_ms),
    ] + [[x.name, str(x.reps), fmt(x.p50_ms, ".1f"), fmt(x.p99_ms, ".1f"), fmt(x.max_ms, ".1f")]
         for x in s.warm]  # fmt: skip
    table(
        f"sidecar: the {fmt(s.long_messages, ',.0f')}-message Builder over JSON-RPC, ms "
        f"(live capture on; pages of {fmt(percentile(s.page_bytes, 50) / 1e3 if s.page_bytes else None, '.0f')} KB JSON)",
        ("request", "n", "p50", "p99", "max"),
        rows,
    )  # fmt: skip
    for e in (c.error, s.error, *(x.error for x in s.warm)):
        if e:
            console.print(f"  [red]{e[:600]}[/red]")


def render_webview(r: Report) -> None:
    w = r.webview
    if w.error and not w.loads:
        console.print(f"[red]webview: {w.error[:600]}[/red]")
        return
    table(
        f"webview: headless Chromium {w.chromium or '?'}, bundle {fmt((w.bundle_bytes or 0) / 1e3, '.0f')} KB, "
        f"{w.loads} loads, ms",
        ("measure", "n", "p50", "p90", "max"),
        [["first paint (navigation start → first page painted)", *ms(w.first_paint_ms)],
         ["  of which: navigation start → webview posts ready", *ms(w.ready_ms)],
         ["  of which: navigation start → first page posted to it", *ms(w.first_posted_ms)],
         [f"first page rendered ({PAGE} msgs: posted → painted)", *ms(w.first_page_render_ms)],
         [f"a page loaded by scrolling ({PAGE} msgs: posted → painted)", *ms(w.page_render_ms)]],
    )  # fmt: skip
    d = w.dom
    console.print(
        f"  DOM after the last load: {d.get('entries', 0):,} messages, {d.get('elements', 0):,} "
        f"elements; headings {d.get('headings', 0)}, strong {d.get('strong', 0)}, links "
        f"{d.get('links', 0)}, tables {d.get('tables', 0)}, pre {d.get('pre', 0)}, code "
        f"{d.get('code', 0)}, highlighted spans {d.get('highlighted_spans', 0)}, details "
        f"{d.get('details', 0)}; pages asked for {w.requests}"
    )
    if w.refused:
        console.print(f"  [yellow]refused loads: {w.refused[:5]}[/yellow]")
    if w.console:
        console.print(f"  [yellow]console: {w.console[:3]}[/yellow]")
    if w.error:
        console.print(f"  [red]{w.error[:600]}[/red]")
    if w.screenshot:
        console.print(f"  screenshot: {w.screenshot}")


def render_show(r: Report) -> None:
    rows = []
    for c in r.show:
        rows.append([c.name, str(c.reps), fmt(c.p50_s, ".2f"), fmt(c.cpu_p50_s, ".2f"),
                     fmt(c.maxrss_mb, ".0f"), fmt(c.tree_rss_mb, ".0f"),
                     fmt((c.output_bytes or 0) / 1e6, ".1f"), fmt(c.output_lines, ",.0f")])  # fmt: skip
    table(
        "terminal: the same session shown / converted, wall and CPU s, peak RSS MB, output MB",
        ("command", "reps", "wall p50", "CPU p50", "ru_maxrss", "tree RSS", "out MB", "lines"),
        rows,
    )
    for c in r.show:
        if c.error:
            console.print(f"  [red]{c.name}: {c.error[:600]}[/red]")
    base = next((c for c in r.show if c.name.startswith("lazy show (")), None)
    peer = next((c for c in r.show if c.name.startswith("claude-code-log")), None)
    if base and peer:
        ratio_table("lazy show ÷ claude-code-log", base, peer)


def ratio_table(title: str, base: Conversion, peer: Conversion) -> None:
    """Two conversions' figures as ratios, base ÷ peer."""
    table(
        f"{title} (below 1: lazy is faster / smaller)",
        ("figure", "ratio"),
        [["wall p50", fmt(ratio(base.p50_s, peer.p50_s), ".3f")],
         ["CPU p50", fmt(ratio(base.cpu_p50_s, peer.cpu_p50_s), ".3f")],
         ["peak RSS (ru_maxrss)", fmt(ratio(base.maxrss_mb, peer.maxrss_mb), ".3f")],
         ["output bytes", fmt(ratio(base.output_bytes, peer.output_bytes), ".3f")]],
    )  # fmt: skip


def target_rows(r: Report) -> list[list[str]]:
    w, s = r.webview, r.sidecar
    p99 = max((x.p99_ms or 0 for x in s.warm), default=None) if s.warm else None
    return [
        [f"webview first paint ≤ {TARGET_FIRST_PAINT_MS:g} ms (p90)",
         f"p50 {fmt(w.first_paint_ms.p50, '.1f')} / p90 {fmt(w.first_paint_ms.p90, '.1f', ' ms')}",
         verdict(w.first_paint_ms.p90 <= TARGET_FIRST_PAINT_MS if w.first_paint_ms.p90 else None)],
        [f"webview {PAGE}-message page ≤ {TARGET_RENDER_MS:g} ms (p90, scrolled pages)",
         f"p50 {fmt(w.page_render_ms.p50, '.1f')} / p90 {fmt(w.page_render_ms.p90, '.1f', ' ms')}",
         verdict(w.page_render_ms.p90 <= TARGET_RENDER_MS if w.page_render_ms.p90 else None)],
        [f"sidecar transcripts/page of {PAGE} ≤ {TARGET_PAGE_MS:g} ms (p99, worst place)",
         fmt(p99, ".1f", " ms"), verdict(p99 <= TARGET_PAGE_MS if p99 else None)],
    ]  # fmt: skip


def render(r: Report, env: dict[str, Any]) -> None:
    p = r.prepared
    console.print(
        f"store: {p.store_messages:,} messages; sessions of {p.long_written:,} "
        f"({harness.mb(p.long_bytes):.0f} MB) and {p.show_written:,} "
        f"({harness.mb(p.show_bytes):.0f} MB) messages written in {p.gen_seconds:.1f} s; import "
        f"{fmt(p.import_seconds, '.1f', ' s')}, index rebuild {fmt(p.index_seconds, '.1f', ' s')}"
    )
    render_sidecar(r)
    render_webview(r)
    render_show(r)
    targets(target_rows(r))
    console.print(
        f"[dim]{env['cpu_count']} CPUs, Python {env['python']}, {env['platform']}; load "
        f"{env['loadavg_start'][0]:.2f} → {env['loadavg_end'][0]:.2f}. Webview times are "
        "taken in the page (performance.now), so they include the frame a paint waits for "
        "(~16.7 ms at 60 Hz); the host's replies come from memory (the sidecar's own time is the "
        "table above).[/dim]"
    )


# --------------------------------------------------------------------------------------------------


def run_bench(args: argparse.Namespace, base: Path) -> Report:
    if args.reuse:
        prepared = Prepared(**orjson.loads((base / PREPARED).read_bytes()))
    else:
        prepared = prepare(args, base)
    r = Report(prepared)
    if prepared.error:
        console.print(f"[red]{prepared.error[:800]}[/red]")
        return r
    r.sidecar = asyncio.run(measure_sidecar(args, base, prepared))
    r.webview = measure_webview(args, base)
    r.show = measure_show(args, base, prepared)
    if args.keep or args.reuse:
        console.print(f"[dim]pages: {base / PAGES}[/dim]")
    return r


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--long", default="50k", help="messages of the Builder opened (default 50k)")
    ap.add_argument("--show", default="10k", help="messages of the Builder shown (default 10k)")
    ap.add_argument("--reps", type=int, default=100, help="timed transcripts/page per place")
    ap.add_argument("--cold-runs", type=int, default=5, help="sidecar starts to the first page")
    ap.add_argument("--capture-pages", type=int, default=6, help="pages kept for the webview")
    ap.add_argument("--webview-reps", type=int, default=10, help="page loads in Chromium")
    ap.add_argument("--scrolls", type=int, default=4, help="pages loaded by scrolling per load")
    ap.add_argument("--show-reps", type=int, default=3, help="runs of lazy show and the peer")
    ap.add_argument("--ccl-version", default=CCL_VERSION, help="claude-code-log from PyPI")
    ap.add_argument("--no-ccl", action="store_true", help="skip claude-code-log")
    ap.add_argument("--no-build", action="store_true", help="use extension/dist as it is")
    harness.common_args(ap, "transcript")
    ap.add_argument("--reuse", type=Path, default=None, help="a dir kept by --keep")
    args = ap.parse_args(argv)
    args.capture_pages = max(args.capture_pages, args.scrolls + 1)
    env_info = harness.machine_info()
    if args.reuse:
        if not (args.reuse / PREPARED).is_file():
            ap.error(f"{args.reuse}: no {PREPARED} (was it kept by --keep?)")
        report = run_bench(args, args.reuse.resolve())
    else:
        with harness.workdir(args.workdir, args.keep) as base:
            report = run_bench(args, base.resolve())
    env_info["loadavg_end"] = os.getloadavg()
    render(report, env_info)
    out = {
        "env": env_info,
        "targets": {
            "webview_first_paint_ms": TARGET_FIRST_PAINT_MS,
            "webview_page_render_ms": TARGET_RENDER_MS,
            "transcripts_page_ms": TARGET_PAGE_MS,
        },
        "report": asdict(report),
    }
    harness.save(args.out, "transcript", out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
