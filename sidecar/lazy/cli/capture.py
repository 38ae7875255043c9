"""`lazy capture --hook`: the command Claude Code's hooks run (`lazy hooks install`)."""

from __future__ import annotations

import os
import sys

import click

from lazy.config import lazy_home


@click.command("capture")
@click.option(
    "--hook",
    is_flag=True,
    help="Read a Claude Code hook's JSON from stdin and capture the transcript it names.",
)
def capture(hook: bool) -> None:
    """Capture a Claude Code session as its hooks fire (installed by `lazy hooks install`).

    With --hook, reads the hook's JSON (session_id, transcript_path, cwd, hook_event_name)
    from stdin and captures that transcript incrementally, with its subagents' files under
    <session dir>/subagents/, then indexes what it added if the index's writer is free.

    A hook never slows or fails Claude Code: it always exits 0, prints nothing on stdout,
    waits at most 2 s for a busy store and gives up after 10 s (what it stored stays; the
    next hook or `lazy daemon` captures the rest). Failures are recorded in the store's
    capture log; when the store cannot be opened or written, in
    $LAZY_HOME/hook-failures.log (JSON lines, rotated at 1 MB to hook-failures.log.1).
    """
    if not hook:
        raise click.UsageError(
            "nothing to capture: `lazy capture --hook` reads a Claude Code hook's JSON on"
            " stdin. To capture sessions on disk, run `lazy import-conversation`, or keep"
            " `lazy daemon start` running."
        )
    # Claude Code shows a hook's stdout (SessionStart's becomes model context): nothing
    # of ours, or of anything we call, may reach it
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    try:
        from lazy.capture.hook_entry import run

        run(sys.stdin.buffer, lazy_home())
    except BaseException as e:  # run() records its own failures; this is an import failing
        from lazy.view.terminal import for_terminal

        sys.stderr.write(for_terminal(f"lazy capture --hook: {e!r}\n"))
    finally:
        sys.stderr.flush()
        os._exit(0)  # exit 0 whatever happened, without waiting for anything left running
