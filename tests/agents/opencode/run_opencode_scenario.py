"""Run one OpenCode scenario against the fake API: ``run_opencode_scenario.py <name> <workdir>``.

Must run inside a loopback-only network namespace (it brings ``lo`` up itself), e.g. as root::

    unshare --net -- .venv/bin/python tests/agents/opencode/run_opencode_scenario.py tool /tmp/oc

Leaves OpenCode's files under ``<workdir>/data/opencode`` (the dir to import), the fake API's
request log in ``<workdir>/api.jsonl`` and what was scripted in ``<workdir>/script.json``; on
failure ``script.json`` holds ``"error"`` and the exit status is 1.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from opencode_driver import (  # noqa: E402
    SCENARIOS,
    GatedFake,
    OpenCodeSession,
    Sandbox,
    find_opencode,
    opencode_side_classifier,
    release_version,
)
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
    scenario = SCENARIOS[name]
    binary = find_opencode(scenario.release)
    if binary is None:
        print(f"OpenCode {release_version(scenario.release)} not installed", file=sys.stderr)
        return 2
    workdir.mkdir(parents=True, exist_ok=True)
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
    data = session.to_json()
    data["error"] = error
    (workdir / "script.json").write_text(json.dumps(data, indent=2, ensure_ascii=False))
    if error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
