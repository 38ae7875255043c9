"""Import benchmark: figures for lazy's Claude Code import, with baselines side by side.

    python bench/import.py [--size 1GB] [--out bench/out] [--reps 20] [--profile]
                           [--tools claude,codex,opencode]

Measures, in one run (prints figures and ratios, asserts nothing):

* full import throughput: a generated corpus (bench/corpus.py) imported by
  ``lazy import-conversation --all --yes --all-projects --source <corpus>/projects --json`` in a
  child process; MB/s, messages/s, peak RSS (the child's own ``ru_maxrss`` from ``wait4``, and the
  sampled RSS of its whole process tree);
* peak memory at two corpus sizes (``--small-fraction`` of ``--size``, and ``--size``);
* incremental capture of one appended turn in a 1 MB and a 500 MB session (in-process
  ``capture_file``), median and p95;
* baselines over the same files: ``cat`` (disk/page cache) and ``rg -c '"type":"user"'``;
* per tool (``--tools``): Codex CLI and OpenCode histories of ``--size`` (bench/agents_corpus.py)
  imported the same way (``--tool codex|opencode``), beside Claude's figure, plus the
  per-message memory import (``lazy import <tool>``) of each tool's corpus. OpenCode's bytes are
  its ``opencode.db`` file size.

Targets (printed, not asserted): full import >= 100 MB/s; an appended turn captured in <= 50 ms
whatever the session's size; peak memory independent of corpus size; Codex and OpenCode import
throughput within 1.5x of Claude's.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson
import psutil
from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import agents_corpus  # noqa: E402  (bench/ is not a package)
import corpus  # noqa: E402

TARGET_MBPS = 100.0
TARGET_APPEND_MS = 50.0
MEMORY_GROWTH_OK = 1.25  # full/small peak RSS ratio still read as "independent of size"
TARGET_TOOL_RATIO = 1.5  # Codex / OpenCode import within 1.5x of Claude's MB/s
TOOLS = ("claude", "codex", "opencode")

console = Console()
if not console.is_terminal:  # piped to a file or CI log: do not squeeze the tables into 80 columns
    console = Console(width=160)


# --------------------------------------------------------------------------------------------------
# helpers


def lazy_command() -> list[str]:
    """The ``lazy`` CLI of the interpreter running this script."""
    script = Path(sys.executable).parent / "lazy"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from lazy.cli.main import main; sys.exit(main())"]


def mb(n: float) -> float:
    return n / 1e6


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    s = sorted(values)
    if not s:
        return float("nan")
    k = max(0, min(len(s) - 1, round(p / 100 * len(s) + 0.5) - 1))
    return s[k]


def jsonl_files(projects: Path) -> list[Path]:
    return sorted(projects.rglob("*.jsonl"))


def drop_caches() -> bool:
    """Drop the page cache (root, and only where the kernel lets us). True if it worked."""
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as fh:
            fh.write("3\n")
        return True
    except OSError:
        return False


def ensure_rg() -> str | None:
    rg = shutil.which("rg")
    if rg or os.geteuid() != 0 or not shutil.which("apt-get"):
        return rg
    console.print("[dim]ripgrep missing: apt-get install -y ripgrep[/dim]")
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(["apt-get", "update", "-qq"], check=False, capture_output=True, timeout=600)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "ripgrep"],
            check=False,
            capture_output=True,
            timeout=600,
        )
    return shutil.which("rg")


@contextlib.contextmanager
def workdir(base: str | None, keep: bool) -> Iterator[Path]:
    d = Path(tempfile.mkdtemp(prefix="lazy-bench-", dir=base))
    try:
        yield d
    finally:
        if keep:
            console.print(f"[dim]kept {d}[/dim]")
        else:
            shutil.rmtree(d, ignore_errors=True)


def isolated_env(base: Path, home: Path) -> dict[str, str]:
    """The environment of a timed lazy child: its store in ``home`` and every agent's default
    location (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_DATA_HOME) in empty dirs under ``base``,
    so only the generated corpus is read, never this machine's own history."""
    empty = base / "empty"
    for sub in ("home", "claude", "codex", "xdg"):
        (empty / sub).mkdir(parents=True, exist_ok=True)
    return dict(
        os.environ,
        LAZY_HOME=str(home),
        HOME=str(empty / "home"),
        CLAUDE_CONFIG_DIR=str(empty / "claude"),
        CODEX_HOME=str(empty / "codex"),
        XDG_DATA_HOME=str(empty / "xdg"),
    )


# --------------------------------------------------------------------------------------------------
# child process runs with peak memory


@dataclass
class ChildRun:
    argv: list[str]
    returncode: int
    seconds: float
    maxrss_bytes: int  # the child's ru_maxrss (wait4)
    cpu_seconds: float  # user + system CPU of the child (wait4)
    tree_rss_peak_bytes: int  # sampled sum over the child's process tree
    stdout: str
    stderr_tail: str


