"""`lazy show`: a Builder's transcript for a terminal, from the message view model.

The model (lazy.view: each message's parts, tool calls paired with their results, diffs,
checklists, subagents) is laid out once as items (a styled line, Markdown prose, a block of
lines as they are), then written one of two ways: with rich for a terminal (Markdown
rendered, diffs coloured; through the pager, see lazy.cli.pager), or as plain text for a
pipe or a file (never wrapped, never padded). Views fold here: a tool's output to its first
lines, thinking and harness items to one line; ``full`` unfolds everything, ``thinking``
unfolds thinking. Every string is untrusted: the plain writer shows its controls with
lazy.view.terminal, the rich writer only ever gets ``shown`` Text and SafeMarkdown.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from rich.console import RenderableType
from rich.padding import Padding
from rich.text import Text

from lazy.cli.common import when
from lazy.cli.output import SafeMarkdown, out, shown, terminal_console
from lazy.cli.pager import paged
from lazy.model import (
    BuilderInfo,
    MessageView,
    Part,
    SidechainView,
    Task,
    Tokens,
    ToolCall,
    Transcript,
    UsageInfo,
)
from lazy.projects import project_label
from lazy.usage.report import money, tokens_short
from lazy.view.terminal import for_terminal, one_line

OUTPUT_LINES = 8  # of a tool's output, folded
DIFF_LINES = 40  # of a diff, folded
INPUT_LINES = 12  # of an unknown tool's input, folded
OUTCOME_LINES = 3  # of a subagent's last answer, at its call
TITLE_CHARS = 120

ROLE_STYLE = {
    "user": "bold cyan",
    "assistant": "bold green",
    "system": "dim",
    "tool_result": "yellow",
}
ROLE_LABEL = {"system": "harness", "tool_result": "tool result"}


@dataclass(frozen=True)
class Fold:
    full: bool = False  # everything unfolded: outputs, thinking, harness, subagents inline
    thinking: bool = False  # thinking unfolded


# ---- the layout: what is shown, in order, however it is written -----------------------------

Piece = tuple[str, str]  # text (one line), style


@dataclass
class Line:
    pieces: list[Piece] = field(default_factory=list)
    indent: int = 0


@dataclass
class Prose:
    """Markdown source: rendered on a terminal, as it is in plain text."""

    source: str
    indent: int = 0


@dataclass
class Block:
    """Lines as they are: a tool's output or input, a diff (``diff``: coloured by line)."""

    text: str
    indent: int = 0
    style: str = "dim"
    diff: bool = False


Item = Line | Prose | Block


def _lines(n: int) -> str:
    return f"{n} line" if n == 1 else f"{n} lines"


def _size(n: int | None) -> str:
    if n is None:
        return "size unknown"
    if n < 1024:
        return f"{n:,} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / 1024 / 1024:.1f} MiB"


def folded(
    text: str, keep: int, full: bool, indent: int, style: str = "dim", *, diff: bool = False
) -> list[Item]:
    """``text`` as a block, cut to its first ``keep`` lines (and a line saying how many
    more) unless ``full``; one line more than ``keep`` is shown rather than said."""
    lines = text.rstrip("\n").split("\n")
    if full or len(lines) <= keep + 1:
        return [Block("\n".join(lines), indent, style, diff)]
    more = len(lines) - keep
    return [
        Block("\n".join(lines[:keep]), indent, style, diff),
        Line([(f"… {more} more lines", "dim italic")], indent),
    ]


