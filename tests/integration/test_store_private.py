"""The store is private (invariant 10): everything lazy writes under LAZY_HOME is 0600 in
0700 folders whatever the umask, and a store made wider before is tightened when opened, and
`lazy doctor` says so. Each step is the real `lazy` in a child process under the umask."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from store_support import Home, modes, not_private

from support import poll


@pytest.mark.parametrize("umask", [0o000, 0o022])
def test_everything_lazy_writes_is_private_whatever_the_umask(tmp: Path, umask: int) -> None:
    h = Home(tmp, umask)
    h.session(("design the zqprivate cache", "keep it small"), ("and eviction?", "lru it is"))
    h.session(("second talk about zqother", "fine"), ("more", "ok"))
    h.imported()
    assert not_private(h.lazy_home) == {}, "after import-conversation"
    h.lazy("index", "rebuild")
    assert not_private(h.lazy_home) == {}, "after index rebuild"
    p = h.lazy("search", "--all-projects", "zqprivate")
    assert "zqprivate" in p.stdout
    [first, *_] = json.loads(h.lazy("conversations", "--all-projects", "--json").stdout)["builders"]
    h.lazy("conversations", "promote", first["id"], "--from", "1", "--to", "2")
    assert not_private(h.lazy_home) == {}, "after tasks promote"
    h.lazy("import", "claude", "--include-trivial", "--include-temp-cwd")
    assert not_private(h.lazy_home) == {}, "after memory import"
    s = h.session(("a third one, captured by its hook", "captured"))
    h.hook(s)
    # a hook that cannot read its input writes hook-failures.log (it holds the hook's JSON)
    h.lazy("capture", "--hook", stdin=b"{not json")
    try:
        h.lazy("daemon", "start")
        # the daemon keeps the store open: SQLite's -wal and -shm exist, with store.db's mode
        wal = [h.lazy_home / "store.db-wal", h.lazy_home / "store.db-shm"]
        poll(lambda: all(p.exists() for p in wal), timeout=30, what="the daemon's -wal, -shm")
        assert {p.name: modes(h.lazy_home)[p.name] for p in wal} == dict.fromkeys(
            ("store.db-wal", "store.db-shm"), "0o600"
        )
    finally:
        h.stop_daemon()
    h.doctor()
    found = modes(h.lazy_home)
    for name in ("store.db", "index", "daemon.log", "daemon.json"):
        assert name in found, f"{name} was not written: {sorted(found)}"
    assert not_private(h.lazy_home) == {}, "after hook, daemon and doctor"


def test_a_store_made_readable_by_others_is_tightened_and_doctor_says_so(tmp: Path) -> None:
    h = Home(tmp)
    h.session(("tell me about zqwide", "sure"), ("again", "ok"))
    h.imported()
    h.lazy("index", "rebuild")
    # as a lazy before this one left it under a umask of 022
    for dirpath, _dirs, filenames in os.walk(h.lazy_home):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            os.chmod(Path(dirpath) / name, 0o644)
    assert not_private(h.lazy_home) != {}
    # a file of the user's own beside the store is theirs to decide: left as it is
    mine = h.lazy_home / "my-notes.txt"
    mine.write_text("mine")
    mine.chmod(0o644)
    _, checks = h.doctor()
    private = checks["Store is private"]
    assert private["status"] == "warn", private
    said = "\n".join(private["detail"])
    assert "made private" in said and "store.db" in said and "readable by other users" in said
    assert not_private(h.lazy_home) == {"my-notes.txt": "0o644"}
    # tightened once: the next doctor finds nothing to say
    _, checks = h.doctor()
    assert checks["Store is private"]["status"] == "ok", checks["Store is private"]


def test_any_command_that_opens_the_store_tightens_it_and_says_so(tmp: Path) -> None:
    h = Home(tmp)
    h.session(("zqtight words", "sure"), ("again", "ok"))
    h.imported()
    os.chmod(h.lazy_home, 0o755)
    os.chmod(h.db, 0o644)
    p = h.lazy("conversations", "--all-projects")
    assert "made private" in p.stderr
    assert modes(h.lazy_home)["."] == "0o700" and modes(h.lazy_home)["store.db"] == "0o600"
