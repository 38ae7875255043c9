"""Claude Code hooks that run `lazy capture --hook`: installed in, removed from and checked
in the user's Claude settings (``$CLAUDE_CONFIG_DIR/settings.json``, else
``~/.claude/settings.json``).

Claude Code reads ``hooks → <event> → [{matcher, hooks: [{type: "command", command,
timeout}]}]``. Our entries are the command hooks whose command is ``<a lazy> capture
--hook``; everything else in the file (other hooks, other keys, their order) is loaded,
kept and written back as it was, atomically. A file that is not valid JSON is refused,
never overwritten.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EVENTS = ("SessionStart", "Stop", "PreCompact", "SessionEnd")
# Claude Code checks its settings file against a schema and ignores the whole file when it
# fails. 1.0.65, the oldest release lazy's hooks were run against, knows SessionStart, Stop
# and PreCompact but not SessionEnd (so a file naming it loses the user's every setting);
# 2.0.42 knows all four. The release in between that added SessionEnd is not pinned down:
# before 2.0 it is left out.
OLDEST_CLAUDE = (1, 0, 65)
SESSION_END_FROM = (2, 0, 0)
# seconds Claude Code lets the hook run before killing it; the hook bounds itself well
# within this (lazy.capture.hook_entry.HARD)
TIMEOUT = 30
ARGS = ["capture", "--hook"]


class SettingsError(Exception):
    """The settings file cannot be used as it is; it is left untouched."""

    def __init__(self, path: Path, reason: str, code: str = "BAD_SETTINGS") -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.code = code


def settings_path() -> Path:
    """Where Claude Code reads the user's settings."""
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    base = Path(config).expanduser() if config else Path.home() / ".claude"
    return base / "settings.json"


def this_lazy() -> Path:
    """The absolute path of the running `lazy` (its entry point, not resolved: a pipx link
    keeps working across upgrades)."""
    argv0 = Path(os.path.abspath(sys.argv[0])) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name.startswith("lazy") and argv0.is_file():
        return argv0
    beside = Path(sys.executable).with_name("lazy")  # run as `python -m lazy.cli.main`
    if beside.is_file():
        return Path(os.path.abspath(beside))
    found = shutil.which("lazy")
    if found:
        return Path(os.path.abspath(found))
    raise SettingsError(settings_path(), "cannot tell where the `lazy` command is", "NO_LAZY")


@dataclass
class Claude:
    """The Claude Code on PATH: where, and its version."""

    path: str
    version: str
    parts: tuple[int, ...]