def run_child(argv: list[str], env: dict[str, str], timeout: float) -> ChildRun:
    """Run ``argv``; wall time, ru_maxrss of that child alone (wait4) and sampled tree RSS."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        peak = 0
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            try:
                p = psutil.Process(proc.pid)
            except psutil.Error:
                return
            while not done.is_set():
                try:
                    total = p.memory_info().rss
                    for c in p.children(recursive=True):
                        with contextlib.suppress(psutil.Error):
                            total += c.memory_info().rss
                    peak = max(peak, total)
                except psutil.Error:
                    return
                done.wait(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        deadline = t0 + timeout
        status, usage = 0, None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.005)
        seconds = time.perf_counter() - t0
        done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    return ChildRun(
        argv=argv,
        returncode=proc.returncode,
        seconds=seconds,
        maxrss_bytes=usage.ru_maxrss * 1024 if usage else 0,  # Linux: KiB
        cpu_seconds=usage.ru_utime + usage.ru_stime if usage else 0.0,
        tree_rss_peak_bytes=peak,
        stdout=stdout,
        stderr_tail=stderr[-3000:],
    )


def parse_json(text: str) -> Any:
    with contextlib.suppress(orjson.JSONDecodeError):
        return orjson.loads(text)
    start = text.find("{")
    if start >= 0:
        with contextlib.suppress(orjson.JSONDecodeError):
            return orjson.loads(text[start:])
    return None


# --------------------------------------------------------------------------------------------------
# full import


@dataclass
class FullImport:
    label: str
    corpus: dict[str, Any]
    gen_seconds: float
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    returncode: int | None = None
    mb_per_s: float = 0.0
    mb_per_cpu_s: float = 0.0
    load_before: float | None = None
    messages: int | None = None
    messages_source: str = ""
    messages_per_s: float | None = None
    messages_added_reported: int | None = None
    builders: int | None = None
    imported: int | None = None
    skipped: int | None = None
    quarantined: int | None = None
    peak_rss_bytes: int = 0
    tree_rss_peak_bytes: int = 0
    store_bytes: int = 0
    conversations_seconds: float | None = None
    baselines: dict[str, dict[str, float]] = field(default_factory=dict)
    error: str | None = None
    memory: ToolRun | None = None  # lazy import claude over the same corpus


def baselines(
    projects: Path, files: list[Path], rg: str | None, nbytes: int
) -> dict[str, dict[str, float]]:
    """cat (cold if the cache can be dropped, then warm) and ripgrep over the same files."""
    out: dict[str, dict[str, float]] = {}
    listing = b"\0".join(str(f).encode() for f in files)

    def cat() -> float:
        t0 = time.perf_counter()
        subprocess.run(
            ["xargs", "-0", "cat"], input=listing, stdout=subprocess.DEVNULL, check=False
        )
        return time.perf_counter() - t0

    if drop_caches():
        s = cat()
        out["cat_cold"] = {"seconds": s, "mb_per_s": mb(nbytes) / s}
    s = min(cat(), cat())
    out["cat_warm"] = {"seconds": s, "mb_per_s": mb(nbytes) / s}
    if rg:
        times = []
        count = 0
        for _ in range(3):
            t0 = time.perf_counter()
            r = subprocess.run(
                [rg, "-c", '"type":"user"', "-g", "*.jsonl", str(projects)],
                capture_output=True,
                check=False,
            )
            times.append(time.perf_counter() - t0)
            count = sum(int(x.rsplit(b":", 1)[-1]) for x in r.stdout.splitlines() if x)
        s = statistics.median(times)
        out["rg"] = {"seconds": s, "mb_per_s": mb(nbytes) / s, "user_lines": float(count)}
    return out


def full_import(
    label: str,
    size: int,
    seed: int,
    base: Path,
    rg: str | None,
    timeout: float,
    keep: bool,
    largest: int | None = None,
    profile: Path | None = None,
    memory: bool = False,
) -> FullImport:
    cdir = base / f"corpus-{label}"
    home = base / f"home-{label}"
    console.print(f"[bold]{label}[/bold]: generating {corpus.format_size(size)} corpus …")
    info = corpus.generate(cdir, size, seed, largest_session=largest)
    os.sync()
    res = FullImport(label=label, corpus=info.to_dict(), gen_seconds=info.seconds)
    files = jsonl_files(info.projects_dir)
    nbytes = sum(f.stat().st_size for f in files)
    res.corpus["bytes_on_disk"] = nbytes
    res.corpus["largest_file_bytes"] = max((f.stat().st_size for f in files), default=0)
    console.print(f"  baselines (cat, rg) over {len(files)} files …")
    res.baselines = baselines(info.projects_dir, files, rg, nbytes)
    rg_count = res.baselines.get("rg", {}).get("user_lines")
    if rg_count is not None and int(rg_count) != info.stats.user_lines:
        console.print(
            f"  [yellow]rg counted {int(rg_count)} user lines, the generator wrote "
            f"{info.stats.user_lines}[/yellow]"
        )
    env = isolated_env(base, home)
    argv = [
        *lazy_command(),
        "import-conversation",
        "--all",
        "--yes",
        "--all-projects",
        "--source",
        str(info.projects_dir),
        "--json",
    ]
    console.print(f"  lazy import-conversation … (LAZY_HOME={home})")
    res.load_before = os.getloadavg()[0]
    run = run_child(argv, env, timeout)
    res.seconds = run.seconds
    res.cpu_seconds = run.cpu_seconds
    res.mb_per_cpu_s = mb(nbytes) / run.cpu_seconds if run.cpu_seconds else 0.0
    res.returncode = run.returncode
    res.peak_rss_bytes = run.maxrss_bytes
    res.tree_rss_peak_bytes = run.tree_rss_peak_bytes
    res.mb_per_s = mb(nbytes) / run.seconds if run.seconds else 0.0
    res.store_bytes = sum(f.stat().st_size for f in home.rglob("*") if f.is_file())
    if run.returncode != 0:
        res.error = f"exit {run.returncode}: {run.stderr_tail.strip()[-1500:]}"
        console.print(f"  [red]import failed[/red] ({res.error[:400]})")
    report = parse_json(run.stdout)
    if isinstance(report, dict):
        if isinstance(report.get("messages_added"), int):
            res.messages_added_reported = report["messages_added"]
        for key in ("imported", "skipped", "quarantined"):
            v = report.get(key)
            if isinstance(v, list):
                setattr(res, key, len(v))
            elif isinstance(v, int):
                setattr(res, key, v)
    # message count as the store sees it
    conv = run_child([*lazy_command(), "conversations", "--all-projects", "--json"], env, timeout)
    res.conversations_seconds = conv.seconds
    listing = parse_json(conv.stdout)
    if isinstance(listing, dict) and isinstance(listing.get("builders"), list):
        builders = listing["builders"]
        res.builders = len(builders)
        res.messages = sum(int(b.get("message_count") or 0) for b in builders) + sum(
            int(sc.get("message_count") or 0)
            for b in builders
            for sc in (b.get("sidechains") or [])
            if isinstance(sc, dict)
        )
        res.messages_source = "lazy conversations (builders + sidechains)"
    elif res.messages_added_reported is not None:
        res.messages = res.messages_added_reported
        res.messages_source = "import report"
    if res.messages is not None and run.seconds:
        res.messages_per_s = res.messages / run.seconds
    if memory:
        res.memory = memory_import(
            "claude", info.projects_dir, nbytes, base, label, timeout, expected=None
        )
    if profile is not None and run.returncode == 0:
        profile_import(info.projects_dir, base / f"home-{label}-profile", profile, timeout)
    if not keep:
        shutil.rmtree(cdir, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return res


def profile_import(projects: Path, home: Path, out: Path, timeout: float) -> None:
    """Run the same import again under cProfile (not timed) and keep the profile."""
    console.print(f"  profiling the import under cProfile -> {out}")
    runner = home.parent / "profile_runner.py"
    runner.write_text("import sys\nfrom lazy.cli.main import main\nsys.exit(main())\n")
    argv = [sys.executable, "-m", "cProfile", "-o", str(out), str(runner)]
    argv += ["import-conversation", "--all", "--yes", "--all-projects", "--source", str(projects)]
    argv += ["--json"]
    run_child(argv, isolated_env(home.parent, home), timeout * 3)
    shutil.rmtree(home, ignore_errors=True)


# --------------------------------------------------------------------------------------------------
# per tool: Codex and OpenCode beside Claude


@dataclass
class ToolRun:
    """One timed lazy child over a tool's corpus."""

    command: str
    returncode: int | None = None
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    mb_per_s: float = 0.0
    items: int | None = None  # messages stored (conversations) or memories inserted
    items_expected: int | None = None  # what the generator says it wrote
    items_per_s: float | None = None
    peak_rss_bytes: int = 0
    tree_rss_peak_bytes: int = 0
    store_bytes: int = 0
    load_before: float | None = None
    error: str | None = None


