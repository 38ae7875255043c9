"""Put the sidecar and everything it imports into the extension, for Linux x86-64 and each
Python from 3.11 to 3.13, so the .vsix needs nothing but such a Python on the machine.

    python scripts/bundle_sidecar.py REPO OUT      # OUT: extension/bundled

A compiled module is built for one Python (pydantic_core, orjson, zstandard, watchfiles), so
each version gets its own folder (``OUT/cp311`` ...); what is the same for all of them (pure
Python and abi3 modules) is kept once, in ``OUT/common``. The extension puts ``common`` and
its Python's folder on PYTHONPATH.
"""

from __future__ import annotations

import filecmp
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

VERSIONS = ("3.11", "3.12", "3.13")
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64", "any")


def pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--quiet", *args], check=True)


def same(a: Path, b: Path) -> bool:
    if a.is_file() or b.is_file():
        return a.is_file() and b.is_file() and filecmp.cmp(a, b, shallow=False)
    cmp = filecmp.dircmp(a, b, ignore=["__pycache__"])

    def equal(c: filecmp.dircmp[str]) -> bool:
        if c.left_only or c.right_only or c.funny_files:
            return False
        _, mismatch, errors = filecmp.cmpfiles(c.left, c.right, c.common_files, shallow=False)
        return not mismatch and not errors and all(equal(s) for s in c.subdirs.values())

    return equal(cmp)


def main(repo: Path, out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        wheels = Path(tmp) / "wheels"
        pip("wheel", "--no-deps", "-w", str(wheels), str(repo))
        wheel = next(wheels.glob("*.whl"))
        for v in VERSIONS:
            tag = "cp" + v.replace(".", "")
            platforms = [a for p in PLATFORMS for a in ("--platform", p)]
            pip(
                "install", "--target", str(out / tag), "--only-binary=:all:",
                "--python-version", v, "--implementation", "cp",
                "--abi", tag, "--abi", "abi3", "--abi", "none", *platforms, str(wheel),
            )  # fmt: skip
            shutil.rmtree(out / tag / "bin", ignore_errors=True)
    first, *rest = (out / ("cp" + v.replace(".", "")) for v in VERSIONS)
    common = out / "common"
    common.mkdir()
    for entry in sorted(first.iterdir()):
        if entry.name == "__pycache__":
            continue
        if all((r / entry.name).exists() and same(entry, r / entry.name) for r in rest):
            entry.rename(common / entry.name)
            for r in rest:
                shutil.rmtree(r / entry.name) if (r / entry.name).is_dir() else (r / entry.name).unlink()
    for d in out.rglob("__pycache__"):
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve())
