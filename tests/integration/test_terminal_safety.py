"""Transcript text never reaches the terminal as control sequences (issue 13, point 2).

A Claude Code session, a Codex rollout and an OpenCode session are planted whose every text
the CLI can print (prompts, answers, tool names, inputs and output, the summary, the cwd, the
session id, with a line feed in it) carries terminal attacks: SGR colour, OSC 0 (retitle),
OSC 52 (write the clipboard), an OSC 8 hyperlink, CSI clear-screen, a C1 CSI (U+009B), BEL,
backspace, a lone CR, a BiDi override, and rich markup. Every command that prints them runs
as `lazy …` in a child process, its stdout and stderr read as raw bytes, piped and on a
pseudo-terminal (raw mode, so the bytes are the program's own), and must hold no control
byte of the planted text, only its visible notation (lazy.view.terminal); `--json` must hold
no raw control character, and parse back to exactly the planted text.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
import tty
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from fabricate.claude import Session
from fabricate.codex import Call, Rollout
from fabricate.opencode import create_db, oc_conv, text, tool
from support.search import LAZY, env_for

# Each attack of a planted text, as a terminal would obey it.
ATTACK = (
    "\x1b[31mRED\x1b[0m"  # SGR colour
    " \x1b]0;PWNED-TITLE\x07"  # OSC 0: retitle the window (BEL-terminated)
    " \x1b]52;c;cm0gLXJmIH4=\x07"  # OSC 52: "rm -rf ~" into the clipboard
    " \x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"  # OSC 8 hyperlink (ST)
    " \x1b[2J\x1b[H"  # CSI: clear the screen, cursor home
    " \x9b1;31m"  # C1 CSI
    " bell\x07 back\x08space cr\rOVER del\x7f ls\u2028sep"
    " \u202eevil\u202c"  # RIGHT-TO-LEFT OVERRIDE ... POP DIRECTIONAL FORMATTING
    " [bold red]markup[/] [link=https://evil.example]link[/link]"
)
# What each attack must read as once shown (lazy.view.terminal's notation).
SHOWN = (
    r"\x1b[31mRED",
    r"\x1b]0;PWNED-TITLE\x07",
    r"\x1b]52;c;cm0gLXJmIH4=\x07",
    r"\x1b]8;;https://evil.example/\x1b\click",
    r"\x1b[2J\x1b[H",
    r"\x9b1;31m",
    r"bell\x07",
    r"back\x08space",
    r"cr\rOVER",
    r"del\x7f",
    r"ls\u2028sep",
    r"\u202eevil\u202c",
    "[bold red]markup[/]",
)
WORD = "zebraquartz"  # in every planted text, for search


def planted(where: str) -> str:
    return f"{WORD} <{where}> {ATTACK} </{where}>"


CWD = "/home/u/dev/app-" + "\x1b]0;CWD-TITLE\x07\u202e"
SID = "0badc0de-0000-4000-8000-00000000000a\n\x1b]0;SID\x07"
SID_TWIN = "0badc0de-0000-4000-8000-00000000000b"  # the ambiguous prefix's other candidate
CODEX_ID = "c0dec0de-0000-4000-8000-000000000001"
OC_ID = "ses_0pencode\x1b]0;OC\x07"


@dataclass
class World:
    base: Path
    lazy_home: Path
    user_home: Path
    repo: Path

    def env(self, **extra: str) -> dict[str, str]:
        env = env_for(self.lazy_home, self.user_home, **extra)
        for k in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES", "TERM_PROGRAM"):
            env.pop(k, None)
        env["TERM"] = "xterm-256color"
        # a pager that passes everything through at once: what `lazy show` pages on a
        # terminal reaches the pseudo-terminal, and no `less` waits for a key
        env["LAZY_PAGER"] = "cat -u"
        return env


def _plant(w: World) -> None:
    projects = w.user_home / ".claude" / "projects"
    s = Session(projects, CWD, session_id=SID)
    s.user(planted("user"))
    s.write(
        s.tool_use_line("Bash\x1b]0;TOOL\x07", {"command": planted("tool-input")}, "toolu_planted",
                        text=planted("assistant"), message_id="msg_planted_1", request_id="req_1")
    )  # fmt: skip
    s.write(s.tool_result_line("toolu_planted", planted("tool-output")))
    s.assistant(planted("reply"))
    twin = Session(projects, CWD, session_id=SID_TWIN)
    twin.turn(planted("twin"), "ok")
    codex = Rollout(w.user_home / ".codex", CWD, thread_id=CODEX_ID)
    codex.turn(
        planted("codex-user"),
        planted("codex-reply"),
        reasoning=planted("codex-reasoning"),
        call=Call("shell\x1b]0;CT\x07", {"command": [planted("codex-call")]}, planted("codex-out")),
    )
    oc = oc_conv(OC_ID, CWD, turns=0, title=planted("oc-title"))
    oc.user(text(planted("oc-user")))
    oc.assistant(
        text(planted("oc-reply")),
        tool("bash\x1b]0;OT\x07", "toolu_oc", "completed", {"command": "ls"}, output=planted("oc")),
    )
    create_db(w.user_home / ".local" / "opencode" / "opencode.db", oc)


def _lazy(w: World, *args: str, ok: bool = True) -> subprocess.CompletedProcess[bytes]:
    p = subprocess.run(
        [LAZY, *args],
        env=w.env(),
        cwd=w.repo,
        capture_output=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if ok and p.returncode != 0:
        raise AssertionError(f"lazy {args} exited {p.returncode}:\n{p.stdout!r}\n{p.stderr!r}")
    return p


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    base = tmp_path_factory.mktemp("terminal")
    w = World(base, base / "lazy", base / "home", base / "repo")
    w.repo.mkdir()
    _plant(w)
    for tool_name in ("claude", "codex", "opencode"):
        _lazy(w, "import-conversation", "--tool", tool_name, "--all", "--all-projects", "--yes")
    yield w
    shutil.rmtree(base, ignore_errors=True)


def _ids(w: World) -> dict[str, str]:
    """tool -> a prefix of the planted conversation's Builder id, as far as it can be typed."""
    listed = json.loads(_lazy(w, "conversations", "--all-projects", "--json").stdout)
    by: dict[str, str] = {}
    for b in listed["builders"]:
        if SID_TWIN in b["session_ids"]:
            continue
        by[b["tool"]] = re.split("[\n\x1b]", b["id"])[0]
    return by


