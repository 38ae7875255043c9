"""The sidecar's start-up time: the extension waits for it on every window.

Importing pygls imports ``lsprotocol.types``, whose ~550 attrs classes each have their
methods generated as source and compiled when the module loads: a third of the sidecar's
start-up. The compiled code objects are kept (marshal, one file per Python version) and
reused whenever the same source comes again; anything else is compiled as usual.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import marshal
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Any

# Only lsprotocol's classes: attrs' own (validators, Attribute) put a per-process hash seed
# into their source, so they would never be found again.
_GENERATED = "<attrs generated"
_MODULE = " lsprotocol."


def cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lazy" / f"attrs-code.{sys.implementation.cache_tag}.marshal"


@dataclass
class CodeCache:
    path: Path
    hits: int = 0
    compiled: int = 0


def _load(path: Path) -> dict[bytes, CodeType]:
    try:
        loaded = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return {}  # none yet, or unreadable: compiled afresh and written again
    if not isinstance(loaded, dict):
        return {}
    return {k: v for k, v in loaded.items() if isinstance(k, bytes) and isinstance(v, CodeType)}


def _save(path: Path, codes: dict[bytes, CodeType]) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(marshal.dumps(codes))
        tmp.replace(path)  # whole or not at all, whoever else writes it at the same time
    except OSError:  # a read-only home: start-up is only slower
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


@contextmanager
def attrs_code_cache(path: Path | None = None) -> Iterator[CodeCache]:
    """While the block runs (single-threaded: imports), attrs' generated lsprotocol code
    comes from the cache at ``path``; what had to be compiled is added to it after."""
    stats = CodeCache(path or cache_file())
    cached = _load(stats.path)
    used: dict[bytes, CodeType] = {}
    real = builtins.compile

    def compile_cached(source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
        if (
            args
            or kwargs
            or not isinstance(source, str)
            or not isinstance(filename, str)
            or not filename.startswith(_GENERATED)
            or _MODULE not in filename
        ):
            return real(source, filename, mode, *args, **kwargs)
        key = hashlib.blake2b(f"{filename}\0{mode}\0{source}".encode(), digest_size=16).digest()
        code = cached.get(key)
        if code is None:
            code = real(source, filename, mode)
            stats.compiled += 1
        else:
            stats.hits += 1
        used[key] = code
        return code

    builtins.compile = compile_cached
    try:
        yield stats
    finally:
        builtins.compile = real
        if stats.compiled:
            _save(stats.path, used)  # this run's set: what a lsprotocol upgrade left goes
