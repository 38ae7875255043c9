"""Export benchmark: one long Builder exported by `lazy export` to Markdown, HTML and JSON,
beside claude-code-log converting the same session file to HTML.

    python -m bench.export [--messages 10k] [--reps 3] [--no-ccl] [--out bench/out] [--keep]

The session is bench/rich_session.py's (Claude Code 2.1.114's lines, shaped on 7acd37a8:
Markdown, thinking, Bash/Read/Edit/Write/Grep/Glob/TodoWrite/WebFetch calls and their results),
imported by `lazy import-conversation` in a child (bench/harness.py's isolated environment).
Each export runs ``--reps`` times as a child writing a file: wall and CPU seconds (p50), peak
RSS, the file's size, and messages a second. claude-code-log (``--ccl-version``, pip-installed
into the cache on first use, as bench/transcript.py does) converts the same file with
``--no-cache``; ratios lazy ÷ claude-code-log for the HTML. Reported, never asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench import harness
from bench import rich_session as rs
from bench.harness import console, fmt, parse_count, table
from bench.transcript import (
    CCL_VERSION,
    Conversion,
    ccl_install,
    convert,
    env_for,
    ratio_table,
)
from tests.fabricate.claude import session_id

FORMATS = ("md", "html", "json")


@dataclass
class Report:
    messages: int = 0
    session_bytes: int = 0
    import_seconds: float | None = None
    rows: list[Conversion] = field(default_factory=list)
    error: str | None = None


def prepare(args: argparse.Namespace, base: Path, r: Report) -> rs.Written | None:
    n = parse_count(args.messages)
    console.print(f"writing a {n:,}-message session and importing it …")
    projects = base / "claude" / "projects"
    s = rs.write_session(projects, session_id(n, "export"), n, seed=args.seed)
    r.messages, r.session_bytes = s.messages, s.bytes
    child = harness.import_history(projects, env_for(base), args.timeout)
    r.import_seconds = child.seconds
    if child.returncode != 0:
        r.error = f"import failed: exit {child.returncode}: {child.stderr_tail.strip()[-800:]}"
        return None
    return s


def measure(args: argparse.Namespace, base: Path, r: Report, s: rs.Written) -> None:
    env, lazy = env_for(base), harness.lazy_command()
    for f in FORMATS:
        out = base / "out" / f"export.{f}"
        out.parent.mkdir(parents=True, exist_ok=True)
        console.print(f"lazy export --format {f} × {args.reps} …")
        argv = [*lazy, "export", s.session_id, "--format", f, "-o", str(out)]
        r.rows.append(convert(f"lazy export → {f}", argv, env, args.reps, args.timeout, out))
    if args.no_ccl:
        return
    exe, err = ccl_install(args.ccl_version)
    name = f"claude-code-log {args.ccl_version} → HTML"
    if exe is None:
        r.rows.append(Conversion(name, [], error=err))
        return
    src = base / "ccl" / s.path.name
    src.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(s.path, src)
    html = base / "ccl" / "out.html"
    console.print(f"claude-code-log on the same session × {args.reps} …")
    argv = [str(exe), str(src), "-o", str(html), "--no-cache"]
    r.rows.append(convert(name, argv, env, args.reps, args.timeout, output=html))


def render(r: Report) -> None:
    rows = []
    for c in r.rows:
        rate = r.messages / c.p50_s if c.p50_s else None
        rows.append([c.name, str(c.reps), fmt(c.p50_s, ".2f"), fmt(c.cpu_p50_s, ".2f"),
                     fmt(c.maxrss_mb, ".0f"), fmt((c.output_bytes or 0) / 1e6, ".1f"),
                     fmt(rate, ",.0f")])  # fmt: skip
    table(
        f"export of one {r.messages:,}-message Builder ({harness.mb(r.session_bytes):.0f} MB"
        " of JSONL): wall and CPU s, peak RSS MB, output MB, messages/s",
        ("command", "reps", "wall p50", "CPU p50", "ru_maxrss", "out MB", "msgs/s"),
        rows,
    )
    for c in r.rows:
        if c.error:
            console.print(f"  [red]{c.name}: {c.error[:600]}[/red]")
    html = next((c for c in r.rows if c.name == "lazy export → html"), None)
    peer = next((c for c in r.rows if c.name.startswith("claude-code-log")), None)
    if html and peer:
        ratio_table("lazy export → html ÷ claude-code-log", html, peer)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--messages", default="10k", help="messages of the Builder (default 10k)")
    ap.add_argument("--reps", type=int, default=3, help="runs of each export and of the peer")
    ap.add_argument("--ccl-version", default=CCL_VERSION, help="claude-code-log from PyPI")
    ap.add_argument("--no-ccl", action="store_true", help="skip claude-code-log")
    harness.common_args(ap, "export")
    args = ap.parse_args(argv)
    env_info = harness.machine_info()
    r = Report()
    with harness.workdir(args.workdir, args.keep) as base:
        s = prepare(args, base.resolve(), r)
        if s is not None:
            measure(args, base.resolve(), r, s)
    env_info["loadavg_end"] = os.getloadavg()
    if r.error:
        console.print(f"[red]{r.error}[/red]")
    render(r)
    harness.save(args.out, "export", {"env": env_info, "report": asdict(r)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