def header(b: BuilderInfo) -> list[Item]:
    title = (b.title or b.summary or "(no words)").strip().split("\n", 1)[0]
    if len(title) > TITLE_CHARS:
        title = title[: TITLE_CHARS - 1] + "…"
    facts: list[Piece] = [(b.id, "bold cyan")]
    if b.alias:
        facts.append((f"  alias {b.alias}", "bold magenta"))
    facts += [
        (f"  {b.tool}", ""),
        (f"  {project_label(b.project)}", ""),
        (f"  {when(b.started_at)} → {when(b.updated_at)}", "dim"),
        (f"  {b.message_count} messages", ""),
    ]
    if b.sidechains:
        facts.append((f"  {len(b.sidechains)} subagent(s)", "magenta"))
    out: list[Item] = [Line([(title, "bold")]), Line(facts)]
    if b.forked_from:
        out.append(Line([(f"fork of {b.forked_from}", "dim")]))
    if len(b.session_ids) > 1:
        out.append(Line([(f"joined from {len(b.session_ids)} session files", "dim")]))
    if b.usage is not None and b.usage.total.responses:
        out.append(Line(usage_line(b.usage)))
    return [*out, Line()]


def tokens_line(t: Tokens) -> str:
    """One response's (or a sum's) tokens: 12.1k in (10.9k cached) / 182 out."""
    whole = t.input + t.cache_read + t.cache_write
    cached = f" ({tokens_short(t.cache_read)} cached)" if t.cache_read else ""
    return f"{tokens_short(whole)} in{cached} / {tokens_short(t.output)} out"


def usage_line(u: UsageInfo) -> list[Piece]:
    """72.4k ctx / 20.7k out · 36 responses · $1.45 (subagents $0.20) · prices of ..."""
    t = u.total
    pieces: list[Piece] = []
    if u.context is not None:
        pieces.append((f"{tokens_short(u.context)} ctx / ", ""))
    pieces += [
        (f"{tokens_short(t.output)} out · {t.responses} responses · ", ""),
        (money(t), "bold green"),
    ]
    if u.subagents.responses:
        pieces.append((f" (subagents {money(u.subagents)})", "magenta"))
    pieces.append((f" · {u.prices}", "dim"))
    return pieces


@dataclass
class Layout:
    fold: Fold
    sides: dict[str, SidechainView]  # by session id
    placed: set[str] = field(default_factory=set)  # subagents shown at their call

    def message(self, m: MessageView, indent: int = 0) -> list[Item]:
        role = ROLE_LABEL.get(m.role, m.role)
        head: list[Piece] = [(f"#{m.number}", "bold"), (f" {role}", ROLE_STYLE.get(m.role, ""))]
        if m.harness and not self.fold.full:
            labels = [p.label for p in m.parts if p.label] or ["System"]
            size = sum(len(p.text.splitlines()) for p in m.parts)
            said = " · ".join(dict.fromkeys(labels))
            return [Line([*head, (f" · {said} · {_lines(size)}", "dim")], indent), Line()]
        head.append((f"  {when(m.timestamp)}", "dim"))
        if m.model and m.role == "assistant":
            head.append((f"  {m.model}", "dim"))
        if m.tokens is not None:
            head.append((f"  {tokens_line(m.tokens)}", "dim"))
        out: list[Item] = [Line(head, indent)]
        for p in m.parts:
            out += self.part(p, indent + 2)
        if not m.parts and m.text:
            out.append(Prose(m.text, indent + 2))
        return [*out, Line()]

    def part(self, p: Part, indent: int) -> list[Item]:
        if p.kind == "text":
            return [Prose(p.text, indent)]
        if p.kind == "thinking":
            return self.thinking(p, indent)
        if p.kind in ("harness", "notice"):
            label = p.label or p.kind
            if not p.text:
                return [Line([(f"▸ {label}", "dim")], indent)]
            if not self.fold.full:
                return [Line([(f"▸ {label} · {_lines(len(p.text.splitlines()))}", "dim")], indent)]
            return [Line([(f"▾ {label}", "dim")], indent), Block(p.text, indent + 2)]
        if p.kind in ("image", "file"):
            what = p.name or p.media_type or p.kind
            meta = " · ".join(x for x in (p.media_type if p.name else None, _size(p.bytes)) if x)
            return [
                Line([(f"[{p.kind}] ", "bold blue"), (what, "blue"), (f" · {meta}", "dim")], indent)
            ]
        if p.tool is not None:
            return self.tool(p.tool, indent)
        return []

    def thinking(self, p: Part, indent: int) -> list[Item]:
        if not p.text:
            return [Line([("▸ thinking · redacted", "dim magenta")], indent)]
        n = _lines(len(p.text.splitlines()))
        if not (self.fold.full or self.fold.thinking):
            return [Line([(f"▸ thinking · {n}", "dim magenta")], indent)]
        return [Line([(f"▾ thinking · {n}", "magenta")], indent), Prose(p.text, indent + 2)]

    def tool(self, t: ToolCall, indent: int) -> list[Item]:
        full = self.fold.full
        out: list[Item] = [Line(_call_line(t), indent)]
        body = indent + 2
        if t.subagent is not None:
            return out + self.subagent(t, body)
        for d in t.diff:
            out += folded(d.diff, DIFF_LINES, full, body, diff=True)
        for todo in t.todos:
            out.append(Line(_todo(todo.text, todo.status), body))
        if _shows_input(t, full):
            out += folded(_pretty(t.input), INPUT_LINES, full, body, "")
        if t.output and (full or t.is_error or not (t.diff or t.todos)):
            shown = _numbered(t.output, t.first_line) if t.first_line is not None else t.output
            out += folded(shown, OUTPUT_LINES, full, body, "red" if t.is_error else "dim")
            if t.output_chars and t.output_chars > len(t.output):
                kept = (
                    f"(the store kept the first {len(t.output):,} of {t.output_chars:,} characters)"
                )
                out.append(Line([(kept, "dim italic")], body))
        return out

    def subagent(self, t: ToolCall, indent: int) -> list[Item]:
        sub = t.subagent
        assert sub is not None
        what = "".join(f" · {x}" for x in (sub.agent_type, f"{sub.message_count} messages") if x)
        out: list[Item] = [Line([("subagent", "bold magenta"), (what, "magenta")], indent)]
        side = self.sides.get(sub.session_id)
        if self.fold.full and side is not None:
            self.placed.add(sub.session_id)
            for m in side.messages:
                out += self.message(m, indent + 2)
            return out
        if sub.outcome:
            out += folded(sub.outcome, OUTCOME_LINES, False, indent, "")
        elif t.output:
            out += folded(t.output, OUTCOME_LINES, False, indent)
        if side is not None:
            self.placed.add(sub.session_id)
        return out


