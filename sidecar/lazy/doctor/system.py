"""What lazy runs on: the credential and Docker (for `lazy ask`, judged by the same functions
`lazy ask` checks before it starts, lazy.ask.prerequisites), Python and lazy's dependencies,
free disk."""

from __future__ import annotations

import platform
import shutil
import sys
from importlib import metadata

from lazy.doctor.context import Context
from lazy.doctor.report import Check

CREDENTIAL = "An Anthropic credential is set (for lazy ask)"
DOCKER = "Docker is reachable (for lazy ask)"
AGENT_IMAGE = "The agent image is built (for lazy's one-shots)"
PYTHON = "Python and dependencies are supported"
DISK = "Free disk where the store lives"

DIST = "lazy-builders"
PYTHON_MIN = (3, 11)
DOCKER_TIMEOUT = 5  # seconds for the engine to answer /_ping
MiB = 1024**2
GiB = 1024**3
DISK_WARN = 1 * GiB
DISK_FAIL = 100 * MiB


def credential_check(_: Context) -> Check:
    """The credential the one-shots' proxy sends, by name only: its value is never shown.
    A warning when missing: only `lazy ask` needs it."""
    from lazy.ask import prerequisites
    from lazy.ask.oneshot import OneShotUnavailable

    try:
        found = prerequisites.credential()
    except OneShotUnavailable:
        detail = [
            "neither ANTHROPIC_API_KEY nor ANTHROPIC_AUTH_TOKEN is set in lazy's environment",
            "lazy ask cannot call the model without one",
        ]
        return Check(CREDENTIAL, "warn", detail, prerequisites.CREDENTIAL_FIX)
    name = "ANTHROPIC_API_KEY" if found.header == "x-api-key" else "ANTHROPIC_AUTH_TOKEN"
    return Check(CREDENTIAL, "ok", [f"{name} is set (its value is never shown)"])


def docker_check(_: Context) -> Check:
    """The Docker engine answers ``/_ping`` where the docker client looks (DOCKER_HOST, else
    the default socket). A warning when not: only `lazy ask` needs it."""
    fix = "start the Docker engine (sudo systemctl start docker), or point DOCKER_HOST at one"
    try:
        import docker  # noqa: F401
    except ImportError as e:
        detail = [f"the docker Python package cannot be imported [{type(e).__name__}: {e}]"]
        return Check(DOCKER, "warn", detail, f"{sys.executable} -m pip install 'docker>=7,<8'")
    from lazy.ask import engine
    from lazy.ask.oneshot import OneShotUnavailable

    where = engine.where()
    try:
        engine.ping(DOCKER_TIMEOUT)
    except OneShotUnavailable as e:
        detail = [
            f"the Docker engine at {where} did not answer /_ping [{e.detail}]",
            "lazy ask runs its one-shots in a container and cannot run without it",
        ]
        return Check(DOCKER, "warn", detail, fix)
    return Check(DOCKER, "ok", [f"the Docker engine at {where} answered /_ping"])


def agent_image_check(_: Context) -> Check:
    """The image every one-shot runs in exists in the engine. A warning when not: only the
    one-shots (lazy ask, summaries, LLM compaction) need it."""
    from lazy.ask import engine
    from lazy.ask.oneshot import OneShotError

    fix = "lazy agent-image build"
    try:
        client = engine.connect(timeout=DOCKER_TIMEOUT)
    except OneShotError as e:
        detail = [f"cannot look for {engine.IMAGE}: Docker is not reachable [{e.code}]"]
        return Check(AGENT_IMAGE, "warn", detail, fix)
    try:
        engine.require_image(client, engine.IMAGE)
    except OneShotError as e:
        return Check(AGENT_IMAGE, "warn", [e.line()], fix)
    finally:
        client.close()
    return Check(AGENT_IMAGE, "ok", [f"{engine.IMAGE} is in the Docker engine"])


def python_check(_: Context) -> Check:
    """The running Python, and each installed dependency against the range lazy's
    distribution declares (its pyproject, as installed)."""
    from packaging.requirements import Requirement

    detail = [f"Python {platform.python_version()} ({sys.executable})"]
    problems: list[str] = []
    fixes: list[str] = []
    if sys.version_info[:2] < PYTHON_MIN:
        problems.append(f"Python {platform.python_version()} is older than 3.11")
    try:
        requires = metadata.requires(DIST) or []
    except metadata.PackageNotFoundError:
        detail.append(f"{DIST} is not installed as a distribution: its ranges cannot be checked")
        return Check(PYTHON, "warn", detail, f"{sys.executable} -m pip install -e <lazy's repo>")
    fine: list[str] = []
    for line in requires:
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue  # an extra (dev tools), or another platform's
        try:
            have = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            problems.append(f"{req.name} is not installed (lazy needs {req.name}{req.specifier})")
            fixes.append(str(req))
            continue
        if req.specifier and not req.specifier.contains(have, prereleases=True):
            problems.append(f"{req.name} {have} is outside {req.specifier}")
            fixes.append(str(req))
        else:
            fine.append(f"{req.name} {have}")
    if problems:
        detail += problems
        if fine:
            detail.append("within range: " + ", ".join(fine))
        if sys.version_info[:2] < PYTHON_MIN:
            fix = "run lazy with Python 3.11 or newer"
        else:
            fix = f"{sys.executable} -m pip install " + " ".join(f"'{f}'" for f in fixes)
        return Check(PYTHON, "fail", detail, fix)
    detail.append(f"{len(fine)} dependencies within pyproject's ranges: " + ", ".join(fine))
    return Check(PYTHON, "ok", detail)


def _size(n: int) -> str:
    return f"{n / GiB:,.1f} GiB" if n >= GiB else f"{n / MiB:,.0f} MiB"


def _file_size_limit() -> int | None:
    try:
        import resource
    except ImportError:  # Windows
        return None
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return None if soft == resource.RLIM_INFINITY else int(soft)


def disk_check(ctx: Context) -> Check:
    where = ctx.home
    while not where.exists() and where != where.parent:
        where = where.parent  # the store's filesystem, before its folder exists
    free = shutil.disk_usage(where).free
    detail = [
        f"{_size(free)} free on the filesystem of {ctx.home}"
        " (warns under 1 GiB, fails under 100 MiB)"
    ]
    fix = (
        "free space on that filesystem, or move the store: set LAZY_HOME to a roomier place"
        f" and move {ctx.home} there"
    )
    limit = _file_size_limit()
    if limit is not None:
        # a file size limit (ulimit -f) fails writes as a full disk does, with room to spare
        try:
            biggest = max(p.stat().st_size for p in ctx.home.glob("store.db*"))
        except (ValueError, OSError):
            biggest = 0
        room = max(limit - biggest, 0)
        detail.append(
            f"a file size limit (ulimit -f) of {_size(limit)} is in force: the store's files"
            f" can grow by {_size(room)} more, as if the disk were that full"
        )
        if room < free:
            free = room
            fix = "lift the file size limit (ulimit -f unlimited) where lazy runs"
    if free < DISK_FAIL:
        detail.append("captures fail until there is room (the sessions wait on disk meanwhile)")
        return Check(DISK, "fail", detail, fix)
    if free < DISK_WARN:
        return Check(DISK, "warn", detail, fix)
    return Check(DISK, "ok", detail)
