"""The sidecar's start-up cache of attrs' generated lsprotocol code (lazy.server.startup):
each run in a fresh interpreter, as the extension starts the sidecar."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PROBE = """
import builtins, json
real = builtins.compile
from lazy.server.startup import attrs_code_cache
with attrs_code_cache() as c:
    import lsprotocol.types as t
    other = eval(compile("6 * 7", "<probe>", "eval"))
p = t.Position(line=1, character=2)
try:
    t.Position(line=1)
    missing = None
except TypeError as e:
    missing = str(e)
print(json.dumps({
    "hits": c.hits, "compiled": c.compiled, "path": str(c.path), "repr": repr(p),
    "eq": p == t.Position(1, 2), "ne": p != t.Position(1, 3), "missing": missing,
    "other": other, "restored": builtins.compile is real,
}))
"""


def probe(cache_home: Path) -> dict[str, Any]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def same_behaviour(a: dict[str, Any], b: dict[str, Any]) -> None:
    for key in ("repr", "eq", "ne", "missing", "other", "restored"):
        assert a[key] == b[key], key
    assert a["repr"] == "1:2"  # lsprotocol's own __repr__ of a Position
    assert a["eq"] and a["ne"] and "character" in a["missing"]
    assert a["other"] == 42 and a["restored"]


def test_a_second_start_reuses_every_compiled_method(tmp_path: Path) -> None:
    first = probe(tmp_path)
    assert first["hits"] == 0 and first["compiled"] > 500
    cache = Path(first["path"])
    assert cache.parent == tmp_path / "lazy" and cache.is_file()
    second = probe(tmp_path)
    assert second["hits"] == first["compiled"] and second["compiled"] == 0
    same_behaviour(first, second)
    assert [p.name for p in cache.parent.iterdir()] == [cache.name]  # no temp file left


def test_a_corrupt_cache_is_compiled_afresh_and_replaced(tmp_path: Path) -> None:
    cache = Path(probe(tmp_path)["path"])
    good = cache.read_bytes()
    cache.write_bytes(good[: len(good) // 2])  # cut short, as by a crash mid-write elsewhere
    again = probe(tmp_path)
    assert again["hits"] == 0 and again["compiled"] > 500
    same_behaviour(again, probe(tmp_path))
    assert probe(tmp_path)["compiled"] == 0


def test_an_unwritable_cache_only_costs_time(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the cache dir would be")
    first = probe(blocked)
    assert first["compiled"] > 500
    same_behaviour(first, probe(blocked))
    assert probe(blocked)["hits"] == 0  # nothing could be kept