# ---- what may and may not be in the bytes ---------------------------------------------------

SGR = re.compile(rb"\x1b\[[0-9;]*m")
# rich's live display (a progress bar on stderr, on a terminal only): cursor hide/show, erase
# line, cursor up, and the carriage return that always comes right before one of those two
RICH_LIVE = re.compile(rb"\r(?=\x1b\[(?:2K|1A))|\x1b\[\?25[lh]|\x1b\[2K|\x1b\[1A")
C1 = re.compile(rb"\xc2[\x80-\x9f]")
# lazy's own hyperlinks (OSC 8: `lazy search` links each hit into the editor): the link into
# lazy's extension, every value percent-encoded, and the sequence that ends it; no other OSC
OWN_LINK = re.compile(
    rb"\x1b\]8;id=[0-9]+;[a-z][a-z0-9+.-]*://lazy-builders\.lazy/open\?[A-Za-z0-9%+._~=&-]*\x1b\\"
    rb"|\x1b\]8;;\x1b\\"
)
RAW = {
    "ESC": b"\x1b",
    "BEL": b"\x07",
    "BS": b"\x08",
    "CR": b"\r",
    "RLO": "\u202e".encode(),
    "PDF": "\u202c".encode(),
    "LS": "\u2028".encode(),
    "DEL": b"\x7f",
}


