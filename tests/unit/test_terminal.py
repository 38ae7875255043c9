"""lazy.view.terminal and the CLI's consoles (issue 13, point 2): every control and invisible
format character is shown in one notation, never emitted; rich markup is never read from
untrusted text; `--json` is exact and inert; and no CLI module prints around them."""

from __future__ import annotations

import ast
import io
import json
import re
import sys
import unicodedata
from pathlib import Path

import orjson
import pytest
from rich.table import Table
from rich.text import Text

from lazy.cli.output import SafeConsole, safe_text, shown
from lazy.view.terminal import _LINE, KEPT_FORMAT, escapes, for_terminal, inert_json, one_line

CLI = Path(__file__).resolve().parents[2] / "sidecar" / "lazy" / "cli"


def _must_show() -> list[str]:
    """Every character the Unicode database of this Python calls a control (Cc), format
    (Cf, less the kept ones), surrogate (Cs) or line/paragraph separator (Zl, Zp)."""
    cats = {"Cc", "Cf", "Cs", "Zl", "Zp"}
    return [
        chr(cp)
        for cp in range(sys.maxunicode + 1)
        if unicodedata.category(chr(cp)) in cats and chr(cp) not in KEPT_FORMAT
    ]


def test_the_table_covers_every_control_and_format_character_of_the_unicode_database() -> None:
    missed = [
        f"U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in _must_show() if one_line(c) == c
    ]
    assert not missed, f"shown by no rule: {missed}"


def test_every_character_shown_is_one_isprintable_refuses() -> None:
    # the fast path: text that str.isprintable() accepts is never searched
    line = re.compile(_LINE)
    pattern_only = [
        f"U+{cp:04X}"
        for cp in range(sys.maxunicode + 1)
        if chr(cp).isprintable() and line.fullmatch(chr(cp))
    ]
    assert not pattern_only


@pytest.mark.parametrize(
    ("raw", "seen"),
    [
        ("\x1b[31mred", r"\x1b[31mred"),
        ("\x1b]52;c;cm0gLXJmIH4=\x07", r"\x1b]52;c;cm0gLXJmIH4=\x07"),
        ("\x9b2J", r"\x9b2J"),
        ("a\x7fb\x00c", r"a\x7fb\x00c"),
        ("back\x08space", r"back\x08space"),
        ("over\rwrite", r"over\rwrite"),
        ("\u202eevil\u2066", r"\u202eevil\u2066"),
        ("tag\U000e0041", r"tag\U000e0041"),
        ("zero\u200bwidth\ufeff", r"zero\u200bwidth\ufeff"),
        ("line\u2028sep", r"line\u2028sep"),
        ("lone \ud83d surrogate", r"lone \ud83d surrogate"),
    ],
)
def test_each_control_reads_in_its_notation(raw: str, seen: str) -> None:
    assert for_terminal(raw) == seen
    assert one_line(raw) == seen


def test_a_block_keeps_its_lines_and_tabs_a_line_shows_them() -> None:
    assert for_terminal("a\n\tb\r\nc") == "a\n\tb\nc"  # CRLF is a line end
    assert one_line("a\n\tb\r\nc") == r"a\n\tb\r\nc"


def test_what_needs_nothing_is_left_as_it_is() -> None:
    text = "plain ascii, ünïcödé, emoji 👩‍💻 (a ZWJ sequence), ؀ Arabic sign, tabs\tand\nlines"
    assert for_terminal(text) is text
    assert list(escapes("nothing here")) == []


def test_json_is_exact_and_inert() -> None:
    value = {"t": "\x1b]0;x\x07 \x7f \x85 \x9b \u2028 \u2029 \u202e \U000e0041 \ufeff ok"}
    dumped = inert_json(orjson.dumps(value).decode())
    assert json.loads(dumped) == value
    assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202e\ufeff\U000e0041]", dumped)
    plain = '{"a": "nothing to escape"}'
    assert inert_json(plain) is plain


# ---- the consoles ----------------------------------------------------------------------------


def _printed(*objects: object, terminal: bool = False) -> str:
    buf = io.StringIO()
    console = SafeConsole(
        file=buf, width=200, highlight=False, markup=False, force_terminal=terminal,
        color_system="standard" if terminal else None,
    )  # fmt: skip
    console.print(*objects)
    return buf.getvalue()


def test_a_str_is_never_read_as_markup_or_emoji() -> None:
    got = _printed("[bold red]x[/] [link=https://evil.example]y[/link] :smile:", terminal=True)
    assert "[bold red]x[/]" in got and "[link=https://evil.example]y[/link]" in got
    assert ":smile:" in got and "\x1b]8;" not in got


