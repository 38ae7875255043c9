"""SessionRegistry on real files: keys, path precedence, quarantine, failed writes."""

from __future__ import annotations

import errno
import json
import logging
import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import lazy.aliases.registry as registry_mod
from lazy.aliases.registry import (
    NAME_RULE,
    RegistryCorruptWarning,
    RegistryWarning,
    RegistryWriteWarning,
    SessionRegistry,
    default_session_registry,
    normalize_scope,
    set_default_session_registry,
)


@pytest.fixture
def reg(tmp_path: Path) -> SessionRegistry:
    return SessionRegistry(tmp_path / "reg" / "sessions.json")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    return r


@pytest.fixture(autouse=True)
def _strict_warnings() -> Iterator[None]:
    """A registry warning a test does not expect fails it."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RegistryWarning)
        yield


@pytest.fixture(autouse=True)
def _fresh_default() -> Iterator[None]:
    old = set_default_session_registry(None)
    yield
    set_default_session_registry(old)


def leftovers(reg: SessionRegistry) -> list[str]:
    """Files beside the registry other than itself (temp files, a lock, quarantines)."""
    d = reg.path.parent
    return sorted(p.name for p in d.iterdir() if p.name != reg.path.name) if d.exists() else []


# ---- the key ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["a", "Z", "a" * 64, "reviewer-v2", "a.b", "a-b", "a_b", "x.", "x-", "x_", "A1.2-3_4"],
)
def test_valid_names(reg: SessionRegistry, repo: Path, name: str) -> None:
    reg.bind("claude", repo, name, "nid-1")
    assert reg.resolve("claude", repo, name) == "nid-1"


@pytest.mark.parametrize(
    "name",
    [
        "",
        "a" * 65,
        "1abc",
        "_abc",
        "-abc",
        ".abc",
        "é",
        "aé",
        "Ωmega",
        "ａbc",  # a fullwidth letter
        "ab c",
        "a/b",
        "../x",
        "a\n",
        "a\x00",
    ],
)
def test_invalid_names_are_refused_everywhere(reg: SessionRegistry, repo: Path, name: str) -> None:
    calls: list[Callable[[], object]] = [
        lambda: reg.bind("claude", repo, name, "nid-1"),
        lambda: reg.resolve("claude", repo, name),
        lambda: reg.forget("claude", repo, name),
        lambda: reg.rename("claude", repo, name, "ok"),
        lambda: reg.rename("claude", repo, "ok", name),
    ]
    reg.bind("claude", repo, "ok", "nid-0")
    before = reg.path.read_bytes()
    for call in calls:
        with pytest.raises(ValueError) as e:
            call()
        assert NAME_RULE in str(e.value)
    assert reg.path.read_bytes() == before


def test_kinds(reg: SessionRegistry, repo: Path) -> None:
    for kind in ("claude", "codex", "opencode"):
        reg.bind(kind, repo, "same", f"nid-{kind}")
    # the same alias for three agents: three bindings
    assert {e.agent: e.native_id for e in reg.entries()} == {
        "claude": "nid-claude",
        "codex": "nid-codex",
        "opencode": "nid-opencode",
    }
    for bad in ("gpt", "Claude", "", "claude "):
        with pytest.raises(ValueError, match="unknown session kind"):
            reg.bind(bad, repo, "x", "nid")
        with pytest.raises(ValueError, match="unknown session kind"):
            reg.entries(agent=bad)


@pytest.mark.parametrize(
    "native_id",
    [
        "",
        "-x",
        "--dangerously-skip-permissions",
        "a b",
        "a\x00b",
        "x" * 257,
        "../../x",
        "..\\x",
        "..",
        ".hidden",
        "/abs/path",
        "a/b",
        "a\\b",
        "a\tb",
    ],
)
def test_native_ids_that_could_not_be_an_argument_are_refused(
    reg: SessionRegistry, repo: Path, native_id: str
) -> None:
    with pytest.raises(ValueError, match="invalid native id"):
        reg.bind("codex", repo, "n", native_id)
    assert not reg.path.exists()


def test_scope_is_normalised(
    reg: SessionRegistry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "work" / "repo"
    real.mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(real)
    monkeypatch.chdir(tmp_path / "work")
    reg.bind("codex", "repo", "rel", "nid-rel")  # relative to the current directory
    reg.bind("codex", str(real) + "/", "slash", "nid-slash")
    reg.bind("codex", link, "sym", "nid-sym")
    reg.bind("codex", tmp_path / "work" / "x" / ".." / "repo", "dots", "nid-dots")
    assert {e.scope for e in reg.entries()} == {real.resolve().as_posix()}
    for form in ("repo", str(real), str(real) + "/", str(link), link, f"{real}/."):
        assert reg.resolve("codex", form, "sym") == "nid-sym"
        assert len(reg.entries(scope=form)) == 4
    assert normalize_scope(real) == real.resolve().as_posix()
    with pytest.raises(ValueError, match="scope"):
        normalize_scope("")


def test_same_alias_in_two_repositories_is_two_bindings(
    reg: SessionRegistry, tmp_path: Path
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    reg.bind("claude", a, "reviewer", "nid-a")
    reg.bind("claude", b, "reviewer", "nid-b")
    assert reg.resolve("claude", a, "reviewer") == "nid-a"
    assert reg.resolve("claude", b, "reviewer") == "nid-b"
    assert reg.forget("claude", a, "reviewer")
    assert reg.resolve("claude", b, "reviewer") == "nid-b"


# ---- the seed's example, and each operation ----------------------------------------------------


def test_registry_operations_as_the_seed_shows_them(tmp_path: Path, repo: Path) -> None:
    registry = SessionRegistry(path=tmp_path / "sessions.json")
    assert registry.resolve("codex", str(repo), "reviewer") is None
    registry.bind("codex", str(repo), "reviewer", "example-native-id", model=None, effort="low")
    registry.rename("codex", str(repo), "reviewer", "reviewer-v2")
    assert registry.resolve("codex", str(repo), "reviewer-v2") == "example-native-id"
    assert len(registry.entries(agent="codex", scope=str(repo))) == 1
    assert registry.forget("codex", str(repo), "reviewer-v2")
    assert registry.entries() == []


def test_bind_records_metadata_and_rebinding_moves_the_alias(
    reg: SessionRegistry, repo: Path
) -> None:
    reg.bind("claude", repo, "r", "nid-1", model="claude-sonnet-4-5", effort="high")
    first = reg.get("claude", repo, "r")
    assert first is not None
    assert (first.native_id, first.model, first.effort) == ("nid-1", "claude-sonnet-4-5", "high")
    assert first.created_at == first.updated_at and first.created_at.endswith("Z")
    raw = reg.path.read_bytes()
    reg.bind("claude", repo, "r", "nid-1")  # nothing new: nothing written
    assert reg.path.read_bytes() == raw
    reg.bind("claude", repo, "r", "nid-2")  # Claude answered a resume with a new id
    moved = reg.get("claude", repo, "r")
    assert moved is not None
    assert (moved.native_id, moved.model, moved.effort) == ("nid-2", "claude-sonnet-4-5", "high")
    assert moved.created_at == first.created_at and moved.updated_at >= first.updated_at
    reg.bind("claude", repo, "r", "nid-2", model="claude-opus-4")
    again = reg.get("claude", repo, "r")
    assert again is not None and again.model == "claude-opus-4" and again.effort == "high"


def test_rename_errors_change_nothing(reg: SessionRegistry, repo: Path) -> None:
    reg.bind("codex", repo, "a", "nid-a")
    reg.bind("codex", repo, "b", "nid-b")
    reg.bind("claude", repo, "c", "nid-c")
    before = reg.path.read_bytes()
    with pytest.raises(KeyError, match="no codex alias 'missing'"):
        reg.rename("codex", repo, "missing", "z")
    with pytest.raises(KeyError):  # c is Claude's: for Codex it is missing
        reg.rename("codex", repo, "c", "z")
    with pytest.raises(ValueError, match="already exists"):
        reg.rename("codex", repo, "a", "b")
    with pytest.raises(ValueError, match="already exists"):
        reg.rename("codex", repo, "a", "a")
    assert reg.path.read_bytes() == before
    reg.rename("codex", repo, "a", "c")  # Claude's c is another binding
    assert reg.resolve("codex", repo, "c") == "nid-a"
    assert reg.resolve("claude", repo, "c") == "nid-c"
    assert reg.resolve("codex", repo, "a") is None
    renamed = reg.get("codex", repo, "c")
    assert renamed is not None and renamed.native_id == "nid-a"


def test_forget(reg: SessionRegistry, repo: Path) -> None:
    assert reg.forget("claude", repo, "never") is False
    assert not reg.path.exists()  # nothing to forget: nothing written
    reg.bind("claude", repo, "x", "nid")
    assert reg.forget("claude", repo, "x") is True
    assert reg.forget("claude", repo, "x") is False
    assert json.loads(reg.path.read_bytes()) == {"version": 1, "sessions": []}


def test_entries_filters_and_order(reg: SessionRegistry, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    for kind, scope, name in [
        ("opencode", b, "z"),
        ("claude", b, "m"),
        ("codex", a, "y"),
        ("claude", a, "n"),
        ("claude", a, "b"),
    ]:
        reg.bind(kind, scope, name, f"nid-{name}")
    keys = [(e.agent, Path(e.scope).name, e.name) for e in reg.entries()]
    assert keys == sorted(keys) and len(keys) == 5
    assert [e.name for e in reg.entries(agent="claude")] == ["b", "n", "m"]
    assert [e.name for e in reg.entries(scope=a)] == ["b", "n", "y"]
    assert [e.name for e in reg.entries(agent="claude", scope=b)] == ["m"]
    assert reg.entries(agent="codex", scope=b) == []
    on_disk = json.loads(reg.path.read_bytes())
    assert on_disk["version"] == 1
    assert [s["name"] for s in on_disk["sessions"]] == ["b", "n", "m", "y", "z"]
    assert set(on_disk["sessions"][0]) == {
        "kind", "scope", "name", "native_id", "model", "effort", "created_at", "updated_at"
    }  # fmt: skip


def test_missing_file_is_empty_and_the_first_bind_creates_it(tmp_path: Path, repo: Path) -> None:
    reg = SessionRegistry(tmp_path / "deep" / "er" / "sessions.json")
    assert reg.entries() == []
    assert reg.resolve("claude", repo, "x") is None
    assert not reg.path.parent.exists()  # reading creates nothing
    reg.bind("claude", repo, "x", "nid")
    assert reg.resolve("claude", repo, "x") == "nid"
    assert leftovers(reg) == []  # no temp file, no lock left behind


def test_a_symlinked_registry_is_written_through_its_link(tmp_path: Path, repo: Path) -> None:
    target = tmp_path / "dotfiles" / "sessions.json"
    target.parent.mkdir()
    target.write_text('{"version": 1, "sessions": []}')
    link = tmp_path / "home" / "sessions.json"
    link.parent.mkdir(exist_ok=True)
    link.symlink_to(target)
    SessionRegistry(link).bind("claude", repo, "x", "nid")
    assert link.is_symlink()
    assert json.loads(target.read_bytes())["sessions"][0]["native_id"] == "nid"


# ---- where the file is ---------------------------------------------------------------------------


def test_path_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo: Path) -> None:
    home = Path(os.environ["HOME"])
    assert SessionRegistry().path == home / ".lazybridge" / "sessions.json"
    env_file = tmp_path / "env" / "sessions.json"
    monkeypatch.setenv("LAZYBRIDGE_SESSIONS_FILE", str(env_file))
    assert SessionRegistry().path == env_file
    explicit = tmp_path / "explicit.json"
    assert SessionRegistry(explicit).path == explicit
    assert SessionRegistry(str(explicit)).path == explicit
    SessionRegistry().bind("claude", repo, "from-env", "nid-env")
    SessionRegistry(explicit).bind("claude", repo, "explicit", "nid-x")
    assert [e.name for e in SessionRegistry(env_file).entries()] == ["from-env"]
    assert [e.name for e in SessionRegistry(explicit).entries()] == ["explicit"]
    assert not (home / ".lazybridge").exists()
    monkeypatch.setenv("LAZYBRIDGE_SESSIONS_FILE", "")  # empty: not set
    assert SessionRegistry().path == home / ".lazybridge" / "sessions.json"


def test_default_registry_and_its_setter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAZYBRIDGE_SESSIONS_FILE", str(tmp_path / "a.json"))
    first = default_session_registry()
    assert first is default_session_registry()  # process-wide
    assert first.path == tmp_path / "a.json"
    mine = SessionRegistry(tmp_path / "private.json")
    assert set_default_session_registry(mine) is first
    assert default_session_registry() is mine
    seen: list[SessionRegistry] = []
    t = threading.Thread(target=lambda: seen.append(default_session_registry()))
    t.start()
    t.join()
    assert seen == [mine]  # every thread sees it
    assert set_default_session_registry(first) is mine
    assert default_session_registry() is first


# ---- bad files ---------------------------------------------------------------------------------


def corrupt(reg: SessionRegistry, raw: bytes) -> RegistryCorruptWarning:
    reg.path.parent.mkdir(parents=True, exist_ok=True)
    reg.path.write_bytes(raw)
    with pytest.warns(RegistryCorruptWarning) as caught:
        assert reg.entries() == []
    warning = caught[0].message
    assert isinstance(warning, RegistryCorruptWarning)
    return warning


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b'{"version": 1, "sessions": [', "not valid JSON: line 1"),
        (b"", "empty"),
        (b"   \n", "empty"),
        (b"\xff\xfe{}", "not valid JSON"),
        (b"[]", "not an object"),
        (b'{"sessions": []}', "no layout version"),
        (b'{"version": "1", "sessions": []}', "no layout version"),
        (b'{"version": 1, "sessions": {}}', "not a list"),
    ],
)
def test_a_file_that_is_not_a_registry_is_quarantined(
    reg: SessionRegistry, repo: Path, raw: bytes, reason: str
) -> None:
    w = corrupt(reg, raw)
    assert reason in w.reason and reason in str(w)
    assert w.moved_to == reg.path.with_name("sessions.json.corrupt")
    assert w.moved_to.read_bytes() == raw  # byte for byte
    assert not reg.path.exists()
    reg.bind("claude", repo, "fresh", "nid")  # the registry starts empty
    assert [e.name for e in reg.entries()] == ["fresh"]
    assert w.moved_to.read_bytes() == raw


def test_a_second_corruption_gets_a_timestamped_name(
    reg: SessionRegistry, repo: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = b'{"version": 1, "sessions": [{"kind": "claude"'
    second = b"\x00\x00 garbage"
    with caplog.at_level(logging.WARNING, logger="lazy.aliases.registry"):
        w1 = corrupt(reg, first)
        reg.bind("claude", repo, "between", "nid")
        w2 = corrupt(reg, second)
    assert w1.moved_to is not None and w2.moved_to is not None
    assert w1.moved_to.name == "sessions.json.corrupt"
    assert w2.moved_to.name.startswith("sessions.json.corrupt.")
    assert w2.moved_to.name[len("sessions.json.corrupt.") :].endswith("Z")
    assert w1.moved_to.read_bytes() == first  # never overwritten
    assert w2.moved_to.read_bytes() == second
    assert str(w2.moved_to) in caplog.text  # logged as well as warned
    third = b"{"
    w3 = corrupt(reg, third)
    assert w3.moved_to is not None
    assert len({w1.moved_to, w2.moved_to, w3.moved_to}) == 3
    assert [p.read_bytes() for p in (w1.moved_to, w2.moved_to, w3.moved_to)] == [
        first,
        second,
        third,
    ]


def test_a_write_quarantines_a_bad_file_before_writing(reg: SessionRegistry, repo: Path) -> None:
    reg.path.parent.mkdir(parents=True)
    reg.path.write_bytes(b"not json")
    with pytest.warns(RegistryCorruptWarning):
        reg.bind("claude", repo, "x", "nid")
    assert reg.path.with_name("sessions.json.corrupt").read_bytes() == b"not json"
    assert [e.name for e in reg.entries()] == ["x"]


def test_unusable_entries_are_skipped_and_kept(reg: SessionRegistry, repo: Path) -> None:
    good = {
        "kind": "claude",
        "scope": repo.resolve().as_posix(),
        "name": "good",
        "native_id": "nid-good",
        "model": None,
        "effort": None,
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z",
    }
    bad = [
        {**good, "name": "1bad"},
        {**good, "kind": "gemini"},
        {**good, "scope": "relative/path"},
        "just a string",
        {**good, "model": 7},
    ]
    reg.path.parent.mkdir(parents=True)
    reg.path.write_bytes(
        json.dumps({"version": 1, "sessions": [good, *bad], "note": "mine"}).encode()
    )
    with pytest.warns(RegistryWarning) as caught:
        assert [e.name for e in reg.entries()] == ["good"]
    said = " | ".join(str(w.message) for w in caught)
    assert "entry 2 of sessions" in said and "entry 6 of sessions" in said
    assert str(reg.real_path) in said
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RegistryWarning)  # reported once already
        reg.bind("claude", repo, "new", "nid-new")
    data = json.loads(reg.path.read_bytes())
    assert data["note"] == "mine"
    assert [s["name"] for s in data["sessions"] if s not in bad] == ["good", "new"]
    assert [s for s in data["sessions"] if s in bad] == bad  # written back as they were
    assert not reg.path.with_name("sessions.json.corrupt").exists()


def test_a_file_of_a_later_layout_is_read_but_never_written(
    reg: SessionRegistry, repo: Path
) -> None:
    entry = {
        "kind": "codex",
        "scope": repo.resolve().as_posix(),
        "name": "future",
        "native_id": "nid-f",
        "model": None,
        "effort": None,
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z",
    }
    reg.path.parent.mkdir(parents=True)
    raw = json.dumps({"version": 2, "sessions": [entry]}).encode()
    reg.path.write_bytes(raw)
    assert reg.resolve("codex", repo, "future") == "nid-f"
    with pytest.warns(RegistryWriteWarning, match="layout version 2"):
        reg.bind("codex", repo, "other", "nid-o")
    assert reg.path.read_bytes() == raw


# ---- failed writes -------------------------------------------------------------------------------


class Flaky:
    """Wraps an os function to fail with ``err`` on call numbers in ``failing``."""

    def __init__(self, real: Callable[..., Any], err: int, failing: Callable[[int], bool]):
        self.real = real
        self.err = err
        self.failing = failing
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.failing(self.calls):
            raise OSError(self.err, os.strerror(self.err))
        return self.real(*args, **kwargs)


@pytest.mark.parametrize("target", ["replace", "fsync"])
def test_a_write_failing_once_is_reported_and_the_next_one_lands(
    reg: SessionRegistry,
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    target: str,
) -> None:
    reg.bind("claude", repo, "old", "nid-old")
    before = reg.path.read_bytes()
    flaky = Flaky(getattr(os, target), errno.ENOSPC, lambda n: n == 1)
    monkeypatch.setattr(os, target, flaky)
    with (
        caplog.at_level(logging.WARNING, logger="lazy.aliases.registry"),
        pytest.warns(RegistryWriteWarning) as caught,
    ):
        reg.bind("claude", repo, "new", "nid-new")  # never raises
    w = caught[0].message
    assert isinstance(w, RegistryWriteWarning)
    assert w.code == "ENOSPC" and isinstance(w.error, OSError)
    assert "bind 'new'" in str(w) and str(reg.real_path) in str(w) and "[ENOSPC]" in str(w)
    assert str(w) in caplog.text
    assert reg.path.read_bytes() == before  # the old file, whole
    assert leftovers(reg) == []  # the temp file is gone, the lock released
    reg.bind("claude", repo, "new", "nid-new")
    assert reg.resolve("claude", repo, "new") == "nid-new"
    assert flaky.calls >= 2


@pytest.mark.parametrize("target", ["replace", "fsync"])
def test_a_write_failing_every_time_leaves_the_old_file(
    reg: SessionRegistry, repo: Path, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    reg.bind("claude", repo, "a", "nid-a")
    before = reg.path.read_bytes()
    monkeypatch.setattr(os, target, Flaky(getattr(os, target), errno.EIO, lambda n: True))
    with pytest.warns(RegistryWriteWarning) as caught:
        reg.bind("claude", repo, "b", "nid-b")
        reg.rename("claude", repo, "a", "c")
        assert reg.forget("claude", repo, "a") is False
    assert [getattr(w.message, "code", None) for w in caught] == ["EIO"] * 3
    assert reg.path.read_bytes() == before
    assert leftovers(reg) == []
    assert reg.resolve("claude", repo, "a") == "nid-a"
    # and rename's own errors still reach the caller before any write
    with pytest.raises(KeyError):
        reg.rename("claude", repo, "missing", "x")


def test_a_failing_directory_fsync_leaves_a_whole_new_file(
    reg: SessionRegistry, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reg.bind("claude", repo, "a", "nid-a")
    # the second fsync of a write is the folder's, after the rename: the file is new and
    # whole, and the caller still hears the rename may not be durable
    monkeypatch.setattr(os, "fsync", Flaky(os.fsync, errno.EIO, lambda n: n == 2))
    with pytest.warns(RegistryWriteWarning, match="EIO"):
        reg.bind("claude", repo, "b", "nid-b")
    assert {e.name for e in reg.entries()} == {"a", "b"}
    assert leftovers(reg) == []


def test_a_full_disk_in_a_real_process_loses_nothing(tmp_path: Path, repo: Path) -> None:
    """RLIMIT_FSIZE makes the temp file's write fail with EFBIG, as a full disk would."""
    path = tmp_path / "reg" / "sessions.json"
    reg = SessionRegistry(path)
    reg.bind("claude", repo, "kept", "nid-kept")
    before = path.read_bytes()
    program = f"""
import resource, signal, warnings
from lazy.aliases.registry import SessionRegistry, RegistryWriteWarning
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, ({len(before) + 50}, {len(before) + 50}))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    SessionRegistry({str(path)!r}).bind("claude", {str(repo)!r}, "big" + "x" * 60, "nid-" + "y" * 200)
print([(w.message.code, type(w.message).__name__) for w in caught])
"""
    p = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[('EFBIG', 'RegistryWriteWarning')]"
    assert path.read_bytes() == before
    assert leftovers(reg) == []


def test_threads_in_one_process_lose_no_binding(tmp_path: Path, repo: Path) -> None:
    path = tmp_path / "sessions.json"
    errors: list[BaseException] = []

    def work(t: int) -> None:
        reg = SessionRegistry(path)  # one registry per thread: they share the file's lock
        try:
            for i in range(25):
                reg.bind("codex", repo, f"t{t}n{i}", f"nid-{t}-{i}")
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    got = {e.name: e.native_id for e in SessionRegistry(path).entries()}
    assert got == {f"t{t}n{i}": f"nid-{t}-{i}" for t in range(6) for i in range(25)}


def test_the_layout_is_documented_in_the_module() -> None:
    doc = registry_mod.__doc__ or ""
    for field in ('"version": 1', '"sessions"', "native_id", "created_at", "updated_at"):
        assert field in doc
