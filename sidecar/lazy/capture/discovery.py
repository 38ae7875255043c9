"""Finding Claude Code session files: every projects dir for this repo, deduplicated."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from lazy.capture.pipeline import file_identity
from lazy.capture.projects import project_of
from lazy.sources.claude import ClaudeReader
from lazy.sources.jsonl import split_lines

HEAD_BYTES = 256 * 1024


@dataclass(slots=True)
class Candidate:
    path: Path
    session_id: str  # main session id (for a subagent file: its parent's)
    agent_id: str | None
    size: int
    mtime_ns: int
    cwd: str | None = None
    oneshot: bool = False

    @property
    def is_sidechain(self) -> bool:
        return self.agent_id is not None


@dataclass
class Discovery:
    roots: list[Path]
    sessions: dict[str, Candidate] = field(default_factory=dict)  # main session id -> copy
    sidechains: dict[str, list[Candidate]] = field(default_factory=dict)  # by parent id
    oneshots: dict[str, Candidate] = field(default_factory=dict)

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


def read_head(path: Path) -> tuple[str | None, str | None, bool]:
    """(cwd, the parent session a subagent file names, is a lazy one-shot) from the first
    lines of a session file, read by the same reader and one-shot rule as capture."""
    try:
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError:
        return None, None, False
    sid, agent = file_identity(path)
    reader = ClaudeReader(str(path), sid, agent)
    parent = None
    facts = None
    for line in split_lines(head, 0, 1):
        batch = reader.read([line])
        if batch.sidechain_of:
            parent = next(iter(batch.sidechain_of.values()))[0]
        facts = next(iter(reader.facts.values()), None)
        if facts is not None and facts.first_user_seen:
            break  # the rule looks at the first user message only
    if facts is None:
        return None, parent, False
    return facts.cwd, parent, agent is None and facts.oneshot


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
    return any(cwd == r or cwd.startswith(r.rstrip(os.sep) + os.sep) for r in repos)


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
    explicit = [Path(os.path.abspath(Path(s).expanduser())) for s in sources or []]
    roots = (claude_roots() if default_roots else []) + explicit
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
            try:
                st = path.stat()
            except OSError:
                continue
            sid, agent = file_identity(path)
            cwd, head_sid, oneshot = read_head(path)
            # a head with no cwd in it (a big pasted image first) stays: its dir name matched
            if filtered and cwd is not None and not _in_project(cwd, repos):
                continue
            if agent is not None and head_sid and sid.startswith("agent-"):
                sid = head_sid
            cand = Candidate(path, sid, agent, st.st_size, st.st_mtime_ns, cwd, oneshot)
            if agent is not None:
                old_layout_agents.append(cand)
            elif oneshot:
                result.oneshots[sid] = cand
            else:
                best = result.sessions.get(sid)
                if best is None or (cand.size, cand.mtime_ns) > (best.size, best.mtime_ns):
                    result.sessions[sid] = cand
    by_key: dict[tuple[str, str | None], Candidate] = {}
    for cand in old_layout_agents:
        if cand.session_id in result.oneshots:
            continue
        key = (cand.session_id, cand.agent_id)
        best = by_key.get(key)
        if best is None or (cand.size, cand.mtime_ns) > (best.size, best.mtime_ns):
            by_key[key] = cand
    for (sid, _), cand in sorted(by_key.items(), key=lambda kv: str(kv[1].path)):
        result.sidechains.setdefault(sid, []).append(cand)
    return result
