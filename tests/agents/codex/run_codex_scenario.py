"""Run one Codex scenario against the fake API: ``run_codex_scenario.py <name> <workdir>``.

Must run inside a loopback-only network namespace (it brings ``lo`` up itself), e.g.::

    unshare --net -- .venv/bin/python tests/agents/codex/run_codex_scenario.py oneshot /tmp/w

Leaves the CLI's files under ``<workdir>/codex-home`` (``sessions/YYYY/MM/DD/rollout-*.jsonl``),
the fake API's request log in ``<workdir>/api.jsonl`` and what was scripted in
``<workdir>/script.json``; on failure ``script.json`` holds ``"error"`` and the exit status is 1.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from codex_driver import SCENARIOS, CodexSession, Sandbox, codex_version, find_codex  # noqa: E402
from fake_openai import FakeOpenAI  # noqa: E402
from run_scenario import ensure_loopback_up, network_is_isolated  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in SCENARIOS:
        print(f"usage: {argv[0]} <{'|'.join(SCENARIOS)}> <workdir>", file=sys.stderr)
        return 2
    name, workdir = argv[1], Path(argv[2]).resolve()
    if not network_is_isolated() and not os.environ.get("LAZY_ALLOW_NETWORK"):
        print("refusing to run outside a loopback-only network namespace", file=sys.stderr)
        return 2
    if network_is_isolated():
        ensure_loopback_up()
    spec = SCENARIOS[name]
    codex = find_codex(spec.release)
    if codex is None:
        print(f"codex {spec.release.version} not installed (tests/agents)", file=sys.stderr)
        return 2
    workdir.mkdir(parents=True, exist_ok=True)
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
    data = session.to_json()
    data["release"] = spec.release.version
    data["error"] = error
    (workdir / "script.json").write_text(json.dumps(data, indent=2, ensure_ascii=False))
    if error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
