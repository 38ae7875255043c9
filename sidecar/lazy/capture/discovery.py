"""Finding sessions on disk: Claude Code's projects dirs for this repo, Codex rollouts,
OpenCode's data dir; one candidate per session, the most complete copy."""

from __future__ import annotations

import os
import re
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from lazy.agents import COMPRESSED, file_identity, make_reader
from lazy.agents.files import open_source
from lazy.agents.jsonl import split_lines
from lazy.agents.opencode.reader import iso_ms, list_sessions
from lazy.capture.projects import is_under, project_of
from lazy.records import Quarantined

HEAD_BYTES = 256 * 1024  # the most of a file read to find its first user message
FIRST_READ = 16 * 1024
K = TypeVar("K")


@dataclass(slots=True)
class Candidate:
    path: Path
    session_id: str  # main session id (for a subagent file: its parent's)
    agent_id: str | None
    size: int
    mtime_ns: int
    cwd: str | None = None
    oneshot: bool = False
    tool: str = "claude"
    started_at: str | None = None
    ref: Any = None  # OpenCode: the session's SessionRef (its records are not one file)
    data_dir: Path | None = None  # ... and the data dir it was listed from

    @property
    def is_sidechain(self) -> bool:
        return self.agent_id is not None


@dataclass
class Discovery:
    roots: list[Path]
    sessions: dict[str, Candidate] = field(default_factory=dict)  # main session id -> copy
    sidechains: dict[str, list[Candidate]] = field(default_factory=dict)  # by parent id
    oneshots: dict[str, Candidate] = field(default_factory=dict)
    problems: list[Quarantined] = field(default_factory=list)  # sources that could not be listed

    def files_of(self, session_id: str) -> list[Candidate]:
        main = self.sessions.get(session_id)
        return ([main] if main else []) + self.sidechains.get(session_id, [])


