"""A command run with a pseudo-terminal as its controlling terminal and stdio, as a person at
a terminal runs it: what it printed, its exit status, and answers typed at its prompts."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import termios
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class PtyRun:
    rc: int
    output: str  # \r\n made \n


def _controlling_tty() -> None:
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def in_pty(
    argv: list[str],
    env: dict[str, str],
    cwd: Path,
    answers: list[tuple[str, str]] | None = None,
    timeout: float = 120,
) -> PtyRun:
    """Run ``argv``; each (prompt, reply) of ``answers`` in turn: once ``prompt`` has been
    printed (after the previous one), ``reply`` and Enter are typed."""
    pending = list(answers or [])
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
        preexec_fn=_controlling_tty, close_fds=True,
    )  # fmt: skip
    os.close(slave)
    out = bytearray()
    seen = 0  # where the next prompt is looked for
    deadline = time.monotonic() + timeout
    try:
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{argv[:3]} still running after {timeout} s: {out[-2000:]!r}")
            ready, _, _ = select.select([master], [], [], 0.2)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every holder of the terminal has gone
                break
            if not chunk:
                break
            out += chunk
            while pending:
                at = out.find(pending[0][0].encode(), seen)
                if at < 0:
                    break
                seen = at + len(pending[0][0])
                os.write(master, pending.pop(0)[1].encode() + b"\r")
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(master)
    text = out.decode("utf-8", "replace").replace("\r\n", "\n")
    return PtyRun(proc.returncode, text)
