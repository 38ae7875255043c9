"""`lazy ask`: transcripts split into excerpts at message boundaries, the map and reduce
passes and their failure rules, and the command line.

Transcripts are real: Claude Code sessions written to disk and captured into a real store.
The one double is the model: a scripted one-shot that returns canned answers or raises.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import orjson
import pytest
from click.testing import CliRunner

from fabricate.claude import Session
from lazy.ask.ask import NOTHING, AskError, ask_transcript
from lazy.ask.chunks import ARG_LIMIT, BUDGET, render, size, split
from lazy.ask.oneshot import OneShotError, OneShotTimeout, OneShotUnavailable
from lazy.capture.reread import reread
from lazy.capture.source_file import capture_file
from lazy.cli.main import cli
from lazy.model import ONESHOT_MARKER, Transcript
from lazy.store import Store
from lazy.store.queries import resolve_builder
from lazy.view.reading import transcript

KIB = 1024
TS_LEN = len("2026-11-01T10:00:00.000Z")


def _overhead(number: int, role: str) -> int:
    """Bytes the rendering adds around a message's text (see chunks.render_message)."""
    return size(f"--- message #{number} · {role} · {'x' * TS_LEN} ---\n\n\n")


def _filler(n: int, rng: random.Random) -> str:
    """``n`` bytes of words, a few of them not ASCII so sizes are counted in UTF-8."""
    words: list[str] = []
    used = 0
    while used < n:
        w = rng.choice(["retention", "index", "tantivy", "café", "schema", "naïve", "merge"])
        words.append(w)
        used += size(w) + 1
    text = " ".join(words)
    raw = text.encode()[:n].decode(errors="ignore")
    return raw + "." * (n - size(raw))


def conversation(
    store: Store,
    projects: Path,
    target: int,
    sizes: Callable[[random.Random], int] = lambda r: 1000,
    session_id: str | None = None,
) -> Transcript:
    """A Claude Code session whose transcript renders to exactly ``target`` bytes, captured
    into ``store``; message texts are ``sizes()`` bytes long, the last one fills the gap."""
    rng = random.Random(target)
    ses = Session(projects, "/w/askproj", session_id=session_id)
    total, number = 0, 0
    while True:
        n = sizes(rng)
        # the next turn and a closing turn of at least 100 bytes must still fit
        need = _overhead(number + 1, "user") + n + _overhead(number + 2, "assistant") + n
        closing = _overhead(number + 3, "user") + 1 + _overhead(number + 4, "assistant") + 100
        if total + need + closing > target:
            break
        ses.turn(_filler(n, rng), _filler(n, rng))
        total += need
        number += 2
    total += _overhead(number + 1, "user") + 1 + _overhead(number + 2, "assistant")
    ses.turn("?", _filler(target - total, rng))
    capture_file(store, ses.path)
    t = transcript(store.conn, resolve_builder(store.conn, ses.id))
    assert sum(size(p.text) for p in render(t)) == target
    return t


class Scripted:
    """The model, scripted: ``answer(kind, index, prompt)`` gives the text or raises.
    ``kind`` is whole, map or reduce; ``index`` the excerpt number of a map."""

    def __init__(self, answer: Callable[[str, int, str], str]) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    def check(self) -> None:
        """Everything a one-shot needs is here: the model is scripted."""

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        m = re.search(r"Below is excerpt (\d+) of", prompt)
        if m:
            return self.answer("map", int(m.group(1)), prompt)
        if "Below are the notes" in prompt:
            return self.answer("reduce", 0, prompt)
        return self.answer("whole", 0, prompt)

    def kinds(self) -> list[str]:
        out = []
        for p in self.prompts:
            if "Below is excerpt" in p:
                out.append("map")
            elif "Below are the notes" in p:
                out.append("reduce")
            else:
                out.append("whole")
        return out


def notes_or_none(relevant: set[int]) -> Callable[[str, int, str], str]:
    def answer(kind: str, i: int, prompt: str) -> str:
        if kind == "map":
            return f"excerpt {i}: we kept everything (#{i})" if i in relevant else "NONE"
        return "We decided to keep everything."

    return answer


