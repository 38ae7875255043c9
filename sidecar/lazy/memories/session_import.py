"""``lazy import claude|codex|opencode``: sessions in, one memory per message out.

Sessions are captured into the store first (the same capture as everywhere: raw archive,
Builders), then each selected session's stored messages are planned as memories at
``<tree-root>/<slug>/<sessions-node-name>/<session>/msg_<id>`` and reconciled by
(tree, name): new slots inserted, changed ones rewritten, the rest left alone.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from lazy.agents import agent
from lazy.agents.discovery import Discovery
from lazy.blocks import answered, note_calls, render_all
from lazy.capture.bulk_import import run_import
from lazy.capture.discovery import discover_tool
from lazy.memories.tree import DEFAULT_NODE_NAME, DEFAULT_TREE_ROOT, join, label
from lazy.model import (
    AgentImportReport,
    ImportReport,
    SessionImport,
    SessionSkip,
    SkipInfo,
)
from lazy.projects import git_remote, is_under
from lazy.store import Store, StoreError, lazy_home, parse_iso
from lazy.store.archive import unpack_blocks
from lazy.store.memories import (
    Planned,
    give_slugs,
    given_slugs,
    reconcile,
    session_messages,
    session_of,
    sidechains_of,
    slug_for,
    source_key,
    user_prompts,
)

# Part of every memory's meta: bumping it rewrites every memory on the next import.
IMPORTER_VERSION = "lazy-agent-import/1"

# Where systems put scratch dirs; a session run there is a test or a throwaway.
TEMP_ROOTS = (
    "/tmp",
    "/var/tmp",
    "/private/tmp",
    "/private/var/folders",
    "/var/folders",
    "/dev/shm",
)


@dataclass
class Options:
    sources: list[Path] = field(default_factory=list)
    project: str | None = None  # only sessions whose cwd is this dir or below it
    since: datetime | None = None
    until: datetime | None = None
    tree_root: str = DEFAULT_TREE_ROOT
    node_name: str = DEFAULT_NODE_NAME
    full: bool = False
    include_temp_cwd: bool = False
    include_trivial: bool = False
    include_sidechains: bool = False  # Claude subagent files
    dry_run: bool = False


def is_temp_dir(cwd: str) -> bool:
    roots = {*TEMP_ROOTS, tempfile.gettempdir(), os.environ.get("TMPDIR", "/tmp")}
    return any(is_under(cwd, r) for r in roots if r)


def _left_out(sid: str, cwd: str | None, started_at: str | None, o: Options) -> SessionSkip | None:
    """Why the flags leave a session out (None: it is in)."""

    def skip(kind: Any, reason: str) -> SessionSkip:
        return SessionSkip(session_id=sid, kind=kind, reason=reason, cwd=cwd)

    if o.project is not None and (cwd is None or not is_under(cwd, o.project)):
        return skip("project", f"cwd {cwd or '(unknown)'} is not in {o.project}")
    if not o.include_temp_cwd and cwd and is_temp_dir(cwd):
        return skip("temp_cwd", f"cwd {cwd} is a temp dir (--include-temp-cwd takes it)")
    if o.since or o.until:
        start = parse_iso(started_at)
        if start is None:
            return skip("no_start", "no start time to compare with --since/--until")
        if o.since and start < o.since:
            return skip("since", f"started {started_at}, before --since")
        if o.until and start > o.until:
            return skip("until", f"started {started_at}, after --until")
    return None


# ("capture", Candidate) as each file is captured; ("session", SessionImport | SessionSkip)
# as each session is planned and reconciled, or left out
Progress = Callable[[str, Any], None]


def run(
    store: Store | None, agent_name: str, o: Options, progress: Progress | None = None
) -> AgentImportReport:
    """Import ``agent_name``'s sessions as memories. A dry run (``store`` None) captures into a
    throwaway store and writes nothing anywhere else."""
    report = AgentImportReport(
        tool=agent_name,
        dry_run=o.dry_run,
        content_mode="full_transcript" if o.full else "default",
    )
    d = discover_tool(agent_name, o.sources, None, default_roots=not o.sources)
    report.sources = [str(r) for r in d.roots]
    report.found = len(d.sessions)
    wanted = []
    for sid, cand in sorted(d.sessions.items(), key=lambda kv: kv[1].started_at or ""):
        skip = _left_out(sid, cand.cwd, cand.started_at, o)
        if skip is None:
            wanted.append(sid)
        else:
            _note_skip(report, skip, progress)
    if o.dry_run or store is None:
        with _scratch() as scratch:
            _capture_and_plan(scratch, d, wanted, agent_name, o, report, progress)
    else:
        _capture_and_plan(store, d, wanted, agent_name, o, report, progress)
    return report


@contextmanager
def _scratch() -> Iterator[Store]:
    """A throwaway store for --dry-run, holding the slugs the real store has given out (read
    read-only), so the paths shown are the ones a real import would use."""
    tmp = Path(tempfile.mkdtemp(prefix="lazy-dry-run-"))
    scratch = Store.open(tmp)
    try:
        rows = given_slugs(lazy_home() / "store.db")
        with scratch.write() as c:
            give_slugs(c, rows)
        yield scratch
    finally:
        scratch.close()
        shutil.rmtree(tmp, ignore_errors=True)


def _capture_and_plan(
    store: Store,
    d: Discovery,
    wanted: list[str],
    agent_name: str,
    o: Options,
    report: AgentImportReport,
    progress: Progress | None,
) -> None:
    captured = ImportReport()
    on_file = (lambda c: progress("capture", c)) if progress else None
    run_import(store, d, wanted, on_file=on_file, report=captured)
    report.quarantined += captured.quarantined
    # an empty file is not an error: it just makes no memories
    report.errors += [e for e in captured.skipped if not e.reason.startswith("empty")]
    for sid in wanted:
        if _guarded(store, sid, o, report, progress):
            for key in _children(store.conn, sid, agent_name, o):
                _guarded(store, key, o, report, progress)


def _guarded(
    store: Store, key: str, o: Options, report: AgentImportReport, progress: Progress | None
) -> bool:
    """:func:`_import_session`, where a failure no rule foresaw is this session's error, with
    its machine detail, and the next session is imported."""
    try:
        return _import_session(store, key, o, report, progress)
    except StoreError:
        raise  # the store's failure: the CLI says it
    except Exception as e:
        detail = f"{type(e).__name__}: {e}"
        s = session_of(store.conn, key)
        path = (_source_file(store.conn, s) if s is not None else None) or ""
        store.log("error", "could not be imported as memories", path=path, session_id=key,
                  code=type(e).__name__, detail=detail)  # fmt: skip
        reason = f"could not be imported as memories: {detail}"
        report.errors.append(SkipInfo(session_id=key, path=path, reason=reason))
        return False


def _children(conn: sqlite3.Connection, sid: str, agent_name: str, o: Options) -> list[str]:
    """The subagent sessions an imported one brings (Claude's only with
    --include-sidechains; a Codex or OpenCode child thread is a session of its own)."""
    keys: list[str] = []
    if agent(agent_name).subagent_sessions or o.include_sidechains:
        keys += sidechains_of(conn, sid)
    return keys


def _import_session(
    store: Store, key: str, o: Options, report: AgentImportReport, progress: Progress | None
) -> bool:
    """Plan and reconcile one stored session's memories; False when it is left out."""
    conn = store.conn
    s = session_of(conn, key)
    skip = _left_out_stored(conn, key, s, o)
    if skip is not None:
        _note_skip(report, skip, progress)
        return False
    assert s is not None  # a session the store lacks is always left out
    with store.write() as c:
        project = s["project"] or s["cwd"] or "unknown"
        slug = slug_for(c, project)
        node = join(o.tree_root, slug, o.node_name, label(key))
        planned = plan(c, s, slug, o)
        entry = SessionImport(
            session_id=key,
            parent_session_id=s["parent_session_id"],
            node=node,
            project_slug=slug,
            cwd=s["cwd"],
            messages=len(planned),
        )
        if o.dry_run:
            entry.inserted = len(planned)  # without reconciling, every message is a would-be insert
        else:
            entry.inserted, entry.updated, entry.skipped = reconcile(c, node, planned)
    report.sessions.append(entry)
    report.inserted += entry.inserted
    report.updated += entry.updated
    report.skipped += entry.skipped
    if progress:
        progress("session", entry)
    return True


