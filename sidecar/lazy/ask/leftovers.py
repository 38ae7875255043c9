"""What a one-shot leaves on the host while it runs, and how each piece is removed.

A run has a container (labelled with its run id), a run folder (0700, under the temp dir:
the proxy's socket and the whole transcript prompt) and, should Claude Code write one, a
session file under the project's one-shot state dir (named by the session id lazy gives
it). Three layers remove them: the run itself when it ends, its watchdog (lazy.ask.watchdog)
when lazy dies first, and the start-up sweep of every later run for whatever both missed
(a run folder whose owner no longer runs, a session file past any run's bound).
"""

from __future__ import annotations

import contextlib
import re
import shutil
import stat
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson

PREFIX = "lazy-oneshot-"
OWNER = "owner.json"  # the pid file record (lazy.os.pidfile) of the lazy that made the folder
STALE = 3600.0  # seconds after which a folder without an owner, or a session file, is debris
_SOCKET_MAX = 100  # the socket path must fit sockaddr_un (108 bytes)
_SESSION = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.jsonl)?$")


@dataclass(frozen=True)
class Run:
    id: str
    dir: Path
    state: Path  # the project's one-shot state dir, Claude Code's config dir in the container
    session: str  # the session id Claude Code is given (--session-id)

    def as_json(self) -> dict[str, str]:
        return {k: str(v) for k, v in asdict(self).items()}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Run:
        return Run(str(d["id"]), Path(d["dir"]), Path(d["state"]), str(d["session"]))


def parents() -> list[Path]:
    """Where run folders are made: the temp dir, or /tmp when its path is too long for
    the socket."""
    out = [Path(tempfile.gettempdir())]
    if Path("/tmp") not in out:
        out.append(Path("/tmp"))
    return out


def run_dir_for(run_id: str) -> Path:
    """Where a run's folder goes: the temp dir, unless its path is too long for the socket."""
    parent = Path(tempfile.gettempdir())
    if len(str(parent)) + len(f"/{PREFIX}{run_id}/proxy.sock") > _SOCKET_MAX:
        parent = Path("/tmp")
    return parent / f"{PREFIX}{run_id}"


def make_run_dir(path: Path) -> Path:
    """The run folder, fresh and 0700, holding the record of the lazy that made it (the
    sweep's judge of whether its run still goes on)."""
    from lazy.os.pidfile import me

    path.mkdir(mode=0o700)
    (path / OWNER).write_bytes(orjson.dumps(asdict(me())))
    return path


def _remove(path: Path) -> bool:
    """Remove a file, or a folder and all in it, never following a link; whether it was
    there."""
    try:
        is_dir = stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False
    if is_dir:
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()
    return True


def remove_files(run: Run) -> list[Path]:
    """Remove the run folder and the run's session files; what was removed."""
    projects = run.state / "projects"
    paths = (run.dir, *projects.glob(f"*/{run.session}.jsonl"), *projects.glob(f"*/{run.session}"))
    return [path for path in paths if _remove(path)]


def remove_containers(client: Any, run_id: str) -> list[str]:
    """Remove the containers of one run (by its label), running or not; their names."""
    from lazy.ask import engine

    found = engine.labelled(client, f"{engine.RUN_LABEL}={run_id}")
    return [c.name for c in found if engine.remove(client, c)]


def _owner_gone(folder: Path, now: float) -> bool:
    from lazy.os.pidfile import Holder

    try:
        d = orjson.loads((folder / OWNER).read_bytes())
        holder = Holder(**d)
    except (OSError, orjson.JSONDecodeError, TypeError, ValueError):
        # no record (yet, or never written): debris once older than any run
        with contextlib.suppress(OSError):
            return now - folder.lstat().st_mtime > STALE
        return False
    return not holder.alive()


def sweep_run_dirs(now: float | None = None) -> list[Path]:
    """Remove the run folders of a lazy that no longer runs (killed along with its
    watchdog, or the machine went down); those of a live lazy are its business."""
    now = time.time() if now is None else now
    removed = []
    for parent in parents():
        with contextlib.suppress(OSError):
            for folder in parent.glob(f"{PREFIX}*"):
                try:
                    mode = folder.lstat().st_mode
                except OSError:
                    continue
                if not stat.S_ISDIR(mode):  # never follow a link someone put there
                    continue
                if _owner_gone(folder, now) and _remove(folder):
                    removed.append(folder)
    return removed


def sweep_sessions(base: Path, now: float | None = None) -> list[Path]:
    """Remove one-shot session files under every project's state dir that are older than
    any run: the state dirs are lazy's own, and a file there is a whole transcript prompt
    (lazy before --no-session-persistence wrote one per run)."""
    now = time.time() if now is None else now
    removed = []
    for projects in base.glob("*/.claude/projects"):
        for path in projects.glob("*/*"):
            with contextlib.suppress(OSError):
                if _SESSION.match(path.name) and now - path.lstat().st_mtime > STALE:
                    _remove(path)
                    removed.append(path)
    return removed