def _prompts_are_marked(run: Scripted) -> None:
    assert run.prompts
    for p in run.prompts:
        assert p.startswith(ONESHOT_MARKER)
        assert "Nothing you write is written back" in p
        assert size(p) <= ARG_LIMIT


# ---- splitting -------------------------------------------------------------------------------


@pytest.mark.parametrize(("kib", "chunks"), [(10, 1), (95, 1), (97, 2)])
def test_transcript_sizes_around_the_budget(
    store: Store, projects: Path, kib: int, chunks: int
) -> None:
    t = conversation(store, projects, kib * KIB)
    parts = split(render(t))
    assert len(parts.excerpts) == chunks
    assert parts.warnings == []
    assert all(e.bytes <= BUDGET for e in parts.excerpts)
    assert "".join(e.text for e in parts.excerpts) == "".join(p.text for p in render(t))
    run = Scripted(notes_or_none({1, 2}))
    result = ask_transcript(t, "what did we decide?", run)
    assert result.chunks == chunks
    assert run.kinds() == (["whole"] if chunks == 1 else ["map"] * chunks + ["reduce"])
    assert result.answer == "We decided to keep everything."
    _prompts_are_marked(run)
    if chunks == 1:  # the whole transcript, once
        assert "".join(p.text for p in render(t)) in run.prompts[0]


def test_five_mib_splits_into_consecutive_excerpts_of_whole_messages(
    store: Store, projects: Path
) -> None:
    t = conversation(store, projects, 5 * KIB * KIB, sizes=lambda r: r.randint(50, 30_000))
    pieces = render(t)
    parts = split(pieces)
    assert len(parts.excerpts) >= 5 * KIB * KIB // BUDGET
    assert parts.warnings == []
    assert all(0 < e.bytes <= BUDGET and e.bytes == size(e.text) for e in parts.excerpts)
    # consecutive and complete: every message once, in order, none split across excerpts
    assert [p for e in parts.excerpts for p in e.pieces] == pieces
    assert [p.label for p in pieces] == [f"#{n}" for n in range(1, len(t.messages) + 1)]
    assert "".join(e.text for e in parts.excerpts) == "".join(p.text for p in pieces)
    # packed: the next message would not have fit in the excerpt before it
    for before, after in zip(parts.excerpts, parts.excerpts[1:], strict=False):
        assert before.bytes + size(after.pieces[0].text) > BUDGET
    run = Scripted(notes_or_none({3, 7}))
    result = ask_transcript(t, "what did we decide?", run)
    assert (result.chunks, result.relevant_chunks) == (len(parts.excerpts), 2)
    maps = [p for p in run.prompts if "Below is excerpt" in p]
    for i, (prompt, excerpt) in enumerate(zip(maps, parts.excerpts, strict=True), 1):
        assert f"excerpt {i} of {len(parts.excerpts)} (messages {excerpt.span})" in prompt
        assert excerpt.text in prompt
    reduce = run.prompts[-1]
    assert "excerpt 3: we kept everything (#3)" in reduce and "excerpt 7:" in reduce
    assert "NONE" not in reduce.split("<notes>")[1]
    _prompts_are_marked(run)


def test_a_message_larger_than_the_budget_is_cut_and_warned_about(
    store: Store, projects: Path
) -> None:
    ses = Session(projects, "/w/askproj")
    big = "start of the log " + "x" * (200 * KIB) + " end of the log"
    ses.turn("paste the build log", big)
    ses.turn("so what failed?", "the linker")
    capture_file(store, ses.path)
    t = transcript(store.conn, resolve_builder(store.conn, ses.id))
    parts = split(render(t))
    assert [e.span for e in parts.excerpts] == ["#1", "#2", "#3 to #4"]
    cut = parts.excerpts[1]
    assert cut.bytes == size(cut.text) <= BUDGET
    whole = size(render(t)[1].text)
    kept = cut.text.split("\n[… message #2 cut here")[0]
    assert kept.endswith("x") and "start of the log" in kept and "end of the log" not in kept
    left = whole - size(kept)
    assert f"{left:,} of {whole:,} bytes left out" in cut.text
    assert parts.warnings == [
        f"message #2 is too large to pass whole ({whole:,} bytes): only its first"
        f" {size(kept):,} bytes were read, {left:,} bytes were left out [MESSAGE_CUT]"
    ]
    run = Scripted(notes_or_none({2}))
    result = ask_transcript(t, "what failed?", run)
    assert result.warnings == parts.warnings
    assert (result.chunks, result.relevant_chunks) == (3, 1)
    _prompts_are_marked(run)


