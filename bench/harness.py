"""What every benchmark shares: lazy run in a child with its peak memory, the environment that
keeps it off this machine's own history, percentiles and ratios, and the one table renderer.

A benchmark declares its rows and hands them to :func:`table`; figures are printed, never
asserted. Run a benchmark as a module from the repository root: ``python -m bench.search``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import psutil
from rich.console import Console
from rich.table import Table

OUT = Path(__file__).resolve().parent / "out"  # where every benchmark writes its JSON by default

console = Console()
if not console.is_terminal:  # piped to a file or CI log: do not squeeze the tables into 80 columns
    console = Console(width=160)


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


def dir_size(path: Path) -> int:
    """Bytes of every file under ``path``."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


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


# ---- a child run with its peak memory --------------------------------------------------------


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


def import_history(source: Path, env: dict[str, str], timeout: float) -> ChildRun:
    """``lazy import-conversation --all --yes --all-projects --source <source> --json`` in a child
    (Claude Code's projects dir): the import every store a benchmark measures starts from."""
    argv = [*lazy_command(), "import-conversation", "--all", "--yes", "--all-projects"]
    return run_child([*argv, "--source", str(source), "--json"], env, timeout)


def rebuild_index(env: dict[str, str], timeout: float, *args: str) -> ChildRun:
    """``lazy index rebuild`` in a child."""
    return run_child([*lazy_command(), "index", "rebuild", *args], env, timeout)


def parse_json(text: str) -> Any:
    with contextlib.suppress(orjson.JSONDecodeError):
        return orjson.loads(text)
    start = text.find("{")
    if start >= 0:
        with contextlib.suppress(orjson.JSONDecodeError):
            return orjson.loads(text[start:])
    return None


def parse_count(text: str) -> int:
    """``"100k"`` -> 100_000, ``"1M"`` -> 1_000_000."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kKmM]?)\s*", text)
    if not m:
        raise ValueError(f"not a message count: {text!r}")
    return int(float(m.group(1)) * {"": 1, "k": 1_000, "m": 1_000_000}[m.group(2).lower()])


def ratio(a: float | None, b: float | None) -> float | None:
    """``a / b``, or None when either is missing (or ``b`` is zero)."""
    return a / b if a is not None and b else None


# ---- the report ----------------------------------------------------------------------------


def fmt(v: float | None, spec: str = ".1f", unit: str = "") -> str:
    if v is None:
        return "—"
    return f"{v:{spec}}{unit}"


def verdict(ok: bool | None) -> str:
    if ok is None:
        return "[dim]n/a[/dim]"
    return "[green]met[/green]" if ok else "[red]missed[/red]"


@dataclass
class Row:
    """A table row with a style (``Row(cells, "bold")``); a plain row is a sequence of cells."""

    cells: Sequence[str]
    style: str | None = None


def table(
    title: str,
    columns: Sequence[str],
    rows: Iterable[Sequence[str] | Row],
    *,
    right: int | None = 0,
    header_style: str | None = None,
) -> None:
    """Print one table: ``columns`` from index ``right`` on are right-aligned (None: none are)."""
    t = (
        Table(title=title)
        if header_style is None
        else Table(title=title, header_style=header_style)
    )
    for i, col in enumerate(columns):
        t.add_column(col, justify="right" if right is not None and i >= right else "left")
    for row in rows:
        if isinstance(row, Row):
            t.add_row(*row.cells, style=row.style)
        else:
            t.add_row(*row)
    console.print(t)


def targets(rows: Iterable[Sequence[str]]) -> None:
    """The targets table every benchmark ends with: (target, measured, verdict) rows."""
    table("Targets (reported, never asserted)", ("target", "measured", "verdict"), rows, right=None)


def write_report(out: Path, name: str, report: dict[str, Any]) -> Path:
    """Every figure as ``<out>/<name>.json``."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    path.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2, default=str))
    return path


def save(out: Path, name: str, report: dict[str, Any]) -> Path:
    """:func:`write_report`, and say where it went."""
    path = write_report(out, name, report)
    console.print(f"figures written to {path}")
    return path


def common_args(ap: argparse.ArgumentParser, name: str) -> None:
    """The options of a benchmark that builds a store in a temp dir: where its figures go, the
    corpus seed, where the temp dir goes, each lazy child's time limit, and keeping the dir."""
    ap.add_argument("--out", type=Path, default=OUT, help=f"where {name}.json goes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", default=None, help="parent of the temp dir (default: system tmp)")
    ap.add_argument("--timeout", type=float, default=3600, help="per lazy child, seconds")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (big)")


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
