"""LAZY_HOME is private: files 0600, directories 0700, whatever the umask (invariant 10).

The store holds whole transcripts, and what agents read lands in them (keys, tokens,
customer data); Claude Code writes its own transcripts 0600. A umask cannot be trusted
either way (000 widens what lazy creates, and a umask is process-wide, so lazy never sets
one: the sidecar is multi-threaded, and Tantivy's threads and every other thread would create
their files under it, the user's own files outside LAZY_HOME included). So modes are set
explicitly: at creation (``os.open(..., 0o600)`` + ``fchmod``, ``mkdir`` + ``chmod``), and,
for what others create (SQLite's ``-wal``/``-shm`` take the database file's mode; Tantivy's
segment files take ``0666 & ~umask``), by tightening after the fact.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700
_OTHERS = 0o077  # group and world bits: none of them, ever

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def private_dir(path: Path, within: Path | None = None) -> Path:
    """``path`` as a 0700 directory (made with its parents when missing; the parents above
    it are left as the user has them, except that every one from ``within`` down is 0700
    too). One that exists and is wider is tightened."""
    if within is not None and path != within and within in path.parents:
        private_dir(path.parent, within)
    try:
        path.mkdir(mode=DIR_MODE)
    except FileExistsError:
        if not path.is_dir():
            raise  # a file in the way: mkdir's own error, never a file made 0700
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=DIR_MODE)
    st = path.stat()
    if os.name == "posix" and stat.S_IMODE(st.st_mode) != DIR_MODE and _owned(st):
        os.chmod(path, DIR_MODE)  # mkdir's mode passed through the umask, or it was wider
    return path


def open_private(path: Path, flags: int) -> int:
    """``os.open`` of a file created 0600 (``flags`` gets ``O_CREAT``); an existing one
    that is wider is tightened through the descriptor."""
    fd = os.open(path, flags | os.O_CREAT | _NOFOLLOW, FILE_MODE)
    if os.name == "posix":
        try:
            st = os.fstat(fd)
            if stat.S_IMODE(st.st_mode) & _OTHERS and _owned(st):
                os.fchmod(fd, stat.S_IMODE(st.st_mode) & ~_OTHERS & 0o7777)
        except BaseException:
            os.close(fd)
            raise
    return fd


def private_opener(path: str, flags: int) -> int:
    """An ``opener`` for :func:`open`: the file is created 0600."""
    return open_private(Path(path), flags)


def touch_private(path: Path) -> None:
    """Create ``path`` empty and 0600 if missing (so what is written into it later, by
    lazy or by a library that opens it itself, is private from the first byte)."""
    os.close(open_private(path, os.O_RDONLY))


def _owned(st: os.stat_result) -> bool:
    # chmod needs ownership (or root); another user's file is reported, never touched
    return os.name != "posix" or st.st_uid == os.geteuid() or os.geteuid() == 0


@dataclass
class Tightened:
    """What :func:`tighten` changed, and what it could not."""

    changed: list[tuple[Path, int, int]] = field(default_factory=list)  # (path, was, now)
    failed: list[tuple[Path, str]] = field(default_factory=list)  # (path, why)

    def __bool__(self) -> bool:
        return bool(self.changed or self.failed)

    def extend(self, other: Tightened) -> None:
        self.changed += other.changed
        self.failed += other.failed


def wide(path: Path) -> bool:
    """``path`` exists and group or others have any access to it."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return not stat.S_ISLNK(st.st_mode) and bool(stat.S_IMODE(st.st_mode) & _OTHERS)


# What lazy itself keeps in LAZY_HOME. Only these are tightened: LAZY_HOME may be set to a
# folder that holds other things too, and those are the user's to decide.
LAZY_NAMES = (
    "store.db", "store.db-*", "store.db.*", "store.checked", ".store.checked.*",
    "index", "index.new-*", "index.old-*", "daemon.pid", "daemon.json", ".daemon.json.*",
    "daemon.log*", "hook-failures.log*", "builder", "oneshot", ".lazy-write-probe-*",
)  # fmt: skip


def tighten_home(home: Path) -> Tightened:
    """Tighten LAZY_HOME itself and everything lazy keeps in it (``LAZY_NAMES``)."""
    done = tighten(home, recurse=False)
    try:
        children = sorted(home.iterdir())
    except FileNotFoundError:
        return done
    except OSError as e:
        done.failed.append((home, f"cannot list it ({e.strerror or e})"))
        return done
    for child in children:
        if any(fnmatch.fnmatchcase(child.name, pattern) for pattern in LAZY_NAMES):
            done.extend(tighten(child))
    return done


def tighten(root: Path, *, recurse: bool = True) -> Tightened:
    """Take group and world access off ``root`` and (``recurse``) everything under it:
    a 0644 file becomes 0600, a 0755 directory 0700 (the owner's own bits stay). Symlinks
    are not followed. Never raises: what cannot be changed is in ``failed``."""
    done = Tightened()
    if os.name != "posix":
        return done
    _tighten_one(root, done)
    if not recurse or not root.is_dir() or root.is_symlink():
        return done
    for dirpath, dirnames, filenames in os.walk(root, onerror=lambda e: _walk_error(e, done)):
        for name in dirnames + filenames:
            _tighten_one(Path(dirpath) / name, done)
    return done


def _walk_error(e: OSError, done: Tightened) -> None:
    done.failed.append((Path(e.filename or "?"), f"cannot list it ({e.strerror or e})"))


def _tighten_one(path: Path, done: Tightened) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return  # gone meanwhile (a lock file, a swapped index)
    except OSError as e:
        done.failed.append((path, e.strerror or str(e)))
        return
    mode = stat.S_IMODE(st.st_mode)
    if stat.S_ISLNK(st.st_mode) or not mode & _OTHERS:
        return
    now = mode & ~_OTHERS
    if not _owned(st):
        done.failed.append((path, f"owned by uid {st.st_uid}, not by this user"))
        return
    try:
        os.chmod(path, now)
    except FileNotFoundError:
        return
    except OSError as e:
        done.failed.append((path, e.strerror or str(e)))
        return
    done.changed.append((path, mode, now))
