"""The one-shot runner end to end: the real Claude Code CLI in a hardened container of the
(locally assembled) agent image, answering through the audited credential proxy from the
fake Anthropic API on the host."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import Rule, text

from lazy.ask import engine as docker_engine
from lazy.ask import leftovers, paths
from lazy.ask.oneshot import OneShotError, OneShotTimeout
from lazy.ask.proxy import Credential
from lazy.ask.runner import (
    PLACEHOLDER_KEY,
    DockerRunner,
    container_user,
    default_runner,
    hardened,
)
from lazy.records import ONESHOT_MARKER
from support.docker import Engine
from support.oneshot_api import REAL_KEY, fake_api

LAZY = str(Path(sys.executable).with_name("lazy"))
PROJECT = "/srv/projects/memory-engine"


def audit_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in paths.audit_log().read_text().splitlines()]


def test_answers_through_the_audited_channel_with_no_tools(engine: Engine, tmp_path: Path) -> None:
    rule = Rule("answer", [text("forty-two, from the fake")], user_contains="what is the answer")
    with fake_api([rule]) as fake:
        runner = DockerRunner(
            PROJECT, upstream=fake.base_url, credential=Credential("x-api-key", REAL_KEY)
        )
        result = runner.run("what is the answer?")
        keys = list(fake.httpd.RequestHandlerClass.keys)  # type: ignore[attr-defined]
        records = list(fake.records)
    assert result.answer == "forty-two, from the fake"
    assert rule.used == 1
    # from Claude Code's own init event, not from the flags the runner passed
    assert result.init["tools"] == []
    assert result.init.get("mcp_servers") == []
    # the container held a placeholder; the model API saw only the real key
    assert keys and all(k == REAL_KEY for k in keys)
    assert PLACEHOLDER_KEY not in keys
    audit = audit_records()
    messages = [r for r in audit if r["path"].startswith("/v1/messages")]
    assert messages, audit
    assert all(r["status"] == 200 and r["response_bytes"] > 0 for r in messages)
    assert all(r["request_bytes"] > 0 and r["time"] for r in messages)
    # the container is gone; the user's ~/.claude was never touched
    assert engine.labelled() == []
    assert not (Path(os.environ["HOME"]) / ".claude").exists()
    # state is in the project's stable one-shot dir, and no session of the run is kept there
    state = paths.state_dir(PROJECT)
    assert state.is_dir()
    assert [p for p in (state / "projects").rglob("*") if p.is_file()] == []
    # the prompt the model was sent still opens with the marker (should a session be kept)
    asked = [r["last_user_text"] for r in records if r["kind"] == "main"]
    assert asked and all(text.startswith(ONESHOT_MARKER) for text in asked), asked


def test_the_one_shot_session_is_neither_kept_nor_captured(engine: Engine, tmp_path: Path) -> None:
    rule = Rule("answer", [text("a housekeeping answer")], user_contains="summarise")
    with fake_api([rule]) as fake:
        DockerRunner(PROJECT, upstream=fake.base_url, credential=Credential("x-api-key", REAL_KEY))(
            "summarise this"
        )
    assert rule.used == 1
    state = paths.state_dir(PROJECT)
    assert [p for p in (state / "projects").rglob("*") if p.is_file()] == []
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(state)}
    done = subprocess.run(
        [LAZY, "import-conversation", "--all-projects", "--yes"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    listed = subprocess.run(
        [LAZY, "conversations", "--all-projects", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["builders"] == []


def test_no_network_but_the_channel(engine: Engine, tmp_path: Path) -> None:
    """The runner's own container settings; from inside, anything but the proxy socket is
    unreachable: an outside address, and the host's loopback where the fake API listens."""
    with fake_api([]) as fake:
        run_dir = leftovers.make_run_dir(leftovers.run_dir_for("nettest"))
        state = paths.state_dir(PROJECT)
        state.mkdir(parents=True)
        try:
            user = container_user(run_dir, state)
            settings = hardened("nettest", run_dir, state, user, 60)
            outcomes = {}
            for name, target in (
                ("outside", "TCP:1.1.1.1:443,connect-timeout=5"),
                ("host loopback", f"TCP:127.0.0.1:{fake.port},connect-timeout=5"),
            ):
                c = engine.client.containers.run(
                    engine.image,
                    ["-u", "OPEN:/dev/null", target],
                    entrypoint=["socat"],
                    detach=True,
                    **settings,
                )
                try:
                    status = c.wait(timeout=60)["StatusCode"]
                    outcomes[name] = (status, c.logs(stderr=True).decode())
                    config = c.attrs["HostConfig"]
                finally:
                    c.remove(force=True)
            # the hardening the runner asks for is what the engine applied
            assert config["NetworkMode"] == "none"
            assert config["ReadonlyRootfs"] is True
            assert config["CapDrop"] == ["ALL"]
            assert "no-new-privileges:true" in config["SecurityOpt"]
            assert config["PidsLimit"] == 128
            assert config["Memory"] == 1024**3
            assert "/tmp" in config["Tmpfs"]
        finally:
            import shutil

            shutil.rmtree(run_dir, ignore_errors=True)
        assert not fake.records  # nothing reached the fake API
    for name, (status, log) in outcomes.items():
        assert status != 0, (name, log)
        assert "Network is unreachable" in log or "Connection refused" in log, (name, log)