@dataclass
class ToolImport:
    tool: str
    source_bytes: int
    bytes_definition: str
    corpus: dict[str, Any]
    gen_seconds: float
    conversations: ToolRun
    memories: ToolRun | None = None
    ratio_to_claude: float | None = None  # this tool's MB/s ÷ Claude's (conversations import)
    memories_ratio_to_claude: float | None = None
    within_target: bool | None = None  # ratio >= 1 / TARGET_TOOL_RATIO


def _timed(
    command: str, argv: list[str], env: dict[str, str], nbytes: int, home: Path, timeout: float
) -> tuple[ToolRun, Any]:
    out = ToolRun(command=command, load_before=os.getloadavg()[0])
    run = run_child(argv, env, timeout)
    out.returncode = run.returncode
    out.seconds = run.seconds
    out.cpu_seconds = run.cpu_seconds
    out.mb_per_s = mb(nbytes) / run.seconds if run.seconds else 0.0
    out.peak_rss_bytes = run.maxrss_bytes
    out.tree_rss_peak_bytes = run.tree_rss_peak_bytes
    out.store_bytes = sum(f.stat().st_size for f in home.rglob("*") if f.is_file())
    if run.returncode != 0:
        out.error = f"exit {run.returncode}: {run.stderr_tail.strip()[-1500:]}"
        console.print(f"  [red]{command} failed[/red] ({out.error[:400]})")
    return out, parse_json(run.stdout)


