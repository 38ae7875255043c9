"""lazy.cli.transcript_view: the message view model laid out for a terminal (issue 15,
point 6). Transcript text is hostile: whatever it carries (ANSI and OSC sequences, C1
controls, BiDi overrides, an OSC 8 hyperlink, a Markdown link whose target is a sequence)
in prose, a code fence and its info string, a link target, an image, a tool's summary,
input and output, a diff and its path, a checklist, a harness item, a subagent's answer,
is shown in lazy.view.terminal's notation by both writers, and rich's Markdown never
emits a hyperlink."""

from __future__ import annotations

import io
import re

from rich.console import Console
from rich.markdown import Markdown

from lazy.cli.output import SafeConsole, SafeMarkdown
from lazy.cli.transcript_view import Fold, layout, plain, rich
from lazy.model import (
    BuilderInfo,
    DiffFile,
    MessageView,
    Part,
    SidechainView,
    SubagentRef,
    TodoItem,
    ToolCall,
    Transcript,
)

EVIL = (
    "\x1b[31mRED\x1b[0m \x1b]0;TITLE\x07 \x1b]52;c;cm0gLXJmIH4=\x07"
    " \x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\ \x9b2J \u202eevil\u202c"
)
SHOWN = (r"\x1b[31mRED", r"\x1b]0;TITLE\x07", r"\x1b]52;c;", r"\x1b]8;;https://evil", r"\u202e")
PROSE = f"""# Heading {EVIL}

Some **bold** words and a [link {EVIL}](https://evil.example/{EVIL}) and <https://auto.example/x>
and an image ![pic {EVIL}](https://img.example/{EVIL}.png) and <b>raw html</b> {EVIL}.

```python {EVIL}
print("{EVIL}")
```
"""
SGR = re.compile(r"\x1b\[[0-9;]*m")


def _hostile() -> Transcript:
    b = BuilderInfo(
        id=f"b1{EVIL}", short_id="b1", tool="claude", project=f"/w/p{EVIL}",
        started_at=None, updated_at=None, message_count=3, summary=f"sum {EVIL}",
        alias="rev", session_ids=["b1"],
    )  # fmt: skip
    edit = ToolCall(
        name=f"Edit{EVIL}", kind="edit", summary=f"Edit src/{EVIL}.py (+1 -1)",
        input={"file_path": EVIL}, output=f"updated {EVIL}",
        diff=[DiffFile(path=f"src/{EVIL}.py",
                       diff=f"--- a/{EVIL}\n+++ b/{EVIL}\n@@ -1 +1 @@\n-old {EVIL}\n+new {EVIL}")],
    )  # fmt: skip
    todo = ToolCall(
        name="TodoWrite", kind="todo", summary="Todos: 1/2 done",
        todos=[TodoItem(text=f"done {EVIL}", status="completed"), TodoItem(text=f"next {EVIL}")],
    )  # fmt: skip
    shell = ToolCall(
        name="Bash", kind="shell", summary=f"$ echo {EVIL}", input={"command": EVIL},
        output=f"out {EVIL}\n" * 3, exit_code=1,
    )  # fmt: skip
    odd = ToolCall(name=f"mcp{EVIL}", kind="mcp", summary=f"mcp {EVIL}", input={EVIL: EVIL})
    read = ToolCall(
        name="Read", kind="read", summary="Read a.py (lines 9-10)", output=f"x = 1\n{EVIL}\n",
        first_line=9,
    )  # fmt: skip
    grep = ToolCall(name="Grep", kind="search", summary="Grep 'x'", output="a\nb\nc", matches=3)
    task = ToolCall(
        name="Task", kind="task", summary=f"Task: {EVIL}", output=EVIL,
        subagent=SubagentRef(session_id="side", description=EVIL, agent_type=f"t{EVIL}",
                             message_count=1, outcome=f"answer {EVIL}"),
    )  # fmt: skip
    parts = [
        Part(kind="text", text=PROSE),
        Part(kind="thinking", text=f"think {EVIL}"),
        Part(kind="harness", label=f"IDE event {EVIL}", text=f"<ide_opened_file>{EVIL}"),
        Part(kind="image", media_type=f"image/png{EVIL}", bytes=2048, name=f"a{EVIL}.png"),
        *(Part(kind="tool", tool=t) for t in (edit, todo, shell, odd, read, grep, task)),
    ]
    side_msg = MessageView(
        number=1, role="assistant", text="", session_id="side", timestamp=None, kinds=["text"],
        parts=[Part(kind="text", text=f"sub {EVIL}")],
    )  # fmt: skip
    m = MessageView(
        number=1, role="assistant", text="", session_id="b1", timestamp=None, kinds=["text"],
        model=f"m{EVIL}", parts=parts,
    )  # fmt: skip
    return Transcript(
        builder=b,
        messages=[m],
        sidechains=[SidechainView(session_id="side", messages=[side_msg])],
    )


