"""`lazy export` (issue 16, point 4), the real command run as a child: the real session
7acd37a8 in each format, the JSON read back as the message view it was made from, the HTML
opened in Debian's Chromium with JavaScript off (every message there, nothing fetched), and
a hostile session inert in all three formats with its secrets redacted and counted."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fabricate.claude import Session
from lazy.export.document import ExportDocument, document
from lazy.store import Store
from lazy.usage.report import annotate
from lazy.view.reading import transcript
from support import CLAUDE_CORPUS, REPO, require
from support.search import run_lazy

SOUND = (
    CLAUDE_CORPUS / "handgemacht-ai__claude-code-log" / "test" / "test_data" / "real_projects"
    / "-Users-dain-workspace-JSSoundRecorder" / "7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"
)  # fmt: skip
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = REPO / "tests" / "vscode" / "out"  # beside the VS Code suite's, linked from the README
AWS = "AKIAIOSFODNN7EXAMPLE"
ANTHROPIC = "sk-ant-api03-" + "Zq7" * 31 + "AA"
HOSTILE = "\n\n".join(
    [
        "<script>window.__pwned=1</script> and <img src=http://evil.test/x.png onerror=alert(1)>",
        "[click](javascript:alert(1)) [data](data:text/html,<b>x</b>) [cmd](command:rm)",
        "![remote](http://evil.test/track.png) <style>body{display:none}</style>",
        '<a href="http://evil.test" style="position:fixed">x</a> \x1b[31mred\x1b[0m \x1b]0;title\x07',
        f"aws {AWS} and {ANTHROPIC}",
        "[by reference][evil] and [mail][ok]\n\n[evil]: javascript:alert(2)\n[ok]: mailto:a@b.test",
        "```html\n<script>kept as code</script>\n```",
    ]
)


@dataclass
class World:
    base: Path
    lazy_home: Path
    user_home: Path
    hostile: Session

    def lazy(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        return run_lazy(self.lazy_home, self.user_home, *args, cwd=self.base, ok=ok)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    require(SOUND.exists(), f"corpus missing: {SOUND}")
    base = tmp_path_factory.mktemp("export")
    src = base / "src" / "sound"
    src.mkdir(parents=True)
    shutil.copy(SOUND, src)
    hostile = Session(base / "home" / ".claude" / "projects", "/w/hostile")
    hostile.turn(HOSTILE, f"Seen: {HOSTILE}")
    w = World(base, base / "lazy", base / "home", hostile)
    w.lazy("import-conversation", "--source", str(src), "--all-projects", "--yes")
    w.lazy("import-conversation", "--all-projects", "--yes")
    yield w
    shutil.rmtree(base, ignore_errors=True)


def test_the_json_export_reads_back_as_the_message_view(world: World) -> None:
    out = world.base / "sound.json"
    p = world.lazy("export", "7acd37a8", "-o", str(out))
    assert "exported messages 1–115 of 115 as json" in p.stderr
    doc = ExportDocument.model_validate_json(out.read_bytes())
    assert doc.schema_ == "lazy.export/1" and doc.redacted and doc.range.of == 115
    home = world.lazy_home
    store = Store.open(home)
    try:
        t = transcript(store.conn, doc.builder.id, home=home)
        annotate(store.conn, t.builder, t.messages, home)
        assert [m.model_dump() for m in doc.messages] == [m.model_dump() for m in t.messages]
        again = document(store.conn, doc.builder.id, home=home)
    finally:
        store.close()
    # the same document, exported again, but for the time it was made
    assert (
        again.model_copy(update={"exported_at": doc.exported_at}).model_dump() == doc.model_dump()
    )
    assert json.loads(out.read_text())["schema"] == "lazy.export/1"


def test_a_range_exports_its_messages_and_a_wrong_one_says_the_size(world: World) -> None:
    out = world.base / "part.json"
    world.lazy("export", "7acd37a8", "--from", "3", "--to", "10", "-o", str(out))
    doc = ExportDocument.model_validate_json(out.read_bytes())
    numbers = [m.number for m in doc.messages]
    assert numbers[0] == 3 and max(numbers) <= 10
    assert (doc.range.first, doc.range.last) == (3, 10)
    p = world.lazy("export", "7acd37a8", "--from", "100", "--to", "200", ok=False)
    assert p.returncode == 2 and "it has messages 1–115" in p.stderr
    assert not (world.base / "part.md").exists()


def test_markdown_for_github_folds_calls_and_fences_diffs(world: World) -> None:
    text = world.lazy("export", "7acd37a8", "--format", "md").stdout
    assert text.startswith("# /init\n")
    assert "### #3 · Assistant" in text
    assert "<details><summary>Edit CLAUDE.md (+9 -5) · error</summary>" in text
    # a fence longer than the ``` of the Markdown file the diff changes
    assert "````diff\n--- a/CLAUDE.md\n+++ b/CLAUDE.md\n@@ -1,11 +1,15 @@" in text
    assert "<details open><summary>Todos: 0/6 done</summary>" in text and "- [ ] " in text
    assert "<details><summary>Thinking</summary>" in text
    assert "<details><summary>$ ls -la</summary>" in text
    assert text.count("<details") == text.count("</details>")


class _Elements(HTMLParser):
    """The elements and attributes an HTML text makes (what a browser would build)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attrs: set[str] = set()
        self.hrefs: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        for name, value in attrs:
            self.attrs.add(name)
            if name == "href":
                self.hrefs.append(value or "")


