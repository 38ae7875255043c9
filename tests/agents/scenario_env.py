"""What runs inside a scenario's loopback-only network namespace, for every agent: bringing ``lo``
up, the sandboxed environment a CLI gets, and the ``main`` of the entry scripts
(run_scenario.py, codex/run_codex_scenario.py, opencode/run_opencode_scenario.py).

No pytest here: the entry scripts import this in the namespace's own process.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

JsonDict = dict[str, Any]

# git must neither read the machine's config nor ask who commits
GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "lazy",
    "GIT_AUTHOR_EMAIL": "lazy@example.invalid",
    "GIT_COMMITTER_NAME": "lazy",
    "GIT_COMMITTER_EMAIL": "lazy@example.invalid",
}


XDG_KINDS = ("CONFIG", "DATA", "CACHE", "STATE")


def network_is_isolated() -> bool:
    """True when the only network interface is loopback."""
    try:
        names = {name for _, name in socket.if_nameindex()}
    except OSError:
        return False
    return names <= {"lo"}


def ensure_loopback_up() -> None:
    """``ip link set lo up`` without needing iproute2 (SIOCGIFFLAGS/SIOCSIFFLAGS)."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(sock, siocgifflags, request))[1]
        if not flags & iff_up:
            fcntl.ioctl(sock, siocsifflags, struct.pack("16sh", b"lo", flags | iff_up))


def sandbox_env(*, home: Path, tmp: Path, term: str, xdg: Path | None = None) -> dict[str, str]:
    """A CLI's environment with nothing of the machine's user in it: HOME, TMPDIR and the XDG
    dirs (``<xdg>/{config,data,cache,state}``, or the usual places under ``home``) point into
    the scenario's work dir. The driver adds what its CLI needs."""
    if xdg is None:
        dirs = (home / ".config", home / ".local/share", home / ".cache", home / ".local/state")
    else:
        dirs = (xdg / "config", xdg / "data", xdg / "cache", xdg / "state")
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": term,
        "SHELL": shutil.which("bash") or "/bin/sh",
        "USER": os.environ.get("USER", "root"),
        "HOME": str(home),
        **{f"XDG_{kind}_HOME": str(path) for kind, path in zip(XDG_KINDS, dirs, strict=True)},
        "TMPDIR": str(tmp),
        **GIT_ENV,
    }


Play = Callable[[str, Path], JsonDict | None]


def scenario_main(argv: list[str], names: Collection[str], play: Play) -> int:
    """``<script> <name> <workdir>``: run scenario ``name`` with ``play`` and write what it
    returns (with ``"error"``: a traceback or None) to ``<workdir>/script.json``.

    ``play`` returns None when its CLI is not installed (it says so on stderr). Exit status: 0,
    1 when the scenario failed, 2 when it could not start.
    """
    if len(argv) != 3 or argv[1] not in names:
        print(f"usage: {argv[0]} <{'|'.join(names)}> <workdir>", file=sys.stderr)
        return 2
    name, workdir = argv[1], Path(argv[2]).resolve()
    if not network_is_isolated() and not os.environ.get("LAZY_ALLOW_NETWORK"):
        print("refusing to run outside a loopback-only network namespace", file=sys.stderr)
        return 2
    if network_is_isolated():
        ensure_loopback_up()
    workdir.mkdir(parents=True, exist_ok=True)
    data = play(name, workdir)
    if data is None:
        return 2
    (workdir / "script.json").write_text(json.dumps(data, indent=2, ensure_ascii=False))
    error = data.get("error")
    if error:
        print(error, file=sys.stderr)
        return 1
    return 0


def lazy_argv() -> list[str]:
    """How to run the lazy CLI: the venv's entry point, else the module."""
    venv_lazy = Path(sys.executable).with_name("lazy")
    if venv_lazy.is_file():
        return [str(venv_lazy)]
    return [sys.executable, "-c", "import sys; from lazy.cli.main import main; sys.exit(main())"]


def lazy_import_args(agent: str, source: Path) -> list[str]:
    """``lazy import <agent>`` of everything under ``source``, as a JSON report."""
    return [
        "import",
        agent,
        "--source",
        str(source),
        "--include-temp-cwd",
        "--include-trivial",
        "--json",
    ]


def init_git_project(project: Path, env: dict[str, str], files: dict[str, str]) -> None:
    """A git repo on branch main with one commit of ``files`` (the agents record the branch and
    commit); ``env`` (a :func:`sandbox_env`) names the committer."""
    project.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (project / name).write_text(content)
    for args in (["init", "-q", "-b", "main"], ["add", *files], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", "-C", str(project), *args], check=True, env=env, capture_output=True)
