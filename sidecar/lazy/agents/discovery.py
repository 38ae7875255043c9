"""Finding sessions on disk, the part every agent shares: a candidate per source, the most
complete copy of each session, subagents attached to their parent, the project filter and
the head of a session file (its cwd, whether it is a lazy one-shot). Each agent's own rules
are in its folder (``agents/<agent>/discovery.py``)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lazy.agents.base import SourceRef
from lazy.agents.files import open_source
from lazy.agents.jsonl import split_lines
from lazy.projects import is_under, project_of
from lazy.records import Quarantined

if TYPE_CHECKING:
    from lazy.agents.base import Agent

HEAD_BYTES = 256 * 1024  # the most of a file read to find its first user message
FIRST_READ = 16 * 1024
K = TypeVar("K")


@dataclass(slots=True)
class Candidate:
    """One source found: the ``source`` it is (as the store will know it), and where it
    goes in the discovery (``session_id``: the main session it belongs to, for a subagent
    its parent's; ``subagent_id``: set for a subagent)."""

    source: SourceRef
    session_id: str
    subagent_id: str | None
    size: int
    mtime_ns: int
    cwd: str | None = None
    oneshot: bool = False
    started_at: str | None = None
    records: Any = None  # a record agent's handle on the session (OpenCode's SessionRef)
    data_dir: Path | None = None  # ... and the data dir it was listed from

    @property
    def agent(self) -> str:
        return self.source.agent

    @property
    def path(self) -> Path:
        """The store's key for the source, as a path (a file's path is its key)."""
        return Path(self.source.key)

    @property
    def is_sidechain(self) -> bool:
        return self.subagent_id is not None


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


def worktrees(repo: str) -> list[str]:
    """The repo and its git worktrees."""
    import subprocess  # here: the capture path (a hook, every turn) never runs git

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


def in_project(cwd: str | None, repos: list[str]) -> bool:
    if cwd is None:
        return False
    if project_of(cwd) in repos:
        return True
    return any(is_under(cwd, r) for r in repos)


def explicit(sources: Iterable[Path] | None) -> list[Path]:
    return [Path(os.path.abspath(Path(s).expanduser())) for s in sources or []]


def regular(path: Path, problems: list[Quarantined] | None = None) -> os.stat_result | None:
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


def keep_best(into: dict[K, Candidate], key: K, cand: Candidate) -> None:
    """Of several copies of one session (or subagent), the most complete: the largest,
    then the newest."""
    best = into.get(key)
    if best is None or (cand.size, cand.mtime_ns) > (best.size, best.mtime_ns):
        into[key] = cand


def attach(result: Discovery, children: list[Candidate]) -> None:
    """Children go with their parent's session; one whose parent is not found stands alone."""
    best: dict[str, Candidate] = {}
    for cand in children:
        assert cand.subagent_id is not None
        keep_best(best, cand.subagent_id, cand)
    for sub, cand in sorted(best.items()):
        if cand.session_id in result.sessions:
            result.sidechains.setdefault(cand.session_id, []).append(cand)
        else:
            cand.session_id, cand.subagent_id = sub, None
            keep_best(result.sessions, cand.session_id, cand)


# what an agent lists under one root: its candidates (a child names its parent as its
# session_id and itself as its subagent_id); what cannot be listed goes into the problems
Lister = Callable[[Path, list[Quarantined]], Iterable[Candidate]]


def collect(roots: list[Path], project: str | None, listed: Lister) -> Discovery:
    """The discovery skeleton of an agent whose sources each carry their cwd: every
    candidate ``listed`` under each root, kept when its cwd lies in ``project`` (None: all);
    the most complete copy of each session; children attached to their parent."""
    result = Discovery(roots=roots)
    repos = worktrees(project) if project else []
    children: list[Candidate] = []
    for root in roots:
        if not root.is_dir():
            continue
        for cand in listed(root, result.problems):
            if project is not None and not in_project(cand.cwd, repos):
                continue
            if cand.is_sidechain:
                children.append(cand)
            else:
                keep_best(result.sessions, cand.session_id, cand)
    attach(result, children)
    return result


def as_child(cand: Candidate, parent: str | None) -> Candidate:
    """The candidate as a subagent of ``parent`` (its own id its subagent id), if it has one."""
    if parent:
        cand.subagent_id, cand.session_id = cand.session_id, parent
    return cand


# ---- the head of a session file ------------------------------------------------------------


@dataclass(slots=True)
class Head:
    cwd: str | None = None
    parent: str | None = None  # the session a subagent's file names as its parent
    oneshot: bool = False
    started_at: str | None = None


def read_head(path: Path, a: Agent) -> Head:
    """What the first lines of a session file say, read by the same reader and one-shot
    rule as capture. The rule needs the first user message, which most files hold in their
    first few KB: a small read first, larger ones only when it is not there yet."""
    want = FIRST_READ
    while True:
        try:
            with open_source(path)[0] as f:
                head = f.read(want)
            out, complete = _parse_head(path, a, head)
        except Exception:  # unreadable, damaged, or unforeseen: capture will say why
            return Head()
        if complete or len(head) < want or want >= HEAD_BYTES:
            return out
        want = min(want * 4, HEAD_BYTES)


def _parse_head(path: Path, a: Agent, head: bytes) -> tuple[Head, bool]:
    ref = a.source(path)
    reader = a.make_reader(str(path), ref.session_id, ref.subagent_id)
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
        out.oneshot = ref.subagent_id is None and facts.oneshot
    return out, facts is not None and facts.first_user_seen


# A long-lived process (the sidecar sweeps every 30 s) sees the same files again and again:
# a file's head is read again only when its size or mtime changed.
_heads: dict[str, tuple[int, int, Head]] = {}


def head_of(path: Path, st: os.stat_result, a: Agent) -> Head:
    key = f"{a.name}\0{path}"
    seen = _heads.get(key)
    if seen is not None and seen[0] == st.st_size and seen[1] == st.st_mtime_ns:
        return seen[2]
    head = read_head(path, a)
    _heads[key] = (st.st_size, st.st_mtime_ns, head)
    return head


def file_candidate(
    path: Path, a: Agent, problems: list[Quarantined]
) -> tuple[Candidate, Head] | None:
    """A line agent's session file as a candidate, by its name and its head (None: not a
    regular file, reported in ``problems``), and the head."""
    st = regular(path, problems)
    if st is None:
        return None
    head = head_of(path, st, a)
    ref = a.source(path)
    cand = Candidate(ref, ref.session_id, ref.subagent_id, st.st_size, st.st_mtime_ns, head.cwd)
    cand.oneshot, cand.started_at = head.oneshot, head.started_at
    return cand, head
