"""`lazy builder`'s report of capture failures (lazy.capture.terminal_session): each distinct
reason once, at most five then how many more, each with its machine detail."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fabricate.claude import Session
from lazy.capture.terminal_session import Failure, Supervisor, report


def test_seven_reasons_show_five_then_say_how_many_more(tmp_path: Path) -> None:
    log = tmp_path / "builder" / "run.log"
    failures = [Failure(f"reason number {i}", f"CODE{i}", f"detail {i}") for i in range(7)]
    text = report(failures, log)
    for i in range(5):
        assert f"[builder] reason number {i} [CODE{i}] (underlying error: detail {i})" in text
    assert "reason number 5" not in text and "reason number 6" not in text
    assert f"… and 2 more reason(s) not shown; the full list is in {log}" in text
    assert text.splitlines()[-2:] == [
        "Check `lazy daemon status`, then `lazy doctor` for details.",
        "`lazy doctor --reimport-conversations` can re-import from the session files on disk.",
    ]
    assert report(failures[:5], log).count("more reason(s) not shown") == 0
    assert report([], log) == ""


def test_long_reasons_wrap_under_their_bullet(tmp_path: Path) -> None:
    f = Failure("Incremental capture failed: " + "word " * 40, "SQLITE_BUSY")
    lines = report([f], tmp_path / "x.log").splitlines()
    bullet = [ln for ln in lines if ln.startswith("  ")]
    assert bullet[0].startswith("  [builder] Incremental capture failed:")
    assert all(len(ln) <= 80 for ln in bullet)
    assert all(ln.startswith("    ") for ln in bullet[1:]) and len(bullet) > 2


def test_a_reason_that_recurs_is_kept_once_and_logged_each_time(tmp_path: Path) -> None:
    home = tmp_path / "lazy"
    (home / "store.db").mkdir(parents=True)  # the store cannot be opened
    sup = Supervisor(home, str(tmp_path / "repo"), 0.0, home / "builder" / "run.log")
    for _ in range(3):
        sup.tick()
    assert sup.recurrences == 3 and len(sup.failures) == 1
    (f,) = sup.failures.values()
    assert f.code == "SQLITE_CANTOPEN" and f"cannot open {home / 'store.db'}" in f.reason
    assert sup.log_path.read_text().count("[SQLITE_CANTOPEN]") == 3


def test_the_launched_session_is_never_a_one_shot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    projects = tmp_path / "claude" / "projects"
    real = Session(projects, str(repo))
    real.turn("the real work", "done")
    oneshot = Session(projects, str(repo))
    oneshot.turn("[lazy:one-shot v1]\nSummarise the diff", "summary")
    unreadable = projects / real.path.parent.name / "0000dead-0000-4000-8000-000000000000.jsonl"
    sup = Supervisor(tmp_path / "lazy", str(repo), 0.0, tmp_path / "run.log")
    for age, path in ((30, real.path), (10, oneshot.path)):
        os.utime(path, (1_900_000_000 - age, 1_900_000_000 - age))
    assert sup.launched_session() == real.id  # the newer one-shot is passed over
    unreadable.write_bytes(b"\xff\xfe not json at all\n")
    os.utime(unreadable, (1_900_000_000, 1_900_000_000))
    assert sup.launched_session() == unreadable.stem  # unreadable: counted as a real session
