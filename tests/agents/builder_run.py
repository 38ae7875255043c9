"""`lazy builder` driving the real Claude Code CLI in a pseudo-terminal, against the scripted
fake API (run inside a loopback-only network namespace):

    unshare --net -- .venv/bin/python tests/agents/builder_run.py <scenario> <workdir>

``healthy``: a conversation started through `lazy builder` is in the store when it exits, with
nothing else running (no sidecar, no daemon), and no failure report is printed.
``broken``: the store cannot be opened (a directory where ``store.db`` should be), so every
capture during the run fails the same way: the report after exit names the reason once, with
its machine code, and the commands to check and recover; Claude Code's exit status is kept.
``alias``: a conversation named ``reviewer`` (`lazy alias set`) resumed through `lazy builder
--resume reviewer` with `--fork-session` (a new session id): the alias follows the fork, not
the lazy one-shot planted as the newest file of the project.
``<workdir>/script.json`` holds what each run printed and what the store holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from driver import Sandbox, Session, find_claude  # noqa: E402
from fake_anthropic import FakeAnthropic, text  # noqa: E402
from scenario_env import JsonDict, lazy_argv, scenario_main  # noqa: E402

from support.pty import in_pty  # noqa: E402

ONESHOT_MARKER = "[lazy:one-shot v1]"
INTERVAL = "0.3"  # seconds between captures: several ticks during one `claude -p`


def lazy(s: Session, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*lazy_argv(), *args], cwd=s.sb.project, env=_env(s, home),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _env(s: Session, home: Path) -> dict[str, str]:
    return {
        **s.sb.env(),
        "LAZY_HOME": str(home),
        "LAZY_CLAUDE": s.sb.claude[0],
        "LAZYBRIDGE_SESSIONS_FILE": str(s.sb.root / "sessions.json"),
        "NO_COLOR": "1",
    }


def builder(s: Session, home: Path, *args: str) -> JsonDict:
    argv = [*lazy_argv(), "builder", "--capture-interval", INTERVAL, *args]
    run = in_pty(argv, _env(s, home), s.sb.project)
    return {"rc": run.rc, "output": run.output}


def stored(s: Session, home: Path) -> JsonDict:
    p = lazy(s, home, "conversations", "--json")
    return {"rc": p.returncode, "builders": json.loads(p.stdout) if p.returncode == 0 else None,
            "stderr": p.stderr[-2000:]}  # fmt: skip


def supervisor_logs(home: Path) -> list[str]:
    return [p.read_text() for p in sorted((home / "builder").glob("*.log"))]


def healthy(s: Session) -> JsonDict:
    home = s.sb.root / "lazy"
    prompt = "Plan the builder capture test"
    s.script_reply(prompt, [text("Plan: capture every 30 seconds.")])
    run = builder(s, home, "--", "-p", prompt)
    return {"prompt": prompt, "run": run, "stored": stored(s, home),
            "logs": supervisor_logs(home), "files": [str(p) for p in s.sb.transcripts()]}  # fmt: skip


def broken(s: Session) -> JsonDict:
    home = s.sb.root / "broken-lazy"
    (home / "store.db").mkdir(parents=True)  # the store cannot be opened
    prompt = "Say something while capture fails"
    # the reply takes a while, so several captures fail during the session
    rule = s.script_reply(prompt, [text("Here is the reply.")])
    rule.delay = 1.5
    run = builder(s, home, "--", "-p", prompt)
    return {"prompt": prompt, "run": run, "logs": supervisor_logs(home),
            "files": [str(p) for p in s.sb.transcripts()]}  # fmt: skip


def alias(s: Session) -> JsonDict:
    home = s.sb.root / "lazy"
    first = "Start the reviewer conversation"
    s.script_reply(first, [text("Reviewer ready.")])
    start = builder(s, home, "--", "-p", first)
    listed = stored(s, home)
    found = (listed["builders"] or {}).get("builders") or []
    bid = found[0]["id"] if found else None
    named = lazy(s, home, "alias", "set", "reviewer", bid or "none")
    # a lazy one-shot written later than anything else in the project: never the target
    pdir = s.sb.projects_dir / next(iter(os.listdir(s.sb.projects_dir)))
    oneshot = pdir / "0badc0de-0000-4000-8000-000000000001.jsonl"
    entry = {"type": "user", "sessionId": oneshot.stem, "uuid": "u-oneshot", "parentUuid": None,
             "cwd": str(s.sb.project.resolve()), "timestamp": "2026-11-30T10:00:00.000Z",
             "message": {"role": "user", "content": f"{ONESHOT_MARKER}\nSummarise the diff"}}  # fmt: skip
    oneshot.write_text(json.dumps(entry) + "\n")
    future = time.time() + 3600
    os.utime(oneshot, (future, future))
    before = sorted(str(p) for p in s.sb.transcripts())
    second = "Continue the review in a fork"
    s.script_reply(second, [text("Forked and continued.")])
    resumed = builder(s, home, "--resume", "reviewer", "--", "-p", second, "--fork-session")
    after = sorted(str(p) for p in s.sb.transcripts())
    listing = lazy(s, home, "alias", "list", "--json")
    return {
        "start": start, "builder": bid, "named": {"rc": named.returncode, "out": named.stdout,
                                                   "err": named.stderr},
        "resumed": resumed, "before": before, "after": after, "oneshot": oneshot.stem,
        "aliases": json.loads(listing.stdout) if listing.returncode == 0 else listing.stderr,
        "stored": stored(s, home),
    }  # fmt: skip


SCENARIOS = {"healthy": healthy, "broken": broken, "alias": alias}


def play(name: str, workdir: Path) -> JsonDict | None:
    claude = find_claude()
    if claude is None or len(claude) != 1:
        print("the native claude CLI is not installed (tests/agents/node_modules)", file=sys.stderr)
        return None
    sandbox = Sandbox(workdir, claude)
    api = FakeAnthropic(log_path=workdir / "api.jsonl")
    api.start()
    session = Session(name, sandbox, api)
    result: JsonDict = {}
    error: str | None = None
    try:
        sandbox.base_url = api.base_url
        sandbox.setup()
        result = SCENARIOS[name](session)
    except Exception:
        error = traceback.format_exc()
    finally:
        api.stop()
    return {**result, "session_dir": str(sandbox.projects_dir), "error": error}


if __name__ == "__main__":
    sys.exit(scenario_main(sys.argv, SCENARIOS, play))
