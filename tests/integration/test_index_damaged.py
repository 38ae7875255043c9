"""A damaged search index is found out, never read as if whole. Bytes in the middle of a
segment file are flipped on disk (the footer Tantivy checks on open left as it was, so
Tantivy itself opens the segment and answers from the damaged bytes, or panics); `lazy
doctor` says the index is damaged and to rebuild it, and `lazy search` rebuilds it from the
store before answering, so its answer is the whole one, and says why."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import orjson
import pytest
from store_support import Home

from support.search import REBUILDING, write_sessions

INDEX = "Search index is caught up"
# the files whose damage Tantivy opens without a word (or panics on); a damaged .idx or .store
# it notices itself when opening them, and that path is test_search_index's
COMPONENTS = (".term", ".pos", ".fast", ".fieldnorm")


def segment_files(index: Path) -> list[Path]:
    """The files of the segments the index's last commit names."""
    meta = orjson.loads((index / "meta.json").read_bytes())
    ids = [s["segment_id"].replace("-", "") for s in meta["segments"]]
    return [f for f in index.iterdir() if f.name.split(".")[0] in ids]


def flip_body(f: Path) -> None:
    """Flip 32 bytes a third of the way into the file's body; its footer stays."""
    data = bytearray(f.read_bytes())
    (length,) = struct.unpack("<I", data[-8:-4])
    body = len(data) - 8 - length
    at = body // 3
    for i in range(at, min(at + 32, body)):
        data[i] ^= 0xFF
    f.write_bytes(bytes(data))


@pytest.fixture
def home(tmp: Path) -> Home:
    h = Home(tmp)
    write_sessions(h.projects, "ix", sessions=6, turns=20, cwd="/w/privateproj")
    h.imported()
    h.lazy("index", "rebuild")
    return h


def hits(h: Home, *words: str) -> int:
    p = h.lazy("search", "--all-projects", "--json", *words)
    return int(json.loads(p.stdout)["total_hits"])


@pytest.mark.parametrize("component", COMPONENTS)
def test_a_damaged_segment_file_is_found_and_never_searched(home: Home, component: str) -> None:
    words = ("parser", "OR", "tests")
    whole = hits(home, *words)
    assert whole == 240
    index = home.lazy_home / "index"
    damaged = [f for f in segment_files(index) if f.name.endswith(component)]
    assert damaged, sorted(p.name for p in index.iterdir())
    for f in damaged:
        flip_body(f)

    _, checks = home.doctor()
    check = checks[INDEX]
    assert check["status"] == "warn", check
    said = " ".join(check["detail"])
    assert "damaged" in said or "could not be opened" in said, said
    assert check["fix"] == "lazy index rebuild"

    p = home.lazy("search", "--all-projects", "--json", *words)
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr, p.stderr
    assert REBUILDING in p.stderr, p.stderr
    assert json.loads(p.stdout)["total_hits"] == whole  # the whole answer, from the store
    _, checks = home.doctor()
    assert checks[INDEX]["status"] == "ok", checks[INDEX]


def test_doctor_compares_the_index_with_the_store(home: Home) -> None:
    index = home.lazy_home / "index"
    meta = orjson.loads((index / "meta.json").read_bytes())
    # as if documents had gone missing: the last commit names fewer documents than it has
    home.session(("one more zqcounted conversation", "yes"), ("and more", "ok"))
    home.imported()
    hits(home, "zqcounted")  # indexed by the search
    (index / "meta.json").write_bytes(orjson.dumps(meta))  # the commit before that one
    _, checks = home.doctor()
    check = checks[INDEX]
    assert check["status"] == "warn", check
    assert "the index holds 240 message(s), the store 244" in check["detail"][0], check
    assert check["fix"] == "lazy index rebuild"
    home.lazy("index", "rebuild")
    _, checks = home.doctor()
    assert checks[INDEX]["status"] == "ok", checks[INDEX]
