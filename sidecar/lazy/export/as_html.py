"""An export as one self-contained HTML file, read with JavaScript off, offline.

The page's Content-Security-Policy allows its own inline style and nothing else: no script,
no image, no font, no request of any kind. Every transcript byte is escaped: Markdown goes
through markdown-it-py with raw HTML off, links only to http(s) or mailto (anything else is
shown as text with its target), images as a labelled placeholder; code is highlighted by
Pygments; tool calls, thinking, the harness's text and subagents fold as ``<details>``, which
needs no script."""

from __future__ import annotations

import html
from typing import Any

import orjson
from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from lazy.export import words
from lazy.export.document import ExportDocument
from lazy.model import MessageView, Part, SidechainView, ToolCall
from lazy.usage.report import money, tokens_short
from lazy.view.terminal import for_terminal

CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
_SAFE = ("http://", "https://", "mailto:")
_esc = html.escape


def _text(s: str) -> str:
    """Transcript text in HTML: its controls in notation, then escaped."""
    return html.escape(for_terminal(s))


def _lexer(language: str | None) -> Any:
    try:
        return get_lexer_by_name(language) if language else None
    except ClassNotFound:
        return None


def code_html(code: str, language: str | None, first_line: int | None = None) -> str:
    lexer = _lexer(language)
    if lexer is None:
        return f'<pre class="code">{_esc(code)}</pre>'
    fmt = HtmlFormatter(
        cssclass="hl code",
        linenos="inline" if first_line is not None else False,
        linenostart=first_line or 1,
    )
    return str(highlight(code, lexer, fmt))


def _fence(code: str, lang: str, _attrs: str) -> str:
    return code_html(code, (lang or "").split()[0] if lang else None)


