"""Who a member is and what a project is called on the team.

A member is a name and an email: ``team.name`` / ``team.email`` in lazy's config, else git's
``user.name`` / ``user.email``. A project is its repo's normalised remote URL (``origin``, else
the first remote), so one repo cloned on two machines is one project; a repo without a remote
is shared only under a name given to it (``lazy team name``).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from lazy.config import get


@dataclass(frozen=True)
class Member:
    name: str
    email: str


class IdentityError(ValueError):
    """No name or email to push as; the message says where to set them."""


def _git(args: list[str], cwd: Path | None = None) -> str:
    try:
        r = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return r.stdout.strip() if r.returncode == 0 else ""


def member() -> Member:
    name = str(get("team.name")[0]) or _git(["config", "--get", "user.name"])
    email = str(get("team.email")[0]) or _git(["config", "--get", "user.email"])
    missing = [k for k, v in (("name", name), ("email", email)) if not v.strip()]
    if missing:
        keys = " and ".join(f"team.{k}" for k in missing)
        raise IdentityError(
            f"no {' or '.join(missing)} to share Builders as: set {keys} "
            f"(`lazy config set team.{missing[0]} …`) or git's user.{missing[0]}"
        )
    return Member(name=name.strip(), email=email.strip().lower())


_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")  # git@host:org/repo.git


def normalise_remote(url: str) -> str:
    """``host/path`` of a git remote URL: scheme, user, password, port and ``.git`` dropped,
    the host lower-cased (``git@GitHub.com:Org/Repo.git`` and
    ``https://u:p@github.com/Org/Repo`` are both ``github.com/Org/Repo``); a local path stays
    a path (``/srv/git/repo``)."""
    u = url.strip()
    m = re.match(r"^([a-z][a-z0-9+.-]*)://(.*)$", u, re.IGNORECASE)
    if m and m.group(1).lower() == "file":
        host, path = "", m.group(2)
    elif m:
        rest = m.group(2)
        authority, _, path = rest.partition("/")
        host = authority.rpartition("@")[2].split(":")[0].lower()
    elif (s := _SCP.match(u)) and not u.startswith("/"):
        host, path = s.group(1).lower(), s.group(2)
    else:
        host, path = "", u
    path = re.sub(r"\.git/?$", "", path.strip("/")).strip("/")
    return f"{host}/{path}" if host else "/" + path


def remote_of(project: str) -> str | None:
    """The normalised remote of the repo at ``project``, if it is one and has a remote."""
    d = Path(project)
    if not d.is_dir():
        return None
    url = _git(["config", "--get", "remote.origin.url"], d)
    if not url:
        first = _git(["remote"], d).splitlines()
        url = _git(["config", "--get", f"remote.{first[0]}.url"], d) if first else ""
    return normalise_remote(url) if url else None