def assert_inert(data: bytes, what: str, *, terminal: bool = False) -> str:
    """``data`` holds nothing a terminal acts on but rich's own styling, lazy's own links
    (and, on a terminal's stderr, its live display); returns the text without those, to look
    for what was shown."""
    if terminal:
        data = OWN_LINK.sub(b"", data)
    assert b"\x1b]" not in data, f"{what}: an OSC sequence reached the terminal: {_around(data)}"
    assert not C1.search(data), f"{what}: a C1 control reached the terminal: {_around(data)}"
    if terminal:
        data = RICH_LIVE.sub(b"", SGR.sub(b"", data))
    for name, raw in RAW.items():
        assert raw not in data, f"{what}: raw {name} reached the terminal: {_around(data, raw)}"
    return data.decode("utf-8")


def _around(data: bytes, needle: bytes = b"\x1b") -> bytes:
    at = max(0, data.find(needle))
    return data[max(0, at - 60) : at + 60]


def assert_shown(text: str, what: str, expected: tuple[str, ...] = SHOWN) -> None:
    missing = [s for s in expected if s not in text]
    assert not missing, f"{what}: the planted text is not shown visibly: {missing}\n{text[:3000]}"


# ---- on a pseudo-terminal -------------------------------------------------------------------


def _pty() -> tuple[int, int]:
    master, slave = os.openpty()
    tty.setraw(slave)  # no \n -> \r\n: the bytes read are the program's own
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 240, 0, 0))
    return master, slave


def in_terminal(w: World, *args: str, timeout: float = 120) -> tuple[int, bytes, bytes]:
    """``lazy args`` with stdout and stderr each on a pseudo-terminal of its own (stdin is
    not one, so nothing asks), read until both are closed."""
    (out_m, out_s), (err_m, err_s) = _pty(), _pty()
    proc = subprocess.Popen(
        [LAZY, *args], env=w.env(), cwd=w.repo, stdin=subprocess.DEVNULL, stdout=out_s,
        stderr=err_s, close_fds=True,
    )  # fmt: skip
    os.close(out_s)
    os.close(err_s)
    got = {out_m: bytearray(), err_m: bytearray()}
    open_fds = [out_m, err_m]
    deadline = time.monotonic() + timeout
    try:
        while open_fds:
            if time.monotonic() > deadline:
                raise TimeoutError(f"lazy {args} still running after {timeout} s")
            ready, _, _ = select.select(open_fds, [], [], 0.5)
            for fd in ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # EIO: the child's side is closed
                    chunk = b""
                if chunk:
                    got[fd] += chunk
                else:
                    open_fds.remove(fd)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(out_m)
        os.close(err_m)
    return proc.returncode, bytes(got[out_m]), bytes(got[err_m])


def both_ways(
    w: World, *args: str, ok: bool = True, expected: tuple[str, ...] = SHOWN
) -> tuple[str, str]:
    """``lazy args`` piped and on a terminal: nothing planted is obeyed on either stream, and
    what was planted is shown on one of them. Returns the piped stdout and stderr."""
    p = _lazy(w, *args, ok=ok)
    piped = assert_inert(p.stdout, f"lazy {args} stdout (piped)")
    piped_err = assert_inert(p.stderr, f"lazy {args} stderr (piped)")
    assert_shown(piped + piped_err, f"lazy {args} (piped)", expected)
    rc, out, err = in_terminal(w, *args)
    assert rc == p.returncode, (rc, p.returncode, out[-2000:], err[-2000:])
    shown = assert_inert(out, f"lazy {args} stdout (terminal)", terminal=True)
    shown_err = assert_inert(err, f"lazy {args} stderr (terminal)", terminal=True)
    assert b"\x1b[" in out or not shown.strip(), (
        "rich styled nothing on the terminal: the terminal half of this test tests nothing"
    )
    assert_shown(shown + shown_err, f"lazy {args} (terminal)", expected)
    return piped, piped_err


# ---- the commands ----------------------------------------------------------------------------


def test_the_conversation_list_shows_planted_summaries_ids_and_projects(world: World) -> None:
    # a table cell is one line: its \n shown too; the summary is cut to the column
    out, _ = both_ways(world, "conversations", "--all-projects", expected=(r"\x1b[31mRED",))
    assert r"\x1b]0;CWD-T" in out  # the project column (a cwd), shown as far as it is shown
    both_ways(world, "import-conversation", "--show-imported", "--all-projects",
              expected=(r"\x1b[31mRED",))  # fmt: skip