def _left_out_stored(
    conn: sqlite3.Connection, key: str, s: sqlite3.Row | None, o: Options
) -> SessionSkip | None:
    """Why a stored session is left out: not stored at all, the flags (checked again on
    what the store knows), or trivial. Subagent sessions go with their parent."""
    if s is None:  # nothing of it was stored: an empty file, a lazy one-shot, unreadable
        return SessionSkip(session_id=key, kind="empty", reason="no conversation in it")
    if s["kind"] != "main":
        return None
    skip = _left_out(key, s["cwd"], s["started_at"], o)
    if skip is None and not o.include_trivial:
        users = user_prompts(conn, key)
        if users < 2:
            reason = f"{users} user message(s): trivial (--include-trivial takes it)"
            skip = SessionSkip(session_id=key, kind="trivial", reason=reason, cwd=s["cwd"])
    return skip


def _note_skip(report: AgentImportReport, skip: SessionSkip, progress: Progress | None) -> None:
    report.skipped_sessions.append(skip)
    if progress:
        progress("session", skip)


def _source_file(c: sqlite3.Connection, s: sqlite3.Row) -> str | None:
    a = agent(s["tool"])
    if not a.subagent_sessions and s["kind"] == "sidechain":  # a file of the parent's
        key = source_key(c, s["parent_session_id"], s["agent_id"])
    else:
        key = source_key(c, s["id"])
    return None if key is None else a.location(key)


