"""A real Docker engine for the tests that run lazy's one-shots (tests/sandbox, and the ask in
tests/vscode), started once per pytest session and shared by all of them.

Debian's docker.io and socat (the image's forwarder) are installed when missing (as root); dockerd
runs with its data, exec root and socket in a fresh dir under /tmp (vfs storage, no bridge, no
iptables: containers get ``--network none`` only), and is stopped by its pid at the end, with
everything it made. The agent image is assembled from local files and imported once
(agent_image.py). When Docker cannot be made to work, the tests skip, or fail with the reason when
CI=true. Registered by the root conftest.py (``pytest_plugins``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import require
from support.agent_image import import_image, missing_pieces
from support.docker import Engine

START_DEADLINE = 60.0  # seconds for dockerd to answer


def _install_docker() -> str | None:
    """Why Docker cannot be had, or None."""
    if shutil.which("dockerd") and shutil.which("docker") and shutil.which("socat"):
        return None
    if os.geteuid() != 0:
        return "docker.io and socat are not installed and we are not root (apt-get install them)"
    install = ["apt-get", "install", "-y", "-qq", "docker.io", "socat"]
    for argv in (["apt-get", "update", "-qq"], install):
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=900)
        if done.returncode != 0:
            return f"{' '.join(argv)} failed: {done.stderr.strip()[-500:]}"
    return None


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


@pytest.fixture(scope="session")
def docker_engine() -> Iterator[Engine]:
    why = _install_docker()
    if why is None and os.geteuid() != 0:
        why = "starting dockerd needs root"
    require(why is None, f"a Docker engine: {why}")
    root = Path(tempfile.mkdtemp(prefix="lazy-dockerd-", dir="/tmp"))
    host = f"unix://{root}/docker.sock"
    log = (root / "dockerd.log").open("wb")
    proc = subprocess.Popen(
        [
            "dockerd",
            "--storage-driver=vfs",
            "--bridge=none",
            "--iptables=false",
            "--ip6tables=false",
            f"--data-root={root}/data",
            f"--exec-root={root}/exec",
            f"--pidfile={root}/dockerd.pid",
            f"--host={host}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        import docker

        client = None
        deadline = time.monotonic() + START_DEADLINE
        last: Exception | None = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                client = docker.DockerClient(base_url=host, timeout=120)
                client.ping()
                break
            except Exception as e:  # not up yet
                last, client = e, None
                time.sleep(0.2)  # polling a condition with a deadline
        if client is None:
            tail = (root / "dockerd.log").read_text(errors="replace")[-1500:]
            require(False, f"dockerd did not come up ({last}); its log:\n{tail}")
        assert client is not None
        engine = Engine(host, client)
        yield engine
        client.close()
    finally:
        _stop(proc)
        log.close()
        with contextlib.suppress(OSError):
            shutil.rmtree(root)


@pytest.fixture(scope="session")
def agent_image(docker_engine: Engine) -> str:
    missing = missing_pieces()
    require(not missing, f"pieces of the test agent image: {', '.join(missing)}")
    workdir = Path(tempfile.mkdtemp(prefix="lazy-image-", dir="/tmp"))
    try:
        docker_engine.image = import_image(
            {**os.environ, "DOCKER_HOST": docker_engine.host}, workdir
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return docker_engine.image


@pytest.fixture
def engine(
    docker_engine: Engine, agent_image: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Engine]:
    """The engine with the image, DOCKER_HOST pointing at it; removes what a failed test
    left behind (tests assert themselves that nothing is)."""
    monkeypatch.setenv("DOCKER_HOST", docker_engine.host)
    yield docker_engine
    docker_engine.remove_labelled()
