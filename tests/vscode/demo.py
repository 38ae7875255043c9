"""`make demo`: a real VS Code in the browser (code-server) with the extension and a demo
history, on loopback; prints its address and runs until Ctrl-C.

    python tests/vscode/demo.py CODE_SERVER_DIR VSIX [PORT]

The history is the shared corpus's real Claude Code sessions (``../shared/corpus``), imported
into a store of its own under ``$TMPDIR/lazy-demo``; VS Code runs with a home of its own there
too, so nothing of this machine's own agents or settings is read or touched.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus" / "claude-code"
LAZY = REPO / ".venv" / "bin" / "lazy"


def main(code_server_dir: Path, vsix: Path, port: int) -> int:
    base = Path(tempfile.gettempdir()) / "lazy-demo"
    shutil.rmtree(base, ignore_errors=True)
    home, store, workspace = base / "home", base / "store", base / "workspace"
    user, ext = base / "cs" / "user", base / "cs" / "ext"
    for d in (home, workspace, user / "User", ext):
        d.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "LAZY_HOME")}
    env |= {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CONFIG_HOME": str(home / ".config"), "CODEX_HOME": str(home / ".codex")}  # fmt: skip

    projects = home / ".claude" / "projects"
    sources = sorted(CORPUS.glob("*/test/test_data/real_projects")) if CORPUS.is_dir() else []
    for src in sources:
        shutil.copytree(src, projects, dirs_exist_ok=True)
    if sources:
        subprocess.run(
            [str(LAZY), "import-conversation", "--all-projects", "--yes"],
            env=env | {"LAZY_HOME": str(store)}, check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
    else:
        print(f"(no corpus at {CORPUS}: the demo starts with an empty history)")

    (user / "User" / "settings.json").write_text(
        json.dumps(
            {
                "workbench.startupEditor": "none",
                "security.workspace.trust.enabled": False,
                "telemetry.telemetryLevel": "off",
                "extensions.autoUpdate": False,
                "update.mode": "none",
                "lazy.sidecar.path": str(LAZY),
                "lazy.store": str(store),
            },
            indent=2,
        )
    )
    entry = code_server_dir / "node_modules" / "code-server" / "out" / "node" / "entry.js"
    config = base / "cs" / "config.yaml"
    config.write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n")
    common = ["--config", str(config), "--extensions-dir", str(ext), "--user-data-dir", str(user)]
    node = shutil.which("node") or "node"
    subprocess.run([node, str(entry), *common, "--install-extension", str(vsix)], env=env,
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    server = subprocess.Popen(
        [node, str(entry), "--auth", "none", "--bind-addr", f"127.0.0.1:{port}",
         "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
         *common, str(workspace)],
        env=env, start_new_session=True,
    )  # fmt: skip
    print(f"\nlazy demo: open http://127.0.0.1:{port}/?folder={workspace}  (Ctrl-C stops it)\n")
    try:
        return server.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)  # its own group: the sidecar goes with it
            server.wait()


if __name__ == "__main__":
    sys.exit(
        main(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 8080)
    )
