"""Scenario drivers: run the real Codex CLI in a sandbox against the scripted fake OpenAI API.

Everything here expects to run inside a loopback-only network namespace (see
run_codex_scenario.py and conftest.py); nothing touches the real ``~/.codex``: HOME, CODEX_HOME,
the XDG dirs and TMPDIR all point into the scenario's work directory.

Each scenario is a function ``(CodexSession) -> None`` registered in :data:`SCENARIOS`. It drives
``codex exec`` (and ``exec resume`` / ``exec fork``) and records in ``<workdir>/script.json`` what
was scripted: every turn (prompt, reply items the fake returned, commands run) per thread, and
which rollout file each thread wrote. Tests compare lazy's import with that file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, Item, Rule, function_call, message, reasoning, shell_call
from scenario_env import init_git_project, lazy_argv, sandbox_env

AGENTS_DIR = Path(__file__).resolve().parents[1]
NODE_MODULES = AGENTS_DIR / "node_modules"
DUMMY_KEY = "sk-lazy-fake-openai-00000000000000000000"
KEY_ENV = "LAZY_FAKE_OPENAI_KEY"
PROVIDER_ID = "lazyfake"
MODEL = "gpt-5-codex"
GIT_REMOTE = "https://github.com/lazy-tests/codex-fixture.git"
AGENTS_MD_MARKER = "lazy-agents-md-marker-7f3a"
RUN_TIMEOUT = 90.0

JsonDict = dict[str, Any]


class ScenarioError(RuntimeError):
    pass


# --------------------------------------------------------------------------------------------
# Finding the CLI
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Release:
    """A Codex release the scenarios can drive: ``alias`` is its npm package dir."""

    alias: str
    version: str
    bin: str  # path of the JS entry under node_modules/<alias>


PINNED = Release("@openai/codex", "0.171.0", "bin/codex.js")
OLD_0_20 = Release("codex-0-20", "0.20.0", "bin/codex.js")


def find_codex(release: Release = PINNED) -> list[str] | None:
    """argv prefix that runs ``release``, or None when it is not installed.

    ``LAZY_CODEX_BIN`` overrides the pinned release. The JS entry is run by node, as the npm
    ``.bin/codex`` shim would (it picks the platform's native binary).
    """
    override = os.environ.get("LAZY_CODEX_BIN")
    if override and release == PINNED:
        return [override] if os.access(override, os.X_OK) else None
    entry = NODE_MODULES / release.alias / release.bin
    node = shutil.which("node")
    if node is None or not entry.is_file():
        return None
    return [node, str(entry)]


def codex_version(argv: list[str], env: dict[str, str] | None = None) -> str:
    out = subprocess.run(
        [*argv, "--version"], capture_output=True, text=True, timeout=60, env=env, check=False
    )
    match = re.search(r"(\d+\.\d+\.\d+\S*)", out.stdout + out.stderr)
    return match.group(1) if match else ""


# --------------------------------------------------------------------------------------------
# Sandbox: private HOME / CODEX_HOME / project
# --------------------------------------------------------------------------------------------


@dataclass
class Sandbox:
    workdir: Path
    codex: list[str]
    base_url: str = ""

    @property
    def home(self) -> Path:
        return self.workdir / "home"

    @property
    def codex_home(self) -> Path:
        return self.workdir / "codex-home"

    @property
    def project(self) -> Path:
        return self.workdir / "project"

    def setup(self) -> None:
        for path in (self.home, self.codex_home, self.project, self.workdir / "tmp"):
            path.mkdir(parents=True, exist_ok=True)
        self.make_git_project()
        self.write_config()

    def make_git_project(self) -> None:
        """A git repo with one commit and a remote: Codex records branch/commit/remote."""
        files = {
            "README.md": "# codex fixture project\n",
            "AGENTS.md": f"# Project notes\n\nAlways be brief. {AGENTS_MD_MARKER}\n",
        }
        init_git_project(self.project, self.env(), files)
        self.git("remote", "add", "origin", GIT_REMOTE)

    def git(self, *args: str) -> str:
        out = subprocess.run(
            ["git", *args], cwd=self.project, env=self.env(), capture_output=True, text=True
        )
        return out.stdout.strip()

    def write_config(self) -> None:
        # approvals never + workspace-write: the shell tool runs (inside Codex's bundled
        # bubblewrap) with the project as its writable root, and nothing waits for a human.
        config = f"""
model = "{MODEL}"
model_provider = "{PROVIDER_ID}"
approval_policy = "never"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false
model_reasoning_summary = "auto"

[model_providers.{PROVIDER_ID}]
name = "Lazy fake OpenAI"
base_url = "{self.base_url}"
env_key = "{KEY_ENV}"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false
"""
        (self.codex_home / "config.toml").write_text(config.lstrip())

    def env(self) -> dict[str, str]:
        env = sandbox_env(home=self.home, tmp=self.workdir / "tmp", term="dumb")
        env.update(
            {
                "CODEX_HOME": str(self.codex_home),
                KEY_ENV: DUMMY_KEY,
                "NO_COLOR": "1",
                "RUST_LOG": "error",
                "CODEX_DISABLE_TELEMETRY": "1",
            }
        )
        return env

    def rollouts(self) -> list[Path]:
        return sorted(self.codex_home.glob("sessions/**/*.jsonl"))


# --------------------------------------------------------------------------------------------
# Sessions and turns
# --------------------------------------------------------------------------------------------


@dataclass
class Turn:
    prompt: str
    replies: list[JsonDict]  # the output items the fake sent, per request, in order
    commands: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # assistant message texts, in order
    reasoning: list[str] = field(default_factory=list)


@dataclass
class Thread:
    thread_id: str
    file: str
    turns: list[Turn] = field(default_factory=list)
    forked_from: str | None = None
    appended_by: list[str] = field(default_factory=list)  # "resume --last", "resume <id>", ...


def _thread_id_of(path: Path) -> str:
    first = json.loads(path.read_text().splitlines()[0])
    payload = first.get("payload") if first.get("type") == "session_meta" else first
    return str((payload or {}).get("id") or "")


class CodexSession:
    """Drives one scenario: the CLI, the fake API and what was scripted."""

    def __init__(self, name: str, sandbox: Sandbox, api: FakeOpenAI, version: str) -> None:
        self.name = name
        self.sandbox = sandbox
        self.api = api
        self.version = version
        self.threads: list[Thread] = []
        self.runs: list[JsonDict] = []
        self.expect: JsonDict = {}
        self.observed: JsonDict = {}  # what a scenario measured (the mcp scenario's results)
        self._n = 0

    def token(self, label: str) -> str:
        self._n += 1
        return f"{label}-{self._n}-{uuid.uuid4().hex[:6]}"

    # -- running the CLI -------------------------------------------------------------------

    def _run(self, args: list[str], what: str) -> subprocess.CompletedProcess[str]:
        argv = [*self.sandbox.codex, *args]
        started = time.monotonic()
        proc = subprocess.run(
            argv,
            cwd=self.sandbox.project,
            env=self.sandbox.env(),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        self.runs.append(
            {
                "what": what,
                "argv": args,
                "rc": proc.returncode,
                "seconds": round(time.monotonic() - started, 2),
                "stdout_tail": proc.stdout[-1500:],
                "stderr_tail": proc.stderr[-1500:],
            }
        )
        if proc.returncode != 0:
            raise ScenarioError(
                f"{what}: codex exited {proc.returncode}\nargv: {argv}\n"
                f"stdout:\n{proc.stdout[-2000:]}\nstderr:\n{proc.stderr[-3000:]}"
            )
        return proc

    def turn(self, args: list[str], prompt: str, what: str) -> tuple[Turn, Path]:
        """One ``codex exec ...`` run; returns the turn and the rollout file it wrote to."""
        before = {p: p.stat().st_size for p in self.sandbox.rollouts()}
        n_before = len(self.api.main_requests())
        self._run([*args, prompt] if prompt else args, what)
        after = {p: p.stat().st_size for p in self.sandbox.rollouts()}
        changed = [p for p, size in after.items() if before.get(p) != size]
        if len(changed) != 1:
            raise ScenarioError(f"{what}: expected one rollout file to change, got {changed}")
        records = self.api.main_requests()[n_before:]
        unscripted = [r for r in records if r["kind"] != "main"]
        if unscripted:
            raise ScenarioError(f"{what}: unscripted requests: {unscripted}")
        turn = Turn(prompt, [{"rule": r["rule"], "output": r["reply"]} for r in records])
        for record in records:
            for item in record["reply"]:
                if item["type"] == "message":
                    turn.texts.append(item["content"][0]["text"])
                elif item["type"] == "reasoning":
                    turn.reasoning.extend(s["text"] for s in item["summary"])
                elif item["type"] == "function_call":
                    args_json = json.loads(item["arguments"])
                    command = args_json.get("cmd") or args_json.get("command")
                    if isinstance(command, list):
                        command = command[-1]
                    turn.commands.append(str(command))
        return turn, changed[0]

    def exec_new(self, prompt: str, extra: list[str] | None = None) -> Thread:
        turn, path = self.turn(["exec", *(extra or [])], prompt, "exec")
        if any(t.file == str(path) for t in self.threads):
            raise ScenarioError(f"exec appended to an existing rollout {path}")
        thread = Thread(_thread_id_of(path), str(path), [turn])
        self.threads.append(thread)
        return thread

    def exec_resume(self, thread: Thread, prompt: str, last: bool = False) -> Turn:
        target = ["--last"] if last else [thread.thread_id]
        turn, path = self.turn(["exec", "resume", *target], prompt, "exec resume")
        if str(path) != thread.file:
            raise ScenarioError(f"resume wrote {path}, not the resumed rollout {thread.file}")
        thread.turns.append(turn)
        thread.appended_by.append("resume --last" if last else "resume <id>")
        return turn

    def exec_fork(self, parent: Thread, prompt: str) -> Thread:
        turn, path = self.turn(["exec", "fork", parent.thread_id], prompt, "exec fork")
        if any(t.file == str(path) for t in self.threads):
            raise ScenarioError(f"fork wrote to an existing rollout {path}")
        thread = Thread(_thread_id_of(path), str(path), [turn], forked_from=parent.thread_id)
        self.threads.append(thread)
        return thread

    def exec_resume_path(self, thread: Thread, prompt: str) -> Turn:
        """0.20.x had no ``exec resume``: ``-c experimental_resume=<rollout path>`` resumes."""
        args = ["exec", "-c", f"experimental_resume={json.dumps(thread.file)}"]
        turn, path = self.turn(args, prompt, "exec -c experimental_resume")
        if str(path) != thread.file:
            thread.appended_by.append(f"new file {path}")
            raise ScenarioError(f"experimental_resume wrote {path}, not {thread.file}")
        thread.turns.append(turn)
        thread.appended_by.append("experimental_resume")
        return turn

    # -- scripting -------------------------------------------------------------------------

    def on_prompt(self, prompt: str, reply: list[Item]) -> None:
        self.api.add(Rule(f"prompt:{prompt}", reply, user_contains=prompt))

    def on_output(self, call_id: str, reply: list[Item]) -> None:
        self.api.add(Rule(f"output:{call_id}", reply, tool_output_for=call_id))

    def to_json(self) -> JsonDict:
        sb = self.sandbox
        return {
            "name": self.name,
            "codex_version": self.version,
            "workdir": str(sb.workdir),
            "home": str(sb.home),
            "codex_home": str(sb.codex_home),
            "project": str(sb.project),
            "git": {
                "branch": sb.git("rev-parse", "--abbrev-ref", "HEAD"),
                "commit": sb.git("rev-parse", "HEAD"),
                "remote": GIT_REMOTE,
            },
            "model": MODEL,
            "provider": PROVIDER_ID,
            "agents_md_marker": AGENTS_MD_MARKER,
            "threads": [
                {
                    "thread_id": t.thread_id,
                    "file": t.file,
                    "forked_from": t.forked_from,
                    "appended_by": t.appended_by,
                    "turns": [vars(turn) for turn in t.turns],
                }
                for t in self.threads
            ],
            "rollouts": [str(p) for p in sb.rollouts()],
            "runs": self.runs,
            "expect": self.expect,
            "observed": self.observed,
        }


# --------------------------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------------------------


def scenario_oneshot(s: CodexSession) -> None:
    prompt = s.token("oneshot-prompt")
    s.on_prompt(prompt, [message(f"oneshot answer to {prompt}")])
    s.exec_new(prompt)


def scenario_multiturn(s: CodexSession) -> None:
    prompts = [s.token("multi-first"), s.token("multi-second"), s.token("multi-third")]
    for p in prompts:
        s.on_prompt(p, [message(f"answer to {p}")])
    thread = s.exec_new(prompts[0])
    s.exec_resume(thread, prompts[1], last=True)
    s.exec_resume(thread, prompts[2])


def scenario_tool(s: CodexSession) -> None:
    prompt = s.token("tool-prompt")
    call_id = f"call_{uuid.uuid4().hex[:12]}"
    s.on_prompt(prompt, [shell_call(call_id, "echo hello-from-codex > out.txt && ls")])
    s.on_output(call_id, [message(f"wrote out.txt for {prompt}")])
    s.exec_new(prompt)
    out = s.sandbox.project / "out.txt"
    if not out.is_file() or out.read_text().strip() != "hello-from-codex":
        raise ScenarioError(f"the shell tool did not run: {out} missing or wrong")
    # a second user turn so the default (non-trivial) import keeps the session too
    second = s.token("tool-followup")
    s.on_prompt(second, [message(f"follow-up answer to {second}")])
    s.exec_resume(s.threads[0], second)


def scenario_reasoning(s: CodexSession) -> None:
    prompt = s.token("reasoning-prompt")
    s.on_prompt(
        prompt,
        [reasoning(f"Thinking about {prompt} step by step."), message(f"reasoned answer {prompt}")],
    )
    s.exec_new(prompt)


def scenario_fork(s: CodexSession) -> None:
    first, second, forked = s.token("fork-first"), s.token("fork-second"), s.token("fork-child")
    for p in (first, second, forked):
        s.on_prompt(p, [message(f"answer to {p}")])
    parent = s.exec_new(first)
    s.exec_resume(parent, second)
    s.exec_fork(parent, forked)


def scenario_v0_20(s: CodexSession) -> None:
    """0.20.0 (bare pre-envelope rollouts): a tool call, then a resumed second turn."""
    prompt = s.token("old-tool-prompt")
    call_id = f"call_{uuid.uuid4().hex[:12]}"
    s.on_prompt(
        prompt,
        [
            reasoning(f"Old release thinking {prompt}."),
            shell_call(call_id, "echo old-codex > o.txt && cat o.txt"),
        ],
    )
    s.on_output(call_id, [message(f"old release wrote o.txt for {prompt}")])
    thread = s.exec_new(prompt)
    if (s.sandbox.project / "o.txt").read_text().strip() != "old-codex":
        raise ScenarioError("0.20.0 did not run the shell tool")
    second = s.token("old-second")
    s.on_prompt(second, [message(f"old release answer to {second}")])
    s.exec_resume_path(thread, second)


def _lazy(s: CodexSession, *args: str) -> str:
    """``lazy <args>`` in the sandbox's environment (with the scenario's LAZY_HOME)."""
    env = {**s.sandbox.env(), "LAZY_HOME": str(s.sandbox.workdir / "lazy-home")}
    p = subprocess.run(
        [*lazy_argv(), *args], env=env, cwd=s.sandbox.project, capture_output=True, text=True,
        timeout=120, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    if p.returncode != 0:
        raise ScenarioError(f"lazy {' '.join(args)} failed: {p.stdout}{p.stderr}")
    return p.stdout


def scenario_mcp(s: CodexSession) -> None:
    """lazy's MCP server called by the real Codex: an earlier thread imported into
    ``<workdir>/lazy-home``, `lazy mcp install --agent codex` into $CODEX_HOME/config.toml
    (its model provider kept), then the fake model calls lazy_conversation_search and
    lazy_conversation_read; what Codex sent back as each call's output is kept in
    ``observed``."""
    word = f"zqcodexmcp{uuid.uuid4().hex[:8]}"
    first = f"design the retention policy for {word}"
    s.on_prompt(first, [message(f"Decision: keep every transcript forever ({word})")])
    earlier = s.exec_new(first)
    _lazy(s, "import-conversation", "--tool", "codex", "--all-projects", "--yes")
    listed = json.loads(_lazy(s, "conversations", "--tool", "codex", "--json"))["builders"]
    [builder] = [b for b in listed if earlier.thread_id in b["session_ids"]]
    s.observed["mcp_install"] = _lazy(s, "mcp", "install", "--agent", "codex")
    s.observed["config"] = (s.sandbox.codex_home / "config.toml").read_text()
    # the names Codex gives the MCP tools: one turn that only lists them
    # (a server still starting when Codex asks the model is left out of that turn: seen once
    # under load, so the probe is tried up to three times)
    for _ in range(3):
        probe = s.token("mcp-probe")
        s.on_prompt(probe, [message("ok")])
        s.turn(["exec", "--skip-git-repo-check"], probe, "exec (tools probe)")
        offered = next(r["tool_names"] for r in s.api.records if r.get("rule") == f"prompt:{probe}")
        s.observed.setdefault("probes", []).append(offered)
        if "mcp__lazy" in offered:
            break
    s.observed["tool_names"] = offered
    # 0.171 offers a server's tools as one `namespace` tool, mcp__<server>; a call names the
    # tool inside it and the namespace apart
    if "mcp__lazy" not in offered:
        raise ScenarioError(f"Codex offered no lazy tools: {offered}")
    ns = "mcp__lazy"
    ask = s.token("mcp-ask")
    search_id, read_id = f"call_{uuid.uuid4().hex[:12]}", f"call_{uuid.uuid4().hex[:12]}"
    s.on_prompt(ask, [function_call(search_id, "lazy_conversation_search", {"query": word}, ns)])
    page = {"id": builder["id"], "start": 1}
    s.on_output(search_id, [function_call(read_id, "lazy_conversation_read", page, ns)])
    s.on_output(read_id, [message(f"found it ({ask})")])
    s.turn(["exec", "--skip-git-repo-check"], ask, "exec (mcp calls)")
    outputs = {k: v for r in s.api.records for k, v in (r.get("tool_outputs") or {}).items()}
    s.observed.update(
        word=word,
        builder_id=builder["id"],
        earlier_thread=earlier.thread_id,
        search_result=outputs.get(search_id, ""),
        read_result=outputs.get(read_id, ""),
    )


Scenario = Callable[[CodexSession], None]


@dataclass(frozen=True)
class ScenarioSpec:
    run: Scenario
    release: Release = PINNED


SCENARIOS: dict[str, ScenarioSpec] = {
    "oneshot": ScenarioSpec(scenario_oneshot),
    "multiturn": ScenarioSpec(scenario_multiturn),
    "tool": ScenarioSpec(scenario_tool),
    "reasoning": ScenarioSpec(scenario_reasoning),
    "fork": ScenarioSpec(scenario_fork),
    "v0_20": ScenarioSpec(scenario_v0_20, OLD_0_20),
    "mcp": ScenarioSpec(scenario_mcp),
}
