"""Long output through a pager on a terminal, as git does it.

The pager is ``$LAZY_PAGER``, else ``$PAGER``, else ``less``; an empty value or ``cat`` means
none. It runs through the shell (a pager setting may carry options), with ``LESS=FRX`` unless
``LESS`` is set (quit when it fits one screen, pass colours through, leave the screen as it
was) and ``LV=-c``. lazy writes its output into the pager's input and waits for the pager
to exit; a pager that quits early (``q``) ends the output, not in an error. Ctrl-C belongs to
the pager while it runs.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import IO

ENV = "LAZY_PAGER"


def pager_command(env: dict[str, str] | None = None) -> str | None:
    """The pager to run, or None for none."""
    env = dict(os.environ) if env is None else env
    for key in (ENV, "PAGER"):
        if key in env:
            cmd = env[key].strip()
            return None if cmd in ("", "cat") else cmd
    return "less" if shutil.which("less") else None


@contextmanager
def paged(enabled: bool = True) -> Iterator[IO[str] | None]:
    """A text stream into the pager, or None when there is no pager to run (the caller
    writes to stdout itself)."""
    cmd = pager_command() if enabled else None
    if cmd is None:
        yield None
        return
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    try:
        proc = subprocess.Popen(cmd, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError:
        yield None
        return
    assert proc.stdin is not None
    stream = io.TextIOWrapper(proc.stdin, encoding="utf-8", errors="replace")
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield stream
    except BrokenPipeError:
        pass  # the pager quit before it read everything: the reader has what they wanted
    finally:
        with suppress(BrokenPipeError):
            stream.close()
        proc.wait()
        signal.signal(signal.SIGINT, previous)
