"""Write the VS Code tests' sessions with the real Claude Code CLI against the scripted fake API.

    unshare --net -- .venv/bin/python tests/vscode/write_sessions.py <initial|other|live> <root>

Reuses the real-agent suite's machinery (``tests/agents``: the pinned ``claude`` from its
``node_modules``, ``fake_anthropic``, the sandbox), with one difference: the CLI's config dir is
``<root>/home/.claude``, so the sessions land where the sidecar looks by default
(``~/.claude/projects``) when VS Code runs with ``HOME=<root>/home``. Every session's cwd is
``<root>/project``, the folder VS Code opens, but for ``other``'s.

``initial`` writes, before VS Code starts: a tool session (Bash + Read), a two-turn session whose
second reply holds a phrase the search test looks for, and a hostile session (markup, a
``javascript:`` link, ANSI escapes). ``other`` writes one session in ``<root>/other``, a project
of one Builder outside the workspace. ``live`` writes one more session while VS Code is open.
``<root>/script-<name>.json`` records the prompts, phrases and session ids the tests assert on.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

AGENTS = Path(__file__).resolve().parent.parent / "agents"
sys.path.insert(0, str(AGENTS))

from driver import Sandbox, Session, find_claude  # noqa: E402
from fake_anthropic import FakeAnthropic, Rule, text, tool_use  # noqa: E402
from scenario_env import JsonDict, init_git_project, scenario_main  # noqa: E402

SEARCH_PHRASE = "periwinkle lighthouse protocol"
HOSTILE = (
    "Render check: <script>window.__pwned=1</script> "
    '<img src=x onerror="window.__pwned=1"> '
    "[click me](javascript:window.__pwned=1) "
    "\x1b[31mred\x1b[0m done"
)


class HomeSandbox(Sandbox):
    """The CLI's config dir is ``~/.claude`` of the sandbox's HOME (the default location)."""

    @property
    def config(self) -> Path:
        return self.home / ".claude"

    def setup(self) -> None:
        self.config.mkdir(parents=True, exist_ok=True)
        super().setup()


class OtherSandbox(HomeSandbox):
    """The same HOME and config, the CLI run in ``<root>/other``: another project."""

    @property
    def project(self) -> Path:
        return self.root / "other"

    def setup(self) -> None:  # the config is initial's; only the project is new
        init_git_project(self.project, self.env(), {"README.md": "another project\n"})


def initial(s: Session) -> JsonDict:
    notes = s.sb.project / "notes.txt"
    notes.write_text("lazy notes file: vscode-notes-content\n")
    prompt_tools = "Run the workspace checks for the vscode test"
    bash_id, read_id = "toolu_vscode_bash_0001", "toolu_vscode_read_0001"
    s.script_reply(
        prompt_tools,
        [
            text("Running a command first."),
            tool_use(bash_id, "Bash", {"command": "echo lazy-bash-ok", "description": "Print ok"}),
        ],
        name="tools:first",
    )
    s.api.add(
        Rule(
            "tools:read",
            [tool_use(read_id, "Read", {"file_path": str(notes.resolve())})],
            tool_result_for=bash_id,
        )
    )
    s.api.add(Rule("tools:final", [text("Checks done: all green.")], tool_result_for=read_id))
    tools = s.claude_print(prompt_tools)

    prompt_plan = "Plan the tangerine migration"
    # long enough to push the later messages below the fold of the transcript
    plan_reply = "Step one: inventory the tangerine tables.\n\n" + "\n".join(
        f"- table tangerine_{i:02d}: copy, verify, switch" for i in range(60)
    )
    plan1 = s.claude_print(prompt_plan, reply=[text(plan_reply)])
    prompt_plan2 = "What do we call the rollout?"
    plan2 = s.claude_print(
        prompt_plan2,
        "--resume",
        str(plan1.session_id),
        via="resume",
        reply=[text(f"We call the rollout the {SEARCH_PHRASE}.")],
    )

    hostile = s.claude_print(HOSTILE, reply=[text(f"Echoing it back: {HOSTILE}")])
    return {
        "tools": {
            "summary": prompt_tools,
            "session_id": tools.session_id,
            "output": "lazy-bash-ok",
            "readOutput": "vscode-notes-content",
        },
        "plan": {
            "summary": prompt_plan,
            "session_ids": [plan1.session_id, plan2.session_id],
            "phrase": SEARCH_PHRASE,
            # user, assistant, user, assistant: the phrase is in the 4th message
            "phrase_message": 4,
            "messages": [
                prompt_plan,
                plan_reply,
                prompt_plan2,
                f"We call the rollout the {SEARCH_PHRASE}.",
            ],
        },
        "hostile": {"summary": "Render check", "session_id": hostile.session_id},
    }


def other(s: Session) -> JsonDict:
    prompt = "Sketch the quince dashboard"
    turn = s.claude_print(prompt, reply=[text("A quince dashboard sketch: three panels.")])
    return {"other": {"summary": prompt, "session_id": turn.session_id}}


def live(s: Session) -> JsonDict:
    prompt = "Live capture check while VS Code is open"
    turn = s.claude_print(prompt, reply=[text("Captured live.")])
    return {"live": {"summary": prompt, "session_id": turn.session_id}}


SCENARIOS = {"initial": initial, "other": other, "live": live}


def play(name: str, workdir: Path) -> JsonDict | None:
    claude = find_claude()
    if claude is None:
        print("claude CLI not installed (tests/agents/node_modules)", file=sys.stderr)
        return None
    sandbox = (OtherSandbox if name == "other" else HomeSandbox)(workdir, claude)
    api = FakeAnthropic(log_path=workdir / f"api-{name}.jsonl")
    api.start()
    session = Session(name, sandbox, api)
    result: JsonDict = {}
    error: str | None = None
    try:
        sandbox.base_url = api.base_url
        if not sandbox.project.is_dir():
            sandbox.setup()
        result = SCENARIOS[name](session)
    except Exception:
        error = traceback.format_exc()
    finally:
        api.stop()
    data = {**result, "project": str(sandbox.project.resolve()), "error": error}
    (workdir / f"script-{name}.json").write_text(json.dumps(data, indent=2, ensure_ascii=False))
    return data


if __name__ == "__main__":
    sys.exit(scenario_main(sys.argv, SCENARIOS, play))
