"""Run one Codex scenario against the fake API: ``run_codex_scenario.py <name> <workdir>``.

Must run inside a loopback-only network namespace (it brings ``lo`` up itself), e.g.::

    unshare --net -- .venv/bin/python tests/agents/codex/run_codex_scenario.py oneshot /tmp/w

Leaves the CLI's files under ``<workdir>/codex-home`` (``sessions/YYYY/MM/DD/rollout-*.jsonl``),
the fake API's request log in ``<workdir>/api.jsonl`` and what was scripted in
``<workdir>/script.json``; on failure ``script.json`` holds ``"error"`` and the exit status is 1.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from codex_driver import SCENARIOS, CodexSession, Sandbox, codex_version, find_codex  # noqa: E402
from fake_openai import FakeOpenAI  # noqa: E402
from scenario_env import JsonDict, scenario_main  # noqa: E402


def play(name: str, workdir: Path) -> JsonDict | None:
    spec = SCENARIOS[name]
    codex = find_codex(spec.release)
    if codex is None:
        print(f"codex {spec.release.version} not installed (tests/agents)", file=sys.stderr)
        return None
    sandbox = Sandbox(workdir, codex)
    api = FakeOpenAI(log_path=workdir / "api.jsonl", workdir=str(sandbox.project))
    api.start()
    session = CodexSession(name, sandbox, api, codex_version(codex, sandbox.env()))
    error: str | None = None
    try:
        sandbox.base_url = api.base_url
        sandbox.setup()
        spec.run(session)
    except Exception:
        error = traceback.format_exc()
    finally:
        api.stop()
    return {**session.to_json(), "release": spec.release.version, "error": error}


if __name__ == "__main__":
    sys.exit(scenario_main(sys.argv, SCENARIOS, play))
