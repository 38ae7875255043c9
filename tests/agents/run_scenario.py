"""Run one Claude Code scenario against the fake API: ``run_scenario.py <name> <workdir>``.

Must run inside a loopback-only network namespace (it brings ``lo`` up itself), e.g.::

    unshare --net -- .venv/bin/python tests/agents/run_scenario.py single_turn /tmp/work

(as non-root: ``unshare --user --map-root-user --net -- ...``).

Leaves the CLI's files under ``<workdir>/config`` (``projects/...``), the fake API's request log
in ``<workdir>/api.jsonl`` and what was scripted in ``<workdir>/script.json``; on failure
``script.json`` holds ``"error"`` and the exit status is 1.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import struct
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from driver import SCENARIOS, Sandbox, Session, find_claude, find_release
from fake_anthropic import FakeAnthropic
from old_releases import OLD_SCENARIOS, installed_version

ALL_SCENARIOS = {**SCENARIOS, **{name: old.run for name, old in OLD_SCENARIOS.items()}}


def network_is_isolated() -> bool:
    """True when the only network interface is loopback."""
    try:
        names = {name for _, name in socket.if_nameindex()}
    except OSError:
        return False
    return names <= {"lo"}


def ensure_loopback_up() -> None:
    """``ip link set lo up`` without needing iproute2 (SIOCGIFFLAGS/SIOCSIFFLAGS)."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(sock, siocgifflags, request))[1]
        if not flags & iff_up:
            fcntl.ioctl(sock, siocsifflags, struct.pack("16sh", b"lo", flags | iff_up))


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in ALL_SCENARIOS:
        print(f"usage: {argv[0]} <{'|'.join(ALL_SCENARIOS)}> <workdir>", file=sys.stderr)
        return 2
    name, workdir = argv[1], Path(argv[2]).resolve()
    if not network_is_isolated() and not os.environ.get("LAZY_ALLOW_NETWORK"):
        print("refusing to run outside a loopback-only network namespace", file=sys.stderr)
        return 2
    if network_is_isolated():
        ensure_loopback_up()
    old = OLD_SCENARIOS.get(name)
    claude = find_release(old.alias) if old else find_claude()
    if claude is None:
        what = f"{old.alias} (an older release)" if old else "claude CLI"
        print(f"{what} not installed (tests/agents/node_modules)", file=sys.stderr)
        return 2
    workdir.mkdir(parents=True, exist_ok=True)
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
    data = session.to_json()
    data["error"] = error
    (workdir / "script.json").write_text(json.dumps(data, indent=2, ensure_ascii=False))
    if error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
