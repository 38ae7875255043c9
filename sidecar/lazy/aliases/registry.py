"""SessionRegistry: human names (aliases) for the agents' native conversation ids.

A binding's key is (kind, scope, name):

- kind (``agent`` in the code): the agent, one of ``lazy.agents.TOOLS`` (``claude``,
  ``codex``, ``opencode``); anything else is a ValueError;
- scope: the resolved absolute posix path of the working directory (case-normalised on
  Windows), so the same alias in two repositories, or for two agents, is two bindings;
- name: an ASCII letter, then letters, digits, ``_``, ``.`` or ``-``; at most 64 characters.

Its value: ``native_id`` (the id the agent resumes), ``model`` and ``effort`` (recorded
metadata, not pins: ``None`` in a rebind keeps what was recorded), ``created_at`` and
``updated_at`` (ISO-8601 UTC). A rebind with nothing new writes nothing.

The file is ``path`` if given, else ``$LAZYBRIDGE_SESSIONS_FILE``, else
``~/.lazybridge/sessions.json``. Its layout (UTF-8 JSON, rewritten whole)::

    {
      "version": 1,
      "sessions": [
        {
          "kind": "claude",
          "scope": "/home/me/src/app",
          "name": "reviewer",
          "native_id": "6f1c0d2e-…",
          "model": "claude-sonnet-4-5",
          "effort": null,
          "created_at": "2026-11-01T10:00:00.000Z",
          "updated_at": "2026-11-01T10:05:00.000Z"
        }
      ]
    }

``sessions`` is sorted by (kind, scope, name). An entry this code cannot use (edited by hand,
or from a later layout) is skipped by reads, logged once, and written back as it was; other
top-level keys are kept too. A file of a later ``version`` is read but never written.

Failures:

- a missing file is an empty registry;
- a file that is not a registry (invalid JSON, not UTF-8, empty, the wrong shape) is moved
  aside to ``<file>.corrupt`` (``<file>.corrupt.<UTC time>`` when that exists: an earlier
  one is never replaced), with a :class:`RegistryCorruptWarning`; the registry starts empty;
- a write that fails (disk full, permissions, a lock whose live holder never lets go) leaves
  the old file intact and no temp file, and is reported with a :class:`RegistryWriteWarning`
  and a log record, never raised: a registry failure must not fail an agent's turn.

Writes happen under a thread lock and a cross-process lock file (``<file>.lock``, see
:mod:`lazy.os.lockfile`) and replace the file atomically, fsynced with its folder
(:mod:`lazy.os.durable`). Reads take no lock: they see one whole version of the file.

The lock protects the file, not the agents' transcripts: two processes that first use one
alias at once can each start a conversation, and the last binding wins.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path, PureWindowsPath
from typing import Any, TypeVar

import orjson

from lazy.agents import TOOLS
from lazy.os.durable import atomic_write_bytes, move_aside
from lazy.os.lockfile import LockFile, LockLost
from lazy.os.private import private_dir

log = logging.getLogger(__name__)

VERSION = 1
ENV_FILE = "LAZYBRIDGE_SESSIONS_FILE"
NAME_RULE = (
    "an alias starts with an ASCII letter, then ASCII letters, digits, underscore, dot or"
    " hyphen; at most 64 characters"
)
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
# Native ids reach agents' command lines (`claude --resume ID`) and file names (`<id>.jsonl`):
# no whitespace or controls, no path separators, and nothing an argument parser would take
# for an option or a path would take for `..`. (The agents' own ids are stricter still, UUIDs
# and `ses_…`; the resuming caller checks those.)
_NATIVE_ID = re.compile(r"[^\s\x00-\x1f\x7f\-./\\][^\s\x00-\x1f\x7f/\\]{0,255}")

T = TypeVar("T")


class RegistryWarning(UserWarning):
    """Something about the registry file the user should hear of; never an exception."""

    def __init__(self, message: str, path: Path):
        super().__init__(message)
        self.path = path


class RegistryCorruptWarning(RegistryWarning):
    """The file was not a registry and was moved aside to ``moved_to``."""

    def __init__(self, message: str, path: Path, moved_to: Path | None, reason: str):
        super().__init__(message, path)
        self.moved_to = moved_to
        self.reason = reason


class RegistryWriteWarning(RegistryWarning):
    """A change was not saved; ``code`` and ``error`` carry the machine detail."""

    def __init__(self, message: str, path: Path, operation: str, code: str, error: BaseException):
        super().__init__(message, path)
        self.operation = operation
        self.code = code
        self.error = error


class RegistryError(Exception):
    """A write the registry refuses (a file of a later layout)."""


class _NotARegistry(Exception):
    """The bytes on disk are not a registry; the message says why."""


# ---- keys -----------------------------------------------------------------------------------


def check_agent(agent: str) -> str:
    if agent not in TOOLS:
        raise ValueError(f"unknown session kind {agent!r}: expected one of {', '.join(TOOLS)}")
    return agent


def check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"invalid alias {name!r}: {NAME_RULE}")
    return name


def check_native_id(native_id: str) -> str:
    if not isinstance(native_id, str) or not _NATIVE_ID.fullmatch(native_id):
        raise ValueError(
            f"invalid native id {native_id!r}: 1-256 characters, no whitespace, control"
            " characters, '/' or '\\', not starting with '-' or '.'"
        )
    return native_id


def normalize_scope(scope: str | os.PathLike[str]) -> str:
    """The resolved absolute posix path of ``scope`` (relative to the current directory,
    symlinks resolved, no trailing slash); case-normalised on Windows."""
    raw = os.fspath(scope)
    if not isinstance(raw, str) or not raw:
        raise ValueError(f"a scope is a directory path, not {raw!r}")
    resolved = str(Path(raw).resolve())
    if os.name == "nt":
        return PureWindowsPath(os.path.normcase(resolved)).as_posix()
    return Path(resolved).as_posix()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# ---- the entries ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionEntry:
    agent: str
    scope: str
    name: str
    native_id: str
    model: str | None
    effort: str | None
    created_at: str
    updated_at: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.agent, self.scope, self.name)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.agent,
            "scope": self.scope,
            "name": self.name,
            "native_id": self.native_id,
            "model": self.model,
            "effort": self.effort,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


def _entry(item: object) -> SessionEntry:
    """One stored entry, or ValueError saying what is wrong with it."""
    if not isinstance(item, dict):
        raise ValueError(f"not an object but {type(item).__name__}")
    fields: dict[str, Any] = {}
    for key in ("kind", "scope", "name", "native_id", "created_at", "updated_at"):
        value = item.get(key)
        if not isinstance(value, str):
            raise ValueError(f"{key} is {value!r}, not a string")
        fields[key] = value
    for key in ("model", "effort"):
        value = item.get(key)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{key} is {value!r}, not a string or null")
        fields[key] = value
    fields["agent"] = check_agent(fields.pop("kind"))  # the file says "kind"
    check_name(fields["name"])
    check_native_id(fields["native_id"])
    scope = fields["scope"]
    if not (scope.startswith("/") or re.match(r"[A-Za-z]:/", scope)):
        raise ValueError(f"scope {scope!r} is not an absolute posix path")
    return SessionEntry(**fields)


@dataclass
class _Doc:
    """The file as read: usable entries, and what is kept as it was."""

    entries: dict[tuple[str, str, str], SessionEntry]
    kept: list[Any]  # entries this code cannot use, written back untouched
    extra: dict[str, Any]  # other top-level keys
    version: int
    problems: list[str]  # why each kept entry is unusable

    @classmethod
    def empty(cls) -> _Doc:
        return cls({}, [], {}, VERSION, [])

    @classmethod
    def parse(cls, raw: bytes) -> _Doc:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            if not raw.strip():
                raise _NotARegistry("the file is empty") from e
            raise _NotARegistry(f"not valid JSON: line {e.lineno} column {e.colno}: {e.msg}") from e
        if not isinstance(data, dict):
            raise _NotARegistry(f"the top level is {type(data).__name__}, not an object")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise _NotARegistry(f"no layout version (version is {version!r})")
        sessions = data.get("sessions", [])
        if not isinstance(sessions, list):
            raise _NotARegistry(f"sessions is {type(sessions).__name__}, not a list")
        extra = {k: v for k, v in data.items() if k not in ("version", "sessions")}
        doc = cls({}, [], extra, version, [])
        for i, item in enumerate(sessions):
            try:
                entry = _entry(item)
                if entry.key in doc.entries:
                    raise ValueError(f"a second binding of {entry.name!r} ({entry.agent})")
            except ValueError as e:
                doc.kept.append(item)
                doc.problems.append(f"entry {i + 1} of sessions: {e}")
                continue
            doc.entries[entry.key] = entry
        return doc

    def dump(self) -> bytes:
        sessions = [self.entries[k].to_json() for k in sorted(self.entries)] + self.kept
        data = {"version": self.version, "sessions": sessions, **self.extra}
        return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"


# ---- the registry ---------------------------------------------------------------------------

# One thread lock per file for the whole process, so two registries on one file in one
# process take turns too (the lock file alone would have them wait on each other's pid).
_THREAD_LOCKS: dict[str, threading.Lock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()


def _thread_lock(path: Path) -> threading.Lock:
    with _THREAD_LOCKS_GUARD:
        return _THREAD_LOCKS.setdefault(str(path), threading.Lock())


def default_path() -> Path:
    env = os.environ.get(ENV_FILE)
    if env:
        return Path(env).expanduser()
    return Path.home() / ".lazybridge" / "sessions.json"


def _code(e: BaseException) -> str:
    if isinstance(e, OSError) and e.errno is not None:
        return errno.errorcode.get(e.errno, str(e.errno))
    return type(e).__name__


class SessionRegistry:
    """Names for native conversation ids, kept in one JSON file shared by processes."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        lock_timeout: float = 10.0,
        malformed_lock_grace: float = 2.0,
    ):
        chosen = Path(path).expanduser() if path is not None else default_path()
        self.path = Path(os.path.abspath(chosen))
        self.lock_timeout = lock_timeout
        self.malformed_lock_grace = malformed_lock_grace
        self._reported: set[str] = set()

    def __repr__(self) -> str:
        return f"SessionRegistry({str(self.path)!r})"

    @property
    def real_path(self) -> Path:
        """The file written: a symlinked registry (dotfiles) is written through its link."""
        return Path(os.path.realpath(self.path))

    @property
    def lock_path(self) -> Path:
        real = self.real_path
        return real.with_name(real.name + ".lock")

    # ---- reading ----------------------------------------------------------------------------

    def resolve(self, agent: str, scope: str | os.PathLike[str], name: str) -> str | None:
        """The native id bound to the alias, or None."""
        key = (check_agent(agent), normalize_scope(scope), check_name(name))
        entry = self._snapshot().entries.get(key)
        return entry.native_id if entry else None

    def get(self, agent: str, scope: str | os.PathLike[str], name: str) -> SessionEntry | None:
        """The whole binding of the alias, or None."""
        key = (check_agent(agent), normalize_scope(scope), check_name(name))
        return self._snapshot().entries.get(key)

    def entries(
        self, agent: str | None = None, scope: str | os.PathLike[str] | None = None
    ) -> list[SessionEntry]:
        """The bindings, sorted by (agent, scope, name); only ``agent``'s / ``scope``'s when
        given."""
        want_agent = check_agent(agent) if agent is not None else None
        want_scope = normalize_scope(scope) if scope is not None else None
        doc = self._snapshot()
        return [
            doc.entries[k]
            for k in sorted(doc.entries)
            if (want_agent is None or k[0] == want_agent)
            and (want_scope is None or k[1] == want_scope)
        ]

    # ---- writing ----------------------------------------------------------------------------

    def bind(
        self,
        agent: str,
        scope: str | os.PathLike[str],
        name: str,
        native_id: str,
        model: str | None = None,
        effort: str | None = None,
    ) -> None:
        """Point the alias at ``native_id`` (creating it, or moving it: the created time
        stays). ``model``/``effort`` None keep what was recorded."""
        key = (check_agent(agent), normalize_scope(scope), check_name(name))
        check_native_id(native_id)
        for what, value in (("model", model), ("effort", effort)):
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{what} must be a string or None, not {value!r}")

        def apply(doc: _Doc) -> tuple[None, bool]:
            old = doc.entries.get(key)
            new_model = model if model is not None else (old.model if old else None)
            new_effort = effort if effort is not None else (old.effort if old else None)
            if old and (old.native_id, old.model, old.effort) == (native_id, new_model, new_effort):
                return None, False
            now = _now()
            doc.entries[key] = SessionEntry(
                *key,
                native_id=native_id,
                model=new_model,
                effort=new_effort,
                created_at=old.created_at if old else now,
                updated_at=now,
            )
            return None, True

        self._mutate(f"bind {name!r}", apply, None)

    def rename(self, agent: str, scope: str | os.PathLike[str], old: str, new: str) -> None:
        """Rename an alias: KeyError when ``old`` is not bound, ValueError when ``new`` is."""
        agent, where = check_agent(agent), normalize_scope(scope)
        check_name(old)
        check_name(new)

        def apply(doc: _Doc) -> tuple[None, bool]:
            entry = doc.entries.get((agent, where, old))
            if entry is None:
                raise KeyError(f"no {agent} alias {old!r} in {where}")
            if (agent, where, new) in doc.entries:
                raise ValueError(f"a {agent} alias {new!r} already exists in {where}")
            del doc.entries[entry.key]
            doc.entries[(agent, where, new)] = replace(entry, name=new, updated_at=_now())
            return None, True

        self._mutate(f"rename {old!r} to {new!r}", apply, None)

    def forget(self, agent: str, scope: str | os.PathLike[str], name: str) -> bool:
        """Remove the alias; True when it was bound and the removal was saved."""
        key = (check_agent(agent), normalize_scope(scope), check_name(name))

        def apply(doc: _Doc) -> tuple[bool, bool]:
            if key not in doc.entries:
                return False, False
            del doc.entries[key]
            return True, True

        return self._mutate(f"forget {name!r}", apply, False)

    # ---- the file ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[LockFile]:
        private_dir(self.real_path.parent)
        with (
            _thread_lock(self.real_path),
            LockFile(
                self.lock_path,
                timeout=self.lock_timeout,
                malformed_grace=self.malformed_lock_grace,
            ) as lock,
        ):
            yield lock

    def _mutate(self, operation: str, apply: Callable[[_Doc], tuple[T, bool]], failed: T) -> T:
        """Read, change and write the file under the locks. KeyError/ValueError from
        ``apply`` reach the caller; a failure to save is reported, and ``failed`` returned."""
        real = self.real_path
        try:
            with self._locked() as lock:
                doc = self._load(locked=True)
                result, changed = apply(doc)
                if not changed:
                    return result
                if doc.version > VERSION:
                    raise RegistryError(
                        f"{real} has layout version {doc.version}, newer than this lazy's"
                        f" ({VERSION}); it is left as it is"
                    )
                if not lock.held():
                    raise LockLost(f"the lock {lock.path} was taken over while held")
                atomic_write_bytes(real, doc.dump())
                return result
        except (OSError, RegistryError, LockLost) as e:
            code = _code(e)
            message = (
                f"could not {operation} in the session registry {real}: the change was not"
                f" saved ({e}) [{code}]"
            )
            log.warning(message)
            warnings.warn(RegistryWriteWarning(message, real, operation, code, e), stacklevel=3)
            return failed

    def _snapshot(self) -> _Doc:
        """The file as it is now, without the lock (a replace is atomic)."""
        try:
            return self._load(locked=False)
        except OSError as e:
            self._report_once(f"could not read the session registry {self.real_path}: {e}")
            return _Doc.empty()

    def _load(self, *, locked: bool) -> _Doc:
        real = self.real_path
        try:
            raw = real.read_bytes()
        except FileNotFoundError:
            return _Doc.empty()
        try:
            doc = _Doc.parse(raw)
        except _NotARegistry as e:
            if locked:
                self._quarantine(real, str(e))
                return _Doc.empty()
            # a writer may be replacing it right now: look again under the lock
            with self._locked():
                return self._load(locked=True)
        for problem in doc.problems:
            self._report_once(f"{real}: {problem}; skipped, and kept in the file as it is")
        return doc

    def _quarantine(self, real: Path, reason: str) -> None:
        moved = move_aside(real, ".corrupt")
        message = (
            f"the session registry {real} is not valid ({reason}); moved it to {moved} and"
            " started an empty registry"
        )
        log.warning(message)
        warnings.warn(RegistryCorruptWarning(message, real, moved, reason), stacklevel=4)

    def _report_once(self, message: str) -> None:
        if message in self._reported:
            return
        self._reported.add(message)
        log.warning(message)
        warnings.warn(RegistryWarning(message, self.real_path), stacklevel=4)


# ---- the process-wide default -----------------------------------------------------------------

_default: SessionRegistry | None = None
_default_guard = threading.Lock()


def default_session_registry() -> SessionRegistry:
    """The process-wide registry, made on first use from the path precedence."""
    global _default
    with _default_guard:
        if _default is None:
            _default = SessionRegistry()
        return _default


def set_default_session_registry(registry: SessionRegistry | None) -> SessionRegistry | None:
    """Replace the process-wide registry (None: make a new one on next use); returns the
    one it replaced (None when none was made yet)."""
    global _default
    with _default_guard:
        old, _default = _default, registry
        return old