# ---- map and reduce: what fails how -----------------------------------------------------------


@pytest.fixture
def three(store: Store, projects: Path) -> Transcript:
    t = conversation(store, projects, 250 * KIB)
    assert len(split(render(t)).excerpts) == 3
    return t


def test_a_failed_excerpt_is_a_warning_and_the_answer_still_comes(three: Transcript) -> None:
    def answer(kind: str, i: int, prompt: str) -> str:
        if kind == "map" and i == 2:
            raise OneShotTimeout("killed after 10 minutes", "ONESHOT_TIMEOUT", "600s")
        return notes_or_none({1, 3})(kind, i, prompt)

    run = Scripted(answer)
    result = ask_transcript(three, "what did we decide?", run)
    assert result.answer == "We decided to keep everything."
    assert (result.chunks, result.relevant_chunks) == (3, 2)
    [warning] = result.warnings
    assert warning.startswith("excerpt 2 of 3 (messages #")
    assert "timed out: killed after 10 minutes [ONESHOT_TIMEOUT: 600s]" in warning
    assert run.kinds() == ["map", "map", "map", "reduce"]


def test_every_excerpt_failing_fails_the_ask(three: Transcript) -> None:
    def answer(kind: str, i: int, prompt: str) -> str:
        if kind == "map":
            raise OneShotError("no container", "DOCKER_UNAVAILABLE", "socket missing")
        return "a confident answer from nothing"

    run = Scripted(answer)
    with pytest.raises(AskError) as caught:
        ask_transcript(three, "what did we decide?", run)
    assert caught.value.code == "ALL_EXCERPTS_FAILED"
    assert "every excerpt failed to read (3 of 3)" in str(caught.value)
    assert "DOCKER_UNAVAILABLE: socket missing" in str(caught.value)
    assert len(caught.value.warnings) == 3
    assert run.kinds() == ["map"] * 3  # no reduce from nothing


def test_a_one_shot_that_cannot_run_here_stops_the_ask_at_once(three: Transcript) -> None:
    """No credential, no Docker, no image: every excerpt would fail alike, so the first
    failure is the ask's, in its own words, and no later excerpt is tried."""

    def answer(kind: str, i: int, prompt: str) -> str:
        if i == 2:
            raise OneShotUnavailable("Docker went away: start it", "docker-unavailable", "gone")
        return "notes"

    run = Scripted(answer)
    with pytest.raises(AskError) as caught:
        ask_transcript(three, "what?", run)
    assert caught.value.message == "Docker went away: start it"
    assert (caught.value.code, caught.value.detail) == ("docker-unavailable", "gone")
    assert caught.value.warnings == []
    assert run.kinds() == ["map", "map"]  # excerpt 3 and the final pass never tried


@pytest.mark.parametrize(
    "error",
    [
        OneShotError("the API answered 500", "ONESHOT_FAILED", "HTTP 500"),
        OneShotTimeout("killed after 10 minutes", "ONESHOT_TIMEOUT", "600s"),
    ],
)
def test_a_failed_final_pass_fails_the_ask(three: Transcript, error: OneShotError) -> None:
    def answer(kind: str, i: int, prompt: str) -> str:
        if kind == "reduce":
            raise error
        return notes_or_none({1, 2, 3})(kind, i, prompt)

    with pytest.raises(AskError) as caught:
        ask_transcript(three, "what did we decide?", Scripted(answer))
    assert caught.value.code == error.code
    assert caught.value.detail == error.detail
    how = "timed out" if isinstance(error, OneShotTimeout) else "failed"
    assert f"the final pass, which writes the answer from the findings of 3 excerpt(s), {how}" in (
        str(caught.value)
    )