def count_messages(env: dict[str, str], tool: str, timeout: float) -> int | None:
    """Messages the store holds for ``tool``: its Builders and their sidechains."""
    conv = run_child(
        [*lazy_command(), "conversations", "--all-projects", "--tool", tool, "--json"],
        env,
        timeout,
    )
    listing = parse_json(conv.stdout)
    if not isinstance(listing, dict) or not isinstance(listing.get("builders"), list):
        return None
    builders = listing["builders"]
    return sum(int(b.get("message_count") or 0) for b in builders) + sum(
        int(sc.get("message_count") or 0)
        for b in builders
        for sc in (b.get("sidechains") or [])
        if isinstance(sc, dict)
    )


def conversations_import(
    tool: str,
    source: Path,
    nbytes: int,
    base: Path,
    label: str,
    timeout: float,
    expected: int | None,
) -> ToolRun:
    home = base / f"home-{tool}-{label}-conv"
    env = isolated_env(base, home)
    argv = [*lazy_command(), "import-conversation", "--tool", tool, "--all", "--yes"]
    argv += ["--all-projects", "--source", str(source), "--json"]
    console.print(f"  lazy import-conversation --tool {tool} … (LAZY_HOME={home})")
    run, _ = _timed(f"import-conversation --tool {tool}", argv, env, nbytes, home, timeout)
    run.items_expected = expected
    if run.returncode == 0:
        run.items = count_messages(env, tool, timeout)
        if run.items is not None and run.seconds:
            run.items_per_s = run.items / run.seconds
    shutil.rmtree(home, ignore_errors=True)
    return run


def memory_import(
    tool: str,
    source: Path,
    nbytes: int,
    base: Path,
    label: str,
    timeout: float,
    expected: int | None,
) -> ToolRun:
    """``lazy import <tool>``: the per-message memory import, in a fresh store."""
    home = base / f"home-{tool}-{label}-mem"
    env = isolated_env(base, home)
    argv = [*lazy_command(), "import", tool, "--source", str(source), "--include-temp-cwd"]
    argv += ["--include-trivial", "--json"]
    console.print(f"  lazy import {tool} … (LAZY_HOME={home})")
    run, report = _timed(f"import {tool}", argv, env, nbytes, home, timeout)
    run.items_expected = expected
    if isinstance(report, dict) and isinstance(report.get("inserted"), int):
        run.items = report["inserted"]
        if run.seconds:
            run.items_per_s = run.items / run.seconds
    shutil.rmtree(home, ignore_errors=True)
    return run


def agent_import(
    tool: str,
    size: int,
    seed: int,
    base: Path,
    timeout: float,
    keep: bool,
    largest: int | None,
) -> ToolImport:
    dest = base / f"corpus-{tool}"
    console.print(f"[bold]{tool}[/bold]: generating {corpus.format_size(size)} history …")
    info = agents_corpus.generate(tool, dest, size, seed, largest_session=largest)
    os.sync()
    nbytes = info.bytes_on_disk
    what = (
        "opencode.db file size"
        if tool == "opencode"
        else "rollout .jsonl bytes (sessions/YYYY/MM/DD)"
    )
    res = ToolImport(
        tool=tool,
        source_bytes=nbytes,
        bytes_definition=what,
        corpus=info.to_dict(),
        gen_seconds=info.seconds,
        conversations=conversations_import(
            tool, info.source, nbytes, base, "full", timeout, info.stats.messages
        ),
    )
    res.memories = memory_import(
        tool, info.source, nbytes, base, "full", timeout, info.stats.memories
    )
    for run, what in ((res.conversations, "messages"), (res.memories, "memories")):
        if run.items is not None and run.items != run.items_expected:
            console.print(
                f"  [yellow]{tool}: lazy stored {run.items} {what}, the generator wrote "
                f"{run.items_expected}[/yellow]"
            )
    if not keep:
        shutil.rmtree(dest, ignore_errors=True)
    return res


def claude_row(full: FullImport) -> ToolImport:
    """Claude's full import as a row of the per-tool table."""
    conv = ToolRun(
        command="import-conversation",
        returncode=full.returncode,
        seconds=full.seconds,
        cpu_seconds=full.cpu_seconds,
        mb_per_s=full.mb_per_s,
        items=full.messages,
        items_expected=None,
        items_per_s=full.messages_per_s,
        peak_rss_bytes=full.peak_rss_bytes,
        tree_rss_peak_bytes=full.tree_rss_peak_bytes,
        store_bytes=full.store_bytes,
        load_before=full.load_before,
        error=full.error,
    )
    return ToolImport(
        tool="claude",
        source_bytes=int(full.corpus["bytes_on_disk"]),
        bytes_definition="session .jsonl bytes (projects/<dir>/…)",
        corpus=full.corpus,
        gen_seconds=full.gen_seconds,
        conversations=conv,
        memories=full.memory,
    )