def _shows_input(t: ToolCall, full: bool) -> bool:
    """An unknown tool's input is what it did; any other's is in its summary, diff or
    checklist, unless ``full`` and the summary was cut or names a kind that says little."""
    if t.diff or t.todos or t.input in (None, {}, [], ""):
        return False
    if t.kind in ("other", "mcp"):
        return True
    return full and (t.summary.endswith("…") or t.kind in ("web", "plan"))


def _call_line(t: ToolCall) -> list[Piece]:
    bad = t.is_error or (t.exit_code not in (None, 0))
    line: list[Piece] = [("✗ " if bad else "● ", "bold red" if bad else "bold yellow")]
    line.append((t.summary, "bold"))
    if t.mcp_server and t.mcp_server not in t.summary:
        line.append((f" ({t.mcp_server})", "dim"))
    if t.exit_code not in (None, 0):
        line.append((f" · exit {t.exit_code}", "red"))
    elif t.is_error:
        line.append((" · error", "red"))
    if t.duration_ms is not None:
        line.append((f" · {t.duration_ms / 1000:.1f} s", "dim"))
    if t.matches is not None:
        line.append((f" · {t.matches:,} {'match' if t.matches == 1 else 'matches'}", "dim"))
    if t.output is None and t.kind != "task":
        line.append((" · no result recorded", "dim italic"))
    elif t.output == "" and not (t.diff or t.todos):
        line.append((" · no output", "dim italic"))
    if t.result_number is not None:
        line.append((f"  #{t.result_number}", "dim"))
    return line


def _numbered(text: str, first: int) -> str:
    """A read file's text with its line numbers before each line, as the agent showed it."""
    lines = text.removesuffix("\n").split("\n")
    width = len(str(first + len(lines) - 1))
    return "\n".join(f"{first + i:>{width}}  {x}" for i, x in enumerate(lines))