def test_a_str_a_text_and_a_table_cell_show_their_controls() -> None:
    attack = "A\x1b]0;T\x07B\rC\x08D"
    table = Table()
    table.add_column("h")
    table.add_row(attack)
    table.add_row(Text("cell\nwith a line feed"))
    got = _printed(attack, Text("t" + attack), table)
    assert "\x1b" not in got and "\x07" not in got and "\r" not in got and "\x08" not in got
    assert got.count(r"A\x1b]0;T\x07B\rC\x08D") == 2  # the str and the cell
    # a Text built straight from untrusted text lost BEL, BS, VT, FF and CR to rich itself
    # (its constructor strips them) before the console saw it: gone, if not shown; shown()
    # is how untrusted text becomes Text
    assert r"tA\x1b]0;TBCD" in got
    assert r"cell\nwith a line feed" in got  # a cell is one line


def test_piped_output_ends_no_line_in_padding_and_a_terminal_keeps_its_layout() -> None:
    table = Table(box=None)
    table.add_column("id")
    table.add_column("summary")
    table.add_row("a1", "short")
    table.add_row("b2", "a much longer summary than the first")
    table.add_row("c3", "   ")  # a cell of blanks only
    piped = _printed(table, Text("words then blanks   "), "indented\n    still indented  \nend")
    lines = piped.splitlines()
    assert lines and not [x for x in lines if x != x.rstrip(" ")], lines
    assert lines[1].split() == ["a1", "short"] and lines[3].split() == ["c3"]
    assert "    still indented" in lines  # leading blanks are kept
    on_terminal = _printed(table, terminal=True)
    assert any(x != x.rstrip(" ") for x in re.sub(r"\x1b\[[0-9;]*m", "", on_terminal).splitlines())


def test_styles_stay_on_the_characters_they_covered() -> None:
    t = Text("ab\x1bcd")
    t.stylize("bold", 3, 5)  # "cd"
    safe = safe_text(t)
    assert safe.plain == r"ab\x1bcd"
    bold = [safe.plain[s.start : s.end] for s in safe.spans if s.style == "bold"]
    assert bold == ["cd"]
    snippet = shown("x\x1by hit z", highlights=[(4, 7, "bold yellow")])
    lit = [snippet.plain[s.start : s.end] for s in snippet.spans if s.style == "bold yellow"]
    assert lit == ["hit"]


def test_escapes_are_marked_on_a_terminal_and_only_styling_escapes_are_emitted() -> None:
    got = _printed(shown("x\x1b]0;T\x07y"), terminal=True)
    assert "\x1b[7m" in got  # the escape stands out (reverse video)
    seen = re.sub(r"\x1b\[[0-9;]*m", "", got)
    assert r"x\x1b]0;T\x07y" in seen
    assert "\x1b" not in seen


def test_what_the_consoles_cannot_vouch_for_is_refused() -> None:
    from rich.markdown import Markdown

    with pytest.raises(TypeError, match="Markdown"):
        _printed(Markdown("# \x1b]0;T\x07"))


# ---- nothing prints around the consoles -------------------------------------------------------

# Calls that write to the terminal without lazy.cli.output: each is allowed only with a literal
# or with its text wrapped in for_terminal() (output.py, which defines the consoles, aside).
_WRITERS = {("click", "echo"), ("click", "secho"), ("sys.stdout", "write"), ("sys.stderr", "write")}


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _bypasses(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        where = f"{path.name}:{node.lineno}"
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("print", "Console"):
            found.append(f"{where}: {func.id}()")
        if isinstance(func, ast.Attribute):
            owner = _dotted(func.value)
            if (owner, func.attr) in _WRITERS:
                arg = node.args[0] if node.args else None
                wrapped = isinstance(arg, ast.Constant) or (
                    isinstance(arg, ast.Call) and _dotted(arg.func) == "for_terminal"
                )
                if not wrapped:
                    found.append(f"{where}: {owner}.{func.attr}() of unshown text")
            if func.attr in ("from_markup", "print_json", "render_markup"):
                found.append(f"{where}: .{func.attr}()")
        # rich's Text() drops BEL, BS, VT, FF and CR unseen: untrusted text goes through
        # shown(), which shows them; Text() is for literals
        literal = not node.args or isinstance(node.args[0], ast.Constant)
        if isinstance(func, ast.Name) and func.id == "Text" and not literal:
            found.append(f"{where}: Text() of a non-literal (use shown())")
        for kw in node.keywords:
            if kw.arg == "markup" and not (
                isinstance(kw.value, ast.Constant) and kw.value.value is False
            ):
                found.append(f"{where}: markup= other than False")
    return found


def test_no_cli_module_prints_around_the_safe_consoles() -> None:
    modules = sorted(p for p in CLI.glob("*.py") if p.name != "output.py")
    assert len(modules) > 10
    bypasses = [b for p in modules for b in _bypasses(p)]
    assert not bypasses, "printing that skips lazy.cli.output:\n" + "\n".join(bypasses)