def claude_roots() -> list[Path]:
    """``$CLAUDE_CONFIG_DIR/projects`` (each entry, if it lists several) and ~/.claude."""
    roots: list[Path] = []
    for d in filter(None, os.environ.get("CLAUDE_CONFIG_DIR", "").split(os.pathsep)):
        roots.append(Path(d).expanduser() / "projects")
    roots.append(Path.home() / ".claude" / "projects")
    seen: set[str] = set()
    out = []
    for r in roots:
        key = os.path.realpath(r)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def encode_dir(path: str) -> str:
    """Claude Code's project dir name for a cwd (lossy: every non-alphanumeric becomes -)."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def worktrees(repo: str) -> list[str]:
    """The repo and its git worktrees."""
    out = [repo]
    try:
        text = subprocess.run(
            ["git", "-C", repo, "worktree", "list", "--porcelain"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return out
    for line in text.splitlines():
        if line.startswith("worktree "):
            wt = line[len("worktree ") :]
            if wt not in out:
                out.append(wt)
    return out


@dataclass(slots=True)
class Head:
    cwd: str | None = None
    parent: str | None = None  # the session a subagent's file names as its parent
    oneshot: bool = False
    started_at: str | None = None


def read_head(path: Path, tool: str = "claude") -> Head:
    """What the first lines of a session file say, read by the same reader and one-shot
    rule as capture. The rule needs the first user message, which most files hold in their
    first few KB: a small read first, larger ones only when it is not there yet."""
    want = FIRST_READ
    while True:
        try:
            with open_source(path)[0] as f:
                head = f.read(want)
            out, complete = _parse_head(path, tool, head)
        except Exception:  # unreadable, damaged, or unforeseen: capture will say why
            return Head()
        if complete or len(head) < want or want >= HEAD_BYTES:
            return out
        want = min(want * 4, HEAD_BYTES)


def _parse_head(path: Path, tool: str, head: bytes) -> tuple[Head, bool]:
    sid, agent = file_identity(path)
    reader = make_reader(tool, str(path), sid, agent)
    out = Head()
    facts = None
    for line in split_lines(head, 0, 1):
        batch = reader.read([line])
        if batch.sidechain_of:
            out.parent = next(iter(batch.sidechain_of.values()))[0]
        facts = next(iter(reader.facts.values()), None)
        if facts is not None and facts.first_user_seen:
            break  # the rule looks at the first user message only
    if facts is not None:
        out.cwd, out.started_at = facts.cwd, facts.first_timestamp
        out.oneshot = agent is None and facts.oneshot
    return out, facts is not None and facts.first_user_seen


# A long-lived process (the sidecar sweeps every 30 s) sees the same files again and again:
# a file's head is read again only when its size or mtime changed.
_heads: dict[str, tuple[int, int, Head]] = {}


def head_of(path: Path, st: os.stat_result, tool: str = "claude") -> Head:
    key = f"{tool}\0{path}"
    seen = _heads.get(key)
    if seen is not None and seen[0] == st.st_size and seen[1] == st.st_mtime_ns:
        return seen[2]
    head = read_head(path, tool)
    _heads[key] = (st.st_size, st.st_mtime_ns, head)
    return head


def _regular(path: Path, problems: list[Quarantined] | None = None) -> os.stat_result | None:
    """The file's stat when it is a regular file. A FIFO or socket would block the read that
    follows, a dangling link cannot be read: reported, then passed over."""
    try:
        st = path.stat()
    except OSError as e:
        if problems is not None:
            problems.append(Quarantined(0, 0, f"cannot be read: {e.strerror or e}", b"", str(path)))
        return None
    if not stat.S_ISREG(st.st_mode):
        if problems is not None:
            problems.append(
                Quarantined(0, 0, "not a regular file (a FIFO or device?)", b"", str(path))
            )
        return None
    return st


def _files(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in ("tool-results", "memory")]
        for name in filenames:
            if name.endswith(".jsonl") and name != "journal.jsonl":
                out.append(Path(dirpath) / name)
    return out


def _in_project(cwd: str | None, repos: list[str]) -> bool:
    if cwd is None:
        return False
    if project_of(cwd) in repos:
        return True
    return any(is_under(cwd, r) for r in repos)


def discover(
    sources: list[Path] | None = None,
    project: str | None = None,
    *,
    default_roots: bool = True,
) -> Discovery:
    """Session files under the default roots and ``sources``, for ``project`` (None: all).

    Files under an explicit ``sources`` dir are all taken; the default roots are filtered
    to sessions whose cwd lies in the project or one of its worktrees. When the same
    session is in several dirs, the most complete copy wins (largest, then newest).
    """
    explicit = _explicit(sources)
    roots = roots_of("claude", sources, default_roots=default_roots)
    result = Discovery(roots=roots)
    repos = worktrees(project) if project else []
    prefixes = [encode_dir(r) for r in repos]
    old_layout_agents: list[Candidate] = []
    for root in roots:
        if not root.is_dir():
            continue
        filtered = project is not None and root not in explicit
        for path in _files(root):
            if filtered:
                rel = path.relative_to(root).parts
                if not any(rel[0].startswith(p[:200]) for p in prefixes):
                    continue
            st = _regular(path, result.problems)
            if st is None:
                continue
            sid, agent = file_identity(path)
            head = head_of(path, st)
            cwd, oneshot = head.cwd, head.oneshot
            # a head with no cwd in it (a big pasted image first) stays: its dir name matched
            if filtered and cwd is not None and not _in_project(cwd, repos):
                continue
            if agent is not None and head.parent and sid.startswith("agent-"):
                sid = head.parent
            cand = Candidate(path, sid, agent, st.st_size, st.st_mtime_ns, cwd, oneshot)
            cand.started_at = head.started_at
            if agent is not None:
                old_layout_agents.append(cand)
            elif oneshot:
                result.oneshots[sid] = cand
            else:
                _keep_best(result.sessions, sid, cand)
    by_key: dict[tuple[str, str | None], Candidate] = {}
    for cand in old_layout_agents:
        if cand.session_id not in result.oneshots:
            _keep_best(by_key, (cand.session_id, cand.agent_id), cand)
    for (sid, _), cand in sorted(by_key.items(), key=lambda kv: str(kv[1].path)):
        result.sidechains.setdefault(sid, []).append(cand)
    return result


def _keep_best(into: dict[K, Candidate], key: K, cand: Candidate) -> None:
    """Of several copies of one session (or subagent), the most complete: the largest,
    then the newest."""
    best = into.get(key)
    if best is None or (cand.size, cand.mtime_ns) > (best.size, best.mtime_ns):
        into[key] = cand


def _explicit(sources: list[Path] | None) -> list[Path]:
    return [Path(os.path.abspath(Path(s).expanduser())) for s in sources or []]


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def _rollouts(root: Path) -> list[Path]:
    """Rollouts under a Codex home (its sessions/ and archived_sessions/), or under any dir
    of rollout copies."""
    dirs = [d for d in (root / "sessions", root / "archived_sessions") if d.is_dir()] or [root]
    out = []
    for top in dirs:
        for dirpath, _, filenames in os.walk(top):
            for name in filenames:
                if name in ("history.jsonl", "session_index.jsonl"):
                    continue
                if name.endswith(".jsonl") or any(name.endswith(".jsonl" + e) for e in COMPRESSED):
                    out.append(Path(dirpath) / name)
    return sorted(out)


def discover_codex(
    sources: list[Path] | None = None, project: str | None = None, *, default_roots: bool = True
) -> Discovery:
    """Codex rollouts under $CODEX_HOME (default ~/.codex) and ``sources``; with
    ``project``, those whose cwd lies in it. A subagent's thread is a sidechain of the
    thread that spawned it, when that one is found too."""
    roots = roots_of("codex", sources, default_roots=default_roots)
    result = Discovery(roots=roots)
    repos = worktrees(project) if project else []
    children: list[Candidate] = []
    for root in roots:
        if not root.is_dir():
            continue
        for path in _rollouts(root):
            st = _regular(path, result.problems)
            if st is None:
                continue
            head = head_of(path, st, "codex")
            if project is not None and not _in_project(head.cwd, repos):
                continue
            sid = file_identity(path)[0]
            cand = Candidate(path, sid, None, st.st_size, st.st_mtime_ns, head.cwd, tool="codex")
            cand.started_at = head.started_at
            if head.parent:
                cand.agent_id, cand.session_id = sid, head.parent
                children.append(cand)
            else:
                _keep_best(result.sessions, cand.session_id, cand)
    _attach(result, children)
    return result


def _attach(result: Discovery, children: list[Candidate]) -> None:
    """Children go with their parent's session; one whose parent is not found stands alone."""
    best: dict[str, Candidate] = {}
    for cand in children:
        assert cand.agent_id is not None
        _keep_best(best, cand.agent_id, cand)
    for agent, cand in sorted(best.items()):
        if cand.session_id in result.sessions:
            result.sidechains.setdefault(cand.session_id, []).append(cand)
        else:
            cand.session_id, cand.agent_id = agent, None
            _keep_best(result.sessions, cand.session_id, cand)