def _rendered(t: Transcript, fold: Fold) -> str:
    buf = io.StringIO()
    console = SafeConsole(
        file=buf, force_terminal=True, color_system="truecolor", width=100, highlight=False,
        markup=False,
    )  # fmt: skip
    for r in rich(layout(t, [], fold)):
        console.print(r)
    return buf.getvalue()


def _inert(out: str, what: str) -> str:
    assert "\x1b]" not in out, f"{what}: an OSC sequence (a hyperlink, a title) was emitted"
    seen = SGR.sub("", out)
    assert "\x1b" not in seen, f"{what}: an escape other than a colour: {seen[:200]!r}"
    bad = [c for c in seen if ("\x80" <= c <= "\x9f") or c in "\u202e\u202c\x07\x08\r"]
    assert not bad, f"{what}: raw controls reached the output: {bad}"
    return seen


def test_hostile_text_is_shown_never_obeyed_on_a_terminal() -> None:
    for fold in (Fold(), Fold(full=True)):
        seen = _inert(_rendered(_hostile(), fold), f"rich {fold}")
        for s in SHOWN:
            assert s in seen, (s, fold)
        # the link's target is printed in the open, beside its text
        assert "(https://evil.example/" in seen
        assert "<b>raw html</b>" in seen  # raw HTML is text, not dropped
    full = SGR.sub("", _rendered(_hostile(), Fold(full=True)))
    for planted in ("old ", "new ", "done ", "next ", "think ", "<ide_opened_file>", "sub "):
        assert f"{planted}\\x1b[31mRED" in full, planted


def test_hostile_text_is_shown_never_obeyed_in_plain_text() -> None:
    for fold in (Fold(), Fold(full=True)):
        text = "\n".join(plain(layout(_hostile(), [], fold)))
        assert "\x1b" not in text and "\u202e" not in text and "\x9b" not in text
        for s in SHOWN:
            assert s in text, (s, fold)
        assert all(line == line.rstrip() for line in text.split("\n"))


def test_safe_markdown_emits_no_hyperlink_and_keeps_html_as_text() -> None:
    buf = io.StringIO()
    console = SafeConsole(file=buf, force_terminal=True, color_system="truecolor", width=80)
    console.print(SafeMarkdown("[here](https://x.example/a) <https://y.example> <span>t</span>"))
    out = buf.getvalue()
    assert "\x1b]8;" not in out
    seen = SGR.sub("", out)
    assert "here (https://x.example/a)" in seen and "<span>t</span>" in seen
    # rich's own Markdown would link it: the test above tests something
    raw = io.StringIO()
    Console(file=raw, force_terminal=True, color_system="truecolor").print(
        Markdown("[here](https://x.example/a)")
    )
    assert "\x1b]8;" in raw.getvalue()


def test_a_read_shows_its_line_numbers_and_a_search_its_count() -> None:
    text = "\n".join(plain(layout(_hostile(), [], Fold())))
    assert "\n     9  x = 1\n    10  " in text  # (the file's lines, numbered from 9, indented)
    assert "● Grep 'x' · 3 matches" in text


def test_folds_and_unfolds() -> None:
    t = _hostile()
    folded = "\n".join(plain(layout(t, [], Fold())))
    assert "▸ thinking · 1 line" in folded and "think " not in folded
    assert "subagent · t" in folded and "answer " in folded and "sub \\x1b" not in folded
    thinking = "\n".join(plain(layout(t, [], Fold(thinking=True))))
    assert "think \\x1b[31mRED" in thinking
    full = "\n".join(plain(layout(t, [], Fold(full=True))))
    at_call = full.index("subagent · t")
    assert full.index("sub \\x1b[31mRED") > at_call  # inline at its call, indented
    assert "\n        sub \\x1b[31mRED" in full
    assert "no call found" not in full
