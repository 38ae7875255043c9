"""Run one Claude Code scenario against the fake API: ``run_scenario.py <name> <workdir>``.

Must run inside a loopback-only network namespace (it brings ``lo`` up itself), e.g.::

    unshare --net -- .venv/bin/python tests/agents/run_scenario.py single_turn /tmp/work

(as non-root: ``unshare --user --map-root-user --net -- ...``).

Leaves the CLI's files under ``<workdir>/config`` (``projects/...``), the fake API's request log
in ``<workdir>/api.jsonl`` and what was scripted in ``<workdir>/script.json``; on failure
``script.json`` holds ``"error"`` and the exit status is 1.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from driver import SCENARIOS, Sandbox, Session, find_claude, find_release
from fake_anthropic import FakeAnthropic
from old_releases import OLD_SCENARIOS, installed_version
from scenario_env import JsonDict, scenario_main

ALL_SCENARIOS = {**SCENARIOS, **{name: old.run for name, old in OLD_SCENARIOS.items()}}


def play(name: str, workdir: Path) -> JsonDict | None:
    old = OLD_SCENARIOS.get(name)
    claude = find_release(old.alias) if old else find_claude()
    if claude is None:
        what = f"{old.alias} (an older release)" if old else "claude CLI"
        print(f"{what} not installed (tests/agents/node_modules)", file=sys.stderr)
        return None
    sandbox = Sandbox(
        workdir,
        claude,
        settings_auto_updates=old is None,
        known_version=installed_version(old.alias) if old else "",
    )
    api = FakeAnthropic(log_path=workdir / "api.jsonl")
    api.start()
    session = Session(name, sandbox, api)
    error: str | None = None
    try:
        sandbox.base_url = api.base_url
        sandbox.setup()
        ALL_SCENARIOS[name](session)
    except Exception:
        error = traceback.format_exc()
        if session.tmux is not None:
            error += "\n--- last screen ---\n" + session.tmux.screen()
    finally:
        if session.tmux is not None:
            session.tmux.kill()
        api.stop()
    return {**session.to_json(), "error": error}


if __name__ == "__main__":
    sys.exit(scenario_main(sys.argv, ALL_SCENARIOS, play))