def compare_to_claude(rows: list[ToolImport]) -> None:
    claude = next((r for r in rows if r.tool == "claude"), None)
    if claude is None or claude.conversations.returncode != 0:
        return
    base = claude.conversations.mb_per_s
    base_mem = (
        claude.memories.mb_per_s if claude.memories and claude.memories.returncode == 0 else 0
    )
    for r in rows:
        if r.conversations.returncode == 0 and base:
            r.ratio_to_claude = r.conversations.mb_per_s / base
            r.within_target = r.ratio_to_claude >= 1 / TARGET_TOOL_RATIO
        if r.memories and r.memories.returncode == 0 and base_mem:
            r.memories_ratio_to_claude = r.memories.mb_per_s / base_mem


# --------------------------------------------------------------------------------------------------
# incremental capture of one appended turn


@dataclass
class Incremental:
    label: str
    session_bytes: int
    reps: int
    initial_seconds: float | None = None
    initial_mb_per_s: float | None = None
    initial_messages: int | None = None
    initial_peak_rss_bytes: int | None = None
    times_ms: list[float] = field(default_factory=list)
    median_ms: float | None = None
    p95_ms: float | None = None
    max_ms: float | None = None
    appended_bytes_avg: float | None = None
    bytes_read_avg: float | None = None
    messages_added_avg: float | None = None
    error: str | None = None


def incremental(label: str, size: int, reps: int, seed: int, base: Path) -> Incremental:
    res = Incremental(label=label, session_bytes=0, reps=reps)
    try:
        from lazy.capture.source_file import capture_file
        from lazy.store import Store
    except ImportError as e:
        res.error = f"in-process API not importable: {e}"
        return res
    d = base / f"incr-{label}"
    home = d / "home"
    proj = d / "projects" / corpus.project_dir_name("/home/u/proj-incr")
    sid = corpus.new_uuid(seed + size)
    path = proj / f"{sid}.jsonl"
    console.print(
        f"[bold]incremental {label}[/bold]: writing a {corpus.format_size(size)} session …"
    )
    info = corpus.make_session(
        path, size, seed=seed + 7, session_id=sid, cwd="/home/u/proj-incr", subagents=False
    )
    res.session_bytes = path.stat().st_size
    try:
        # the first capture runs in a child, for its peak memory on one big file
        code = (
            "import sys, time, orjson\n"
            "from pathlib import Path\n"
            "from lazy.store import Store\n"
            "from lazy.capture.source_file import capture_file\n"
            "store = Store.open(Path(sys.argv[1]))\n"
            "t0 = time.perf_counter()\n"
            "r = capture_file(store, Path(sys.argv[2]))\n"
            "dt = time.perf_counter() - t0\n"
            "store.close()\n"
            "print(orjson.dumps({'seconds': dt, 'messages_added': r.messages_added,"
            " 'status': r.status}).decode())\n"
        )
        child = run_child(
            [sys.executable, "-c", code, str(home), str(path)], dict(os.environ), 7200
        )
        first = parse_json(child.stdout)
        if child.returncode != 0 or not isinstance(first, dict):
            raise RuntimeError(f"initial capture failed: {child.stderr_tail[-800:]}")
        res.initial_seconds = float(first["seconds"])
        res.initial_mb_per_s = mb(res.session_bytes) / res.initial_seconds
        res.initial_messages = int(first["messages_added"])
        res.initial_peak_rss_bytes = child.maxrss_bytes
        console.print(f"  initial capture {res.initial_seconds:.2f} s; appending {reps} turns …")
        store = Store.open(home)
        try:
            last = info.last_uuid
            appended, read, added = [], [], []
            for i in range(reps):
                turn = corpus.append_turn(
                    path,
                    sid,
                    last,
                    seed=seed * 1000 + i,
                    cwd=info.cwd,
                    version=info.version,
                    git_branch=info.git_branch,
                )
                last = turn.last_uuid
                t0 = time.perf_counter()
                r = capture_file(store, path)
                res.times_ms.append((time.perf_counter() - t0) * 1000)
                appended.append(turn.bytes_appended)
                read.append(r.bytes_read)
                added.append(r.messages_added)
            res.median_ms = statistics.median(res.times_ms)
            res.p95_ms = percentile(res.times_ms, 95)
            res.max_ms = max(res.times_ms)
            res.appended_bytes_avg = statistics.fmean(appended)
            res.bytes_read_avg = statistics.fmean(read)
            res.messages_added_avg = statistics.fmean(added)
        finally:
            store.close()
    except Exception as e:  # a benchmark reports failures, it does not stop on them
        res.error = f"{type(e).__name__}: {e}"
        console.print(f"  [red]failed[/red]: {res.error}")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return res


