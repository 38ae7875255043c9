"""The Docker engine as one-shots need it: reachable, holding the agent image, and free of
containers a dead lazy left behind. Every failure here is a OneShotError with guidance:
there is no fallback to running the agent on the host."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from lazy.ask.oneshot import OneShotError, OneShotUnavailable
from lazy.os.procs import pid_alive

# every one-shot container carries these labels; the sweep goes by them
LABEL = "lazy.oneshot"
OWNER_LABEL = "lazy.oneshot.owner"  # the host pid of the lazy process that started it
RUN_LABEL = "lazy.oneshot.run"

CLAUDE_CODE_VERSION = "2.1.332"  # pinned: tool flags drift between releases
IMAGE = f"lazy-agent:claude-code-{CLAUDE_CODE_VERSION}"
API_TIMEOUT = 120  # seconds for one engine call (creating a container copies the image on vfs)

DOCKER_GUIDANCE = (
    "lazy runs every one-shot in a throwaway Docker container, never on the host, and cannot "
    "reach a Docker engine. Start it (sudo systemctl start docker), or point DOCKER_HOST at a "
    "running engine, then retry; `lazy doctor` checks it."
)


def where() -> str:
    """The engine the docker client talks to: DOCKER_HOST, else the default socket."""
    return os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"


def root_cause(e: BaseException) -> str:
    """The innermost OS error under a docker-py failure (``FileNotFoundError: No such file
    or directory``), which is what the user can act on; else the failure's own first line.
    docker-py and requests nest it in messages, causes and exception arguments."""
    found: OSError | None = None
    stack: list[object] = [e]
    seen: set[int] = set()
    while stack:
        x = stack.pop()
        if not isinstance(x, BaseException) or id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, OSError) and x.strerror:
            found = x
        stack += [x.__context__, x.__cause__, *x.args]
    if found is not None:
        return f"{type(found).__name__}: {found.strerror}"
    first = (str(e).strip().splitlines() or [""])[0]
    return f"{type(e).__name__}: {first[:300]}" if first else type(e).__name__


def unreachable(e: BaseException) -> OneShotUnavailable:
    """No engine answers where the client looks: the one sentence, with the fix."""
    at = where()
    if "PermissionError" in root_cause(e):
        message = (
            "lazy ask runs every one-shot in a Docker container, never on the host, and may "
            f"not use the Docker engine at {at}: add your user to the docker group (sudo "
            "usermod -aG docker $USER, then log in again) or point DOCKER_HOST at one you may use"
        )
    else:
        message = (
            "lazy ask runs every one-shot in a Docker container, never on the host, and no "
            f"Docker engine answers at {at}: start it (sudo systemctl start docker) or point "
            "DOCKER_HOST at a running one"
        )
    return OneShotUnavailable(message, "docker-unavailable", root_cause(e))


def connect(timeout: float = API_TIMEOUT) -> Any:
    """A docker client whose engine answered a ping; raises OneShotUnavailable otherwise."""
    try:
        import docker

        client = docker.from_env(timeout=timeout)
        client.ping()
    except Exception as e:  # no socket, refused, timeout, TLS, the package missing
        raise unreachable(e) from e
    return client


def ping(timeout: float) -> None:
    """Only whether the engine answers ``/_ping``, at a fixed API version: no ``/version``
    call first, so a slow or odd engine is judged by the ping alone (lazy doctor)."""
    try:
        import docker
        from docker import constants

        client = docker.APIClient(
            version=constants.MINIMUM_DOCKER_API_VERSION,
            timeout=timeout,
            **docker.utils.kwargs_from_env(),
        )
        try:
            answered = client.ping()
        finally:
            client.close()
    except Exception as e:  # refused, missing socket, timeout, TLS, an HTTP error
        raise unreachable(e) from e
    if not answered:
        raise unreachable(ConnectionError("/_ping did not answer OK"))


def require_image(client: Any, image: str = IMAGE) -> None:
    import docker

    try:
        client.images.get(image)
    except docker.errors.ImageNotFound as e:
        raise OneShotUnavailable(
            f"the agent image {image} that every one-shot runs in is not in the Docker engine"
            f" at {where()}: build it with `lazy agent-image build` (once; it needs network"
            " access to pull Node and Claude Code)",
            "agent-image-missing",
        ) from e
    except docker.errors.APIError as e:
        raise OneShotError(
            f"Docker could not look up the agent image {image}. {DOCKER_GUIDANCE}",
            "docker-error",
            root_cause(e),
        ) from e


@dataclass(frozen=True)
class Container:
    id: str
    name: str
    labels: dict[str, str]


def labelled(client: Any, label: str = LABEL) -> list[Container]:
    """The containers carrying `label` (`key` or `key=value`), running or not, from one list
    call: docker-py's `containers.list` inspects each container after listing them, and fails
    with NotFound when one is removed in between (by its own run, or by another lazy)."""
    found = client.api.containers(all=True, filters={"label": label})
    return [
        Container(
            str(d["Id"]),
            str((d.get("Names") or [d["Id"][:12]])[0]).lstrip("/"),
            dict(d.get("Labels") or {}),
        )
        for d in found
    ]


def remove(client: Any, c: Container) -> bool:
    """Remove `c`, running or not; False when it was already gone or the engine refused."""
    import docker

    try:
        client.api.remove_container(c.id, force=True)
    except (docker.errors.NotFound, docker.errors.APIError):
        return False
    return True


def sweep(client: Any) -> list[str]:
    """Remove the one-shot containers a lazy that no longer runs left behind (killed -9, or
    the engine went away mid-run); those of a live lazy are its business. Names removed."""
    removed = []
    for c in labelled(client):
        owner = c.labels.get(OWNER_LABEL, "")
        if owner.isdigit() and pid_alive(int(owner)):
            continue
        if remove(client, c):
            removed.append(c.name)
    return removed
