"""An agent image for the tests, assembled from this machine's files and `docker import`ed
(the registry is unreachable, so the shipped Dockerfile cannot be built here).

It holds what the shipped image holds, as far as a one-shot is concerned: the real `claude`
binary from npm (tests/agents/node_modules), socat (the forwarder to the proxy socket), a
shell and `timeout` for the shipped entry script lazy/ask/image/lazy-oneshot, the shared
libraries they load, and the unprivileged user.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

from lazy.ask import engine

REPO = Path(__file__).resolve().parents[2]
CLAUDE = REPO / "tests/agents/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
ENTRY = REPO / "sidecar/lazy/ask/image/lazy-oneshot"
HOST_TOOLS = ("socat", "sh", "timeout")


def missing_pieces() -> list[str]:
    out = [f"the claude binary at {CLAUDE}"] if not CLAUDE.is_file() else []
    out += [f"{t} on PATH (apt-get install socat)" for t in HOST_TOOLS if not shutil.which(t)]
    return out


def _libraries(binary: str) -> set[str]:
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=False).stdout
    found = set()
    for line in out.splitlines():
        m = re.search(r"(/\S+)\s+\(0x", line)
        if m:
            found.add(m.group(1))
    return found


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    tar.addfile(info, io.BytesIO(data))


def _add_dir(tar: tarfile.TarFile, name: str, mode: int = 0o755) -> None:
    info = tarfile.TarInfo(name)
    info.type, info.mode = tarfile.DIRTYPE, mode
    tar.addfile(info)


def build_rootfs_tar(dest: Path) -> Path:
    binaries = {"usr/local/bin/claude": str(CLAUDE)}
    for tool in HOST_TOOLS:
        path = shutil.which(tool)
        assert path is not None
        binaries[f"usr/bin/{tool}"] = str(Path(path).resolve())
    libraries: set[str] = set()
    for source in binaries.values():
        libraries |= _libraries(source)
    with tarfile.open(dest, "w") as tar:
        names = [*binaries, *(lib.lstrip("/") for lib in libraries), "bin/sh", "etc/passwd"]
        # every parent explicitly: docker import makes missing ones unreadable to the user
        parents = {str(p) for n in names for p in Path(n).parents if str(p) != "."}
        for d in sorted(parents):
            _add_dir(tar, d)
        _add_dir(tar, "tmp", 0o1777)
        for name, source in binaries.items():
            tar.add(source, arcname=name)
        tar.add(str(ENTRY), arcname="usr/local/bin/lazy-oneshot")
        link = tarfile.TarInfo("bin/sh")
        link.type, link.linkname = tarfile.SYMTYPE, "/usr/bin/sh"
        tar.addfile(link)
        for lib in sorted(libraries):
            # resolve symlinks: the loader looks the library up by the name ldd printed
            tar.add(str(Path(lib).resolve()), arcname=lib.lstrip("/"))
        passwd = "root:x:0:0:root:/root:/bin/sh\nlazy:x:65532:65532:lazy:/home/lazy:/bin/sh\n"
        _add_bytes(tar, "etc/passwd", passwd.encode())
        _add_bytes(tar, "etc/group", b"root:x:0:\nlazy:x:65532:\n")
    return dest


def import_image(docker_env: dict[str, str], workdir: Path, tag: str = engine.IMAGE) -> str:
    tar = build_rootfs_tar(workdir / "agent-rootfs.tar")
    try:
        subprocess.run(
            [
                "docker",
                "import",
                "--change",
                'ENTRYPOINT ["/usr/local/bin/lazy-oneshot"]',
                "--change",
                "USER 65532:65532",
                "--change",
                "LABEL lazy.agent-image=1",
                str(tar),
                tag,
            ],
            env=docker_env,
            check=True,
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        tar.unlink()
    return tag
