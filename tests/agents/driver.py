"""Scenario drivers: run the real Claude Code CLI in a sandbox against the scripted fake API.

Everything here expects to run inside a loopback-only network namespace (see run_scenario.py and
conftest.py); nothing touches the real ``~/.claude``: HOME, CLAUDE_CONFIG_DIR, the XDG dirs and
TMPDIR all point into the scenario's work directory.

Each scenario is a function ``(Session) -> None`` registered in :data:`SCENARIOS`. It drives
``claude`` and records, in ``<workdir>/script.json``, what was scripted: every turn (prompt sent,
replies the fake returned, the session id the CLI reported) and the Builders a correct importer
must produce (``expect``). Tests compare the importer's output with that file.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fake_anthropic import (
    Block,
    FakeAnthropic,
    Rule,
    _content_blocks,
    last_user_message,
    text,
    thinking,
    tool_use,
)
from scenario_env import init_git_project, lazy_argv, sandbox_env

AGENTS_DIR = Path(__file__).resolve().parent
NODE_MODULES = AGENTS_DIR / "node_modules"
PLACEHOLDER_KEY = "sk-ant-placeholder-lazy-tests-00000000000000000000"

try:  # the importer owns the marker; fall back to the literal until it lands
    from lazy.model import ONESHOT_MARKER as _MARKER  # type: ignore[import-not-found, unused-ignore]

    ONESHOT_MARKER: str = str(_MARKER)
except Exception:  # pragma: no cover - depends on the importer's progress
    ONESHOT_MARKER = "[lazy:one-shot v1]"

JsonDict = dict[str, Any]


class ScenarioError(RuntimeError):
    pass


# --------------------------------------------------------------------------------------------
# Finding the CLI
# --------------------------------------------------------------------------------------------


def _is_placeholder(path: Path) -> bool:
    """The npm wrapper ships a shell stub that only prints an error until postinstall runs."""
    try:
        head = path.read_bytes()[:256]
    except OSError:
        return True
    return head.startswith(b"echo ") or b"native binary not installed" in head


def _platform_key() -> str:
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        machine, machine
    )
    libc = "" if platform.libc_ver()[0] == "glibc" else "-musl"
    return f"linux-{arch}{libc}" if platform.system() == "Linux" else f"darwin-{arch}"


def find_claude() -> list[str] | None:
    """argv prefix that runs the pinned CLI, or None when it is not installed.

    ``LAZY_CLAUDE_BIN`` overrides. Otherwise ``node_modules/.bin/claude`` if it is usable, else
    the platform package's native binary (``npm install --ignore-scripts`` leaves the .bin entry
    as a stub), else an old-style ``cli.js`` run by node.
    """
    override = os.environ.get("LAZY_CLAUDE_BIN")
    if override:
        return [override] if os.access(override, os.X_OK) else None
    scope = NODE_MODULES / "@anthropic-ai"
    dot_bin = NODE_MODULES / ".bin" / "claude"
    # the older releases installed under npm aliases (old_releases.py) also provide a `claude`
    # bin, and npm may link .bin/claude to one of them: take it only when it is the pinned one
    if (
        dot_bin.exists()
        and dot_bin.resolve().is_relative_to(scope.resolve() / "claude-code")
        and not _is_placeholder(dot_bin.resolve())
    ):
        return [str(dot_bin)]
    for key in (_platform_key(), _platform_key().replace("-musl", "")):
        native = scope / f"claude-code-{key}" / "claude"
        if native.is_file():
            if not os.access(native, os.X_OK):
                native.chmod(0o755)
            return [str(native)]
    cli_js = scope / "claude-code" / "cli.js"
    node = shutil.which("node")
    if cli_js.is_file() and node:
        return [node, str(cli_js)]
    return None


def find_release(alias: str) -> list[str] | None:
    """argv prefix that runs an older release installed under an npm alias (``claude-code-1``
    = ``npm:@anthropic-ai/claude-code@1.0.65``): its JS ``cli.js`` run by the machine's node."""
    cli_js = NODE_MODULES / alias / "cli.js"
    node = shutil.which("node")
    if cli_js.is_file() and node:
        return [node, str(cli_js)]
    return None


def claude_version(argv: list[str], env: dict[str, str] | None = None) -> str:
    """``claude --version``; pass the sandbox's ``env``: older releases write their config
    (``~/.claude.json``, ``~/.claude/statsig``) even for ``--version``."""
    out = subprocess.run([*argv, "--version"], capture_output=True, text=True, timeout=60, env=env)
    match = re.search(r"\d+\.\d+\.\d+", out.stdout)
    return match.group(0) if match else out.stdout.strip()


# --------------------------------------------------------------------------------------------
# Sandbox
# --------------------------------------------------------------------------------------------


