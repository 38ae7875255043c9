"""A one-shot's watchdog: a process of its own that outlives lazy, so a run that lazy could
not end itself (kill -9, a crash, an unhandled signal) still leaves nothing behind, at once.

lazy starts one per run with a pipe on its stdin whose write end only lazy holds, and tells
it the run before any of it exists, then that the container is being created, that it was,
and that the run ended and was cleaned up. The kernel closes that pipe however lazy ends, so the watchdog
learns of lazy's death the moment it happens, with no polling of a pid. Should the pipe
close before the run was said to be clean, the watchdog removes the run's files and its
container itself (waiting for a container whose creation was under way to appear). It runs
in a session of its own, so the Ctrl-C or hang-up that ends lazy does not end it too.

Only the standard library is imported until there is something to clean: it starts fast.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lazy.ask.leftovers import Run

_CREDENTIALS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")


def _environment() -> dict[str, str]:
    """lazy's environment less the credential (the watchdog needs Docker's settings only),
    with the folder this lazy is imported from first on the path, however it was found."""
    import lazy

    env = {k: v for k, v in os.environ.items() if k not in _CREDENTIALS}
    root = str(Path(lazy.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


class Watchdog:
    """The lazy side: ``start`` before anything of the run exists, ``creating`` and
    ``created`` around the container's creation, and ``release`` once the run removed all
    of it; ``abandon`` when it could not (the watchdog then removes what is left)."""

    def __init__(self, proc: subprocess.Popen[bytes], pipe: IO[bytes]) -> None:
        self._proc = proc
        self._pipe = pipe

    @staticmethod
    def start(run: Run, log: str) -> Watchdog:
        from lazy.ask.oneshot import OneShotError

        read, write = os.pipe()
        try:
            with open(log, "ab") as err:
                os.chmod(log, 0o600)
                proc = subprocess.Popen(
                    [sys.executable, "-m", "lazy.ask.watchdog"],
                    stdin=read,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                    cwd="/",
                    env=_environment(),
                    start_new_session=True,
                )
        except OSError as e:
            os.close(write)
            raise OneShotError(
                "could not start the one-shot's watchdog (what removes its container should "
                "lazy die), so no one-shot was started",
                "watchdog-failed",
                f"{type(e).__name__}: {e}",
            ) from e
        finally:
            os.close(read)
        dog = Watchdog(proc, os.fdopen(write, "wb", buffering=0))
        dog._say({"guard": run.as_json()})
        return dog

    def _say(self, message: dict[str, Any]) -> None:
        # one write of a short line: whole, even should lazy die right after it
        with contextlib.suppress(OSError, ValueError):
            self._pipe.write((json.dumps(message) + "\n").encode())

    def creating(self) -> None:
        self._say({"creating": True})

    def created(self) -> None:
        self._say({"created": True})

    def release(self) -> None:
        self._say({"done": True})
        self._close()

    def abandon(self) -> None:
        self._close()

    def _close(self) -> None:
        with contextlib.suppress(OSError):
            self._pipe.close()
        # reaped once it exits, without holding the run up meanwhile (it reads what was
        # said before the close whatever lazy does next)
        threading.Thread(target=self._proc.wait, name="lazy-watchdog-reap", daemon=True).start()


def _log(text: str) -> None:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    print(f"{stamp} pid {os.getpid()}: {text}", file=sys.stderr, flush=True)


def clean(run: Run, in_flight: bool) -> None:
    """Remove what is left of ``run``: its files first (the transcript), then its
    container; when its creation may still be under way (``in_flight``), it is waited for."""
    from lazy.ask import engine, leftovers
    from lazy.ask.oneshot import OneShotError

    removed: list[Any] = list(leftovers.remove_files(run))
    try:
        client = engine.connect()
    except OneShotError as e:
        _log(f"run {run.id}: could not reach Docker to remove its container: {e.line()}")
        return
    try:
        deadline = time.monotonic() + (engine.API_TIMEOUT if in_flight else 0)
        while True:
            names = leftovers.remove_containers(client, run.id)
            removed += names
            if names or time.monotonic() >= deadline:
                break
            time.sleep(1.0)  # a create the engine has not finished yet: look again
    finally:
        client.close()
    removed += leftovers.remove_files(run)  # anything the container wrote meanwhile
    _log(f"run {run.id}: lazy ended without cleaning up; removed {[str(x) for x in removed]}")


def main() -> int:
    from lazy.ask.leftovers import Run

    run: Run | None = None
    said: set[str] = set()
    for raw in sys.stdin.buffer:  # until lazy closes its end, or dies
        with contextlib.suppress(ValueError, KeyError, TypeError, AttributeError):
            message = json.loads(raw)
            if "guard" in message:
                run = Run.from_json(message["guard"])
            said.update(k for k, v in message.items() if v is True)
    if run is not None and "done" not in said:
        clean(run, in_flight="creating" in said and "created" not in said)
    return 0


if __name__ == "__main__":
    sys.exit(main())
