"""Where one-shots keep their state: ``~/.lazy/oneshot`` (``LAZY_ONESHOT_BASE_DIR`` moves it).

Each project gets a stable ``<base>/<project-slug>/.claude`` mounted as the container's Claude
Code config dir, so one-shots never touch the user's ``~/.claude`` and do not leave a new
session directory behind per run. The audit log of the credential proxy is ``<base>/audit.log``.
"""

from __future__ import annotations

import os
from pathlib import Path

from lazy.config import lazy_home
from lazy.store.memories import slug_base, slug_with_hash


def base_dir() -> Path:
    given = os.environ.get("LAZY_ONESHOT_BASE_DIR")
    return Path(given).expanduser() if given else lazy_home() / "oneshot"


def project_slug(project: str) -> str:
    """The directory name plus a short hash of the full path: two checkouts named alike
    still get their own state."""
    return slug_with_hash(slug_base(project), str(Path(project).expanduser().resolve()))


def state_dir(project: str) -> Path:
    return base_dir() / project_slug(project) / ".claude"


def audit_log() -> Path:
    return base_dir() / "audit.log"