@dataclass
class Sandbox:
    """An isolated HOME/config/project tree for one scenario."""

    root: Path
    claude: list[str]
    base_url: str = ""
    # Older releases reject unknown keys in settings.json and then ignore the whole file (1.0.x
    # knows no "autoUpdates" there); they read it from .claude.json instead.
    settings_auto_updates: bool = True
    # the CLI's version when known without running it (`cli.js --version` costs ~1.4 s of CPU)
    known_version: str = ""
    # more of the CLI's environment (LAZY_HOME, for the hooks it runs)
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def config(self) -> Path:
        return self.root / "config"

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def projects_dir(self) -> Path:
        return self.config / "projects"

    def setup(self) -> None:
        for sub in ("home", "config", "xdg/config", "xdg/data", "xdg/cache", "xdg/state", "tmp"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        init_git_project(self.project, self.env(), {"README.md": "lazy agent test project\n"})
        self.write_config()

    def write_config(self) -> None:
        project = str(self.project.resolve())
        state: JsonDict = {
            "hasCompletedOnboarding": True,
            "lastOnboardingVersion": "99.0.0",
            "lastReleaseNotesSeen": "99.0.0",
            "numStartups": 5,
            "autoUpdates": False,
            "bypassPermissionsModeAccepted": True,
            "hasSeenTasksHint": True,
            # nudges/dialogs seen at random in 2.1.3xx; each would block an interactive run
            "hasSeenAutoDefaultNudge": True,
            "hasSeenAutoDefaultNotice": True,
            "hasSeenAutoModeEntryWarning": True,
            "hasSeenEffortMediumNudge": True,
            "daemonInstallPromptDismissed": True,
            "transcriptShareDismissed": True,
            "shiftEnterKeyBindingInstalled": True,
            "theme": "dark",
            "customApiKeyResponses": {"approved": [PLACEHOLDER_KEY[-20:]], "rejected": []},
            "projects": {
                project: {
                    "hasTrustDialogAccepted": True,
                    "hasCompletedProjectOnboarding": True,
                    "projectOnboardingSeenCount": 5,
                    "allowedTools": [],
                }
            },
        }
        blob = json.dumps(state, indent=2)
        # 2.1.x reads $CLAUDE_CONFIG_DIR/.claude.json; older releases read ~/.claude.json.
        (self.config / ".claude.json").write_text(blob)
        (self.home / ".claude.json").write_text(blob)
        settings: JsonDict = {
            "permissions": {
                "defaultMode": "default",
                "allow": ["Bash(echo lazy-bash-ok)", "Read", "Agent", "Task"],
            },
            "cleanupPeriodDays": 3650,
        }
        if self.settings_auto_updates:
            settings["autoUpdates"] = False
        (self.config / "settings.json").write_text(json.dumps(settings, indent=2))

    def env(self) -> dict[str, str]:
        env = sandbox_env(
            home=self.home, tmp=self.root / "tmp", term="xterm-256color", xdg=self.root / "xdg"
        )
        env.update(
            {
                "CLAUDE_CONFIG_DIR": str(self.config),
                "ANTHROPIC_API_KEY": PLACEHOLDER_KEY,
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1",
                "DISABLE_TELEMETRY": "1",
                "DISABLE_ERROR_REPORTING": "1",
                "DISABLE_BUG_COMMAND": "1",
                "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
                "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
                "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL": "1",
            }
        )
        if self.base_url:
            env["ANTHROPIC_BASE_URL"] = self.base_url
        env.update(self.extra_env)
        return env

    def transcripts(self) -> list[Path]:
        if not self.projects_dir.is_dir():
            return []
        return sorted(self.projects_dir.rglob("*.jsonl"))

    def transcript_text(self) -> str:
        parts = []
        for path in self.transcripts():
            try:
                parts.append(path.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
        return "\n".join(parts)


# --------------------------------------------------------------------------------------------
# Polling helpers (no fixed sleeps as synchronisation)
# --------------------------------------------------------------------------------------------


def poll(predicate: Callable[[], bool], timeout: float, what: str, interval: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return
        if time.monotonic() >= deadline:
            raise ScenarioError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


# --------------------------------------------------------------------------------------------
# tmux
# --------------------------------------------------------------------------------------------


class Tmux:
    """A private tmux server (own socket) holding one pane that runs a command."""

    def __init__(self, socket: Path, width: int = 200, height: int = 50) -> None:
        self.socket = socket
        self.width = width
        self.height = height
        self.target = "lazy:0.0"
        self.pane_pid: int | None = None
        self.log: list[str] = []

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != "TMUX"}
        return subprocess.run(
            ["tmux", "-S", str(self.socket), *args],
            capture_output=True,
            text=True,
            check=check,
            env=env,
            timeout=30,
        )

    def start(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        command = ["env", "-i", *(f"{k}={v}" for k, v in env.items()), *argv]
        self._tmux(
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "lazy",
            "-x",
            str(self.width),
            "-y",
            str(self.height),
            "-c",
            str(cwd),
            *command,
        )
        self._tmux("set-option", "-t", "lazy", "remain-on-exit", "on")
        out = self._tmux("display-message", "-p", "-t", self.target, "#{pane_pid}")
        self.pane_pid = int(out.stdout.strip())

    def alive(self) -> bool:
        out = self._tmux("display-message", "-p", "-t", self.target, "#{pane_dead}", check=False)
        return out.returncode == 0 and out.stdout.strip() == "0"

    def screen(self) -> str:
        out = self._tmux("capture-pane", "-p", "-t", self.target, check=False)
        return out.stdout if out.returncode == 0 else ""

    def type(self, value: str) -> None:
        self.log.append(f"type {value!r}")
        self._tmux("send-keys", "-t", self.target, "-l", value)

    def keys(self, *keys: str) -> None:
        self.log.append(f"keys {keys}")
        self._tmux("send-keys", "-t", self.target, *keys)

    def wait_screen(self, pattern: str, timeout: float = 30.0) -> str:
        regex = re.compile(pattern, re.M)
        found: list[str] = []

        def check() -> bool:
            current = self.screen()
            if regex.search(current):
                found.append(current)
                return True
            return False

        try:
            poll(check, timeout, f"screen /{pattern}/")
        except ScenarioError as exc:
            raise ScenarioError(f"{exc}\n--- screen ---\n{self.screen()}") from exc
        return found[-1]

    def wait_change(self, previous: str, timeout: float = 10.0) -> None:
        poll(lambda: self.screen() != previous, timeout, "the screen to change")

    def wait_menu_move(self, previous: str | None, timeout: float = 10.0) -> None:
        def moved() -> bool:
            now = _menu_selection(self.screen())
            return now is not None and now != previous

        poll(moved, timeout, "the menu highlight to move")

    def input_line(self) -> str:
        """Text of the prompt input box, or "" when the box is not on screen."""
        return prompt_box(self.screen()) or ""

    def kill(self) -> None:
        self._tmux("kill-server", check=False)


# --------------------------------------------------------------------------------------------
# A scenario run
# --------------------------------------------------------------------------------------------


@dataclass
class Turn:
    via: str  # "print" | "resume" | "continue" | "fork" | "tmux"
    prompt: str
    replies: list[JsonDict]
    session_id: str | None = None
    args: list[str] = field(default_factory=list)


class Session:
    """State shared by one scenario: sandbox, fake API, recorded turns and expectations."""

    def __init__(self, name: str, sandbox: Sandbox, api: FakeAnthropic) -> None:
        self.name = name
        self.sb = sandbox
        self.api = api
        self.turns: list[Turn] = []
        self.expect: JsonDict = {}
        self.notes: list[str] = []
        self.observed: JsonDict = {}  # what the CLI wrote, measured by the scenario
        self.tmux: Tmux | None = None
        self._counter = 0

    # -- scripting helpers ---------------------------------------------------------------

    def token(self, label: str) -> str:
        self._counter += 1
        return f"{label}-{self.name}-{self._counter:02d}"

    def script_reply(self, prompt_key: str, blocks: list[Block], name: str | None = None) -> Rule:
        return self.api.add(Rule(name or prompt_key, blocks, user_contains=prompt_key))

    # -- claude -p -----------------------------------------------------------------------

    def claude_print(
        self,
        prompt: str,
        *args: str,
        via: str = "print",
        reply: list[Block] | None = None,
        timeout: float = 120.0,
        match: str | None = None,
    ) -> Turn:
        """Run ``claude -p <prompt> [args]`` once; ``reply`` scripts the model's answer."""
        if reply is not None:
            self.script_reply(match or prompt, reply)
        before = len(self.api.records)
        argv = [*self.sb.claude, "-p", prompt, "--output-format", "json", *args]
        proc = subprocess.run(
            argv,
            cwd=self.sb.project,
            env=self.sb.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        if proc.returncode != 0:
            raise ScenarioError(
                f"claude -p failed (rc={proc.returncode}) args={args}\n"
                f"stdout={proc.stdout[-3000:]}\nstderr={proc.stderr[-3000:]}"
            )
        try:
            result = json.loads(proc.stdout.strip().splitlines()[-1])
        except (json.JSONDecodeError, IndexError) as exc:
            raise ScenarioError(f"unparsable -p output: {proc.stdout[-2000:]!r}") from exc
        if result.get("is_error"):
            raise ScenarioError(f"claude reported an error: {result}")
        replies = [r for r in self.api.records[before:] if r["kind"] in ("main", "unscripted")]
        turn = Turn(
            via, prompt, [_reply_summary(r) for r in replies], result.get("session_id"), list(args)
        )
        self.turns.append(turn)
        return turn

    # -- interactive (tmux) --------------------------------------------------------------

    def start_interactive(self, *args: str) -> Tmux:
        tmux = Tmux(self.sb.root / "tmux.sock")
        self.tmux = tmux
        tmux.start([*self.sb.claude, *args], self.sb.project, self.sb.env())
        tmux.wait_screen(r"Claude Code v\d", timeout=60)
        self.wait_idle()
        return tmux

    def wait_idle(self, timeout: float = 60.0) -> None:
        """Wait for the input box with nothing running; dismiss known pop-up dialogs."""
        tmux = self._tmux()

        def idle() -> bool:
            screen = tmux.screen()
            if _idle(screen):
                return True
            for pattern, keys in POPUP_DIALOGS:
                if re.search(pattern, screen):
                    self.notes.append(f"dismissed a pop-up dialog: /{pattern}/")
                    tmux.keys(*keys)
                    tmux.wait_change(screen, timeout=10)
                    break
            return False

        poll(idle, timeout, "an idle prompt box")

    def _tmux(self) -> Tmux:
        if self.tmux is None:
            raise ScenarioError("no interactive session")
        return self.tmux

    def type_line(self, value: str, confirm: str | None = None) -> None:
        """Type into the prompt box, wait until it shows there, then press Enter."""
        tmux = self._tmux()
        tmux.type(value)
        shown = value[-40:]
        poll(lambda: shown in tmux.input_line(), 15, f"input box to show {shown!r}")
        if confirm is not None:
            tmux.wait_screen(confirm, timeout=15)
        tmux.keys("Enter")

    def interactive_turn(self, prompt: str, reply: list[Block], match: str | None = None) -> Turn:
        rule = self.script_reply(match or prompt, reply)
        before = len(self.api.records)
        self.type_line(prompt)
        poll(lambda: rule.used > 0, 60, f"the fake to answer {prompt!r}")
        final_texts = [b.text for b in reply if b.kind == "text"]
        if final_texts:
            last = final_texts[-1]
            poll(lambda: last in self.sb.transcript_text(), 30, f"{last!r} in the transcript")
        self.wait_idle()
        replies = [r for r in self.api.records[before:] if r["kind"] in ("main", "unscripted")]
        session_id = replies[0].get("session_id") if replies else None  # from metadata.user_id
        turn = Turn("tmux", prompt, [_reply_summary(r) for r in replies], session_id)
        self.turns.append(turn)
        return turn

    def stop_interactive(self) -> None:
        tmux = self._tmux()
        if tmux.alive():
            self.type_line("/exit")
            poll(lambda: not tmux.alive(), 30, "claude to exit")
        tmux.kill()
        self.tmux = None

    def local_command_model(self, pick: str | None) -> None:
        """``/model``: pick the menu entry whose label starts with ``pick``, or Escape."""
        tmux = self._tmux()
        self.type_line("/model")
        tmux.wait_screen(r"Select model", timeout=20)
        if pick is None:
            tmux.keys("Escape")
            poll(lambda: "Select model" not in tmux.screen(), 15, "the model menu to close")
            self.wait_idle()
            return
        wanted = re.compile(rf"❯\s*\d+\.\s*{re.escape(pick)}")
        for _ in range(10):
            screen = tmux.screen()
            if wanted.search(screen):
                break
            tmux.keys("Down")
            # wait for the highlight itself to move (other redraws don't count), so that at
            # most one key press is ever in flight
            tmux.wait_menu_move(_menu_selection(screen))
        else:
            raise ScenarioError(f"no {pick!r} entry in the /model menu:\n{tmux.screen()}")
        tmux.keys("Enter")
        tmux.wait_screen(r"Set model to|Switch model\?", timeout=20)
        if re.search(r"Switch model\?", tmux.screen()):  # confirm switching a cached conversation
            tmux.keys("Enter")
            tmux.wait_screen(r"Set model to", timeout=20)
        self.wait_idle()

    def local_command_clear(self) -> None:
        before = set(self.session_files())
        self.type_line("/clear")
        poll(
            lambda: bool(set(self.session_files()) - before),
            30,
            "/clear to start a new session file",
        )
        self.wait_idle()

    def local_command_compact(self, instructions: str) -> None:
        def compactions() -> int:
            return sum(1 for r in self.api.records if r["kind"] == "side:compact")

        before = compactions()
        boundaries = self.sb.transcript_text().count('"compact_boundary"')
        self.type_line(f"/compact {instructions}".strip())
        poll(lambda: compactions() > before, 60, "the compaction request")
        poll(
            lambda: self.sb.transcript_text().count('"compact_boundary"') > boundaries,
            30,
            "compact_boundary on disk",
        )
        self._tmux().wait_screen(r"Compacted", timeout=30)
        self.wait_idle()

    # -- bookkeeping ---------------------------------------------------------------------

    def session_files(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for path in self.sb.transcripts():
            rel = str(path.relative_to(self.sb.projects_dir))
            out.setdefault(_session_of_file(path), []).append(rel)
        return out

    def to_json(self) -> JsonDict:
        side: dict[str, int] = {}
        for r in self.api.records:
            if str(r["kind"]).startswith("side:"):
                side[r["kind"]] = side.get(r["kind"], 0) + 1
        return {
            "scenario": self.name,
            "claude_version": self.sb.known_version
            or claude_version(self.sb.claude, self.sb.env()),
            "oneshot_marker": ONESHOT_MARKER,
            "root": str(self.sb.root),
            "home": str(self.sb.home),
            "config_dir": str(self.sb.config),
            "project": str(self.sb.project.resolve()),
            "turns": [t.__dict__ for t in self.turns],
            "expect": self.expect,
            "notes": self.notes,
            "observed": self.observed,
            "unscripted_requests": [
                {"last_user_text": r.get("last_user_text", "")[-300:], "model": r.get("model")}
                for r in self.api.unscripted
            ],
            "unused_rules": [r.name for r in self.api.rules if r.used == 0],
            "side_calls": side,
            "main_models": [r.get("model") for r in self.api.main_requests()],
            "files": self.session_files(),
        }


def _reply_summary(record: JsonDict) -> JsonDict:
    return {
        "rule": record.get("rule"),
        "model": record.get("model"),
        "message_id": record.get("message_id"),
        "blocks": record.get("reply"),
        "session_id": record.get("session_id"),
    }


# Dialogs Claude Code may pop up on its own (promotions, surveys); answered with these keys.
POPUP_DIALOGS: list[tuple[str, tuple[str, ...]]] = [
    (r"Make auto mode your default permission mode\?", ("Escape",)),
    (r"How is Claude doing this session\?", ("0",)),
]


def prompt_box(screen: str) -> str | None:
    """The input box's text: the ``❯`` line right under a horizontal rule (None if absent)."""
    lines = screen.splitlines()
    for above, line in zip(reversed(lines[:-1]), reversed(lines[1:]), strict=True):
        if line.startswith("❯") and above.startswith("─"):
            return line[1:].strip()
    return None


def _menu_selection(screen: str) -> str | None:
    """Number of the highlighted entry of an on-screen numbered menu (``❯ 2. Opus``)."""
    match = re.search(r"^\s+❯\s*(\d+)\.", screen, re.M)
    return match.group(1) if match else None


def _idle(screen: str) -> bool:
    return "esc to interrupt" not in screen and prompt_box(screen) is not None


def _session_of_file(path: Path) -> str:
    # <sid>.jsonl or <sid>/subagents/agent-<id>.jsonl
    parts = path.parts
    if "subagents" in parts:
        return parts[parts.index("subagents") - 1]
    return path.stem


def msg(
    role: str,
    text: str | None = None,
    contains: list[str] | None = None,
    tool_name: str | None = None,
) -> JsonDict:
    """An expected message: exact ``text`` and/or substrings in ``contains``."""
    out: JsonDict = {"role": role}
    if text is not None:
        out["text"] = text
    if contains:
        out["contains"] = contains
    if tool_name is not None:
        out["tool_name"] = tool_name
    return out


def reply_text(blocks: list[Block]) -> str:
    return "\n".join(b.text for b in blocks if b.kind == "text")


def one_builder(
    session_ids: Iterable[str],
    turns: list[tuple[str, list[Block]]],
    *,
    summary: str | None = None,
    exact: bool = True,
) -> JsonDict:
    """What a scenario expects when all it wrote is one Builder of prompt/reply turns."""
    messages = []
    for prompt, reply in turns:
        messages += [msg("user", prompt), msg("assistant", reply_text(reply))]
    builder: JsonDict = {
        "session_ids": sorted(set(session_ids)),
        "summary": summary if summary is not None else turns[0][0],
        "messages": messages,
    }
    if exact:
        builder["exact"] = True
    return {"builders": [builder], "ignored_oneshots": 0}


# --------------------------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------------------------


def scenario_single_turn(s: Session) -> None:
    """(a) one ``claude -p`` turn; the reply carries a thinking block before its text."""
    prompt = f"Say hello for the lazy test ({s.token('p')})"
    reply = [thinking(f"The user wants a greeting ({s.token('th')})."), text(s.token("reply"))]
    turn = s.claude_print(prompt, reply=reply)
    s.expect = {
        "builders": [
            {
                "session_ids": [turn.session_id],
                "summary": prompt,
                "exact": True,
                "messages": [msg("user", prompt), msg("assistant", reply_text(reply))],
                "kinds": {reply_text(reply): ["thinking", "text"]},
            }
        ],
        "ignored_oneshots": 0,
    }


def scenario_resume(s: Session) -> None:
    """(b) ``-p`` then ``--resume <id>`` with another turn."""
    p1, r1 = f"First question ({s.token('p')})", [text(s.token("reply"))]
    t1 = s.claude_print(p1, reply=r1)
    p2, r2 = f"Follow-up after resume ({s.token('p')})", [text(s.token("reply"))]
    t2 = s.claude_print(p2, "--resume", str(t1.session_id), via="resume", reply=r2)
    s.expect = one_builder({str(t1.session_id), str(t2.session_id)}, [(p1, r1), (p2, r2)])


def scenario_continue(s: Session) -> None:
    """(c) ``-p``, ``--continue``, then ``--resume`` of the same session: one Builder."""
    p1, r1 = f"Start a conversation ({s.token('p')})", [text(s.token("reply"))]
    t1 = s.claude_print(p1, reply=r1)
    p2, r2 = f"Continue it ({s.token('p')})", [text(s.token("reply"))]
    t2 = s.claude_print(p2, "--continue", via="continue", reply=r2)
    p3, r3 = f"Resume it once more ({s.token('p')})", [text(s.token("reply"))]
    t3 = s.claude_print(p3, "--resume", str(t2.session_id), via="resume", reply=r3)
    s.expect = one_builder(
        {str(t.session_id) for t in (t1, t2, t3)}, [(p1, r1), (p2, r2), (p3, r3)]
    )


def scenario_fork(s: Session) -> None:
    """``-p``, then ``--resume <id> --fork-session``: the fork is its own Builder.

    Done twice, with original session ids chosen (``--session-id``) to sort after and before
    their forks' random ids, so a join that tells original from fork by id order (the copied
    lines share uuids *and* timestamps) fails deterministically. The first original is then
    resumed twice more after the fork, so it ends up longer and newer than its fork."""
    builders: list[JsonDict] = []
    for n, original_id in enumerate(
        ("ffffffff-" + str(uuid.uuid4())[9:], "00000000-" + str(uuid.uuid4())[9:])
    ):
        p1, r1 = f"Original conversation ({s.token('p')})", [text(s.token("reply"))]
        t1 = s.claude_print(p1, "--session-id", original_id, reply=r1)
        if t1.session_id != original_id:
            raise ScenarioError(f"--session-id ignored: {t1.session_id} != {original_id}")
        p2, r2 = f"Forked follow-up ({s.token('p')})", [text(s.token("reply"))]
        t2 = s.claude_print(p2, "--resume", original_id, "--fork-session", via="fork", reply=r2)
        if t2.session_id == t1.session_id:
            raise ScenarioError("--fork-session kept the session id")
        original = [msg("user", p1), msg("assistant", reply_text(r1))]
        for _ in range(2 if n == 0 else 0):
            p3, r3 = f"Back on the original ({s.token('p')})", [text(s.token("reply"))]
            t3 = s.claude_print(p3, "--resume", original_id, via="resume", reply=r3)
            if t3.session_id != original_id:
                raise ScenarioError(f"resuming the original gave {t3.session_id}")
            original += [msg("user", p3), msg("assistant", reply_text(r3))]
        builders.append(
            {
                "session_ids": [original_id],
                "summary": p1,
                "exact": True,
                "messages": original,
            }
        )
        builders.append(
            {
                "session_ids": [str(t2.session_id)],
                "forked_from": len(builders) - 1,  # index into this list
                "messages": [msg("user", p2), msg("assistant", reply_text(r2))],
                "absent_in_original": [p2, reply_text(r2)],
                "absent": [m["text"] for m in original[2:]],
            }
        )
    s.expect = {"builders": builders, "ignored_oneshots": 0}


def scenario_tools(s: Session) -> None:
    """(d) Bash and Read tool use: the CLI really runs ``echo lazy-bash-ok`` and reads a file."""
    notes = s.sb.project / "notes.txt"
    file_token = s.token("file-content")
    notes.write_text(f"lazy notes file: {file_token}\n")
    prompt = f"Run the checks ({s.token('p')})"
    bash_id, read_id = "toolu_lazy_bash_0001", "toolu_lazy_read_0001"
    first = [
        text(f"Running a command ({s.token('pre')})."),
        tool_use(bash_id, "Bash", {"command": "echo lazy-bash-ok", "description": "Print ok"}),
    ]
    second = [tool_use(read_id, "Read", {"file_path": str(notes.resolve())})]
    final = [text(s.token("final"))]
    s.script_reply(prompt, first, name="tools:first")
    s.api.add(Rule("tools:read", second, tool_result_for=bash_id))
    s.api.add(Rule("tools:final", final, tool_result_for=read_id))
    turn = s.claude_print(prompt)
    got = {r["rule"] for r in turn.replies}
    if not {"tools:first", "tools:read", "tools:final"} <= got:
        raise ScenarioError(f"tool scenario did not run all steps: {turn.replies}")
    s.expect = {
        "builders": [
            {
                "session_ids": [str(turn.session_id)],
                "summary": prompt,
                "messages": [
                    msg("user", prompt),
                    msg("assistant", reply_text(first)),
                    msg("tool_result", contains=["lazy-bash-ok"]),
                    msg("tool_call", contains=["Read", "notes.txt"], tool_name="Read"),
                    msg("tool_result", contains=[file_token]),
                    msg("assistant", reply_text(final)),
                ],
                "kinds": {reply_text(first): ["text", "tool_use"]},
                "tool_names": {reply_text(first): "Bash"},
            }
        ],
        "ignored_oneshots": 0,
    }


def scenario_compact_print(s: Session) -> None:
    """(e) ``-p`` turn, ``-p /compact --resume``, then another resumed turn."""
    p1, r1 = f"Before compaction ({s.token('p')})", [text(s.token("reply"))]
    t1 = s.claude_print(p1, reply=r1)
    tc = s.claude_print("/compact", "--resume", str(t1.session_id), via="resume")
    p2, r2 = f"After compaction ({s.token('p')})", [text(s.token("reply"))]
    t2 = s.claude_print(p2, "--resume", str(tc.session_id or t1.session_id), via="resume", reply=r2)
    side = [r for r in s.api.records if r["kind"] == "side:compact"]
    if not side:
        s.notes.append("-p /compact made no summary request")
    s.expect = {
        "builders": [
            {
                "session_ids": sorted({str(t.session_id) for t in (t1, tc, t2)}),
                "summary": p1,
                "messages": [
                    msg("user", p1),
                    msg("assistant", reply_text(r1)),
                    msg("user", p2),
                    msg("assistant", reply_text(r2)),
                ],
            }
        ],
        "ignored_oneshots": 0,
        "compacted": bool(side),
    }


DEPLOY_MD = """---
description: Deploy the lazy test app
---
LAZY-DEPLOY-EXPANSION: deploy the application to the staging slot. Arguments: [$ARGUMENTS]
"""


def scenario_interactive(s: Session) -> None:
    """(f) tmux: prompt, /model (escape, then pick), /clear, prompt, /deploy, /deploy args,
    /compact with instructions, a prompt after compaction, /exit."""
    commands = s.sb.project / ".claude" / "commands"
    commands.mkdir(parents=True, exist_ok=True)
    (commands / "deploy.md").write_text(DEPLOY_MD)
    s.start_interactive()

    p1, r1 = f"First interactive prompt ({s.token('p')})", [text(s.token("reply"))]
    s.interactive_turn(p1, r1)
    s.local_command_model(pick=None)  # open the menu, Escape
    s.local_command_model(pick="Sonnet")
    s.local_command_clear()

    p2, r2 = f"Prompt after clear ({s.token('p')})", [text(s.token("reply"))]
    s.interactive_turn(p2, r2)
    d1 = [text(s.token("deploy-reply"))]
    s.interactive_turn("/deploy", d1, match="Arguments: []")
    d2 = [text(s.token("deploy-args-reply"))]
    s.interactive_turn("/deploy blue-green now", d2, match="Arguments: [blue-green now]")
    focus = "keep the focus on deploys"
    s.local_command_compact(focus)
    p3, r3 = f"Prompt after compaction ({s.token('p')})", [text(s.token("reply"))]
    s.interactive_turn(p3, r3)
    s.stop_interactive()

    models = [r["model"] for t in s.turns for r in t.replies]
    if "sonnet" in str(models[0]) or not all("sonnet" in str(m) for m in models[1:]):
        raise ScenarioError(f"the /model pick did not take: models requested {models}")
    before_clear, after_clear = s.turns[0].session_id, s.turns[1].session_id
    if before_clear == after_clear or [before_clear] != _sessions_with(s, p1):
        raise ScenarioError(f"/clear did not start a new session: {s.session_files()}")
    if {t.session_id for t in s.turns[1:]} != {after_clear} or [after_clear] != _sessions_with(
        s, p2
    ):
        raise ScenarioError(f"the post-/clear turns left their session: {s.session_files()}")
    s.expect = {
        "builders": [
            {
                "session_ids": [str(before_clear)],
                "summary": p1,
                "exact": True,
                "messages": [msg("user", p1), msg("assistant", reply_text(r1))],
            },
            {
                "session_ids": [str(after_clear)],
                "summary": p2,
                "messages": [
                    msg("user", p2),
                    msg("assistant", reply_text(r2)),
                    msg("user", contains=["/deploy"]),
                    msg("assistant", reply_text(d1)),
                    msg("user", contains=["/deploy", "blue-green now"]),
                    msg("assistant", reply_text(d2)),
                    msg("user", contains=["/compact", focus]),
                    msg("user", p3),
                    msg("assistant", reply_text(r3)),
                ],
                "absent": ["<command-name>/clear", "local-command-caveat", "/model"],
            },
        ],
        "ignored_oneshots": 0,
    }


def _sessions_with(s: Session, prompt: str) -> list[str]:
    """Main session files whose text contains ``prompt``."""
    out = []
    for path in s.sb.transcripts():
        if "subagents" in path.parts:
            continue
        if prompt in path.read_text(encoding="utf-8", errors="replace"):
            out.append(path.stem)
    return sorted(out)


def scenario_subagent(s: Session) -> None:
    """(g) a scripted Agent tool call makes the CLI run a subagent against the fake."""
    prompt = f"Delegate a search ({s.token('p')})"
    task = f"SUBAGENT-TASK {s.token('task')}: look for lazy files"
    agent_id = "toolu_lazy_agent_0001"
    sub_reply = [text(s.token("subagent-answer"))]
    final = [text(s.token("final"))]
    s.script_reply(
        prompt,
        [
            text(f"Delegating ({s.token('pre')})."),
            tool_use(
                agent_id,
                "Agent",
                {
                    "description": "Find lazy files",
                    "prompt": task,
                    "subagent_type": "general-purpose",
                    "run_in_background": False,
                },
            ),
        ],
        name="agent:spawn",
    )
    s.api.add(Rule("agent:child", sub_reply, user_contains=task))
    s.api.add(Rule("agent:final", final, tool_result_for=agent_id))
    turn = s.claude_print(prompt)
    got = {r["rule"] for r in turn.replies}
    if not {"agent:spawn", "agent:child", "agent:final"} <= got:
        raise ScenarioError(f"subagent scenario incomplete: {turn.replies}")
    s.expect = {
        "builders": [
            {
                "session_ids": [str(turn.session_id)],
                "summary": prompt,
                "messages": [
                    msg("user", prompt),
                    msg("assistant", contains=["Delegating"], tool_name=None),
                    msg("tool_result", contains=[reply_text(sub_reply)]),
                    msg("assistant", reply_text(final)),
                ],
                "sidechains": [
                    {
                        "messages": [
                            msg("user", contains=[task]),
                            msg("assistant", reply_text(sub_reply)),
                        ],
                    }
                ],
                "absent": [task],  # the subagent's prompt is not a main-line user message
            }
        ],
        "ignored_oneshots": 0,
    }


def scenario_oneshot(s: Session) -> None:
    """(h) a lazy one-shot: the marker at the very start of the prompt."""
    prompt = f"{ONESHOT_MARKER}\nSummarise this builder in one line ({s.token('p')})"
    reply = [text(s.token("oneshot-reply"))]
    turn = s.claude_print(prompt, reply=reply)
    s.expect = {"builders": [], "ignored_oneshots": 1, "oneshot_session": turn.session_id}


def scenario_marker_quote(s: Session) -> None:
    """(i) a normal two-turn conversation whose prompts quote the marker mid-text."""
    p1 = f"What does {ONESHOT_MARKER} mean in lazy? ({s.token('p')})"
    r1 = [text(s.token("reply"))]
    t1 = s.claude_print(p1, reply=r1)
    p2 = f"And where is {ONESHOT_MARKER} written? ({s.token('p')})"
    r2 = [text(s.token("reply"))]
    s.claude_print(p2, "--resume", str(t1.session_id), via="resume", reply=r2)
    s.expect = one_builder([str(t1.session_id)], [(p1, r1), (p2, r2)])


def install_lazy_hooks(s: Session) -> None:
    """`lazy hooks install` into the sandbox's CLAUDE_CONFIG_DIR, with LAZY_HOME
    (``<workdir>/lazy-home``) in the CLI's environment, where the hooks will find it; the
    sandbox's ``claude`` is first on PATH, so lazy asks it its version."""
    bin_dir = s.sb.root / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "claude"
    shim.write_text("#!/bin/sh\nexec " + " ".join(f"'{a}'" for a in s.sb.claude) + ' "$@"\n')
    shim.chmod(0o755)
    lazy_home = s.sb.root / "lazy-home"
    s.sb.extra_env["LAZY_HOME"] = str(lazy_home)
    s.sb.extra_env["PATH"] = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    installed = subprocess.run(
        [*lazy_argv(), "hooks", "install"],
        env=s.sb.env(),
        cwd=s.sb.project,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    if installed.returncode != 0:
        raise ScenarioError(f"lazy hooks install failed: {installed.stdout}{installed.stderr}")
    s.observed["lazy_home"] = str(lazy_home)
    s.observed["hooks_install"] = installed.stdout
    s.observed["settings"] = json.loads((s.sb.config / "settings.json").read_text())


def scenario_hooked(s: Session) -> None:
    """lazy's hooks installed (:func:`install_lazy_hooks`) and no sidecar and no daemon: a
    one-turn session, a resumed one, tool use, a subagent and a /compact, each captured by
    the hooks alone."""
    install_lazy_hooks(s)
    for play in (
        scenario_single_turn,
        scenario_resume,
        scenario_tools,
        scenario_subagent,
        scenario_compact_print,
    ):
        play(s)
    s.expect = {}  # checked against a fresh import of the same files, not a script


# what lazy-home/store.db holds in ``hooked_broken_store``: not a database
BROKEN_STORE = b"not a database: a file the hooks must leave as it is\n" * 64


def scenario_hooked_broken_store(s: Session) -> None:
    """lazy's hooks installed over a store that cannot be opened (not a database): one
    ``claude -p`` turn, which must go as it would without hooks (the driver fails on a
    non-zero exit or an error result); what the hooks say is checked by the test."""
    install_lazy_hooks(s)
    home = Path(s.observed["lazy_home"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "store.db").write_bytes(BROKEN_STORE)
    for stale in home.glob("store.db-*"):  # the WAL of a store the install may have made
        stale.unlink()
    prompt = f"Say hello over a broken store ({s.token('p')})"
    turn = s.claude_print(prompt, reply=[text(s.token("reply"))])
    s.observed["session_id"] = turn.session_id
    # Claude Code's own account of its Stop hooks: how each ended, its output, its time
    [transcript] = (s.sb.config / "projects").glob(f"*/{turn.session_id}.jsonl")
    lines = [json.loads(x) for x in transcript.read_text().splitlines() if x.strip()]
    s.observed["stop_hooks"] = [x for x in lines if x.get("subtype") == "stop_hook_summary"]
    s.expect = {}  # the store was never reachable: the test reads the fallback log


def _lazy(s: Session, *args: str) -> subprocess.CompletedProcess[str]:
    """``lazy <args>`` in the sandbox's environment (its LAZY_HOME), in its project."""
    p = subprocess.run(
        [*lazy_argv(), *args],
        env=s.sb.env(),
        cwd=s.sb.project,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    if p.returncode != 0:
        raise ScenarioError(f"lazy {' '.join(args)} failed: {p.stdout}{p.stderr}")
    return p


def _tool_result_text(body: JsonDict, tool_id: str) -> str:
    """What the CLI sent the model as the result of call ``tool_id``, as text."""
    message = last_user_message(body) or {}
    for b in _content_blocks(message):
        if b.get("type") == "tool_result" and b.get("tool_use_id") == tool_id:
            content = b.get("content")
            if isinstance(content, list):
                return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
            return str(content)
    return ""


MCP_TOOLS = tuple(f"mcp__lazy__lazy_conversation_{t}" for t in ("search", "list", "read", "ask"))


def _instructions_sent(body: JsonDict) -> bool:
    """The server's instructions reached the model (2.1.x puts them in the first message)."""
    said = json.dumps(body, ensure_ascii=False)
    return "## lazy" in said and "look up what was decided" in said


def scenario_mcp(s: Session) -> None:
    """lazy's MCP server called by the real CLI: an earlier session is imported into a store
    (LAZY_HOME ``<workdir>/lazy-home``), `lazy mcp install --agent claude` registers the
    server in the sandbox's CLAUDE_CONFIG_DIR/.claude.json, and the fake model calls
    ``lazy_conversation_search`` for a word of the earlier session, then
    ``lazy_conversation_read`` of the Builder it found. What the CLI sent back to the model
    as each tool's result is kept under ``observed``."""
    lazy_home = s.sb.root / "lazy-home"
    s.sb.extra_env["LAZY_HOME"] = str(lazy_home)
    word = f"zqmcp{uuid.uuid4().hex[:10]}"
    earlier = s.claude_print(
        f"design the retention policy for {word}",
        reply=[text(f"Decision: keep every transcript forever ({s.token('decision')})")],
    )
    _lazy(s, "import-conversation", "--all-projects", "--yes")
    listed = json.loads(_lazy(s, "conversations", "--json").stdout)["builders"]
    [builder] = [b for b in listed if earlier.session_id in b["session_ids"]]
    s.observed["mcp_install"] = _lazy(s, "mcp", "install", "--agent", "claude").stdout
    s.observed["claude_json_servers"] = json.loads((s.sb.config / ".claude.json").read_text())[
        "mcpServers"
    ]
    search_id, read_id = "toolu_lazy_mcp_search_01", "toolu_lazy_mcp_read_01"
    prompt = f"What did we decide about retention before? ({s.token('p')})"
    s.script_reply(
        prompt,
        [
            text("Looking it up in lazy."),
            tool_use(search_id, "mcp__lazy__lazy_conversation_search", {"query": word}),
        ],
        name="mcp:search",
    )
    s.api.add(
        Rule(
            "mcp:read",
            [
                tool_use(
                    read_id,
                    "mcp__lazy__lazy_conversation_read",
                    {"id": builder["id"], "start": 1, "end": 2},
                )
            ],
            tool_result_for=search_id,
        )
    )
    s.api.add(Rule("mcp:final", [text(s.token("final"))], tool_result_for=read_id))
    s.api.log_full_bodies = True
    allowed = ",".join(f"mcp__lazy__lazy_conversation_{t}" for t in ("search", "read"))
    turn = s.claude_print(prompt, "--allowedTools", allowed)
    s.api.log_full_bodies = False
    got = {r["rule"] for r in turn.replies}
    if not {"mcp:search", "mcp:read", "mcp:final"} <= got:
        raise ScenarioError(f"the MCP scenario did not run all steps: {turn.replies}")
    bodies = {r["rule"]: r["body"] for r in s.api.records if r.get("body") and r["rule"]}
    s.observed.update(
        word=word,
        lazy_home=str(lazy_home),
        builder_id=builder["id"],
        earlier_session=earlier.session_id,
        # 2.1.x defers MCP tools: named in the request's text (for ToolSearch), not in `tools`
        tools_named=[t for t in MCP_TOOLS if t in json.dumps(bodies["mcp:search"])],
        instructions_sent=_instructions_sent(bodies["mcp:search"]),
        search_result=_tool_result_text(bodies["mcp:read"], search_id),
        read_result=_tool_result_text(bodies["mcp:final"], read_id),
    )
    for r in s.api.records:  # the bodies are large: script.json keeps what was observed
        r["body"] = None
    s.expect = {}


SCENARIOS: dict[str, Callable[[Session], None]] = {
    "single_turn": scenario_single_turn,
    "resume": scenario_resume,
    "continue": scenario_continue,
    "fork": scenario_fork,
    "tools": scenario_tools,
    "compact_print": scenario_compact_print,
    "interactive": scenario_interactive,
    "subagent": scenario_subagent,
    "oneshot": scenario_oneshot,
    "marker_quote": scenario_marker_quote,
    "hooked": scenario_hooked,
    "hooked_broken_store": scenario_hooked_broken_store,
    "mcp": scenario_mcp,
}