@pytest.mark.parametrize("tool_name", ["claude", "codex", "opencode"])
def test_a_transcript_shows_every_planted_text(world: World, tool_name: str) -> None:
    bid = _ids(world)[tool_name]
    for command in (("conversations", "show"), ("show",), ("import-conversation", "--show")):
        out, _ = both_ways(world, *command, bid)
        assert out.count(r"\x1b]52;c;") >= 2, out  # the prompt and the answer, each shown
    if tool_name == "claude":
        assert r"Bash\x1b]0;TOOL\x07" in out  # the tool's name


def test_search_results_show_planted_snippets_and_summaries(world: World) -> None:
    both_ways(world, "search", WORD, "--all-projects", expected=(r"\x1b[31mRED", r"\x1b]0;"))
    # on a terminal each hit links into the editor, the planted ids percent-encoded in it
    _, out, _ = in_terminal(world, "search", WORD, "--all-projects")
    links = OWN_LINK.findall(out)
    assert len(links) >= 2 and any(b"%1B" in link for link in links), out[:2000]
    both_ways(
        world,
        "conversations",
        "search",
        WORD,
        "--all-projects",
        expected=(r"\x1b[31mRED", r"\x1b]0;"),
    )


def test_the_sessions_on_disk_list_shows_planted_ids_and_cwds(world: World) -> None:
    out, _ = both_ways(
        world,
        "import-conversation",
        "--list",
        "--all-projects",
        expected=(r"0badc0de-0000-4000-8000-00000000000a\n\x1b]0;SID\x07", r"\x1b]0;CWD-TITLE"),
    )
    # the id with a line feed in it stays on its row: one line per Claude Code session
    rows = [line for line in out.splitlines() if "imported" in line]
    assert len(rows) == 2, out


def test_errors_that_quote_planted_text_show_it(world: World) -> None:
    # an ambiguous prefix lists each candidate's summary on stderr
    _, err = both_ways(world, "show", "0badc0de", ok=False, expected=(r"\x1b[31mRED",))
    assert "ambiguous" in err
    # an id typed (or pasted from a transcript) with controls in it
    _, err = both_ways(
        world, "show", "nope\x1b]0;ARG\x07\u202e", ok=False, expected=(r"\x1b]0;ARG\x07",)
    )
    assert "no conversation" in err


def test_tasks_promoted_from_a_planted_range_show_their_goal(world: World) -> None:
    bid = _ids(world)["claude"]
    promote = ("conversations", "promote", bid, "--yes")
    p = _lazy(world, *promote, "--from", "1", "--to", "2")
    assert_shown(assert_inert(p.stdout, "promote (piped)"), "promote", (r"\x1b[31mRED",))
    rc, out, _ = in_terminal(world, *promote, "--from", "3", "--to", "4")
    assert rc == 0
    shown = assert_inert(out, "promote (terminal)", terminal=True)
    assert_shown(shown, "promote (terminal)", (r"\x1b[31mRED",))
    tasks = json.loads(_lazy(world, "tasks", "--all-projects", "--json").stdout)["tasks"]
    assert tasks and all(ATTACK in t["prompt"] for t in tasks)
    both_ways(world, "tasks", "--all-projects", expected=(r"\x1b[31mRED",))
    both_ways(world, "tasks", "show", tasks[0]["code"])


def test_an_alias_shows_the_planted_summary(world: World) -> None:
    ids = _ids(world)
    both_ways(world, "alias", "set", "planted", ids["codex"], expected=(r"\x1b[31mRED",))
    both_ways(world, "alias", "list", expected=(r"\x1b[31mRED",))
    # a session id no agent would resume (controls in it) is refused, and said safely
    _, err = both_ways(world, "alias", "set", "bad", ids["claude"], ok=False,
                       expected=(r"\x1b]0;SID\x07",))  # fmt: skip
    assert "invalid native id" in err


