"""Hook benchmark: the wall time of `lazy capture --hook`, as Claude Code's Stop hook runs it
after every turn.

    python -m bench.hook [--reps 30] [--small 10] [--large 10000] [--no-index] [--out bench/out]

Two Claude Code sessions, of ``--small`` and ``--large`` messages, are captured once (untimed)
into a fresh store whose search index is built (``lazy index rebuild``; ``--no-index`` leaves
it out, so the hook indexes nothing). Then ``--reps`` times, for each: a turn (a prompt and
its answer, two lines) is appended to the session file and ``lazy capture --hook`` is run as a
child with the hook's JSON on stdin, timed from spawn to exit. Beside it, the floor: ``python
-c pass`` with the same interpreter, and ``lazy --version`` (the CLI's own start-up).

Printed: p50, p99 and max in ms, and each p50 over the floor's. Never asserted. Every figure
also goes to ``<out>/hook.json``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from bench import harness
from bench.harness import console, fmt, table
from tests.fabricate.claude import Session

CWD = "/home/u/hookbench"


class Transcript(Session):
    """A Claude Code session file of ``messages`` messages, appended to a turn at a time."""

    def __init__(self, projects: Path, messages: int) -> None:
        super().__init__(projects, CWD, version="2.1.332")
        for _ in range(messages // 2):
            self.append_turn()

    def append_turn(self) -> None:
        prompt = f"step {self.n}: look at the parser and tell me what the hook costs"
        self.turn(prompt, f"done with step {self.n}; the tests pass")

    def payload(self) -> bytes:
        return orjson.dumps(self.hook_input())


def timed(argv: list[str], env: dict[str, str], stdin: bytes = b"") -> float:
    """Seconds from spawn to exit."""
    t0 = time.perf_counter()
    p = subprocess.run(argv, input=stdin, env=env, capture_output=True, check=False)
    took = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"{argv} exited {p.returncode}: {p.stderr.decode()[-2000:]}")
    return took


def stats(seconds: list[float]) -> dict[str, float]:
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "p50_ms": harness.percentile(ms, 50),
        "p99_ms": harness.percentile(ms, 99),
        "max_ms": max(ms),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--reps", type=int, default=30, help="timed runs per case (default 30)")
    ap.add_argument("--small", type=int, default=10, help="messages in the small session")
    ap.add_argument("--large", type=int, default=10_000, help="messages in the large session")
    ap.add_argument(
        "--no-index", action="store_true", help="no search index: the hook only captures"
    )
    ap.add_argument("--out", type=Path, default=harness.OUT, help="where hook.json goes")
    ap.add_argument("--workdir", type=Path, default=None, help="temp dirs here (default: system)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir")
    args = ap.parse_args(argv)

    base = Path(tempfile.mkdtemp(prefix="lazy-bench-hook-", dir=args.workdir))
    try:
        env = harness.isolated_env(base, base / "lazy")
        projects = base / "claude-projects"
        lazy = harness.lazy_command()
        hook = [*lazy, "capture", "--hook"]
        sessions = {
            f"turn appended to a {args.small:,}-message session": Transcript(projects, args.small),
            f"turn appended to a {args.large:,}-message session": Transcript(projects, args.large),
        }
        with console.status("capturing the sessions once (untimed)…"):
            for t in sessions.values():
                timed(hook, env, t.payload())
            if not args.no_index:
                timed([*lazy, "index", "rebuild"], env)
        results: dict[str, dict[str, float]] = {}
        floors = {
            "python -c pass (the floor)": [sys.executable, "-c", "pass"],
            "lazy --version (CLI start-up)": [*lazy, "--version"],
        }
        with console.status("timing…"):
            for name, cmd in floors.items():
                results[name] = stats([timed(cmd, env) for _ in range(args.reps)])
            for name, t in sessions.items():
                runs = []
                for _ in range(args.reps):
                    t.append_turn()
                    runs.append(timed(hook, env, t.payload()))
                results[name] = stats(runs)
        check = [base / "lazy" / "hook-failures.log"]
        failures = [str(p) for p in check if p.exists()]
        render(results, args, failures)
        report = {
            "env": harness.machine_info(),
            "reps": args.reps,
            "index": not args.no_index,
            "results": results,
            "hook_failures_logged": failures,
        }
        path = harness.write_report(args.out, "hook", report)
        console.print(f"[dim]figures in {path}[/dim]")
    finally:
        if args.keep:
            console.print(f"[dim]kept {base}[/dim]")
        else:
            shutil.rmtree(base, ignore_errors=True)
    return 0


def render(
    results: dict[str, dict[str, float]], args: argparse.Namespace, failures: list[str]
) -> None:
    floor = results["python -c pass (the floor)"]["p50_ms"]
    title = (f"lazy capture --hook, wall time ({args.reps} runs each"
             f"{', no index' if args.no_index else ', index in use'})")  # fmt: skip
    rows = []
    for name, r in results.items():
        ratio = r["p50_ms"] / floor if floor else None
        rows.append([name, fmt(r["p50_ms"]), fmt(r["p99_ms"]), fmt(r["max_ms"]),
                     fmt(ratio, ".1f", "×")])  # fmt: skip
    table(title, ("case", "p50 ms", "p99 ms", "max ms", "p50 ÷ floor"), rows, right=1)
    if failures:
        console.print(f"[red]the hook logged failures: {', '.join(failures)}[/red]")


if __name__ == "__main__":
    sys.exit(main())