def installed_claude() -> Claude | None:
    """The ``claude`` on PATH and its version (None: none there, or it did not say)."""
    exe = shutil.which("claude")
    if exe is None:
        return None
    try:
        out = subprocess.run(
            [exe, "--version"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
            stdin=subprocess.DEVNULL,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    if m is None:
        return None
    return Claude(exe, m.group(0), tuple(int(g) for g in m.groups()))


def events_for(claude: Claude | None) -> tuple[str, ...]:
    """The events to hook for this Claude Code (unknown: a current one)."""
    if claude is not None and claude.parts < OLDEST_CLAUDE:
        raise SettingsError(
            settings_path(),
            f"Claude Code {claude.version} ({claude.path}) is older than"
            f" {'.'.join(map(str, OLDEST_CLAUDE))}, the oldest release lazy's hooks are known"
            " to work with: upgrade it, or capture with `lazy daemon start` instead",
            "CLAUDE_TOO_OLD",
        )
    if claude is not None and claude.parts < SESSION_END_FROM:
        return tuple(e for e in EVENTS if e != "SessionEnd")
    return EVENTS


def command_for(lazy: Path) -> str:
    return shlex.join([str(lazy), *ARGS])


def program_of(command: str) -> str | None:
    """The program of one of our hook commands, else None."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    if len(argv) == 3 and argv[1:] == ARGS and Path(argv[0]).name.startswith("lazy"):
        return argv[0]
    return None


def _ours(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and item.get("type") == "command"
        and isinstance(item.get("command"), str)
        and program_of(item["command"]) is not None
    )


def runnable(program: str) -> bool:
    return os.path.isfile(program) and os.access(program, os.X_OK)


# ---- the file -------------------------------------------------------------------------------


def load(path: Path) -> tuple[dict[str, Any], str | None]:
    """The settings and the text they came from (None: no file yet)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as e:
        raise SettingsError(path, f"cannot be read: {e}", type(e).__name__) from e
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SettingsError(
            path,
            f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); fix it or move it"
            " away, lazy leaves it as it is",
            "INVALID_JSON",
        ) from e
    if not isinstance(data, dict):
        raise SettingsError(path, "not a JSON object", "INVALID_SETTINGS")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise SettingsError(path, '"hooks" is not an object', "INVALID_SETTINGS")
    for event, groups in (hooks or {}).items():
        if not isinstance(groups, list):
            raise SettingsError(path, f'"hooks.{event}" is not a list', "INVALID_SETTINGS")
    return data, text


def render(settings: dict[str, Any]) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Replace the file in one step (a temp file beside it, fsynced, renamed over it), with
    its permissions kept; a symlinked settings file (dotfiles) has its target replaced."""
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if os.name == "posix":
        dfd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)  # the rename itself survives a crash
        finally:
            os.close(dfd)


# ---- the change -----------------------------------------------------------------------------


@dataclass
class Change:
    path: Path
    before: str | None  # the file's text (None: there was no file)
    after: str
    added: list[str] = field(default_factory=list)  # events that get our hook
    replaced: list[str] = field(default_factory=list)  # events whose hook of ours changed
    removed: list[str] = field(default_factory=list)  # events that lose our hook
    kept: list[str] = field(default_factory=list)  # events already as wanted

    @property
    def changed(self) -> bool:
        return bool(self.added or self.replaced or self.removed)


def _strip(hooks: dict[str, Any], event: str) -> bool:
    """Drop our hooks from one event (and the groups and the event left empty by that)."""
    groups = hooks.get(event)
    if not isinstance(groups, list):
        return False
    found = False
    kept_groups = []
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(inner, list) and any(_ours(h) for h in inner):
            found = True
            rest = [h for h in inner if not _ours(h)]
            if not rest:
                continue  # the group was ours alone
            group["hooks"] = rest
        kept_groups.append(group)
    if found:
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    return found


def _our_commands(hooks: dict[str, Any], event: str) -> list[dict[str, Any]]:
    out = []
    for group in hooks.get(event) or []:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(inner, list):
            out += [h for h in inner if _ours(h)]
    return out


def plan_install(path: Path, lazy: Path, events: tuple[str, ...] = EVENTS) -> Change:
    """Our hook for each of ``events``; an event of ours left out (one an older Claude Code
    does not know) loses its hook."""
    settings, before = load(path)
    new = copy.deepcopy(settings)
    had_hooks = "hooks" in new
    hooks: dict[str, Any] = new.setdefault("hooks", {})
    wanted = {"type": "command", "command": command_for(lazy), "timeout": TIMEOUT}
    change = Change(path, before, "")
    for event in EVENTS:
        if event not in events:
            if _strip(hooks, event):
                change.removed.append(event)
            continue
        mine = _our_commands(hooks, event)
        if len(mine) == 1 and mine[0] == wanted:
            change.kept.append(event)
            continue
        (change.replaced if mine else change.added).append(event)
        _strip(hooks, event)
        hooks.setdefault(event, []).append({"matcher": "", "hooks": [dict(wanted)]})
    if not hooks and not had_hooks:
        del new["hooks"]
    change.after = render(new) if change.changed else (before or "")
    return change


def plan_uninstall(path: Path) -> Change:
    settings, before = load(path)
    new = copy.deepcopy(settings)
    hooks = new.get("hooks")
    change = Change(path, before, "")
    if isinstance(hooks, dict):
        for event in list(hooks):
            if _strip(hooks, event):
                change.removed.append(event)
        if change.removed and not hooks:
            del new["hooks"]  # it held nothing but ours
    change.after = render(new) if change.changed else (before or "")
    return change


def apply(change: Change) -> None:
    if change.changed:
        write_atomic(change.path, change.after)


# ---- status ---------------------------------------------------------------------------------


@dataclass
class EventStatus:
    event: str
    installed: bool
    command: str | None  # our hook's command (the first, if several)
    runnable: bool  # its program exists and can be run


def status(path: Path | None = None) -> list[EventStatus]:
    settings, _ = load(path or settings_path())
    hooks = settings.get("hooks") or {}
    out = []
    for event in EVENTS:
        mine = _our_commands(hooks, event)
        command = str(mine[0]["command"]) if mine else None
        program = program_of(command) if command else None
        out.append(EventStatus(event, bool(mine), command, bool(program and runnable(program))))
    return out
