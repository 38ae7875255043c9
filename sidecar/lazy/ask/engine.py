"""The Docker engine as one-shots need it: reachable, holding the agent image, and free of
containers a dead lazy left behind. Every failure here is a OneShotError with guidance:
there is no fallback to running the agent on the host."""

from __future__ import annotations

import contextlib
import os
from typing import Any

from lazy.ask.oneshot import OneShotError
from lazy.procs import pid_alive

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


def connect(timeout: float = API_TIMEOUT) -> Any:
    """A docker client whose engine answered a ping; raises OneShotError otherwise."""
    where = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"
    try:
        import docker

        client = docker.from_env(timeout=timeout)
        client.ping()
    except Exception as e:  # no socket, refused, timeout, TLS, the package missing
        raise OneShotError(
            f"Docker is not available at {where}. {DOCKER_GUIDANCE}",
            "docker-unavailable",
            f"{type(e).__name__}: {e}",
        ) from e
    return client


def require_image(client: Any, image: str = IMAGE) -> None:
    import docker

    try:
        client.images.get(image)
    except docker.errors.ImageNotFound as e:
        raise OneShotError(
            f"the agent image {image} is not built: run `lazy agent-image build` (once; it "
            "needs network access to pull Node and Claude Code)",
            "agent-image-missing",
            f"{type(e).__name__}: {e}",
        ) from e
    except docker.errors.APIError as e:
        raise OneShotError(
            f"Docker could not look up the agent image {image}. {DOCKER_GUIDANCE}",
            "docker-error",
            f"{type(e).__name__}: {e}",
        ) from e


def sweep(client: Any) -> list[str]:
    """Remove the one-shot containers a lazy that no longer runs left behind (killed -9, or
    the engine went away mid-run); those of a live lazy are its business. Names removed."""
    import docker

    removed = []
    for c in client.containers.list(all=True, filters={"label": LABEL}):
        owner = str(c.labels.get(OWNER_LABEL, ""))
        if owner.isdigit() and pid_alive(int(owner)):
            continue
        with contextlib.suppress(docker.errors.NotFound, docker.errors.APIError):
            c.remove(force=True)
            removed.append(str(c.name))
    return removed
