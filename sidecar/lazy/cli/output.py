"""Everything the CLI prints goes through here, and no text it prints can act on the terminal.

Transcripts, paths, ids, summaries, error messages quoting them: all of it is untrusted. The
consoles ``out`` and ``err`` show every control character in the notation of
:mod:`lazy.view.terminal` and never read a ``str`` as rich markup, whatever a command hands
them (a ``str``, a ``Text``, a table of either); ``emit_json`` writes JSON a terminal cannot act
on either, and ``echo`` is the plain-text line. A command that prints through anything else
(``click.echo``, ``sys.stdout``) bypasses all this: tests/unit/test_cli_output.py looks for
that.
"""

from __future__ import annotations

import sys
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from functools import cache
from typing import IO, Any, ClassVar

import click
import orjson
from pydantic import BaseModel
from rich.console import (
    Console,
    ConsoleOptions,
    HighlighterType,
    JustifyMethod,
    NewLine,
    OverflowMethod,
    RenderableType,
)
from rich.control import Control
from rich.markdown import Heading, Markdown, MarkdownElement
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Span, Text

from lazy.view.terminal import escapes, for_terminal, inert_json

# how an escape stands out from literal text that happens to read "\x1b" (on a terminal)
ESCAPE_STYLE = "reverse"


def _moved(plain: str, spans: Iterable[Span], multiline: bool) -> tuple[str, list[Span]] | None:
    """``plain`` with its escapes written out and ``spans`` moved to match, each escape
    styled; None when there is nothing to escape."""
    found = list(escapes(plain, multiline=multiline))
    if not found:
        return None
    starts = [s for s, _, _ in found]
    parts: list[str] = []
    new_starts: list[int] = []
    shift_after: list[int] = []  # how far everything after escape k moved
    pos = shift = 0
    for start, end, replacement in found:
        parts += (plain[pos:start], replacement)
        new_starts.append(start + shift)
        shift += len(replacement) - (end - start)
        shift_after.append(shift)
        pos = end
    parts.append(plain[pos:])

    def at(i: int) -> int:
        k = bisect_left(starts, i)  # escapes that begin before i
        if k == 0:
            return i
        start, end, replacement = found[k - 1]
        if i < end:  # inside a \r\n turned \n
            return new_starts[k - 1] + min(i - start, len(replacement))
        return i + shift_after[k - 1]

    moved = [Span(at(s.start), at(s.end), s.style) for s in spans]
    moved += [
        Span(new, new + len(rep), ESCAPE_STYLE)
        for new, (_, _, rep) in zip(new_starts, found, strict=True)
        if rep != "\n"
    ]
    return "".join(parts), moved


def shown(
    text: str,
    style: str | Style = "",
    *,
    multiline: bool = True,
    highlights: Iterable[tuple[int, int, str | Style]] = (),
) -> Text:
    """Untrusted ``text`` as rich Text: controls shown, never markup. ``highlights`` are
    (start, end, style) over ``text`` as given; ``multiline=False`` for what must stay one
    line (line feeds and tabs shown too)."""
    spans = [Span(s, e, st) for s, e, st in highlights]
    done = _moved(text, spans, multiline)
    if done is None:
        result = Text(text, style=style)
        result.spans = spans
        return result
    result = Text(done[0], style=style)
    result.spans = done[1]
    return result


def safe_text(t: Text, *, multiline: bool = True) -> Text:
    """``t`` itself when it holds nothing to show, else a copy with its escapes written out
    (styles and spans kept on the characters they covered)."""
    done = _moved(t.plain, t.spans, multiline)
    if done is None:
        return t
    copy = Text(
        done[0],
        style=t.style,
        justify=t.justify,
        overflow=t.overflow,
        no_wrap=t.no_wrap,
        end=t.end,
        tab_size=t.tab_size,
    )
    copy.spans = done[1]
    return copy


def _cell(cell: Any) -> Any:
    """A table cell on one line: a str or Text shown with line feeds and tabs too."""
    if isinstance(cell, str):
        return shown(cell, multiline=False)
    if isinstance(cell, Text):
        return safe_text(cell, multiline=False)
    return cell


class _LeftHeading(Heading):
    """A heading at the left margin (rich centres a level-1 heading): a transcript's ``#``
    is a line of a message, not the title of a page."""

    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = {f"h{n}": "left" for n in range(1, 7)}


@cache
def _markdown_parser() -> Any:
    from markdown_it import MarkdownIt

    # raw HTML off: `<ide_opened_file>`, `<div>` are text to read, not markup rich would drop
    return MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table")