def test_a_failed_single_pass_fails_the_ask(store: Store, projects: Path) -> None:
    t = conversation(store, projects, 10 * KIB)

    def answer(kind: str, i: int, prompt: str) -> str:
        raise OneShotTimeout("killed after 10 minutes", "ONESHOT_TIMEOUT", "600s")

    with pytest.raises(AskError) as caught:
        ask_transcript(t, "q?", Scripted(answer))
    assert caught.value.code == "ONESHOT_TIMEOUT"
    assert str(caught.value) == "the ask timed out: killed after 10 minutes [ONESHOT_TIMEOUT: 600s]"


def test_no_relevant_excerpt_answers_so_without_a_final_pass(three: Transcript) -> None:
    run = Scripted(notes_or_none(set()))
    result = ask_transcript(three, "what about the moon?", run)
    assert (result.answer, result.chunks, result.relevant_chunks) == (NOTHING, 3, 0)
    assert run.kinds() == ["map"] * 3


def test_findings_that_do_not_fit_the_final_pass_are_dropped_with_a_warning(
    three: Transcript,
) -> None:
    def answer(kind: str, i: int, prompt: str) -> str:
        if kind == "map":
            return f"notes of excerpt {i}: " + "n" * (40 * KIB)
        return "answer from what fitted"

    run = Scripted(answer)
    result = ask_transcript(three, "what did we decide?", run)
    assert result.answer == "answer from what fitted"
    assert result.relevant_chunks == 3
    [warning] = result.warnings
    assert warning.startswith("the findings of 1 excerpt(s) did not fit the final pass")
    assert "excerpt 3 (messages #" in warning and warning.endswith("[FINDINGS_DROPPED]")
    reduce = run.prompts[-1]
    assert "notes of excerpt 1" in reduce and "notes of excerpt 2" in reduce
    assert "notes of excerpt 3" not in reduce
    _prompts_are_marked(run)


def test_a_long_question_shrinks_the_excerpts_and_a_huge_one_is_refused(
    three: Transcript,
) -> None:
    question = "why " * (15 * KIB)  # 60 KiB: the excerpts make room for it
    run = Scripted(notes_or_none({1}))
    result = ask_transcript(three, question, run)
    assert result.chunks > 3
    _prompts_are_marked(run)
    with pytest.raises(AskError) as caught:
        ask_transcript(three, "why " * (30 * KIB), Scripted(notes_or_none({1})))
    assert caught.value.code == "QUESTION_TOO_LONG"


# ---- the command line ---------------------------------------------------------------------------


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Scripted]]:
    """``lazy.ask.runner`` replaced by one whose runner is scripted; the runners made are
    listed so a test sees which project each was for and what it was asked."""
    made: list[Scripted] = []
    projects: list[str] = []

    def default_runner(project: str) -> Scripted:
        projects.append(project)
        run = Scripted(notes_or_none({1, 2}))
        made.append(run)
        return run

    fake = ModuleType("lazy.ask.runner")
    fake.default_runner = default_runner  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lazy.ask.runner", fake)
    yield made
    assert all(p == "/w/askproj" for p in projects)


def _dump(home: Path) -> list[str]:
    s = Store.open(home)
    try:
        return list(s.conn.iterdump())
    finally:
        s.close()


def _editor(tmp_path: Path, writes: str) -> Path:
    script = tmp_path / "editor.sh"
    marker = tmp_path / "editor-ran"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nprintf '{writes}' > \"$1\"\n")
    script.chmod(0o755)
    return script


def test_cli_asks_and_writes_nothing(
    store: Store, projects: Path, tmp_path: Path, model: list[Scripted]
) -> None:
    t = conversation(store, projects, 150 * KIB, session_id="4f8c2a1b-0000-4000-8000-000000000001")
    reread(store)  # the one-time upgrade any surface's first open makes: not the ask's
    store.close()
    before = _dump(tmp_path / "lazy")
    runner = CliRunner()
    p = runner.invoke(cli, ["ask", "4f8c2a1b", "-m", "what did we decide?"])
    assert p.exit_code == 0, p.output
    assert p.stdout == "We decided to keep everything.\n"
    assert p.stderr == ""
    p = runner.invoke(cli, ["ask", "4f8c", "-m", "what did we decide?", "--json"])
    assert p.exit_code == 0, p.output
    assert orjson.loads(p.stdout) == {
        "answer": "We decided to keep everything.",
        "chunks": 2,
        "relevantChunks": 2,
        "warnings": [],
        "conversation": t.builder.id,
    }
    assert _dump(tmp_path / "lazy") == before
    assert len(model) == 2
    _prompts_are_marked(model[0])