def _inert(html: str) -> _Elements:
    e = _Elements(html)
    assert not e.tags & {"script", "img", "iframe", "object", "embed", "link", "form", "svg"}
    assert not {a for a in e.attrs if a in ("src", "srcset", "style") or a.startswith("on")}
    assert all(h.startswith(("http://", "https://", "mailto:")) for h in e.hrefs), e.hrefs
    return e


def _chromium(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    require(Path(CHROMIUM).exists(), "chromium missing: apt-get install -y chromium")
    argv = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-javascript",
            "--disable-background-networking", "--disable-component-update", "--no-first-run",
            "--disable-dev-shm-usage", *args]  # fmt: skip
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg")}
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=True)


def test_the_html_export_shows_every_message_with_javascript_off(world: World) -> None:
    out = world.base / "sound.html"
    world.lazy("export", "7acd37a8", "-o", str(out))
    _inert(out.read_text())
    dom = _chromium("--dump-dom", out.as_uri(), home=world.base / "chromium").stdout
    shown = {int(n) for n in re.findall(r'<article class="msg[^"]*" id="m-(\d+)"', dom)}
    doc = ExportDocument.model_validate_json(
        world.lazy("export", "7acd37a8", "--format", "json").stdout
    )
    absorbed = {n for m in doc.messages for n in m.absorbed}
    assert shown | absorbed == set(range(1, 116)), (
        "every stored message is shown, or inside its call"
    )
    assert "<details" in dom and 'class="dl add"' in dom and "Todos: 0/6 done" in dom
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / "export-html.png"
    _chromium(
        f"--screenshot={shot}",
        "--window-size=1100,1400",
        out.as_uri(),
        home=world.base / "chromium",
    )
    assert shot.stat().st_size > 10_000


def test_hostile_text_is_inert_and_secrets_redacted_in_every_format(world: World) -> None:
    sid = world.hostile.id
    for fmt in ("md", "html", "json"):
        p = world.lazy("export", sid, "--format", fmt)
        text = p.stdout
        assert AWS not in text and ANTHROPIC not in text, fmt
        # each secret once where a reader meets it: in the prompt and in the reply
        assert "4 redaction(s): anthropic-api-key 2, aws-access-key 2" in p.stderr, (fmt, p.stderr)
        assert "\x1b" not in text and "\x07" not in text, fmt
        if fmt == "json":
            assert "\\u001b[31m" in text  # (the escape kept as data, as JSON spells it)
            continue
        low = text.lower()
        assert "<script>window" not in low and "<img" not in low and "<style>body" not in low
        if fmt == "md":  # (in HTML such text is text; its links are checked below)
            links = re.findall(r"(?<!\\)\]\(\s*<?([a-z][a-z0-9+.-]*):", low)  # [text](scheme:
            assert set(links) <= {"http", "https", "mailto"}, links
            # a reference definition is one too, unless escaped
            refs = re.findall(r"^ {0,3}\[[^\]]*\]:\s*<?([a-z][a-z0-9+.-]*):", low, re.M)
            assert set(refs) == {"mailto"}, refs
        # shown as text (Markdown needs only its < written as an entity)
        gt = "&gt;" if fmt == "html" else ">"
        assert f"&lt;script{gt}window.__pwned=1&lt;/script{gt}" in text, fmt
    html = world.lazy("export", sid, "--format", "html").stdout
    assert html.count("<style>") == 1 and 'http-equiv="Content-Security-Policy"' in html
    # of its links only the mailto: one (in the prompt and the reply); javascript:, data:
    # and command: ones, inline or by reference, are text
    assert _inert(html).hrefs == ["mailto:a@b.test"] * 2
    kept = world.lazy("export", sid, "--format", "md", "--no-redact")
    assert AWS in kept.stdout and "warning: secrets were NOT redacted" in kept.stderr