def opencode_home() -> Path:
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data).expanduser() / "opencode"


def opencode_key(ref: Any) -> str:
    """The store's name for an OpenCode session's source: its JSON file, or db#session."""
    loc = str(ref.location)
    return f"{loc}#{ref.session_id}" if loc.endswith(".db") else loc


def discover_opencode(
    sources: list[Path] | None = None, project: str | None = None, *, default_roots: bool = True
) -> Discovery:
    """OpenCode sessions in its data dir ($XDG_DATA_HOME/opencode: opencode.db and the
    older JSON storage) and ``sources``; child sessions are sidechains of their parent."""
    roots = roots_of("opencode", sources, default_roots=default_roots)
    result = Discovery(roots=roots)
    repos = worktrees(project) if project else []
    children: list[Candidate] = []
    for root in roots:
        if not root.is_dir():
            continue
        refs, problems = list_sessions(root)
        result.problems += problems
        for ref in refs:
            if project is not None and not _in_project(ref.directory, repos):
                continue
            cand = Candidate(
                Path(opencode_key(ref)), ref.session_id, None, 1, ref.mtime_ns, ref.directory
            )
            cand.tool, cand.ref, cand.started_at = "opencode", ref, iso_ms(ref.created_ms)
            cand.data_dir = root
            if ref.parent_id:
                cand.agent_id, cand.session_id = ref.session_id, ref.parent_id
                children.append(cand)
            else:
                _keep_best(result.sessions, cand.session_id, cand)
    _attach(result, children)
    return result


def roots_of(
    tool: str, sources: list[Path] | None = None, *, default_roots: bool = True
) -> list[Path]:
    """Where ``tool``'s sessions are looked for: its default roots, then ``sources``."""
    if not default_roots:
        defaults: list[Path] = []
    elif tool == "codex":
        defaults = [codex_home()]
    elif tool == "opencode":
        defaults = [opencode_home()]
    else:
        defaults = claude_roots()
    return defaults + _explicit(sources)


def discover_tool(
    tool: str,
    sources: list[Path] | None = None,
    project: str | None = None,
    *,
    default_roots: bool = True,
) -> Discovery:
    if tool == "codex":
        return discover_codex(sources, project, default_roots=default_roots)
    if tool == "opencode":
        return discover_opencode(sources, project, default_roots=default_roots)
    return discover(sources, project, default_roots=default_roots)