class SafeMarkdown(Markdown):
    """Untrusted Markdown for a terminal: its source shown by :func:`for_terminal` before it
    is parsed (no control reaches a code block, a link or a heading), raw HTML read as text,
    and no hyperlinks: a link prints as its text and its target in the open, never as an
    OSC 8 sequence whose target the reader cannot see."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": _LeftHeading,
    }

    def __init__(self, source: str, *, code_theme: str = "monokai") -> None:
        super().__init__("", code_theme=code_theme, hyperlinks=False)
        self.markup = for_terminal(source)
        self.parsed = _markdown_parser().parse(self.markup)
        self.hyperlinks = False


def _prepared(renderable: Any) -> Any:
    if isinstance(renderable, str | Text):
        return renderable  # render_str and render below see to these
    if isinstance(renderable, SafeMarkdown):
        return renderable  # shown when made, no hyperlinks; its Text meets render below
    if isinstance(renderable, Padding):
        renderable.renderable = _prepared(renderable.renderable)
        return renderable
    if isinstance(renderable, Control | NewLine):
        return renderable  # rich's own (a live display's cursor moves), no text in them
    if isinstance(renderable, Table):
        # before layout, so the widths measured are those of the text printed
        for column in renderable.columns:
            column._cells = [_cell(c) for c in column._cells]
            column.header = _cell(column.header)
            column.footer = _cell(column.footer)
        return renderable
    raise TypeError(
        f"lazy's consoles print str, Text and Table, not {type(renderable).__name__}:"
        " untrusted text in anything else would reach the terminal unchecked"
    )


class SafeConsole(Console):
    """A rich Console that never lets text act on the terminal: a str is never parsed as
    markup or emoji codes, and every control and invisible format character of a str or a
    Text, wherever it sits, is shown in lazy.view.terminal's notation."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*(_prepared(o) for o in objects), **kwargs)

    def render_str(
        self,
        text: str,
        *,
        style: str | Style = "",
        justify: JustifyMethod | None = None,
        overflow: OverflowMethod | None = None,
        emoji: bool | None = None,
        markup: bool | None = None,
        highlight: bool | None = None,
        highlighter: HighlighterType | None = None,
    ) -> Text:
        # markup, emoji and highlighting are ignored: no str is read as anything but text
        result = shown(text, style)
        result.justify = justify
        result.overflow = overflow
        return result

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        # the net under everything: a Text nested where print() did not look (a progress
        # column, a cell of a cell) is shown too
        if isinstance(renderable, Text):
            renderable = safe_text(renderable)
        segments = super().render(renderable, options)
        return segments if self.is_terminal else _unpadded(segments)


def _unpadded(segments: Iterable[Segment]) -> Iterator[Segment]:
    """Segments without the spaces that end a line (a table pads every cell to its column's
    width): piped output is grepped and diffed, where trailing blanks are noise."""
    held: list[Segment] = []  # spaces not yet known to end their line
    for seg in segments:
        if seg.control:
            yield from held
            held.clear()
            yield seg
            continue
        for i, part in enumerate(seg.text.split("\n")):
            if i:
                held.clear()  # they ended a line
                yield Segment("\n", seg.style)
            body = part.rstrip(" ")
            if body:
                yield from held
                held.clear()
                yield Segment(body, seg.style)
            if len(body) < len(part):
                held.append(Segment(part[len(body) :], seg.style))
    yield from held


# Piped output keeps long lines whole rather than folding them at 80 columns.
out = SafeConsole(highlight=False, markup=False, width=None if sys.stdout.isatty() else 160)


def terminal_console(file: IO[str]) -> SafeConsole:
    """A console writing to ``file`` (a pager's input) as ``out`` writes to the terminal
    the pager shows: its width and its colours."""
    return SafeConsole(
        file=file,
        force_terminal=True,
        width=out.width,
        color_system=out.color_system,  # type: ignore[arg-type]
        no_color=out.no_color,
        highlight=False,
        markup=False,
    )


# soft wrap: a warning naming a path is one line to copy, wrapped by the terminal, not by rich
err = SafeConsole(stderr=True, highlight=False, markup=False, soft_wrap=True)


def echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """Plain text as it is (no wrapping, no styling), controls shown: the ask's answer, a
    report written whole."""
    click.echo(for_terminal(text), err=err, nl=nl)


def emit_json(value: BaseModel | dict[str, Any] | list[Any]) -> None:
    """``value`` as indented JSON on stdout: exact (``json.loads`` gives back every
    character), and with every control and format character a ``\\u`` escape."""
    data = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    sys.stdout.write(inert_json(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()) + "\n")
