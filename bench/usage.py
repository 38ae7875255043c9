"""The usage benchmark: `lazy usage` over a store of N messages, beside a plain SQLite GROUP BY
over the same rows (the floor: what the sums cost without pricing, the CLI or the store's
checks) and ccusage (npm, ``--offline``) over the same Claude Code files.

    .venv/bin/python -m bench.usage --messages 1M [--sessions 1000] [--reps 3] [--out bench/out]

The corpus is written by ``tests.fabricate.claude.SessionWriter`` (Claude Code 2.1.114 whole
turns: four messages a turn, two of them API messages over two or three lines each, every
line repeating the usage), imported with ``lazy import-conversation`` (timed, reported apart).
Figures: the wall time, CPU and peak RSS of ``lazy usage --all-projects --by B --json`` in a
child for each B (median of ``--reps``), the GROUP BY's, ccusage's; the ratios; and whether
the three agree on the totals (responses, output tokens). Never asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any

from bench import harness
from tests.fabricate.claude import make_session, session_id, session_path

ROOT = Path(__file__).resolve().parents[1]
CCUSAGE = Path(os.environ.get("LAZY_CCUSAGE") or ROOT / "tests/agents/node_modules/.bin/ccusage")
BYS = ("day", "model", "project")
MESSAGES_PER_TURN = 4
RESPONSES_PER_TURN = 2


def write_corpus(projects: Path, messages: int, sessions: int, seed: int) -> tuple[int, int]:
    """Sessions of whole turns adding up to ``messages``; (files, bytes) written."""
    turns = max(1, messages // MESSAGES_PER_TURN)
    per = max(1, turns // sessions)
    written = size = 0
    left = turns
    n = 0
    while left > 0:
        t = min(per, left)
        sid = session_id(n, "usage")
        w = make_session(sid, t, seed=seed + n, cwd=f"/home/dev/proj-{n % 10}")
        path = w.write(session_path(projects, sid, f"/home/dev/proj-{n % 10}"))
        size += path.stat().st_size
        written += 1
        left -= t
        n += 1
    return written, size


def lazy_usage(env: dict[str, str], by: str, reps: int, timeout: float) -> dict[str, Any]:
    argv = [*harness.lazy_command(), "usage", "--all-projects", "--by", by, "--json"]
    runs = [harness.run_child(argv, env, timeout) for _ in range(reps)]
    last = runs[-1]
    report = harness.parse_json(last.stdout) if last.returncode == 0 else None
    return {
        "by": by,
        "seconds": statistics.median(r.seconds for r in runs),
        "cpu_seconds": statistics.median(r.cpu_seconds for r in runs),
        "peak_rss_bytes": max(r.tree_rss_peak_bytes for r in runs),
        "returncode": last.returncode,
        "stderr": last.stderr_tail if last.returncode else "",
        "total": (report or {}).get("total"),
        "rows": len((report or {}).get("rows", [])),
    }


def group_by(db: Path, reps: int) -> dict[str, Any]:
    """The floor: the day sums straight from the usage table, no pricing."""
    con = sqlite3.connect(db)
    times = []
    rows: list[Any] = []
    try:
        for _ in range(reps):
            t0 = time.perf_counter()
            rows = con.execute(
                "SELECT substr(ts, 1, 10), model, COUNT(*), SUM(input), SUM(output),"
                " SUM(cache_read), SUM(cache_write) FROM usage WHERE counted = 1"
                " GROUP BY 1, 2"
            ).fetchall()
            times.append(time.perf_counter() - t0)
    finally:
        con.close()
    return {
        "seconds": statistics.median(times),
        "responses": sum(r[2] for r in rows),
        "output": sum(r[4] for r in rows),
    }


def ccusage(projects_parent: Path, tmp: Path, timeout: float) -> dict[str, Any] | None:
    if not CCUSAGE.exists():
        return None
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(projects_parent), "NO_COLOR": "1",
           "HOME": str(tmp / "ccusage-home")}  # fmt: skip
    argv = [str(CCUSAGE), "daily", "--offline", "--json", "--timezone", "UTC"]
    if shutil.which("unshare") and os.geteuid() == 0:
        argv = ["unshare", "--net", *argv]
    run = harness.run_child(argv, env, timeout)
    data = harness.parse_json(run.stdout) if run.returncode == 0 else None
    totals = (data or {}).get("totals", {})
    return {
        "seconds": run.seconds,
        "peak_rss_bytes": run.tree_rss_peak_bytes,
        "returncode": run.returncode,
        "output": totals.get("outputTokens"),
        "cost": totals.get("totalCost"),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    messages = harness.parse_count(str(args.messages))
    out: dict[str, Any] = {"env": harness.machine_info(), "messages": messages}
    with harness.workdir(args.workdir, args.keep) as tmp:
        claude = tmp / "claude"
        files, size = write_corpus(claude / "projects", messages, args.sessions, args.seed)
        out["corpus"] = {"files": files, "bytes": size}
        home = tmp / "lazy"
        env = harness.isolated_env(tmp, home)
        imp = harness.import_history(claude / "projects", env, args.timeout)
        out["import"] = {"seconds": imp.seconds, "returncode": imp.returncode}
        if imp.returncode != 0:
            harness.console.print(f"[red]import failed[/red]: {imp.stderr_tail}")
            return out
        out["lazy"] = [lazy_usage(env, by, args.reps, args.timeout) for by in BYS]
        out["group_by"] = group_by(home / "store.db", args.reps)
        out["ccusage"] = ccusage(claude, tmp, args.timeout)
    return out


def show(r: dict[str, Any]) -> None:
    if "lazy" not in r:
        return
    floor, cc = r["group_by"], r["ccusage"]
    rows = []
    for x in r["lazy"]:
        t = x["total"] or {}
        rows.append([
            f"lazy usage --by {x['by']}", harness.fmt(x["seconds"], ".2f", " s"),
            harness.fmt(harness.mb(x["peak_rss_bytes"]), ".0f", " MB"),
            f"{t.get('responses', '—')}", f"{t.get('output', '—')}",
            harness.fmt(harness.ratio(x["seconds"], floor["seconds"]), ".0f", "×"),
            harness.fmt(harness.ratio(x["seconds"], cc["seconds"] if cc else None), ".2f", "×"),
        ])  # fmt: skip
    rows.append(["SQLite GROUP BY (floor)", harness.fmt(floor["seconds"], ".3f", " s"), "—",
                 str(floor["responses"]), str(floor["output"]), "1×", "—"])  # fmt: skip
    if cc:
        rows.append(["ccusage daily --offline", harness.fmt(cc["seconds"], ".2f", " s"),
                     harness.fmt(harness.mb(cc["peak_rss_bytes"]), ".0f", " MB"), "—",
                     str(cc["output"]), "—", "1×"])  # fmt: skip
    title = (
        f"lazy usage over {r['messages']:,} messages ({r['corpus']['files']} files,"
        f" {harness.mb(r['corpus']['bytes']):.0f} MB; import {r['import']['seconds']:.0f} s)"
    )
    cols = ("run", "time", "peak RSS", "responses", "output tokens", "÷ GROUP BY", "÷ ccusage")
    harness.table(title, cols, rows, right=1)
    expected = r["messages"] // MESSAGES_PER_TURN * RESPONSES_PER_TURN
    day = r["lazy"][0]["total"] or {}
    harness.targets([
        ("responses counted once (2 a turn)", f"{day.get('responses')} of {expected}",
         harness.verdict(day.get("responses") == expected)),
        ("output tokens agree with ccusage", f"{day.get('output')} / {cc and cc['output']}",
         harness.verdict(None if not cc else day.get("output") == cc["output"])),
        ("lazy usage ≤ 2 s at 1M messages", harness.fmt(r["lazy"][0]["seconds"], ".2f", " s"),
         harness.verdict(r["lazy"][0]["seconds"] <= 2 if r["messages"] >= 1_000_000 else None)),
    ])  # fmt: skip


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", default="1M", help="stored messages (100k, 1M ...)")
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=3)
    harness.common_args(ap, "usage")
    args = ap.parse_args(argv)
    r = run(args)
    show(r)
    harness.save(args.out, "usage", r)
    return r


if __name__ == "__main__":
    main()
