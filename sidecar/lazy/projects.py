"""Which project a working directory belongs to: its git repo (worktrees fold into the
main repo), else the directory itself."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=4096)
def project_of(cwd: str) -> str:
    p = Path(cwd)
    if not p.is_absolute():
        return cwd  # resolving it would land in whatever directory lazy runs from
    for d in (p, *p.parents):
        git = d / ".git"
        try:
            if git.is_dir():
                return str(d)
            if git.is_file():
                # a worktree: "gitdir: <main>/.git/worktrees/<name>"
                text = git.read_text(errors="replace").strip()
                if text.startswith("gitdir:"):
                    gitdir = text[len("gitdir:") :].strip()
                    marker = f"{os.sep}.git{os.sep}worktrees{os.sep}"
                    if marker in gitdir:
                        return gitdir.split(marker, 1)[0]
                return str(d)
        except OSError:
            break
    return cwd


def is_under(path: str, root: str) -> bool:
    """``path`` is ``root`` or lies below it (``/a/app2`` is not below ``/a/app``)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def project_label(project: str | None) -> str:
    return Path(project).name if project else "?"


@lru_cache(maxsize=1024)
def git_remote(project: str) -> str | None:
    """The repo's origin URL (else its first remote's), read from .git/config: lazy never
    runs git against a transcript's paths."""
    git = Path(project) / ".git"
    try:
        if git.is_file():  # a worktree or submodule points at its git dir
            text = git.read_text(errors="replace").strip()
            git = (Path(project) / text.removeprefix("gitdir:").strip()).resolve()
            common = git / "commondir"
            if common.is_file():
                git = (git / common.read_text().strip()).resolve()
        config = (git / "config").read_text(errors="replace")
    except (OSError, ValueError):  # ValueError: a NUL in the path a transcript gave
        return None
    remotes: dict[str, str] = {}
    section = None
    for raw in config.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line.strip("[]").replace('"', "").split()
            continue
        if section and section[0] == "remote" and len(section) > 1 and "=" in line:
            key, value = (x.strip() for x in line.split("=", 1))
            if key == "url":
                remotes.setdefault(section[1], value)
    return remotes.get("origin") or next(iter(remotes.values()), None)
