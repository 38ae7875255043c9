"""What the sandbox tests share about the Docker engine their session runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Engine:
    host: str  # DOCKER_HOST
    client: Any  # docker.DockerClient
    image: str = ""

    def labelled(self) -> list[Any]:
        return list(self.client.containers.list(all=True, filters={"label": "lazy.oneshot"}))