def _base(c: sqlite3.Connection, s: sqlite3.Row, slug: str, o: Options) -> dict[str, Any]:
    """What every memory of a stored session says of where it came from."""
    agent_name = s["tool"]
    cwd = s["cwd"]
    project = s["project"]
    git_root = (
        project
        if project and cwd and project != cwd and (Path(project) / ".git").exists()
        else None
    )
    part_of_parent = s["kind"] == "sidechain" and not agent(agent_name).subagent_sessions
    native_id = s["parent_session_id"] if part_of_parent else s["id"]
    base: dict[str, Any] = {
        "type": "agent_session",
        "source_tool": agent_name,
        "source_session_id": native_id,
        "source_session_title": s["title"],
        "source_cwd": cwd,
        "source_project_slug": slug,
        "source_git_root": git_root,
        "source_git_branch": s["git_branch"],
        "source_git_commit": s["git_commit"],
        "source_git_repo": s["git_repo"] or (git_remote(project) if project else None),
        "source_tool_version": s["version"],
        "source_file": _source_file(c, s),
        "content_mode": "full_transcript" if o.full else "default",
        "importer_version": IMPORTER_VERSION,
    }
    if s["kind"] == "sidechain":
        base["source_parent_session_id"] = s["parent_session_id"]
        base["source_agent_id"] = s["agent_id"]
    return base


def plan(c: sqlite3.Connection, s: sqlite3.Row, slug: str, o: Options) -> list[Planned]:
    """The memories a stored session makes, in its order."""
    agent_name = s["tool"]
    base = _base(c, s, slug, o)
    rows = session_messages(c, s["id"])
    messages = [(r, unpack_blocks(r[4], r[3])) for r in rows]
    tool_names: dict[str, str] = {}
    for _, blocks in messages:
        note_calls(blocks, tool_names)
    out = []
    for (
        key,
        role,
        kinds,
        _text,
        _b,
        ts,
        model,
        tool_name,
        provider,
        mode,
        meta,
    ), blocks in messages:
        if o.full:
            content = render_all(blocks)
        else:
            if meta or role not in ("user", "assistant"):
                continue
            content = "\n\n".join(str(b.get("text", "")) for b in blocks if b["type"] == "text")
        if not content:
            continue
        tool_name = tool_name or answered(blocks, tool_names)
        m = dict(base)
        m.update(
            source_message_id=key,
            source_message_role=role,
            source_message_block_kinds=orjson.loads(kinds),
            source_model=model,
            source_provider=provider or s["provider"] or agent(agent_name).provider,
            source_agent_mode=mode,
            source_tool_name=tool_name,
        )
        out.append(
            Planned(
                name="msg_" + label(key),
                content=content,
                meta=orjson.dumps(m, option=orjson.OPT_SORT_KEYS).decode(),
                temporal=ts,
            )
        )
    return out