# --------------------------------------------------------------------------------------------------
# report


def fmt(v: float | None, spec: str = ".1f", unit: str = "") -> str:
    if v is None:
        return "—"
    return f"{v:{spec}}{unit}"


def verdict(ok: bool | None) -> str:
    if ok is None:
        return "[dim]n/a[/dim]"
    return "[green]met[/green]" if ok else "[red]missed[/red]"


def render(fulls: list[FullImport], incs: list[Incremental], env: dict[str, Any]) -> None:
    t = Table(title="Full import: lazy import-conversation --all --yes --all-projects --json")
    for col in (
        "corpus",
        "files",
        "lines",
        "largest file",
        "gen s",
        "import s",
        "MB/s",
        "CPU s",
        "MB/CPU-s",
        "messages",
        "msg/s",
        "peak RSS",
        "tree RSS",
        "store",
        "exit",
    ):
        t.add_column(col, justify="right")
    for f in fulls:
        c = f.corpus
        t.add_row(
            f"{f.label} {corpus.format_size(c['bytes_on_disk'])}",
            str(c["files"]),
            f"{c['lines']:,}",
            corpus.format_size(c.get("largest_file_bytes", 0)),
            fmt(f.gen_seconds),
            fmt(f.seconds, ".2f"),
            fmt(f.mb_per_s),
            fmt(f.cpu_seconds, ".1f"),
            fmt(f.mb_per_cpu_s),
            f"{f.messages:,}" if f.messages is not None else "—",
            fmt(f.messages_per_s, ",.0f"),
            corpus.format_size(f.peak_rss_bytes),
            corpus.format_size(f.tree_rss_peak_bytes),
            corpus.format_size(f.store_bytes),
            str(f.returncode),
        )
    console.print(t)

    b = Table(title="Baselines over the same .jsonl files (ratio = lazy import time / baseline)")
    for col in ("corpus", "tool", "seconds", "MB/s", "lazy ÷ tool"):
        b.add_column(col, justify="right")
    for f in fulls:
        for name, fig in f.baselines.items():
            ratio = f.seconds / fig["seconds"] if fig["seconds"] and f.seconds else None
            tool = {
                "cat_cold": "cat (cold cache)",
                "cat_warm": "cat (page cache)",
                "rg": 'rg -c \'"type":"user"\'',
            }[name]
            b.add_row(
                f.label, tool, fmt(fig["seconds"], ".3f"), fmt(fig["mb_per_s"]), fmt(ratio, ".1f")
            )
    console.print(b)

    i = Table(title="Capture of one appended turn (in-process capture_file)")
    for col in (
        "session",
        "initial capture",
        "initial MB/s",
        "initial peak RSS",
        "reps",
        "median ms",
        "p95 ms",
        "max ms",
        "appended B",
        "bytes_read",
        "msgs added",
    ):
        i.add_column(col, justify="right")
    for r in incs:
        i.add_row(
            f"{r.label} ({corpus.format_size(r.session_bytes)})",
            fmt(r.initial_seconds, ".2f", " s"),
            fmt(r.initial_mb_per_s),
            corpus.format_size(r.initial_peak_rss_bytes) if r.initial_peak_rss_bytes else "—",
            str(len(r.times_ms)),
            fmt(r.median_ms, ".1f"),
            fmt(r.p95_ms, ".1f"),
            fmt(r.max_ms, ".1f"),
            fmt(r.appended_bytes_avg, ",.0f"),
            fmt(r.bytes_read_avg, ",.0f"),
            fmt(r.messages_added_avg, ".1f"),
        )
        if r.error:
            console.print(f"[red]{r.label}: {r.error}[/red]")
    console.print(i)

    g = Table(title="Targets (reported, never asserted)")
    for col in ("target", "measured", "verdict"):
        g.add_column(col)
    full = fulls[-1] if fulls else None
    if full:
        ok = full.mb_per_s >= TARGET_MBPS if full.returncode == 0 else None
        g.add_row(
            f"full import ≥ {TARGET_MBPS:.0f} MB/s", fmt(full.mb_per_s, ".1f", " MB/s"), verdict(ok)
        )
    worst = [r.p95_ms for r in incs if r.p95_ms is not None]
    g.add_row(
        f"appended turn ≤ {TARGET_APPEND_MS:.0f} ms whatever the session size (p95)",
        ", ".join(f"{r.label}: {fmt(r.p95_ms, '.1f', ' ms')}" for r in incs),
        verdict(max(worst) <= TARGET_APPEND_MS if worst and len(worst) == len(incs) else None),
    )
    ok_fulls = [f for f in fulls if f.returncode == 0 and f.peak_rss_bytes]
    if len(ok_fulls) >= 2:
        small, big = ok_fulls[0], ok_fulls[-1]
        ratio = big.peak_rss_bytes / small.peak_rss_bytes
        floor = env.get("floor_rss_bytes") or 0
        above = ""
        if floor and small.peak_rss_bytes > floor:
            above = (
                f"; above the {corpus.format_size(floor)} floor: "
                f"{corpus.format_size(small.peak_rss_bytes - floor)} vs "
                f"{corpus.format_size(big.peak_rss_bytes - floor)}"
            )
        g.add_row(
            "peak memory independent of corpus size",
            f"{corpus.format_size(small.peak_rss_bytes)} @ "
            f"{corpus.format_size(small.corpus['bytes_on_disk'])} vs "
            f"{corpus.format_size(big.peak_rss_bytes)} @ "
            f"{corpus.format_size(big.corpus['bytes_on_disk'])} (×{ratio:.2f}){above}",
            verdict(ratio <= MEMORY_GROWTH_OK),
        )
    else:
        g.add_row("peak memory independent of corpus size", "—", verdict(None))
    console.print(g)
    console.print(
        f"[dim]{env['cpu_count']} CPUs, Python {env['python']}, {env['platform']}; "
        "import runs on a warm page cache (cat cold shows the disk when the cache could be "
        "dropped). CPU s = the child's user+system time (wait4), less sensitive to other load "
        "than wall time.[/dim]"
    )
    loads = [f.load_before for f in fulls if f.load_before is not None]
    cpus = env.get("cpu_count") or 1
    if loads and max(loads) > 0.5 * cpus:
        console.print(
            f"[yellow]the machine was busy (1-min load average up to {max(loads):.1f} on {cpus} "
            "CPUs before the timed runs): wall-clock figures are pessimistic[/yellow]"
        )


