"""`lazy daemon start|stop|status|run`: live capture with no editor open."""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

import click
from rich.text import Text

from lazy.capture import daemon as d
from lazy.cli.common import emit_json, err, facts_table, json_option, out, shown, when
from lazy.config import lazy_home


@click.group("daemon")
def daemon_group() -> None:
    """Capture sessions as they are written, with no editor open.

    The daemon watches every agent's session files (Claude Code, Codex, OpenCode) and sweeps
    them all every 30 s, as the VS Code extension does while it runs. One daemon per store
    ($LAZY_HOME): its pid file is $LAZY_HOME/daemon.pid, its status $LAZY_HOME/daemon.json,
    its log $LAZY_HOME/daemon.log (rotated at 1 MB, two kept).
    """


def _failure_line(f: dict[str, Any]) -> str:
    where = f["file"] + (f":{f['line']}" if f.get("line") else "")
    detail = f": {f['detail']}" if f.get("detail") else ""
    return f"{where}: {f['reason']} [{f['code']}{detail}]"


@daemon_group.command("start")
@json_option
def start(as_json: bool) -> None:
    """Start the daemon in the background (detached; its output goes to daemon.log).

    Returns once the daemon has taken its pid file and finished its first sweep, which
    captures whatever is on disk and not yet in the store (on a large history the first
    time, that takes a while). If one is already running, says so and starts nothing.
    """
    home = lazy_home()

    def started(pid: int) -> None:
        if err.is_terminal:
            err.print(
                shown(f"daemon started (pid {pid}); waiting for its first sweep…", style="dim")
            )

    result = d.start(home, None if as_json else started)
    state = result.get("state")
    if as_json:
        emit_json(result)
        if state not in ("ready", "already"):
            sys.exit(1)
        return
    if state == "already":
        out.print(
            f"The capture daemon is already running (pid {result['pid']}, since {when(result['since'])})."
        )
        return
    if state != "ready":
        detail = result.get("detail") or ""
        raise click.ClickException(
            f"the capture daemon did not start: {result.get('reason')} [{result.get('code')}]"
            + (f"\n{detail}" if detail else "")
        )
    st = result["status"]
    out.print(f"Capture daemon started (pid {st['pid']}); logs in {home / d.LOG_FILE}.")
    _print_sweep(st.get("last_sweep"))


@daemon_group.command("stop")
@click.option("--timeout", default=30.0, show_default=True, help="Seconds to wait for it to exit.")
@json_option
def stop(timeout: float, as_json: bool) -> None:
    """Stop the daemon: SIGTERM, wait for it to exit, remove its pid file."""
    result = d.stop(lazy_home(), timeout)
    state = result["state"]
    if as_json:
        emit_json(result)
        if state == "timeout":
            sys.exit(1)
        return
    if state == "not-running":
        stale = result.get("stale_pid")
        extra = f" (removed the stale pid file of pid {stale})" if stale else ""
        out.print(f"The capture daemon is not running{extra}.")
    elif state == "timeout":
        raise click.ClickException(
            f"the capture daemon (pid {result['pid']}) did not exit within {timeout:.0f} s;"
            " it is still running"
        )
    else:
        out.print(f"Capture daemon stopped (pid {result['pid']}).")


@daemon_group.command("status")
@json_option
def status(as_json: bool) -> None:
    """Whether the daemon runs, its pid, since when, and its last sweep's result."""
    s = d.status(lazy_home())
    if as_json:
        emit_json(s)
        return
    if s["running"]:
        out.print(Text("Capture daemon: running", style="bold green"))
        rows = [("pid", str(s["pid"])), ("since", when(s["since"]))]
    else:
        out.print(Text("Capture daemon: not running", style="bold yellow"))
        rows = []
        if s["stale_pid"]:
            rows.append(("stale pid file", f"pid {s['stale_pid']} is gone"))
        if s.get("stopped_at"):
            rows.append(("stopped", when(s["stopped_at"])))
    sweep = s["last_sweep"]
    if sweep:
        rows.append(("last sweep", f"{when(sweep['at'])} ({sweep['seconds']:.1f} s)"))
    rows += [
        ("captured", f"{s['captured']} session(s) since it started, {s['sweeps']} sweep(s)"),
        ("store", s["store"]),
        ("log", s["log"]),
    ]
    out.print(facts_table(rows))
    _print_sweep(sweep)
    if not s["running"]:
        out.print("Start it with `lazy daemon start`.")


def _print_sweep(sweep: dict[str, Any] | None) -> None:
    if not sweep:
        return
    out.print(
        f"Last sweep: {sweep['captured']} session(s) captured"
        f" ({sweep['imported']} new, {sweep['updated']} grown)."
    )
    if sweep.get("error"):
        out.print(shown(f"  the sweep failed: {_failure_line(sweep['error'])}", style="red"))
    failures = sweep.get("failures") or []
    for f in failures:
        out.print(shown(f"  {_failure_line(f)}", style="yellow"))
    if sweep.get("more_failures"):
        out.print(shown(f"  … and {sweep['more_failures']} more (see the log)", style="yellow"))


@daemon_group.command("run")
@click.option(
    "--ready-fd",
    type=int,
    default=None,
    hidden=True,
    help="(used by `start`) a pipe to report the start on, then close.",
)
def run(ready_fd: int | None) -> None:
    """Run the daemon in the foreground (for systemd, or to watch it work).

    Logs to stderr and to daemon.log; stops on SIGTERM or Ctrl-C. Exits 1 if a daemon
    already runs for this store.
    """
    code = d.run(lazy_home(), ready_fd=ready_fd, foreground=ready_fd is None)
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # a sweep cut short by the stop is not waited for
