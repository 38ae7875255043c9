"""The one-shot runner: `claude -p` in a hardened, throwaway container of the agent image.

A run: check what it needs (lazy.ask.prerequisites), sweep what earlier runs left, start its
watchdog, start the credential proxy on a unix socket in a fresh run dir, start the container
(no network, read-only root, no capabilities, no-new-privileges, pids and memory limits,
tmpfs scratch, the project's one-shot state dir as Claude Code's config dir), wait at most the
bound, read the stream-json events, remove the container, the run dir and the session files
(lazy.ask.leftovers). Claude Code is told not to keep its session, and the prompt starts with
lazy's one-shot marker, so capture would never store one anyway.

Claude Code runs with no tools at all; the runner does not trust its own flags for that but
reads the tool list from the CLI's ``system/init`` event and refuses the answer otherwise.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lazy.ask import engine, leftovers, paths, prerequisites
from lazy.ask.leftovers import Run
from lazy.ask.oneshot import OneShot, OneShotCancelled, OneShotError, OneShotTimeout
from lazy.ask.proxy import AuditLog, Credential, CredentialProxy
from lazy.ask.watchdog import Watchdog
from lazy.os.private import private_dir
from lazy.records import ONESHOT_MARKER

BOUND_SECONDS = 600.0  # ten minutes: a one-shot is one model call, so only a hang gets there
UPSTREAM = "https://api.anthropic.com"
PROXY_PORT = 47100  # where lazy-oneshot exposes the proxy on the container's loopback
PLACEHOLDER_KEY = "sk-ant-lazy-placeholder"  # the container never holds the real credential
CONTAINER_HOME = "/home/lazy"
UNPRIVILEGED = 65532  # the image's user when lazy itself runs as root
MAX_OUTPUT = 4 * 1024 * 1024  # bytes of stream-json read back
# belt and braces after --tools "": every built-in tool by name
DISALLOWED = (
    "Bash Edit Write MultiEdit NotebookEdit Read Glob Grep LS WebFetch WebSearch Task Agent "
    "Skill TodoWrite KillShell BashOutput ExitPlanMode SlashCommand"
)


def bound_seconds() -> float:
    """The bound, LAZY_ONESHOT_TIMEOUT (seconds) when set: tests make a hang short."""
    given = os.environ.get("LAZY_ONESHOT_TIMEOUT", "").strip()
    try:
        return float(given) if given else BOUND_SECONDS
    except ValueError:
        raise OneShotError(
            f"LAZY_ONESHOT_TIMEOUT={given!r} is not a number of seconds", "bad-setting"
        ) from None


def _duration(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds:g} seconds"


def claude_args(session: str) -> list[str]:
    return [
        "-p",
        # the session is lazy's housekeeping: not written, and should a version write it
        # anyway, named so the run removes exactly its own
        "--no-session-persistence",
        "--session-id",
        session,
        "--output-format",
        "stream-json",
        "--verbose",
        "--tools",
        "",
        "--disallowedTools",
        DISALLOWED,
        "--strict-mcp-config",
        "--mcp-config",
        '{"mcpServers":{}}',
        "--setting-sources",
        "",
        "--permission-mode",
        "dontAsk",
        "--max-turns",
        "1",
    ]


@dataclass
class OneShotResult:
    answer: str
    init: dict[str, Any]  # Claude Code's own system/init event
    events: list[dict[str, Any]] = field(default_factory=list)
    container: str = ""


def parse_events(output: bytes) -> list[dict[str, Any]]:
    events = []
    for line in output.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        with contextlib.suppress(json.JSONDecodeError):
            value = json.loads(line)
            if isinstance(value, dict):
                events.append(value)
    return events


def read_result(events: list[dict[str, Any]], stderr: str) -> OneShotResult:
    init = next(
        (e for e in events if e.get("type") == "system" and e.get("subtype") == "init"), None
    )
    if init is None:
        raise OneShotError(
            "the one-shot's Claude Code printed no init event", "no-init-event", stderr[-2000:]
        )
    tools, mcp = init.get("tools"), init.get("mcp_servers")
    if tools != [] or mcp not in ([], None):
        raise OneShotError(
            "the one-shot's Claude Code had tools available; its answer is not used",
            "tools-available",
            f"tools={tools!r} mcp_servers={mcp!r}",
        )
    result = next((e for e in reversed(events) if e.get("type") == "result"), None)
    if result is None:
        raise OneShotError("the one-shot ended without a result", "no-result", stderr[-2000:])
    if result.get("is_error") or not isinstance(result.get("result"), str):
        raise OneShotError(
            f"the model call failed: {result.get('result') or result.get('subtype')}",
            "model-error",
            json.dumps(result)[:2000],
        )
    return OneShotResult(result["result"], init, events)


class DockerRunner:
    """Runs one-shots for one project; call it with a prompt (the OneShot protocol)."""

    def __init__(
        self,
        project: str,
        *,
        image: str = engine.IMAGE,
        upstream: str | None = None,
        credential: Credential | None = None,
        bound: float | None = None,
    ) -> None:
        self.project = project
        self.image = image
        self.upstream = upstream or os.environ.get("ANTHROPIC_BASE_URL") or UPSTREAM
        self.credential = credential
        self.bound = bound
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._running: str | None = None  # the name of the container running now

    def __call__(self, prompt: str) -> str:
        return self.run(prompt).answer

    def cancel(self) -> None:
        """From any thread: kill the one-shot running now (its run raises OneShotCancelled
        and removes the container as ever) and refuse any later one."""
        self._cancelled.set()
        with self._lock:
            name = self._running
        if name is not None:
            _kill(name)

    def _check_cancelled(self) -> None:
        if self._cancelled.is_set():
            raise OneShotCancelled("the one-shot was cancelled")

    def check(self) -> None:
        """What every one-shot needs, checked once before an ask starts."""
        _, client = prerequisites.check(self.image, self.credential)
        client.close()

    def run(self, prompt: str) -> OneShotResult:
        self._check_cancelled()
        bound = self.bound if self.bound is not None else bound_seconds()
        credential, client = prerequisites.check(self.image, self.credential)
        try:
            return self._run(client, credential, prompt, bound)
        finally:
            client.close()

    def _run(self, client: Any, credential: Credential, prompt: str, bound: float) -> OneShotResult:
        engine.sweep(client)
        leftovers.sweep_run_dirs()
        leftovers.sweep_sessions(paths.base_dir())
        state = private_dir(paths.state_dir(self.project), within=paths.base_dir())
        run_id = secrets.token_hex(6)
        run = Run(run_id, leftovers.run_dir_for(run_id), state, str(uuid.uuid4()))
        # before anything of the run exists: from here on, lazy dying leaves nothing
        dog = Watchdog.start(run, str(paths.base_dir() / "watchdog.log"))
        run_dir = run.dir
        proxy = None
        container = None
        clean = False
        try:
            leftovers.make_run_dir(run_dir)
            (run_dir / "prompt").write_text(f"{ONESHOT_MARKER}\n\n{prompt}", encoding="utf-8")
            proxy = CredentialProxy(
                run_dir / "proxy.sock",
                self.upstream,
                credential,
                AuditLog(paths.audit_log()),
                run_id,
                # past the bound: a hang is the bound's to report, as unanswered
                upstream_timeout=bound + 60,
            ).start()
            user = container_user(run_dir, state)
            dog.creating()
            container = self._start(client, run, user, bound)
            dog.created()
            with self._lock:
                self._running = str(container.name)
            self._check_cancelled()  # cancelled while it started: cancel() saw no container
            status = self._wait(container, bound)
            self._check_cancelled()
            out = _capped(container.logs(stdout=True, stderr=False))
            err = _capped(container.logs(stdout=False, stderr=True)).decode("utf-8", "replace")
            if status == 137:  # the in-container `timeout -s KILL` fired first
                raise _timeout(bound, f"exit status {status}")
            result = read_result(parse_events(out), err)
            if status != 0:
                raise OneShotError(
                    f"the one-shot's Claude Code exited with status {status}",
                    "agent-failed",
                    err[-2000:],
                )
            result.container = str(container.name)
            return result
        finally:
            with self._lock:
                self._running = None
            try:
                if proxy is not None:
                    proxy.stop()
                if container is not None:
                    clean = _remove(container)
            finally:
                leftovers.remove_files(run)
                if clean:
                    dog.release()
                else:
                    # no container seen created (a failed start, or one cut short while the
                    # engine created it), or one that would not go: the watchdog sees to it
                    with contextlib.suppress(Exception):  # the engine away: the watchdog's
                        leftovers.remove_containers(client, run_id)
                    dog.abandon()

    def _start(self, client: Any, run: Run, user: str, bound: float) -> Any:
        import docker

        try:
            return client.containers.run(
                self.image,
                claude_args(run.session),
                name=f"lazy-oneshot-{run.id}",
                detach=True,
                **hardened(run.id, run.dir, run.state, user, bound),
            )
        except docker.errors.DockerException as e:
            raise OneShotError(
                f"Docker could not start the one-shot container. {engine.DOCKER_GUIDANCE}",
                "container-start-failed",
                f"{type(e).__name__}: {e}",
            ) from e

    def _wait(self, container: Any, bound: float) -> int:
        try:
            return int(container.wait(timeout=bound)["StatusCode"])
        except Exception as e:  # requests' ReadTimeout / ConnectionError at the bound
            if _is_timeout(e):
                raise _timeout(bound, f"{type(e).__name__}: {e}") from e
            raise OneShotError(
                f"lost the Docker engine while the one-shot ran. {engine.DOCKER_GUIDANCE}",
                "docker-unavailable",
                f"{type(e).__name__}: {e}",
            ) from e


def hardened(run_id: str, run_dir: Path, state: Path, user: str, bound: float) -> dict[str, Any]:
    """docker-py's run() arguments every one-shot container gets: no network (the proxy
    socket in ``run_dir`` is the only way out), read-only root, no capabilities,
    no-new-privileges, pids/memory/cpu limits, tmpfs scratch, the placeholder credential,
    the project's state dir as Claude Code's config dir, lazy's labels."""
    import docker

    return {
        "network_mode": "none",
        "read_only": True,
        "tmpfs": {
            "/tmp": "rw,noexec,nosuid,nodev,size=64m",
            CONTAINER_HOME: f"rw,noexec,nosuid,nodev,size=64m,uid={user.split(':')[0]}",
        },
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges:true"],
        "pids_limit": 128,
        "mem_limit": "1g",
        "memswap_limit": "1g",
        "nano_cpus": 1_000_000_000,
        "ulimits": [docker.types.Ulimit(name="nofile", soft=1024, hard=1024)],
        "ipc_mode": "private",
        "init": True,
        "user": user,
        "working_dir": "/tmp",
        "environment": {
            "HOME": CONTAINER_HOME,
            "CLAUDE_CONFIG_DIR": f"{CONTAINER_HOME}/.claude",
            "ANTHROPIC_API_KEY": PLACEHOLDER_KEY,
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{PROXY_PORT}",
            "LAZY_PROXY_PORT": str(PROXY_PORT),
            # the innermost bound, a little after the host's own
            "LAZY_ONESHOT_SECONDS": str(int(bound) + 15),
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        },
        "volumes": {
            str(run_dir): {"bind": "/run/lazy", "mode": "rw"},
            str(state): {"bind": f"{CONTAINER_HOME}/.claude", "mode": "rw"},
        },
        "labels": {
            engine.LABEL: "1",
            engine.OWNER_LABEL: str(os.getpid()),
            engine.RUN_LABEL: run_id,
        },
    }


