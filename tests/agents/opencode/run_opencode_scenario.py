"""Run one OpenCode scenario against the fake API: ``run_opencode_scenario.py <name> <workdir>``.

Must run inside a loopback-only network namespace (it brings ``lo`` up itself), e.g. as root::

    unshare --net -- .venv/bin/python tests/agents/opencode/run_opencode_scenario.py tool /tmp/oc

Leaves OpenCode's files under ``<workdir>/data/opencode`` (the dir to import), the fake API's
request log in ``<workdir>/api.jsonl`` and what was scripted in ``<workdir>/script.json``; on
failure ``script.json`` holds ``"error"`` and the exit status is 1.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from opencode_driver import (  # noqa: E402
    SCENARIOS,
    GatedFake,
    OpenCodeSession,
    Sandbox,
    find_opencode,
    opencode_side_classifier,
    release_version,
)
from scenario_env import JsonDict, scenario_main  # noqa: E402


def play(name: str, workdir: Path) -> JsonDict | None:
    scenario = SCENARIOS[name]
    binary = find_opencode(scenario.release)
    if binary is None:
        print(f"OpenCode {release_version(scenario.release)} not installed", file=sys.stderr)
        return None
    title = f"Lazy OpenCode {name}"
    api = GatedFake(log_path=workdir / "api.jsonl", side_classifier=opencode_side_classifier(title))
    api.start()
    sandbox = Sandbox(workdir, binary, release_version(scenario.release), base_url=api.base_url)
    session = OpenCodeSession(name, scenario.release, sandbox, api, title)
    error: str | None = None
    try:
        sandbox.setup()
        session.extra["git_head"] = sandbox.git_head()
        scenario.run(session)
        if api.unscripted:
            error = f"{len(api.unscripted)} unscripted model request(s); see api.jsonl"
    except Exception:
        error = traceback.format_exc()
    finally:
        api.release()
        api.stop()
    return {**session.to_json(), "error": error}


if __name__ == "__main__":
    sys.exit(scenario_main(sys.argv, SCENARIOS, play))
