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


def project_label(project: str | None) -> str:
    return Path(project).name if project else "?"
