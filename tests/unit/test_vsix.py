"""The .vsix (`make vsix`) carries the extension and the sidecar with everything it imports,
so VS Code needs nothing but a Python 3.11-3.13: its contents, and the bundled sidecar run by
a Python that sees no other packages."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from support import require

VSIX = Path(__file__).resolve().parents[2] / "extension" / "lazy-linux-x64.vsix"


@pytest.fixture(scope="module")
def names() -> set[str]:
    require(VSIX.is_file(), f"the packaged extension at {VSIX} (make vsix)")
    with zipfile.ZipFile(VSIX) as z:
        return set(z.namelist())


def test_the_vsix_holds_the_extension_and_the_sidecar(names: set[str]) -> None:
    for must in (
        "extension/package.json",
        "extension/dist/extension.js",
        "extension/dist/webview/transcript.js",
        "extension/bundled/common/lazy/cli/main.py",
        "extension/bundled/common/lazy/server/app.py",
    ):
        assert must in names, must
    for tag in ("cp311", "cp312", "cp313"):  # the compiled modules, per Python
        assert any(n.startswith(f"extension/bundled/{tag}/pydantic_core/") and n.endswith(".so")
                   for n in names), tag  # fmt: skip
    assert any(
        n.startswith("extension/bundled/common/tantivy/") and n.endswith(".so") for n in names
    )
    # sources, tests, dependencies of the build and caches stay out
    for never in ("extension/src/", "extension/test/", "extension/node_modules/", "__pycache__"):
        assert not any(never in n for n in names), never


def test_the_bundled_sidecar_runs_on_a_bare_python(names: set[str], tmp_path: Path) -> None:
    with zipfile.ZipFile(VSIX) as z:
        z.extractall(tmp_path, [n for n in names if n.startswith("extension/bundled/")])
    bundled = tmp_path / "extension" / "bundled"
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(bundled / "common"), str(bundled / tag)])
    # -S: no site-packages at all (this venv's included), only what the .vsix carries
    p = subprocess.run(
        [sys.executable, "-S", "-c",
         "import lazy, lazy.server.app, tantivy, pydantic_core, watchfiles; print(lazy.__file__)"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().startswith(str(bundled / "common"))
    help_ = subprocess.run(
        [sys.executable, "-S", "-m", "lazy.cli.main", "sidecar", "--help"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert help_.returncode == 0 and "stdio" in help_.stdout