def test_a_hung_model_is_killed_at_the_bound(engine: Engine) -> None:
    hang = Rule("hang", [text("too late")], user_contains="hang", delay=600)
    with fake_api([hang]) as fake:
        runner = DockerRunner(
            PROJECT, upstream=fake.base_url, credential=Credential("x-api-key", REAL_KEY), bound=20
        )
        with pytest.raises(OneShotTimeout) as caught:
            runner("please hang")
        assert hang.used == 1  # the model was asked, and never answered
    assert caught.value.code == "oneshot-timeout"
    assert "killed after 20 seconds" in str(caught.value)
    assert "container was removed" in str(caught.value)
    assert engine.labelled() == []
    unanswered = [r for r in audit_records() if r.get("outcome")]
    assert unanswered and unanswered[0]["status"] is None, audit_records()


def test_leftovers_of_a_dead_lazy_are_swept_at_start(engine: Engine) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    labels = {docker_engine.LABEL: "1", docker_engine.RUN_LABEL: "old"}
    dead = engine.client.containers.create(
        engine.image, ["--version"], labels={**labels, docker_engine.OWNER_LABEL: str(gone.pid)}
    )
    live = engine.client.containers.create(
        engine.image, ["--version"], labels={**labels, docker_engine.OWNER_LABEL: str(os.getpid())}
    )
    try:
        client = docker_engine.connect()
        removed = docker_engine.sweep(client)
        names = {c.name for c in engine.labelled()}
        assert dead.name in removed
        assert dead.name not in names
        assert live.name in names  # a running lazy's one-shot is its own business
    finally:
        live.remove(force=True)


def test_docker_stopped_fails_loud_with_guidance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No engine behind DOCKER_HOST (what a stopped Docker looks like): no host fallback."""
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/docker.sock")
    monkeypatch.setenv("ANTHROPIC_API_KEY", REAL_KEY)
    with pytest.raises(OneShotError) as caught:
        default_runner(PROJECT)("anything")
    assert caught.value.code == "docker-unavailable"
    message = str(caught.value)
    assert "never on the host" in message
    assert "sudo systemctl start docker" in message
    assert caught.value.detail  # the underlying error
    assert not paths.state_dir(PROJECT).exists()  # nothing ran


def _doctor_image_check() -> dict[str, Any]:
    done = subprocess.run(
        [LAZY, "doctor", "--json"], capture_output=True, text=True, timeout=300, env=os.environ
    )
    checks = {c["title"]: c for c in json.loads(done.stdout)["checks"]}
    return dict(checks["The agent image is built (for lazy's one-shots)"])


def test_doctor_checks_that_the_agent_image_exists(engine: Engine) -> None:
    check = _doctor_image_check()
    assert check["status"] == "ok", check
    assert engine.image in check["detail"][0]
    engine.client.images.get(engine.image).tag("lazy-agent", "kept-aside")
    engine.client.images.remove(engine.image)
    try:
        check = _doctor_image_check()
        assert check["status"] == "warn", check
        assert check["fix"] == "lazy agent-image build"
    finally:
        engine.client.images.get("lazy-agent:kept-aside").tag(*engine.image.split(":"))
        engine.client.images.remove("lazy-agent:kept-aside")