def _link_open(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    href = str(tokens[idx].attrGet("href") or "")
    safe = href.lower().startswith(_SAFE)
    env.setdefault("links", []).append((safe, href))
    if safe:
        return f'<a href="{_esc(href)}" rel="noopener noreferrer">'
    return '<span class="inert-link">'


def _link_close(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    safe, href = env["links"].pop()
    return "</a>" if safe else f'</span><span class="inert-url"> ({_esc(href[:200])})</span>'


def _image(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    t = tokens[idx]
    what = " ".join(x for x in (t.content, str(t.attrGet("src") or "")[:200]) if x)
    return f'<span class="placeholder">[image {_esc(what)} — not loaded]</span>'


_md = MarkdownIt("commonmark", {"html": False, "highlight": _fence}).enable(
    ["table", "strikethrough"]
)
# every link becomes a token, shown inert unless safe
_md.validateLink = lambda url: True  # type: ignore[method-assign]
_md.add_render_rule("link_open", _link_open)
_md.add_render_rule("link_close", _link_close)
_md.add_render_rule("image", _image)


def markdown_html(text: str) -> str:
    return f'<div class="md">{_md.render(for_terminal(text), {})}</div>'


def _details(cls: str, summary: str, body: str, open_: bool = False) -> str:
    return (
        f'<details class="{cls}"{" open" if open_ else ""}><summary>{summary}</summary>'
        f'<div class="body">{body}</div></details>'
    )


def diff_html(diff: str) -> str:
    rows = []
    for line in for_terminal(diff).split("\n"):
        kind = ("meta" if line.startswith(("+++", "---")) else "hunk" if line.startswith("@@")
                else "add" if line.startswith("+") else "del" if line.startswith("-") else "ctx")  # fmt: skip
        rows.append(f'<span class="dl {kind}">{_esc(line)}</span>')
    return f'<pre class="diff">{"".join(rows)}</pre>'


def _badges(t: ToolCall) -> str:
    bad = t.is_error or t.exit_code not in (None, 0)
    return "".join(
        f'<span class="badge{" bad" if bad and i == 0 else ""}">{_esc(x)}</span>'
        for i, x in enumerate(words.states(t))
    )


def _tool_body(t: ToolCall, sides: dict[str, SidechainView], depth: int) -> list[str]:
    body: list[str] = []
    if t.kind == "shell" and isinstance(t.input, dict) and t.input.get("command"):
        body.append(f'<pre class="command">$ {_text(str(t.input["command"]))}</pre>')
    for d in t.diff:
        body.append(f'<div class="path">{_text(d.path)} +{d.added} −{d.removed}</div>')
        body.append(diff_html(d.diff))
    if t.todos:
        items = "".join(
            f'<li class="{_esc(x.status)}">{"☑" if x.status == "completed" else "☐"} '
            f"{_text(x.text)}</li>"
            for x in t.todos
        )
        body.append(f'<ul class="todos">{items}</ul>')
    if t.subagent is not None:
        body.append(_subagent(t, sides, depth))
    elif t.kind in ("mcp", "other") and t.input is not None:
        dumped = orjson.dumps(t.input, option=orjson.OPT_INDENT_2).decode()
        body.append(code_html(for_terminal(dumped), "json"))
    if words.shows_output(t):
        text = for_terminal(t.output or "")
        if t.first_line is not None:
            body.append(code_html(text, t.language or "text", t.first_line))
        else:
            body.append(f'<pre class="output{" error" if t.is_error else ""}">{_esc(text)}</pre>')
    elif t.output is None and t.subagent is None:
        body.append('<p class="note">No result was recorded.</p>')
    return body


def _tool(t: ToolCall, sides: dict[str, SidechainView], depth: int) -> str:
    summary = f'<span class="tool-summary">{_text(t.summary)}</span>{_badges(t)}'
    body = "".join(_tool_body(t, sides, depth)) or '<p class="note">No output.</p>'
    return _details(f"tool kind-{_esc(t.kind)}", summary, body, open_=bool(t.todos))


def _subagent(t: ToolCall, sides: dict[str, SidechainView], depth: int) -> str:
    sub = t.subagent
    assert sub is not None
    head = words.subagent(sub)
    out = [f'<div class="subagent-head">Subagent: {_text(sub.description or "")}'
           f" <span class=\"badge\">{_esc(head)}</span></div>"]  # fmt: skip
    if sub.outcome:
        out.append(markdown_html(sub.outcome))
    side = sides.get(sub.session_id)
    if side is not None and depth < 3:
        inner = "".join(message_html(m, sides, depth + 1) for m in side.messages)
        out.append(_details("subagent", f"Its {len(side.messages)} messages", inner))
    return "".join(out)


def _part(p: Part, sides: dict[str, SidechainView], depth: int) -> str:
    if p.kind == "text":
        return markdown_html(p.text)
    if p.kind == "thinking":
        return _details("thinking", "Thinking", markdown_html(p.text) if p.text else "(redacted)")
    if p.kind in ("harness", "notice"):
        label = _text(p.label or p.kind)
        text = f'<pre class="harness">{_text(p.text)}</pre>'
        return _details("harness", label, text) if p.text else f'<p class="note">{label}</p>'
    if p.kind in ("image", "file"):
        return f'<p class="placeholder">[{_text(words.media(p))}]</p>'
    return _tool(p.tool, sides, depth) if p.tool is not None else ""


def message_html(m: MessageView, sides: dict[str, SidechainView], depth: int = 0) -> str:
    number, role, *rest = words.head(m)
    head = [f'<span class="num">{number}</span>', _esc(role)]
    head += [f'<span class="dim">{_text(x)}</span>' for x in rest]
    parts = [_part(p, sides, depth) for p in m.parts] or [markdown_html(m.text)]
    ident = f' id="m-{m.number}"' if depth == 0 else ""
    return (
        f'<article class="msg role-{_esc(m.role)}"{ident}><header>{" · ".join(head)}</header>'
        + "".join(parts)
        + "</article>"
    )


_STYLE = """
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --dim: #59636e; --line: #d1d9e0;
  --code: #f6f8fa; --add: #dafbe1; --del: #ffebe9; --hunk: #0550ae; --bad: #cf222e; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --dim: #9198a1;
  --line: #3d444d; --code: #151b23; --add: #12261e; --del: #25171c; --hunk: #79c0ff; --bad: #ff7b72; } }
body { font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg);
  max-width: 980px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 1.4em; margin: 0 0 4px; }
.meta, .dim, .note { color: var(--dim); }
article { border-left: 3px solid var(--line); padding: 4px 12px; margin: 14px 0; overflow-wrap: anywhere; }
article.role-user { border-left-color: var(--hunk); }
article article { margin: 8px 0; }
header { font-size: 0.9em; color: var(--dim); margin-bottom: 4px; }
.num { font-weight: 600; color: var(--fg); }
pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
pre { background: var(--code); border: 1px solid var(--line); padding: 6px 8px; overflow-x: auto;
  white-space: pre-wrap; }
pre.diff { white-space: pre; padding: 4px 0; }
.dl { display: block; padding: 0 8px; }
.dl.add { background: var(--add); } .dl.del { background: var(--del); }
.dl.hunk { color: var(--hunk); } .dl.meta { color: var(--dim); }
details { margin: 4px 0; } summary { cursor: pointer; }
details.tool > summary { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
details > .body { padding: 2px 0 2px 16px; }
.badge { border: 1px solid var(--line); border-radius: 8px; padding: 0 6px; margin-left: 6px;
  font-size: 0.85em; color: var(--dim); }
.badge.bad, pre.output.error { color: var(--bad); }
.todos { list-style: none; padding-left: 4px; } .todos .completed { color: var(--dim); text-decoration: line-through; }
.placeholder, .inert-url { color: var(--dim); font-style: italic; }
.inert-link { text-decoration: underline dotted; }
.hl .linenos { color: var(--dim); padding-right: 8px; user-select: none; }
table { border-collapse: collapse; } td, th { border: 1px solid var(--line); padding: 2px 6px; }
"""


def _pygments_css() -> str:
    light = HtmlFormatter(style="default").get_style_defs(".hl")  # type: ignore[no-untyped-call]
    dark = HtmlFormatter(style="github-dark").get_style_defs(".hl")  # type: ignore[no-untyped-call]
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}"


def render(doc: ExportDocument) -> str:
    b = doc.builder
    title = for_terminal((b.title or b.summary.split("\n", 1)[0] or b.short_id)[:200])
    meta = [b.tool, b.project or "", b.started_at or "", f"{b.message_count} messages", b.id]
    if b.usage is not None and b.usage.total.responses:
        meta.append(f"{money(b.usage.total)} ({tokens_short(b.usage.total.output)} out)")
    r = doc.range
    said = "secrets redacted" if doc.redacted else "SECRETS NOT REDACTED"
    sides = {s.session_id: s for s in doc.subagents}
    body = "".join(message_html(m, sides) for m in doc.messages)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="{_esc(doc.generator)}">'
        f"<title>{_esc(title)}</title><style>{_STYLE}{_pygments_css()}</style></head><body>"
        f"<h1>{_esc(title)}</h1>"
        f'<div class="meta">{_text(" · ".join(x for x in meta if x))}</div>'
        f'<div class="meta">Messages {r.first}–{r.last} of {r.of}, exported by'
        f" {_esc(doc.generator)} on {_esc(doc.exported_at)} ({said}: {doc.redaction_total})</div>"
        f"<main>{body}</main></body></html>\n"
    )
