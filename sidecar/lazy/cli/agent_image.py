"""`lazy agent-image build`: the container image lazy's one-shots run in."""

from __future__ import annotations

import shutil
import tempfile
from importlib import resources
from pathlib import Path

import click

from lazy.ask import engine
from lazy.ask.oneshot import OneShotError
from lazy.cli.common import err
from lazy.cli.output import echo


@click.group("agent-image")
def agent_image_group() -> None:
    """The agent image: where every lazy one-shot (`claude -p`) runs, never on the host.

    It holds Node, a pinned @anthropic-ai/claude-code and socat (the container's only way
    out is lazy's credential proxy, through a mounted unix socket).
    """


@agent_image_group.command("build")
@click.option(
    "--pull/--no-pull",
    default=True,
    show_default=True,
    help="Pull a newer node:22-bookworm-slim base before building.",
)
def build(pull: bool) -> None:
    """Build the agent image from the Dockerfile shipped in lazy.

    Needs a running Docker engine (DOCKER_HOST, else the default socket) and network access
    to the registry and npm. The image is tagged lazy-agent:claude-code-<pinned version>;
    `lazy doctor` checks that it exists.
    """
    import docker

    try:
        client = engine.connect()
    except OneShotError as e:
        raise click.ClickException(e.line()) from e
    with tempfile.TemporaryDirectory(prefix="lazy-agent-image-") as tmp:
        context = Path(tmp)
        shipped = resources.files("lazy.ask") / "image"
        for name in ("Dockerfile", "lazy-oneshot"):
            with resources.as_file(shipped / name) as src:
                shutil.copy2(src, context / name)
        err.print(f"building {engine.IMAGE} (Claude Code {engine.CLAUDE_CODE_VERSION})")
        try:
            for chunk in client.api.build(
                path=str(context),
                tag=engine.IMAGE,
                pull=pull,
                rm=True,
                forcerm=True,
                decode=True,
                buildargs={"CLAUDE_CODE_VERSION": engine.CLAUDE_CODE_VERSION},
            ):
                if "error" in chunk:
                    raise click.ClickException(
                        f"building {engine.IMAGE} failed [build-failed: {chunk['error'].strip()}]"
                    )
                line = str(chunk.get("stream", "")).rstrip()
                if line:
                    err.print(line, markup=False, highlight=False)
        except docker.errors.DockerException as e:
            raise click.ClickException(
                f"building {engine.IMAGE} failed [build-failed: {type(e).__name__}: {e}]"
            ) from e
    echo(f"built {engine.IMAGE}")