def tool_verdict(r: ToolImport) -> str:
    if r.tool == "claude":
        return "[dim]baseline[/dim]"
    return verdict(r.within_target)


def render_tools(rows: list[ToolImport]) -> None:
    """Per tool, beside Claude: the conversations import, then the memory import."""
    claude = next((r for r in rows if r.tool == "claude"), None)
    for title, pick, ratio_of, what in (
        (
            "Per tool: lazy import-conversation --tool T --all --yes --all-projects --json",
            lambda r: r.conversations,
            lambda r: r.ratio_to_claude,
            "messages",
        ),
        (
            "Per tool: lazy import T --include-temp-cwd --include-trivial --json (memories)",
            lambda r: r.memories,
            lambda r: r.memories_ratio_to_claude,
            "memories",
        ),
    ):
        t = Table(title=title)
        cols = ["tool", "source MB", "seconds", "MB/s", "MB/CPU-s", what, f"{what}/s", "peak RSS"]
        cols.append("MB/s ÷ Claude")
        if what == "messages":  # the target is on the conversations import
            cols.append(f"within {TARGET_TOOL_RATIO:g}x of Claude")
        for col in cols:
            t.add_column(col, justify="right")
        for r in rows:
            run = pick(r)
            if run is None:
                continue
            items = f"{run.items:,}" if run.items is not None else "—"
            if run.items_expected is not None and run.items != run.items_expected:
                items += f" [yellow](wrote {run.items_expected:,})[/yellow]"
            failed = run.returncode not in (0, None)
            t.add_row(
                r.tool,
                fmt(mb(r.source_bytes), ".1f"),
                fmt(run.seconds, ".2f"),
                fmt(run.mb_per_s) if not failed else "[red]failed[/red]",
                fmt(mb(r.source_bytes) / run.cpu_seconds if run.cpu_seconds else None),
                items,
                fmt(run.items_per_s, ",.0f"),
                corpus.format_size(run.peak_rss_bytes),
                fmt(ratio_of(r), ".2f"),
                *([tool_verdict(r)] if what == "messages" else []),
            )
        console.print(t)
    if claude is None:
        console.print("[dim]Claude was not run (--tools): no ratio to its figure. [/dim]", end="")
    console.print(
        f"[dim]target, reported not asserted: each tool's import-conversation MB/s within "
        f"{TARGET_TOOL_RATIO:g}x of Claude's (ratio ≥ {1 / TARGET_TOOL_RATIO:.2f}). Bytes: "
        "Claude and Codex the .jsonl files, OpenCode the opencode.db file size.[/dim]"
    )