def _todo(text: str, status: str) -> list[Piece]:
    if status == "completed":
        return [("☑ ", "green"), (text, "dim")]
    if status == "in_progress":
        return [("☐ ", "bold yellow"), (text, "bold"), (" (in progress)", "yellow")]
    return [("☐ ", ""), (text, "")]


def _pretty(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def layout(t: Transcript, promoted: list[Task], fold: Fold) -> Iterator[Item]:
    """Every item of a transcript, in order: its header, its messages (each subagent at the
    call that spawned it), the subagents no call was found for, what was promoted from it."""
    yield from header(t.builder)
    lay = Layout(fold, {s.session_id: s for s in t.sidechains})
    for m in t.messages:
        yield from lay.message(m)
    for side in t.sidechains:
        if side.session_id in lay.placed:
            continue
        name = side.agent_id or side.session_id
        yield Line([(f"── subagent {name}", "bold magenta"),
                    (f" · {len(side.messages)} messages (no call found for it)", "magenta")])  # fmt: skip
        if fold.full:
            for m in side.messages:
                yield from lay.message(m, 2)
        yield Line()
    if promoted:
        yield Line([("Promoted from this conversation:", "bold")])
        for task in promoted:
            yield Line([(task.code, "bold"), (f"  #{task.from_message}–{task.to_message}  ", "cyan"),
                        (task.goal.split("\n", 1)[0], "")], 2)  # fmt: skip


# ---- written as plain text (a pipe, a file) ---------------------------------------------------


def plain(items: Iterable[Item]) -> Iterator[str]:
    """Each item as lines of plain text: never wrapped, no trailing spaces, every control
    shown."""
    for item in items:
        pad = " " * item.indent
        if isinstance(item, Line):
            yield (pad + "".join(one_line(text) for text, _ in item.pieces)).rstrip()
            continue
        text = item.source if isinstance(item, Prose) else item.text
        for line in for_terminal(text).split("\n"):
            yield (pad + line).rstrip() if line.strip() else ""


# ---- written for a terminal (rich) ------------------------------------------------------------

_DIFF_STYLE = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))


def _diff(text: str) -> Text:
    out = Text()
    for i, line in enumerate(text.split("\n")):
        if i:
            out.append("\n")
        style = next((s for mark, s in _DIFF_STYLE if line.startswith(mark)), "")
        out.append_text(shown(line, style))
    return out


def _indented(r: RenderableType, indent: int) -> RenderableType:
    return Padding(r, (0, 0, 0, indent), expand=False) if indent else r


def rich(items: Iterable[Item]) -> Iterator[RenderableType]:
    """Each item as a renderable for a SafeConsole: Markdown rendered, diffs coloured."""
    for item in items:
        if isinstance(item, Line):
            line = shown(" " * item.indent)
            for text, style in item.pieces:
                line.append_text(shown(text, style, multiline=False))
            yield line
        elif isinstance(item, Prose):
            yield _indented(SafeMarkdown(item.source), item.indent)
        elif item.diff:
            yield _indented(_diff(item.text), item.indent)
        else:
            yield _indented(shown(item.text, item.style), item.indent)


# ---- where it goes -----------------------------------------------------------------------------


def _write_plain(items: Iterable[Item]) -> None:
    chunk: list[str] = []
    try:
        for line in plain(items):
            chunk.append(line)
            if len(chunk) >= 512:
                sys.stdout.write(for_terminal("\n".join(chunk) + "\n"))
                chunk.clear()
        sys.stdout.write(for_terminal("\n".join(chunk) + "\n" if chunk else ""))
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader (`| head`) has what it wanted; nothing more is written, not even the
        # flush at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def write(items: Iterable[Item], *, paging: bool = True) -> None:
    """The items on stdout: plain text when it is not a terminal; else rendered, through
    the pager unless ``paging`` is off or there is none."""
    if not sys.stdout.isatty():
        _write_plain(items)
        return
    with paged(paging) as stream:
        console = out if stream is None else terminal_console(stream)
        for r in rich(items):
            console.print(r)
