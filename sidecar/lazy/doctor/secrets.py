"""Secrets: how much redaction hides in the index, and what the agents' own files hold.

lazy redacts every text that leaves its store (``lazy.view.redaction``); the agents' own
session files are theirs, written in full, and lazy cannot scrub them. This check reads the
newest of them (a bounded sample: files written in the last ``DAYS`` days, newest first, at
most ``BUDGET`` bytes per agent) and reports how many credentials of each kind they hold,
never a value, so the user can rotate them. Report-only.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from lazy.agents import TOOL_NAMES, TOOLS, agent
from lazy.config import ConfigError, get
from lazy.doctor.context import Context
from lazy.doctor.report import Check
from lazy.index.indexer import built_with, redacted_counts, redaction_state
from lazy.view.redaction import NAMES, redact_counted

REDACTION = "Secrets are redacted in search, show, the webview and ask"
OWN_FILES = "The agents' own session files hold no live-looking credentials"
DAYS = 30  # Claude Code deletes its sessions after 30 days by default
BUDGET = 8 * 1024 * 1024  # bytes read per agent, newest files first: about a second of CPU
ON = "lazy config set redaction.enabled true && lazy index rebuild"


def _by_rule(counts: dict[str, int] | Counter[str]) -> str:
    return ", ".join(f"{name} {n:,}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def redaction_check(ctx: Context) -> Check:
    try:
        enabled, source = get("redaction.enabled", ctx.home)
    except ConfigError as e:
        return Check(REDACTION, "warn", [f"{e}; redaction stays on meanwhile"], "lazy config list")
    if not enabled:
        detail = [
            f"redaction is off ({source}): search, show, the webview and ask show secrets as"
            " the agents wrote them"
        ]
        return Check(REDACTION, "warn", detail, ON)
    detail = []
    counts = redacted_counts(ctx.home, NAMES)
    if counts is None:
        detail.append("the search index cannot be read to count redactions (see its check)")
    else:
        n = counts.pop("any")
        line = f"{n:,} indexed message(s) carry redactions"
        detail.append(line + (f": {_by_rule(counts)}" if counts else ""))
    built = built_with(ctx.home)
    if built is not None and built != redaction_state(True):
        how = "with redaction off" if built == "off" else f"with redaction rules v{built}"
        detail.append(f"the index was built {how}: search may still find what is now redacted")
        return Check(REDACTION, "warn", detail, "lazy index rebuild")
    return Check(REDACTION, "ok", detail)


@dataclass
class _Found:
    files: int = 0  # files read
    size: int = 0  # bytes read
    holding: int = 0  # files with at least one finding
    kinds: Counter[str] = field(default_factory=Counter)


def _recent_files(ctx: Context, name: str) -> list[tuple[int, Path]]:
    """(mtime_ns, path) of the agent's session files written in the last DAYS days."""
    since = time.time_ns() - DAYS * 86_400 * 10**9
    paths: list[tuple[int, Path]] = []
    a = agent(name)
    if a.reads == "records":  # its sessions are not files: the files they are kept in
        for top in a.default_roots():
            for root, _, names in os.walk(top):
                for name in names:
                    p = Path(root) / name
                    if name.endswith(a.record_files):
                        try:
                            paths.append((p.stat().st_mtime_ns, p))
                        except OSError:
                            continue
    else:
        d = ctx.discovery(name)
        for sid in d.sessions:
            paths += [(c.mtime_ns, c.path) for c in d.files_of(sid)]
    return sorted((m, p) for m, p in paths if m >= since)[::-1]


def _scan(ctx: Context, name: str) -> _Found:
    found = _Found()
    for _, path in _recent_files(ctx, name):
        left = BUDGET - found.size
        if left <= 0:
            break
        try:
            with open(path, "rb") as f:
                data = f.read(left)
        except OSError:
            continue
        found.files += 1
        found.size += len(data)
        _, kinds = redact_counted(data.decode("utf-8", "replace"))
        if kinds:
            found.holding += 1
            found.kinds += kinds
    return found


def own_files_check(ctx: Context) -> Check:
    detail: list[str] = []
    files = size = 0
    for name in TOOLS:
        f = _scan(ctx, name)
        files, size = files + f.files, size + f.size
        if f.kinds:
            total = sum(f.kinds.values())
            detail.append(
                f"{TOOL_NAMES[name]}: {total:,} in {f.holding:,} file(s): {_by_rule(f.kinds)}"
            )
    said = (
        f"read {files:,} file(s), {size / 1e6:,.1f} MB: those written in the last {DAYS} days,"
        f" newest first, at most {BUDGET // 2**20} MiB per agent"
    )
    if not detail:
        return Check(OWN_FILES, "ok", [said])
    detail.append(said)
    detail.append(
        "lazy redacts what it shows, but cannot scrub files it does not own: these stay in the"
        " agents' folders until the agents delete them"
    )
    fix = (
        "rotate those credentials; delete the agents' old sessions you no longer need"
        " (~/.claude/projects, ~/.codex/sessions, ~/.local/share/opencode)"
    )
    return Check(OWN_FILES, "warn", detail, fix)