def test_cli_warnings_go_to_stderr_or_into_json(
    store: Store, projects: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conversation(store, projects, 150 * KIB, session_id="4f8c2a1b-0000-4000-8000-000000000001")

    def answer(kind: str, i: int, prompt: str) -> str:
        if kind == "map" and i == 1:
            raise OneShotError("the API answered 529", "ONESHOT_FAILED", "overloaded")
        return notes_or_none({2})(kind, i, prompt)

    fake = ModuleType("lazy.ask.runner")
    fake.default_runner = lambda project: Scripted(answer)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lazy.ask.runner", fake)
    p = CliRunner().invoke(cli, ["ask", "4f8c2a1b", "-m", "q?"])
    assert p.exit_code == 0, p.output
    assert p.stdout == "We decided to keep everything.\n"
    assert "warning: excerpt 1 of 2" in p.stderr
    assert "[ONESHOT_FAILED: overloaded]" in p.stderr
    p = CliRunner().invoke(cli, ["ask", "4f8c2a1b", "-m", "q?", "--json"])
    got = orjson.loads(p.stdout)
    assert (got["chunks"], got["relevantChunks"]) == (2, 1)
    [warning] = got["warnings"]
    assert warning.startswith("excerpt 1 of 2") and "[ONESHOT_FAILED: overloaded]" in warning
    assert "warning:" not in p.stderr


def test_cli_failure_exits_non_zero_with_the_reason_and_code(
    store: Store, projects: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conversation(store, projects, 150 * KIB, session_id="4f8c2a1b-0000-4000-8000-000000000001")

    def answer(kind: str, i: int, prompt: str) -> str:
        raise OneShotError("cannot launch a container", "DOCKER_UNAVAILABLE", "no socket")

    fake = ModuleType("lazy.ask.runner")
    fake.default_runner = lambda project: Scripted(answer)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lazy.ask.runner", fake)
    p = CliRunner().invoke(cli, ["ask", "4f8c2a1b", "-m", "q?", "--json"])
    assert p.exit_code == 1
    assert p.stdout == ""
    assert "every excerpt failed to read (2 of 2)" in p.stderr
    assert "[ALL_EXCERPTS_FAILED: DOCKER_UNAVAILABLE: no socket]" in p.stderr
    assert p.stderr.count("warning: excerpt") == 2


def test_cli_without_m_opens_the_editor(
    store: Store,
    projects: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    model: list[Scripted],
) -> None:
    conversation(store, projects, 10 * KIB, session_id="4f8c2a1b-0000-4000-8000-000000000001")
    monkeypatch.setenv("EDITOR", str(_editor(tmp_path, "# a comment\\nwhat about retention?\\n")))
    p = CliRunner().invoke(cli, ["ask", "4f8c2a1b"])
    assert p.exit_code == 0, p.output
    assert p.stdout == "We decided to keep everything.\n"
    [run] = model
    assert "Question:\nwhat about retention?\n" in run.prompts[0]
    assert "# a comment" not in run.prompts[0]


def test_cli_an_empty_question_from_the_editor_aborts(
    store: Store,
    projects: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    model: list[Scripted],
) -> None:
    conversation(store, projects, 10 * KIB, session_id="4f8c2a1b-0000-4000-8000-000000000001")
    monkeypatch.setenv("EDITOR", str(_editor(tmp_path, "# only a comment\\n\\n")))
    p = CliRunner().invoke(cli, ["ask", "4f8c2a1b"])
    assert p.exit_code == 1
    assert "empty question: nothing asked [EMPTY_QUESTION]" in p.stderr
    assert (tmp_path / "editor-ran").exists()
    assert model[0].prompts == []


def test_cli_an_ambiguous_or_unknown_id_fails_before_the_editor(
    store: Store,
    projects: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    model: list[Scripted],
) -> None:
    conversation(store, projects, 10 * KIB, session_id="abcd1111-0000-4000-8000-000000000001")
    conversation(store, projects, 11 * KIB, session_id="abcd2222-0000-4000-8000-000000000002")
    monkeypatch.setenv("EDITOR", str(_editor(tmp_path, "q?")))
    p = CliRunner().invoke(cli, ["ask", "abcd"])
    assert p.exit_code == 1
    assert "'abcd' is ambiguous; it matches 2 conversations" in p.stderr
    assert "abcd1111-0000-4000-8000-000000000001" in p.stderr
    assert "abcd2222-0000-4000-8000-000000000002" in p.stderr
    p = CliRunner().invoke(cli, ["ask", "ffff"])
    assert p.exit_code == 1
    assert "no conversation 'ffff' in the store" in p.stderr
    assert not (tmp_path / "editor-ran").exists()
    assert model == []
    p = CliRunner().invoke(cli, ["ask", "abcd2", "-m", "q?"])
    assert p.exit_code == 0, p.output


def test_cli_without_the_runner_says_so(
    store: Store, projects: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conversation(store, projects, 10 * KIB, session_id="4f8c2a1b-0000-4000-8000-000000000001")
    monkeypatch.setitem(sys.modules, "lazy.ask.runner", None)  # an import of it fails
    monkeypatch.setenv("EDITOR", str(_editor(tmp_path, "q?")))
    p = CliRunner().invoke(cli, ["ask", "4f8c2a1b"])
    assert p.exit_code == 1
    assert "the one-shot runner is not installed (lazy.ask.runner)" in p.stderr
    assert "[RUNNER_MISSING:" in p.stderr
    assert not (tmp_path / "editor-ran").exists()


def test_cli_help_documents_the_command() -> None:
    p = CliRunner().invoke(cli, ["ask", "--help"])
    assert p.exit_code == 0
    for words in ("-m, --message", "--json", "relevantChunks", "$EDITOR", "96 KiB", "ambiguous"):
        assert words in p.stdout


def test_subagents_and_tool_calls_are_read_as_text(store: Store, projects: Path) -> None:
    from fabricate.claude import subagent

    ses = Session(projects, "/w/askproj")
    ses.user("count the files")
    ses.write(
        ses.tool_use_line("Bash", {"command": "ls"}, "toolu_1", text="Listing them.",
                          message_id="msg_tool_1", request_id="req_tool")
    )  # fmt: skip
    sub = subagent(ses, "a1b2c3", "look for the config", "found it in lazy.toml")
    capture_file(store, ses.path)
    capture_file(store, sub)
    t = transcript(store.conn, resolve_builder(store.conn, ses.id))
    labels = [p.label for p in render(t)]
    assert labels == ["#1", "#2", "subagent a1b2c3 #1", "subagent a1b2c3 #2"]
    run = Scripted(lambda kind, i, prompt: "three files")
    assert ask_transcript(t, "how many files?", run).answer == "three files"
    [prompt] = run.prompts
    assert "Listing them.\n\n→ $ ls" in prompt
    assert "--- message subagent a1b2c3 #2 · assistant" in prompt
    assert "found it in lazy.toml" in prompt


def test_cli_asks_about_a_task_from_its_prompt_and_its_messages(
    store: Store, projects: Path, model: list[Scripted]
) -> None:
    from lazy.tasks.promote import check_range, create

    t = conversation(store, projects, 10 * KIB, session_id="4f8c2a1b-0000-4000-8000-000000000001")
    plan = check_range(store.conn, t.builder.id, 3, 4)
    create(store, plan, goal="Keep the retention policy", code="keep-retention", parent=None,
           prompt="Write down why we keep everything.")  # fmt: skip
    store.close()
    p = CliRunner().invoke(cli, ["ask", "keep-retention", "-m", "why?", "--json"])
    assert p.exit_code == 0, p.output
    (prompt,) = model[0].prompts
    assert "Task keep-retention (backlog): Keep the retention policy" in prompt
    assert "Write down why we keep everything." in prompt
    said = [m.text for m in t.messages]
    assert said[2][:40] in prompt and said[3][:40] in prompt
    assert said[0][:40] not in prompt and said[5][:40] not in prompt  # only its range