def test_doctor_shows_a_planted_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the store's path is in several of doctor's listings; Docker is absent (a warning)
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")
    w = World(tmp_path, tmp_path / "lazy\x1b]0;HOME\x07", tmp_path / "home", tmp_path / "repo")
    w.repo.mkdir()
    out, _ = both_ways(w, "doctor", expected=(r"lazy\x1b]0;HOME\x07",))
    assert out.count(r"lazy\x1b]0;HOME\x07") >= 2


# ---- lazy ask's answer ----------------------------------------------------------------------

# `lazy ask` itself, its one-shot runner replaced by one that answers with planted text
# (the model's answer is the one test double the rules allow; the sandbox's real container is
# tests/sandbox's): the answer reaches stdout through the CLI's own path.
_ASK = """
import sys, types
runner = types.ModuleType("lazy.ask.runner")
class OneShot:
    def __call__(self, prompt):
        return {answer!r}
    def check(self):
        pass
def default_runner(project):
    return OneShot()
runner.default_runner = default_runner
sys.modules["lazy.ask.runner"] = runner
sys.argv = ["lazy", *sys.argv[1:]]
from lazy.cli.main import main
main()
"""


def test_the_ask_answer_shows_planted_text(world: World, tmp_path: Path) -> None:
    script = tmp_path / "ask_with_recorded_answer.py"
    script.write_text(_ASK.format(answer=planted("answer")))
    bid = _ids(world)["claude"]
    argv = [sys.executable, str(script), "ask", bid, "-m", "what happened?"]
    p = subprocess.run(argv, env=world.env(), cwd=world.repo, capture_output=True, timeout=120,
                       stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    assert p.returncode == 0, p.stderr
    shown = assert_inert(p.stdout, "lazy ask stdout (piped)")
    assert_shown(shown, "lazy ask")
    p = subprocess.run([*argv, "--json"], env=world.env(), cwd=world.repo, capture_output=True,
                       timeout=120, stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert_json_exact(p.stdout, "lazy ask --json")
    assert json.loads(p.stdout)["answer"] == planted("answer")


# ---- --json ----------------------------------------------------------------------------------


def assert_json_exact(data: bytes, what: str, *, exact: str | None = ATTACK) -> object:
    """Raw JSON bytes hold no control character a terminal would act on (all of them are
    \\u escapes), and parse back to the planted text exactly (``exact`` in some string)."""
    assert_inert(data, what)
    value = json.loads(data)
    if exact is not None:
        assert any(exact in s for s in _strings(value)), f"{what}: planted text not exact"
    return value


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def test_json_output_is_exact_and_inert(world: World) -> None:
    listed = assert_json_exact(
        _lazy(world, "conversations", "--all-projects", "--json").stdout,
        "conversations --json",
        exact=planted("user")[:60],  # a summary is cut short
    )
    assert isinstance(listed, dict)
    assert any(b["summary"].startswith(planted("user")[:20]) for b in listed["builders"])
    for tool_name, bid in _ids(world).items():
        t = assert_json_exact(_lazy(world, "show", bid, "--json").stdout, "show --json")
        assert isinstance(t, dict)
        texts = [m["text"] for m in t["messages"]]
        assert any(planted(n) in x for x in texts for n in ("user", "codex-user", "oc-user")), (
            tool_name,
            texts,
        )
    hits = assert_json_exact(
        _lazy(world, "search", WORD, "--all-projects", "--json").stdout,
        "search --json",
        exact="\x1b[31mRED\x1b[0m \x1b]0;PWNED-TITLE\x07",  # a snippet is cut short
    )
    assert isinstance(hits, dict) and hits["groups"]
    on_disk = assert_json_exact(
        _lazy(world, "import-conversation", "--list", "--all-projects", "--json").stdout,
        "import-conversation --list --json",
        exact=CWD,
    )
    assert isinstance(on_disk, dict)
    assert SID in [s["session_id"] for s in on_disk["sessions"]]