# --------------------------------------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    """What a benchmark's figures were taken on (its ``env``; loadavg_end is added at the end)."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "sqlite": sqlite3.sqlite_version,
        "cpu_count": os.cpu_count(),
        "memory_bytes": psutil.virtual_memory().total,
        "lazy": " ".join(lazy_command()),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "loadavg_start": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--size", default="1GB", help="full corpus size (default 1GB)")
    ap.add_argument(
        "--small-fraction",
        type=float,
        default=0.25,
        help="second, smaller corpus for the memory comparison (default 0.25; 0 = skip)",
    )
    ap.add_argument("--out", type=Path, default=HERE / "out", help="where import.json goes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--largest-session",
        default="40MB",
        help="both corpora hold one session of this size and none larger, so the memory "
        "figures compare corpus size at an equal largest file (default 40MB; 0 = natural)",
    )
    ap.add_argument("--reps", type=int, default=20, help="appended turns per session size")
    ap.add_argument(
        "--session-sizes",
        default="1MB,500MB",
        help="session sizes for the appended-turn figure (default 1MB,500MB)",
    )
    ap.add_argument("--workdir", default=None, help="parent of the temp dir (default: system tmp)")
    ap.add_argument("--timeout", type=float, default=3600, help="per lazy run, seconds")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (big)")
    ap.add_argument("--skip-full", action="store_true", help="skip the full-import runs")
    ap.add_argument("--skip-incremental", action="store_true")
    ap.add_argument(
        "--tools",
        default=",".join(TOOLS),
        help="whose histories to import, comma-separated (default claude,codex,opencode); "
        "the Claude-only figures (memory vs size, appended turn, baselines) need claude",
    )
    ap.add_argument(
        "--profile",
        action="store_true",
        help="also run the full import once under cProfile (not timed); keeps out/import.prof",
    )
    args = ap.parse_args(argv)

    size = corpus.parse_size(args.size)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown or not tools:
        ap.error(f"--tools: unknown {', '.join(unknown) or '(none)'}; choose from {TOOLS}")
    largest = corpus.parse_size(args.largest_session) if args.largest_session != "0" else None
    args.out.mkdir(parents=True, exist_ok=True)
    env_info = machine_info()
    rg = ensure_rg()
    if not rg:
        console.print("[yellow]ripgrep not found: the rg baseline is skipped[/yellow]")

    fulls: list[FullImport] = []
    incs: list[Incremental] = []
    per_tool: list[ToolImport] = []
    with workdir(args.workdir, args.keep) as base:
        # the interpreter + lazy floor: listing an empty store
        floor = run_child(
            [*lazy_command(), "conversations", "--all-projects", "--json"],
            isolated_env(base, base / "home-floor"),
            args.timeout,
        )
        env_info["floor_rss_bytes"] = floor.maxrss_bytes if floor.returncode == 0 else None
        if not args.skip_full and "claude" in tools:
            plan = []
            if args.small_fraction > 0:
                plan.append(("small", int(size * args.small_fraction)))
            plan.append(("full", size))
            for label, n in plan:
                prof = args.out / "import.prof" if args.profile and label == "full" else None
                fulls.append(
                    full_import(
                        label,
                        n,
                        args.seed,
                        base,
                        rg,
                        args.timeout,
                        args.keep,
                        largest,
                        prof,
                        memory=label == "full",
                    )
                )
                if fulls[-1].label == "full":
                    per_tool.append(claude_row(fulls[-1]))
        if not args.skip_full:
            for tool in tools:
                if tool != "claude":
                    per_tool.append(
                        agent_import(tool, size, args.seed, base, args.timeout, args.keep, largest)
                    )
            compare_to_claude(per_tool)
        if not args.skip_incremental and "claude" in tools:
            for text in args.session_sizes.split(","):
                n = corpus.parse_size(text)
                incs.append(incremental(text.strip(), n, args.reps, args.seed, base))

    env_info["loadavg_end"] = os.getloadavg()
    env_info["tools"] = tools
    render(fulls, incs, env_info)
    if per_tool:
        render_tools(per_tool)
    out: dict[str, Any] = {
        "env": env_info,
        "targets": {
            "full_import_mb_per_s": TARGET_MBPS,
            "appended_turn_ms": TARGET_APPEND_MS,
            "peak_memory": "independent of corpus size",
            "tool_mb_per_s_within_x_of_claude": TARGET_TOOL_RATIO,
        },
        "full_import": [asdict(f) for f in fulls],
        "incremental": [asdict(r) for r in incs],
        "per_tool": {
            "target": f"import-conversation MB/s within {TARGET_TOOL_RATIO:g}x of Claude's "
            "(reported, never asserted)",
            "bytes": "claude and codex: the session .jsonl files; opencode: the opencode.db "
            "file size",
            "tools": [asdict(r) for r in per_tool],
        },
    }
    if len(fulls) >= 2 and fulls[0].peak_rss_bytes:
        out["peak_rss_ratio_full_over_small"] = fulls[-1].peak_rss_bytes / fulls[0].peak_rss_bytes
    if fulls and fulls[-1].baselines.get("rg") and fulls[-1].seconds:
        out["ratio_lazy_over_rg"] = fulls[-1].seconds / fulls[-1].baselines["rg"]["seconds"]
    dest = args.out / "import.json"
    dest.write_bytes(orjson.dumps(out, option=orjson.OPT_INDENT_2))
    console.print(f"figures written to {dest}")
    if args.profile and (args.out / "import.prof").exists():
        import pstats

        console.rule("cProfile of the full import (not the timed run)")
        stats = pstats.Stats(str(args.out / "import.prof"))
        stats.sort_stats("cumulative").print_stats(30)
        stats.sort_stats("tottime").print_stats(20)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
