"""Whether a process still runs: by pid alone (for leftovers named after their owner's pid),
or as the very process a record names (pid, start time and host: lock and pid files)."""

from __future__ import annotations

import os
import socket

HOST = socket.gethostname()
# psutil derives a create time from boot time and clock ticks: two readings of one process
# can differ by a tick, and the wall clock stepping moves boot time by up to a second.
CREATE_TIME_SLACK = 1.0


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, owned by someone else
        return True
    return True


def holder_gone(pid: int, create_time: float, host: str) -> str | None:
    """Why the process a record names (``pid``, started at ``create_time`` on ``host``) no
    longer runs, or None while it may: it runs as a zombie, its pid is free, or its pid now
    belongs to a later process. Another host's record is never judged from here, nor a
    process of another user's that may not be looked at."""
    if host != HOST:
        return None
    import psutil  # only when a holder is judged: not on the paths that never do

    try:
        proc = psutil.Process(pid)
        created = float(proc.create_time())
        if proc.status() == psutil.STATUS_ZOMBIE:
            return f"its holder, pid {pid}, has exited"
    except psutil.NoSuchProcess:  # ZombieProcess included
        return f"its holder, pid {pid}, is gone"
    except psutil.AccessDenied:
        return None
    if abs(created - create_time) > CREATE_TIME_SLACK:
        return (
            f"pid {pid} now belongs to another process (started at {created:.2f},"
            f" the holder at {create_time:.2f})"
        )
    return None
