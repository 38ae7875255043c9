"""An export as Markdown that reads well on GitHub: a heading per message, its words as the
Markdown they were, every tool call a ``<details>`` with its output in a fence (an edit's in a
``diff`` fence), thinking and the harness's text folded.

Transcript text is hostile here too. Outside code, ``<`` is written ``&lt;`` (no raw HTML: no
``<img src=…>`` fetched, no ``<details>`` forged), an image is written as a link (nothing is
fetched), a link to anything but http(s), mailto or a relative path is shown as text, and
control characters are shown in notation. Code keeps its bytes, in a fence longer than any
run of backticks inside it."""

from __future__ import annotations

import html
import re

import orjson

from lazy.export import words
from lazy.export.document import ExportDocument
from lazy.model import MessageView, Part, SidechainView, ToolCall
from lazy.usage.report import money, tokens_short
from lazy.view.terminal import for_terminal, one_line

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:.*?[^`])?\1(?!`)", re.S)
_LINK = re.compile(r"\]\(\s*<?([a-zA-Z][a-zA-Z0-9+.-]*):")
_SAFE_SCHEMES = {"http", "https", "mailto"}


def _inert_prose(text: str) -> str:
    """Prose outside code: no raw HTML, no image, no link with a scheme that runs."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace("![", "!\\[")
    return _LINK.sub(
        lambda m: m.group(0) if m.group(1).lower() in _SAFE_SCHEMES else "\\](" + m.group(0)[2:],
        text,
    )


_REF_DEF = re.compile(r"^( {0,3})\[([^\]]*)\]:\s*<?([a-zA-Z][a-zA-Z0-9+.-]*):")


def _outside_spans(line: str) -> str:
    # a link reference definition ([x]: javascript:…) makes every [x] in the text a link
    d = _REF_DEF.match(line)
    if d and d.group(3).lower() not in _SAFE_SCHEMES:
        line = f"{d.group(1)}\\[{line[len(d.group(1)) + 1 :]}"
    out, at = [], 0
    for m in _CODE_SPAN.finditer(line):
        out += [_inert_prose(line[at : m.start()]), m.group(0)]
        at = m.end()
    return "".join([*out, _inert_prose(line[at:])])


def inert_markdown(text: str) -> str:
    """Markdown source with its prose made inert and its code (fences, spans) kept."""
    out: list[str] = []
    fence: str | None = None
    for line in for_terminal(text).split("\n"):
        opened = _FENCE_OPEN.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            out.append(line)
        elif fence is not None:
            out.append(line)
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                fence = None
        else:
            out.append(_outside_spans(line))
    if fence is not None:
        out.append(fence)  # an unclosed fence would swallow the rest of the export
    return "\n".join(out)


def fenced(text: str, info: str = "") -> str:
    body = for_terminal(text).rstrip("\n")
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{body}\n{ticks}"


def _summary(text: str) -> str:
    """One line inside HTML (a <summary>): escaped, not read as Markdown there."""
    return html.escape(one_line(text), quote=False)


def _line(text: str) -> str:
    """One line of Markdown (a heading, the header): read as Markdown, so made inert."""
    return _inert_prose(one_line(text))


def folded(summary: str, body: str, open_: bool = False) -> str:
    return (
        f"<details{' open' if open_ else ''}><summary>{summary}</summary>\n\n{body}\n\n</details>"
    )


def _tool(t: ToolCall, sides: dict[str, SidechainView], depth: int) -> str:
    said = [t.summary, *words.states(t)]
    body: list[str] = []
    if t.kind == "shell" and isinstance(t.input, dict) and t.input.get("command"):
        body.append(fenced(f"$ {t.input['command']}", "sh"))
    for d in t.diff:
        body.append(f"`{for_terminal(d.path)}` +{d.added} −{d.removed}\n\n{fenced(d.diff, 'diff')}")
    if t.todos:
        body.append("\n".join(f"- [{'x' if x.status == 'completed' else ' '}] {inert_markdown(x.text)}"
                              for x in t.todos))  # fmt: skip
    if t.subagent is not None:
        body.append(_subagent(t, sides, depth))
    elif t.kind in ("mcp", "other") and t.input is not None:
        body.append(fenced(orjson.dumps(t.input, option=orjson.OPT_INDENT_2).decode(), "json"))
    if words.shows_output(t):
        body.append(fenced(t.output or "", t.language or "text"))
    elif t.output is None and t.subagent is None:
        body.append("_No result was recorded._")
    return folded(_summary(" · ".join(said)), "\n\n".join(body) or "_No output._", bool(t.todos))


def _subagent(t: ToolCall, sides: dict[str, SidechainView], depth: int) -> str:
    sub = t.subagent
    assert sub is not None
    out = [f"**Subagent** {inert_markdown(sub.description or '')} ({words.subagent(sub)})"]
    if sub.outcome:
        out.append(inert_markdown(sub.outcome))
    side = sides.get(sub.session_id)
    if side is not None and depth < 3:
        inner = "\n\n".join(message(m, sides, depth + 1) for m in side.messages)
        out.append(folded(f"Its {len(side.messages)} messages", inner))
    return "\n\n".join(out)


def _part(p: Part, sides: dict[str, SidechainView], depth: int) -> str:
    if p.kind == "text":
        return inert_markdown(p.text)
    if p.kind == "thinking":
        return folded("Thinking", inert_markdown(p.text) if p.text else "_(redacted by the agent)_")
    if p.kind in ("harness", "notice"):
        label = p.label or p.kind
        return folded(_summary(label), fenced(p.text, "text")) if p.text else f"_{_line(label)}_"
    if p.kind in ("image", "file"):
        return f"_\\[{_line(words.media(p))}\\]_"
    return _tool(p.tool, sides, depth) if p.tool is not None else ""


def message(m: MessageView, sides: dict[str, SidechainView], depth: int = 0) -> str:
    head = words.head(m)
    level = "#" * min(3 + depth, 6)
    parts = [_part(p, sides, depth) for p in m.parts] or [inert_markdown(m.text)]
    return f"{level} {_line(' · '.join(head))}\n\n" + "\n\n".join(x for x in parts if x)


def render(doc: ExportDocument) -> str:
    b = doc.builder
    title = b.title or b.summary.split("\n", 1)[0] or b.short_id
    meta = [b.tool, b.project or "", b.started_at or "", f"{b.message_count} messages", b.id]
    if b.usage is not None and b.usage.total.responses:
        meta.append(money(b.usage.total) + f" ({tokens_short(b.usage.total.output)} out)")
    r = doc.range
    said = "secrets redacted" if doc.redacted else "**secrets NOT redacted**"
    lines = [
        f"# {_line(title[:200])}",
        "",
        _line(" · ".join(x for x in meta if x)),
        "",
        f"_Messages {r.first}–{r.last} of {r.of}, exported by {doc.generator} on"
        f" {doc.exported_at} ({said}: {doc.redaction_total})._",
    ]
    sides = {s.session_id: s for s in doc.subagents}
    body = "\n\n---\n\n".join(message(m, sides) for m in doc.messages)
    return "\n".join(lines) + "\n\n---\n\n" + body + "\n"