def _timeout(bound: float, detail: str) -> OneShotTimeout:
    return OneShotTimeout(
        f"the one-shot was killed after {_duration(bound)} without an answer (every one-shot "
        "is bounded; a model call that long is one that will not answer: is the model API "
        "reachable?); its container was removed",
        "oneshot-timeout",
        detail,
    )


def _is_timeout(e: Exception) -> bool:
    import requests

    if isinstance(e, requests.exceptions.ReadTimeout | TimeoutError):
        return True
    # urllib3 wraps the socket timeout in a ConnectionError on some paths
    return isinstance(e, requests.exceptions.ConnectionError) and "timed out" in str(e)


def _remove(container: Any) -> bool:
    """Kill and remove the container; whether it is gone. Never raises: it runs while a
    run ends, whatever ended it (an engine gone away included)."""
    import docker

    # exited already, gone, or the engine unreachable: the remove below tells which
    with contextlib.suppress(Exception):
        container.kill()
    try:
        container.remove(force=True)
    except docker.errors.NotFound:
        return True
    except Exception:  # APIError, or the engine's connection lost
        return False
    return True


def _kill(name: str) -> None:
    """Kill a one-shot's container from another thread than the one waiting on it, over a
    client of its own (the waiting thread's connection is busy)."""
    import docker

    try:
        client = engine.connect()
    except OneShotError:
        return  # no engine: nothing runs there to kill
    try:
        with contextlib.suppress(docker.errors.NotFound, docker.errors.APIError):
            client.containers.get(name).kill()
    finally:
        client.close()


def _capped(data: bytes) -> bytes:
    return data[-MAX_OUTPUT:]


def container_user(run_dir: Path, state: Path) -> str:
    """Run as lazy's own user; as an unprivileged one when lazy runs as root (the dirs the
    container writes then belong to that user)."""
    uid, gid = os.getuid(), os.getgid()
    if uid != 0:
        return f"{uid}:{gid}"
    for path in (run_dir, run_dir / "proxy.sock", state):
        if path.exists():
            os.chown(path, UNPRIVILEGED, UNPRIVILEGED)
    for path in state.rglob("*"):
        if path.stat().st_uid != UNPRIVILEGED:
            os.lchown(path, UNPRIVILEGED, UNPRIVILEGED)
    return f"{UNPRIVILEGED}:{UNPRIVILEGED}"


def default_runner(project: str) -> OneShot:
    """The runner `lazy ask` and friends use: the Docker runner for ``project``."""
    return DockerRunner(project)
