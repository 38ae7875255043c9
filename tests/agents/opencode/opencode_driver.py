"""Drive the real OpenCode CLI in a sandbox against the scripted fake Anthropic API.

Everything here expects to run inside a loopback-only network namespace (see
``run_opencode_scenario.py`` and ``conftest.py``). Nothing touches the machine's own
``~/.local/share/opencode``: HOME, the XDG dirs, TMPDIR and PWD all point into the scenario's
work directory.

A scenario is a function ``(OpenCodeSession) -> None`` in :data:`SCENARIOS`. It drives
``opencode run`` turn by turn and records in ``<workdir>/script.json`` what was scripted (prompts,
the fake's replies, tool calls, the session ids OpenCode reported) and what OpenCode wrote
(``observed``). Tests compare lazy's import with that file and with the raw storage.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

AGENTS_DIR = Path(__file__).resolve().parents[1]
if str(AGENTS_DIR) not in sys.path:
    sys.path.insert(0, str(AGENTS_DIR))

from fake_anthropic import (  # noqa: E402
    Block,
    Decision,
    FakeAnthropic,
    Rule,
    classify_side_call,
    last_user_text,
    system_text,
    text,
    thinking,
    tool_use,
)
from scenario_env import init_git_project, lazy_argv, sandbox_env  # noqa: E402
from scenario_env import lazy_import_args as shared_lazy_import_args  # noqa: E402

NODE_MODULES = AGENTS_DIR / "node_modules"
DUMMY_KEY = "sk-ant-placeholder-lazy-opencode-000000000000000000"
MODEL = "claude-sonnet-4-5"
PROVIDER = "anthropic"
RUN_TIMEOUT = 120.0
SUMMARY_TEXT = "lazy-fake-opencode-summary"

JsonDict = dict[str, Any]

# Releases by key: where npm (with --ignore-scripts) leaves each native binary. The `.bin/opencode`
# link points at the 1.1.65 alias's JS launcher, and the top-level `opencode-linux-x64` package is
# 1.1.65 too; the pinned release's binary is nested under opencode-ai/node_modules.
RELEASES: dict[str, tuple[str, list[Path]]] = {
    "current": (
        "1.18.33",
        [
            NODE_MODULES / "opencode-ai" / "node_modules" / f"opencode-linux-{arch}" / "bin"
            for arch in ("x64", "x64-baseline", "x64-musl", "x64-baseline-musl", "arm64")
        ],
    ),
    "v1_1": (
        "1.1.65",
        [
            NODE_MODULES / sub / "node_modules" / f"opencode-linux-{arch}" / "bin"
            for sub in ("opencode-1-1",)
            for arch in ("x64", "x64-baseline")
        ]
        + [
            NODE_MODULES / f"opencode-linux-{arch}" / "bin"
            for arch in ("x64", "x64-baseline", "x64-musl", "x64-baseline-musl", "arm64")
        ],
    ),
}


class ScenarioError(RuntimeError):
    pass


def _package_version(binary: Path) -> str:
    try:
        data = json.loads((binary.parents[1] / "package.json").read_text())
    except (OSError, json.JSONDecodeError):
        return ""
    return str(data.get("version") or "")


def find_opencode(release: str = "current") -> Path | None:
    """The native binary of ``release`` (a key of :data:`RELEASES`), or None.

    ``LAZY_OPENCODE_BIN`` overrides the current one. The version comes from the platform
    package's package.json (running ``--version`` costs a cold start).
    """
    if release == "current" and os.environ.get("LAZY_OPENCODE_BIN"):
        override = Path(os.environ["LAZY_OPENCODE_BIN"])
        return override if os.access(override, os.X_OK) else None
    version, dirs = RELEASES[release]
    for directory in dirs:
        binary = directory / "opencode"
        if binary.is_file() and _package_version(binary) == version:
            if not os.access(binary, os.X_OK):
                binary.chmod(0o755)
            return binary
    return None


def release_version(release: str) -> str:
    return RELEASES[release][0]


# --------------------------------------------------------------------------------------------
# The fake API, as OpenCode sees it
# --------------------------------------------------------------------------------------------


def opencode_side_classifier(title: str) -> Callable[[JsonDict], Decision | None]:
    """OpenCode's own helper calls: the session title (both releases) and, in 1.1.x, message
    summaries. Anything else falls back to the Claude Code classifier."""

    def classify(body: JsonDict) -> Decision | None:
        system = system_text(body)
        if not body.get("tools"):
            if "You are a title generator" in system:
                return Decision("side:title", None, [text(title)], "end_turn")
            user = last_user_text(body)
            if "text to summarize" in user or "summarize" in system.lower():
                return Decision("side:summary", None, [text(SUMMARY_TEXT)], "end_turn")
        return classify_side_call(body)

    return classify


class GatedFake(FakeAnthropic):
    """A fake whose rules named in ``gated`` hold their reply until :meth:`release` is called,
    so a test can act while OpenCode is mid-turn (DB open, user message written)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gated: set[str] = set()
        self.reached = threading.Event()
        self._released = threading.Event()

    def release(self) -> None:
        self._released.set()

    def decide(self, body: JsonDict) -> Decision:
        decision = super().decide(body)
        if decision.rule in self.gated:
            self.reached.set()
            self._released.wait(timeout=RUN_TIMEOUT)
        return decision


