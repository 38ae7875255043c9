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
        """lazy's one-shot containers, listed the way lazy lists them (one call, no race with a
        container being removed meanwhile)."""
        from lazy.ask import engine

        return engine.labelled(self.client)

    def remove_labelled(self) -> None:
        from lazy.ask import engine

        for c in engine.labelled(self.client):
            engine.remove(self.client, c)