# --------------------------------------------------------------------------------------------
# Sandbox
# --------------------------------------------------------------------------------------------


@dataclass
class Sandbox:
    """An isolated HOME / XDG / TMPDIR tree and a git project for one scenario."""

    root: Path
    binary: Path
    version: str
    base_url: str = ""

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def xdg_data(self) -> Path:
        return self.root / "data"

    @property
    def data_dir(self) -> Path:
        """What lazy imports: ``$XDG_DATA_HOME/opencode``."""
        return self.xdg_data / "opencode"

    @property
    def xdg_config(self) -> Path:
        return self.root / "config"

    @property
    def project(self) -> Path:
        return self.root / "project"

    def env(self) -> dict[str, str]:
        env = sandbox_env(home=self.home, tmp=self.root / "tmp", term="dumb", xdg=self.root)
        env.update(
            {
                "NO_COLOR": "1",
                # OpenCode takes the session directory from $PWD, not from getcwd()
                "PWD": str(self.project),
                "ANTHROPIC_API_KEY": DUMMY_KEY,
                "OPENCODE_DISABLE_MODELS_FETCH": "1",  # the binary bundles a models.dev snapshot
                "OPENCODE_DISABLE_AUTOUPDATE": "1",
                "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
                "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
                "OPENCODE_DISABLE_CLAUDE_CODE": "1",  # never read ~/.claude
                "OPENCODE_DISABLE_SHARE": "1",
            }
        )
        return env

    def setup(self) -> None:
        for sub in ("home", "data", "config/opencode", "cache", "state", "tmp", "project"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        init_git_project(self.project, self.env(), {"README.md": "lazy opencode test project\n"})
        config: JsonDict = {
            "$schema": "https://opencode.ai/config.json",
            "model": f"{PROVIDER}/{MODEL}",
            "autoupdate": False,
            "share": "disabled",
            "provider": {
                PROVIDER: {"options": {"baseURL": f"{self.base_url}/v1", "apiKey": DUMMY_KEY}}
            },
        }
        path = self.xdg_config / "opencode" / "opencode.json"
        path.write_text(json.dumps(config, indent=2))

    def git_head(self) -> str:
        out = subprocess.run(
            ["git", "-C", str(self.project), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            env=self.env(),
        )
        return out.stdout.strip()


# --------------------------------------------------------------------------------------------
# Session: one scenario's turns
# --------------------------------------------------------------------------------------------


@dataclass
class Turn:
    prompt: str
    args: list[str]
    session_id: str = ""
    returncode: int | None = None
    stdout_tail: str = ""
    stderr_tail: str = ""
    rules: list[str] = field(default_factory=list)  # scripted rules this turn consumed
    duration: float = 0.0

    def to_json(self) -> JsonDict:
        return {
            "prompt": self.prompt,
            "args": self.args,
            "session_id": self.session_id,
            "returncode": self.returncode,
            "rules": self.rules,
            "duration": round(self.duration, 2),
            "stdout_tail": self.stdout_tail,
            "stderr_tail": self.stderr_tail,
        }


def _session_ids(stdout: str) -> list[str]:
    """Session ids in ``opencode run --format json`` output (one JSON event per line)."""
    ids: list[str] = []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        sid = event.get("sessionID") if isinstance(event, dict) else None
        if isinstance(sid, str) and sid not in ids:
            ids.append(sid)
    return ids


@dataclass
class OpenCodeSession:
    name: str
    release: str
    sandbox: Sandbox
    api: GatedFake
    title: str
    turns: list[Turn] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    expect: JsonDict = field(default_factory=dict)
    extra: JsonDict = field(default_factory=dict)

    def script(self, *rules: Rule) -> None:
        for rule in rules:
            self.rules.append(self.api.add(rule))

    def argv(
        self,
        prompt: str,
        *,
        cont: bool = False,
        session_id: str = "",
        fork: bool = False,
        binary: Path | None = None,
    ) -> list[str]:
        args = ["run", "--format", "json"]
        if cont:
            args.append("--continue")
        if session_id:
            args += ["--session", session_id]
        if fork:
            args.append("--fork")
        # `opencode run` quotes an argv item holding a space: pass the prompt word by word
        return [str(binary or self.sandbox.binary), *args, *prompt.split()]

    def start(self, prompt: str, **kwargs: Any) -> tuple[subprocess.Popen[str], Turn]:
        argv = self.argv(prompt, **kwargs)
        turn = Turn(prompt, argv[1:])
        proc = subprocess.Popen(
            argv,
            cwd=self.sandbox.project,
            env=self.sandbox.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        return proc, turn

    def finish(self, proc: subprocess.Popen[str], turn: Turn, started: float, seen: int) -> Turn:
        try:
            out, err = proc.communicate(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        turn.duration = time.monotonic() - started
        turn.returncode = proc.returncode
        turn.stdout_tail = out[-3000:]
        turn.stderr_tail = err[-3000:]
        ids = _session_ids(out)
        turn.session_id = ids[0] if ids else ""
        turn.rules = [str(r.get("rule")) for r in self.api.main_requests()[seen:] if r.get("rule")]
        self.turns.append(turn)
        if proc.returncode != 0 or not turn.session_id:
            raise ScenarioError(
                f"opencode {' '.join(turn.args)} failed (rc={proc.returncode})\n"
                f"stdout: {out[-2000:]}\nstderr: {err[-2000:]}"
            )
        return turn

    def run(self, prompt: str, **kwargs: Any) -> Turn:
        seen = len(self.api.main_requests())
        started = time.monotonic()
        proc, turn = self.start(prompt, **kwargs)
        return self.finish(proc, turn, started, seen)

    def to_json(self) -> JsonDict:
        sb = self.sandbox
        return {
            "name": self.name,
            "release": self.release,
            "opencode_version": sb.version,
            "binary": str(sb.binary),
            "root": str(sb.root),
            "home": str(sb.home),
            "xdg_data_home": str(sb.xdg_data),
            "data_dir": str(sb.data_dir),
            "project": str(sb.project),
            "title": self.title,
            "model": MODEL,
            "provider": PROVIDER,
            "turns": [t.to_json() for t in self.turns],
            "rules": [
                {
                    "name": r.name,
                    "used": r.used,
                    "reply": [b.to_json() for b in r.reply],
                }
                for r in self.rules
            ],
            "unscripted": len(self.api.unscripted),
            "expect": self.expect,
            **self.extra,
        }


# --------------------------------------------------------------------------------------------
# Expectations
# --------------------------------------------------------------------------------------------


def texts(blocks: list[Block]) -> list[str]:
    return [b.text for b in blocks if b.kind == "text"]


def expect_session(
    session: OpenCodeSession,
    session_id: str,
    exchanges: list[tuple[str, list[list[Block]]]],
    *,
    title: str,
    agent: str = "build",
    parent: str | None = None,
    version: str = "",
) -> JsonDict:
    """What a session must hold: per user prompt, the assistant replies (one per model call, in
    order); each reply's text blocks, reasoning and tool calls."""
    entry: JsonDict = {
        "session_id": session_id,
        "title": title,
        "agent": agent,
        "parent": parent,
        "version": version or session.sandbox.version,
        "exchanges": [
            {
                "user": prompt,
                "replies": [
                    {
                        "text": texts(reply),
                        "reasoning": [b.text for b in reply if b.kind == "thinking"],
                        "tools": [
                            {"id": b.id, "name": b.name, "input": b.input}
                            for b in reply
                            if b.kind == "tool_use"
                        ],
                    }
                    for reply in replies
                ],
            }
            for prompt, replies in exchanges
        ],
    }
    session.expect.setdefault("sessions", []).append(entry)
    return entry


# --------------------------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------------------------


def scenario_oneshot(s: OpenCodeSession) -> None:
    prompt = "lazyoc oneshot: what is two plus two?"
    reply = [text("lazyoc-oneshot-reply: four.")]
    s.script(Rule("oneshot", reply, user_contains="lazyoc oneshot"))
    turn = s.run(prompt)
    expect_session(s, turn.session_id, [(prompt, [reply])], title=s.title)


def scenario_multiturn(s: OpenCodeSession) -> None:
    """A session continued twice (``--continue``, then ``--session <id>``). The last turn is
    held back at the model call while lazy imports the DB OpenCode has open; then OpenCode
    finishes: the import must work and OpenCode must not notice."""
    words = ["one", "two", "three"]
    prompts = [
        "lazyoc multi one: remember the word apple.",
        "lazyoc multi two: which word did I ask you to remember?",
        "lazyoc multi three: and spell it backwards.",
    ]
    replies = [
        [text("lazyoc-multi-reply-1: noted, apple.")],
        [text("lazyoc-multi-reply-2: the word was apple.")],
        [text("lazyoc-multi-reply-3: elppa.")],
    ]
    for word, reply in zip(words, replies, strict=True):
        s.script(Rule(f"multi-{word}", reply, user_contains=f"lazyoc multi {word}"))
    first = s.run(prompts[0])
    second = s.run(prompts[1], cont=True)
    third = run_held_back(s, prompts[2], "multi-three", session_id=first.session_id)
    if {second.session_id, third.session_id} != {first.session_id}:
        raise ScenarioError(f"continue changed the session: {[t.session_id for t in s.turns]}")
    expect_session(
        s,
        first.session_id,
        [(p, [r]) for p, r in zip(prompts, replies, strict=True)],
        title=s.title,
    )


def run_held_back(s: OpenCodeSession, prompt: str, rule: str, **kwargs: Any) -> Turn:
    """Run a turn whose model reply (``rule``) is held back; meanwhile run ``lazy import`` on
    the data dir and record what happened under ``live``."""
    s.api.gated.add(rule)
    seen = len(s.api.main_requests())
    started = time.monotonic()
    proc, turn = s.start(prompt, **kwargs)
    live: JsonDict = {"rule": rule}
    try:
        if not s.api.reached.wait(timeout=RUN_TIMEOUT):
            raise ScenarioError("opencode never asked for the held-back reply")
        db = s.sandbox.data_dir / "opencode.db"
        live["db_open_by_opencode"] = _holds_open(proc.pid, db)
        live["files_during"] = sorted(p.name for p in s.sandbox.data_dir.iterdir())
        live["import"] = run_lazy_import(s.sandbox, s.sandbox.root / "lazy-live")
        live["opencode_alive_after_import"] = proc.poll() is None
    finally:
        s.api.release()
    s.extra["live"] = live
    return s.finish(proc, turn, started, seen)


def scenario_tool(s: OpenCodeSession) -> None:
    prompt = "lazyoc tool: write hi into out.txt and read it back."
    out_path = str(s.sandbox.project / "out.txt")
    call_bash = [
        text("lazyoc-tool-reply-1: writing the file."),
        tool_use(
            "toolu_lazyoc_bash1",
            "bash",
            {"command": "echo hi > out.txt", "description": "Write hi to out.txt"},
        ),
    ]
    call_read = [tool_use("toolu_lazyoc_read1", "read", {"filePath": out_path})]
    final = [text("lazyoc-tool-reply-3: out.txt says hi.")]
    s.script(
        Rule("tool-bash", call_bash, user_contains="lazyoc tool"),
        Rule("tool-read", call_read, tool_result_for="toolu_lazyoc_bash1"),
        Rule("tool-final", final, tool_result_for="toolu_lazyoc_read1"),
    )
    turn = s.run(prompt)
    written = s.sandbox.project / "out.txt"
    if not written.is_file() or written.read_text().strip() != "hi":
        raise ScenarioError("the bash tool did not write out.txt")
    s.extra["tool_outputs"] = {"out.txt": written.read_text()}
    expect_session(s, turn.session_id, [(prompt, [call_bash, call_read, final])], title=s.title)


def _child_turn(s: OpenCodeSession, tag: str) -> tuple[str, list[Block], list[Block], list[Block]]:
    prompt = f"lazyoc {tag}: delegate the counting to a subagent."
    child_prompt = f"lazyoc {tag} child: count to three."
    call = [
        tool_use(
            f"toolu_lazyoc_{tag}_task1",
            "task",
            {"description": "Count to three", "prompt": child_prompt, "subagent_type": "general"},
        )
    ]
    child_reply = [text(f"lazyoc-{tag}-child-reply: one two three.")]
    final = [text(f"lazyoc-{tag}-reply-2: the subagent counted to three.")]
    s.script(
        Rule(f"{tag}-task", call, user_contains=f"lazyoc {tag}: delegate"),
        Rule(f"{tag}-child", child_reply, user_contains=f"lazyoc {tag} child"),
        Rule(f"{tag}-final", final, tool_result_for=f"toolu_lazyoc_{tag}_task1"),
    )
    return prompt, call, child_reply, final


def scenario_child(s: OpenCodeSession) -> None:
    prompt, call, child_reply, final = _child_turn(s, "child")
    turn = s.run(prompt)
    child_prompt = str(call[0].input["prompt"])
    parent = expect_session(s, turn.session_id, [(prompt, [call, final])], title=s.title)
    # the child session id is only known from storage; the test resolves it via parent_id
    s.expect["child"] = {
        "parent": parent["session_id"],
        "title": "Count to three (@general subagent)",
        "agent": "general",
        "version": s.sandbox.version,
        "exchanges": [
            {
                "user": child_prompt,
                "replies": [{"text": texts(child_reply), "reasoning": [], "tools": []}],
            }
        ],
    }


def scenario_reasoning(s: OpenCodeSession) -> None:
    prompt = "lazyoc reasoning: think before you answer."
    reply = [
        thinking("lazyoc-thinking: the user wants me to think first."),
        text("lazyoc-reasoning-reply: done thinking."),
    ]
    s.script(Rule("reasoning", reply, user_contains="lazyoc reasoning"))
    turn = s.run(prompt)
    expect_session(s, turn.session_id, [(prompt, [reply])], title=s.title)


def scenario_v1_1_tools(s: OpenCodeSession) -> None:
    """1.1.65 (JSON storage tree): a session continued twice, with a bash call and a subagent."""
    p1 = "lazyoc old one: hello there."
    r1 = [text("lazyoc-old-reply-1: hello.")]
    p2 = "lazyoc old two: write hi into out.txt."
    call = [
        text("lazyoc-old-reply-2: writing."),
        tool_use(
            "toolu_lazyoc_old_bash1",
            "bash",
            {"command": "echo hi > out.txt", "description": "Write hi"},
        ),
    ]
    after = [text("lazyoc-old-reply-3: written.")]
    s.script(
        Rule("old-1", r1, user_contains="lazyoc old one"),
        Rule("old-bash", call, user_contains="lazyoc old two"),
        Rule("old-bash-done", after, tool_result_for="toolu_lazyoc_old_bash1"),
    )
    p3, task_call, child_reply, final = _child_turn(s, "oldchild")
    first = s.run(p1)
    s.run(p2, cont=True)
    s.run(p3, session_id=first.session_id)
    if {t.session_id for t in s.turns} != {first.session_id}:
        raise ScenarioError(f"continue changed the session: {[t.session_id for t in s.turns]}")
    if not (s.sandbox.project / "out.txt").is_file():
        raise ScenarioError("the bash tool did not write out.txt")
    # 1.1.x appends "\n" + stdin (empty) to the prompt when stdin is not a terminal
    expect_session(
        s,
        first.session_id,
        [(p1 + "\n", [r1]), (p2 + "\n", [call, after]), (p3 + "\n", [task_call, final])],
        title=s.title,
    )
    s.expect["child"] = {
        "parent": first.session_id,
        "title": "Count to three (@general subagent)",
        "agent": "general",
        "version": s.sandbox.version,
        "exchanges": [
            {
                "user": str(task_call[0].input["prompt"]),
                "replies": [{"text": texts(child_reply), "reasoning": [], "tools": []}],
            }
        ],
    }
    s.extra["observed"] = {"storage_layout": storage_layout(s.sandbox.data_dir)}


def scenario_fork(s: OpenCodeSession) -> None:
    """``run --session <id> --fork``: OpenCode copies the session into a new one and goes on
    there; the original stays as it was."""
    p1 = "lazyoc fork one: the shared start."
    r1 = [text("lazyoc-fork-reply-1: shared.")]
    p2 = "lazyoc fork two: only in the fork."
    r2 = [text("lazyoc-fork-reply-2: forked.")]
    s.script(
        Rule("fork-1", r1, user_contains="lazyoc fork one"),
        Rule("fork-2", r2, user_contains="lazyoc fork two"),
    )
    first = s.run(p1)
    second = s.run(p2, session_id=first.session_id, fork=True)
    if second.session_id == first.session_id:
        raise ScenarioError("--fork continued the original session")
    expect_session(s, first.session_id, [(p1, [r1])], title=s.title)
    s.expect["fork"] = {"original": first.session_id, "fork": second.session_id}


def scenario_migrated(s: OpenCodeSession) -> None:
    """A user upgrading: 1.1.65 writes a session to the JSON tree, then 1.18.33 runs in the same
    data dir. 1.18.33 does NOT migrate the tree (`run --session <old id>` says "Session not
    found"): it starts a new session in opencode.db and the old one stays in storage/ only."""
    old = find_opencode("v1_1")
    if old is None:
        raise ScenarioError(f"OpenCode {release_version('v1_1')} not installed")
    p1 = "lazyoc migrated one: written by the old release."
    r1 = [text("lazyoc-migrated-reply-1: old release here.")]
    p2 = "lazyoc migrated two: written by the new release."
    r2 = [text("lazyoc-migrated-reply-2: new release here.")]
    s.script(
        Rule("migrated-1", r1, user_contains="lazyoc migrated one"),
        Rule("migrated-2", r2, user_contains="lazyoc migrated two"),
    )
    first = s.run(p1, binary=old)
    layout_before = storage_layout(s.sandbox.data_dir)
    second = s.run(p2)
    if second.session_id == first.session_id:
        raise ScenarioError("the new release continued the old JSON session after all")
    expect_session(
        s, first.session_id, [(p1 + "\n", [r1])], title=s.title, version=release_version("v1_1")
    )
    expect_session(s, second.session_id, [(p2, [r2])], title=s.title)
    s.extra["observed"] = {
        "storage_layout_before": layout_before,
        "storage_layout_after": storage_layout(s.sandbox.data_dir),
        "files_after": sorted(p.name for p in s.sandbox.data_dir.iterdir()),
        "old_release": release_version("v1_1"),
    }


def storage_layout(data_dir: Path) -> list[str]:
    """The JSON tree's files with ids replaced by placeholders, sorted and deduplicated."""
    import re

    storage = data_dir / "storage"
    shapes: set[str] = set()
    for path in storage.rglob("*"):
        if path.is_file():
            rel = path.relative_to(data_dir).as_posix()
            rel = re.sub(r"ses_[A-Za-z0-9]+", "<sessionID>", rel)
            rel = re.sub(r"msg_[A-Za-z0-9]+", "<messageID>", rel)
            rel = re.sub(r"prt_[A-Za-z0-9]+", "<partID>", rel)
            rel = re.sub(r"/[0-9a-f]{40}(\.json|/)", r"/<projectID>\1", rel)
            rel = re.sub(r"/global(\.json|/)", r"/<projectID>\1", rel)
            shapes.add(rel)
    return sorted(shapes)


def _holds_open(pid: int, path: Path) -> bool:
    fd_dir = Path(f"/proc/{pid}/fd")
    target = str(path.resolve())
    try:
        return any(os.readlink(fd) == target for fd in fd_dir.iterdir())
    except OSError:
        return False


def lazy_import_args(data_dir: Path) -> list[str]:
    return shared_lazy_import_args("opencode", data_dir)


def _lazy(s: OpenCodeSession, *args: str) -> str:
    """``lazy <args>`` in the sandbox's environment, with the scenario's LAZY_HOME."""
    env = {**s.sandbox.env(), "LAZY_HOME": str(s.sandbox.root / "lazy-home")}
    p = subprocess.run(
        [*lazy_argv(), *args], env=env, cwd=s.sandbox.project, capture_output=True, text=True,
        timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    if p.returncode != 0:
        raise ScenarioError(f"lazy {' '.join(args)} failed: {p.stdout}{p.stderr}")
    return p.stdout


def _tool_result(body: JsonDict, tool_id: str) -> str:
    """The text OpenCode sent the model as the result of call ``tool_id``."""
    for message in reversed(body.get("messages") or []):
        for b in message.get("content") or [] if isinstance(message.get("content"), list) else []:
            if b.get("type") == "tool_result" and b.get("tool_use_id") == tool_id:
                content = b.get("content")
                if isinstance(content, list):
                    return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
                return str(content)
    return ""


def scenario_mcp(s: OpenCodeSession) -> None:
    """lazy's MCP server called by the real OpenCode: an earlier session imported into
    ``<root>/lazy-home``, `lazy mcp install --agent opencode` into the sandbox's
    $XDG_CONFIG_HOME/opencode/opencode.json (its provider kept), a probe turn for the names
    OpenCode gives the tools, then the fake model calls lazy_conversation_search and
    lazy_conversation_read; what OpenCode sent back as each result is kept under ``mcp``."""
    word = f"zqocmcp{os.urandom(5).hex()}"
    s.script(Rule("mcp-earlier", [text(f"Decision: keep every transcript forever ({word})")],
                  user_contains="lazyoc mcp earlier"))  # fmt: skip
    earlier = s.run(f"lazyoc mcp earlier: design the retention policy for {word}")
    _lazy(s, "import-conversation", "--tool", "opencode", "--all-projects", "--yes")
    listed = json.loads(_lazy(s, "conversations", "--tool", "opencode", "--json"))["builders"]
    [builder] = [b for b in listed if earlier.session_id in b["session_ids"]]
    observed: JsonDict = {"install": _lazy(s, "mcp", "install", "--agent", "opencode")}
    observed["config"] = json.loads(
        (s.sandbox.xdg_config / "opencode" / "opencode.json").read_text()
    )
    s.script(Rule("mcp-probe", [text("ok")], user_contains="lazyoc mcp probe"))
    s.run("lazyoc mcp probe: which tools?")
    offered = next(r["tool_names"] for r in s.api.records if r.get("rule") == "mcp-probe")
    observed["tool_names"] = offered
    search = next((t for t in offered if t.endswith("lazy_conversation_search")), None)
    read = next((t for t in offered if t.endswith("lazy_conversation_read")), None)
    if search is None or read is None:
        raise ScenarioError(f"OpenCode offered no lazy tools: {offered}")
    search_id, read_id = "toolu_lazyoc_mcp_search1", "toolu_lazyoc_mcp_read1"
    s.script(
        Rule("mcp-search", [tool_use(search_id, search, {"query": word})],
             user_contains="lazyoc mcp ask"),
        Rule("mcp-read", [tool_use(read_id, read, {"id": builder["id"], "start": 1})],
             tool_result_for=search_id),
        Rule("mcp-final", [text("lazyoc-mcp-final: found it.")], tool_result_for=read_id),
    )  # fmt: skip
    s.api.log_full_bodies = True
    s.run("lazyoc mcp ask: what did we decide about retention?")
    s.api.log_full_bodies = False
    bodies = {r["rule"]: r["body"] for r in s.api.records if r.get("body") and r.get("rule")}
    if not {"mcp-read", "mcp-final"} <= set(bodies):
        raise ScenarioError(f"the MCP turn did not run all steps: {sorted(bodies)}")
    observed.update(
        word=word,
        builder_id=builder["id"],
        earlier_session=earlier.session_id,
        search_result=_tool_result(bodies["mcp-read"], search_id),
        read_result=_tool_result(bodies["mcp-final"], read_id),
    )
    for r in s.api.records:
        r["body"] = None
    s.extra["mcp"] = observed


def run_lazy_import(sandbox: Sandbox, lazy_home: Path) -> JsonDict:
    lazy_home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAZY_")}
    env.update({"HOME": str(sandbox.home), "LAZY_HOME": str(lazy_home), "NO_COLOR": "1"})
    started = time.monotonic()
    proc = subprocess.run(
        [*lazy_argv(), *lazy_import_args(sandbox.data_dir)],
        cwd=sandbox.project,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    return {
        "lazy_home": str(lazy_home),
        "returncode": proc.returncode,
        "stdout": proc.stdout[-20000:],
        "stderr": proc.stderr[-4000:],
        "duration": round(time.monotonic() - started, 2),
    }


@dataclass(frozen=True)
class Scenario:
    release: str
    run: Callable[[OpenCodeSession], None]


SCENARIOS: dict[str, Scenario] = {
    "oneshot": Scenario("current", scenario_oneshot),
    "multiturn": Scenario("current", scenario_multiturn),
    "tool": Scenario("current", scenario_tool),
    "child": Scenario("current", scenario_child),
    "reasoning": Scenario("current", scenario_reasoning),
    "v1_1_tools": Scenario("v1_1", scenario_v1_1_tools),
    "migrated": Scenario("current", scenario_migrated),
    "fork": Scenario("current", scenario_fork),
    "mcp": Scenario("current", scenario_mcp),
}
