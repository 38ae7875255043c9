// Transcript text is untrusted: Markdown is rendered, but nothing in it runs, loads, restyles
// the page or opens anything but through the extension (issue 15's hostile transcript).
import * as assert from "node:assert/strict";
import type { MessageView, Part, ToolCall } from "../../src/protocol";
import { escapeHtml, findAll, hitTerms, isCompaction, plainText, termsArg } from "../../src/text";
import { transcriptHtml } from "../../src/transcript/panels";
import { formatMessage } from "../../src/transcript/asText";
import { linkTarget } from "../../src/transcript/links";
import { openFold, shownText } from "../../src/webview/dom";
import { renderMarkdown, MARKDOWN_LIMIT } from "../../src/webview/markdown";
import { renderMessage, roleClass } from "../../src/webview/render";
import { safeClasses } from "../../src/webview/sanitize";
import { escapeIcons } from "../../src/views/search";
import { all, page, SAFE_ATTRIBUTES } from "../dom";

function message(over: Partial<MessageView>): MessageView {
  return { number: 7, role: "assistant", text: "", session_id: "s1", timestamp: null, kinds: ["text"], ...over };
}

const FORBIDDEN_TAGS = ["script", "img", "iframe", "style", "svg", "math", "form", "input", "object", "embed", "link", "meta", "base", "video", "audio"];

/** Nothing under root that a browser would run, load, follow or style from text. */
function assertInert(root: Element): void {
  for (const e of all(root)) {
    const tag = e.tagName.toLowerCase();
    assert.ok(!FORBIDDEN_TAGS.includes(tag), `a <${tag}> reached the page`);
    for (const a of Array.from(e.attributes)) {
      assert.ok(SAFE_ATTRIBUTES.has(a.name), `<${tag} ${a.name}="${a.value}"> reached the page`);
    }
    if (tag === "a") assert.ok(!e.hasAttribute("href"), "a link kept an href the webview would follow");
  }
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(root.textContent, /[\u001b\u009b]/, "a raw escape character reached the page");
}

const HOSTILE: [string, string, (root: Element) => void][] = [
  ["a <script>", "Render check: <script>window.__pwned=1</script>", (r) => { assert.match(r.textContent, /<script>window.__pwned=1<\/script>/); }],
  ["raw HTML with a handler", '<img src=x onerror="window.__pwned=1"> <b onclick="x()">bold?</b>', (r) => { assert.ok(r.textContent.includes('<img src=x onerror="window.__pwned=1">')); }],
  ["a javascript: link", "[click me](javascript:window.__pwned=1)", (r) => {
    assert.equal(r.querySelector(".md-inert-link")?.textContent, "click me");
    assert.ok(r.textContent.includes("javascript:window.__pwned=1"), "the target is shown as text");
  }],
  ["a data: link", "[x](data:text/html;base64,PHNjcmlwdD4=)", (r) => { assert.equal(r.querySelectorAll("a").length, 0); }],
  ["a command: link", "[run](command:workbench.action.terminal.new?%5B%5D)", (r) => { assert.equal(r.querySelectorAll("a").length, 0); }],
  ["a vscode: link", "[open](vscode://file/etc/passwd)", (r) => { assert.equal(r.querySelectorAll("a").length, 0); }],
  ["an entity-encoded javascript: link", "[x](javascript&colon;alert(1))", (r) => { assert.equal(r.querySelectorAll("a").length, 0); }],
  ["a remote image", "![tracker](https://evil.example/pixel.png)", (r) => {
    assert.match(r.querySelector(".md-image")?.textContent ?? "", /image “tracker” https:\/\/evil\.example\/pixel\.png — not loaded/);
  }],
  ["a data: image", "![x](data:image/png;base64,iVBORw0KGgo=)", (r) => { assert.ok(r.querySelector(".md-image")); }],
  ["a <style> block", "<style>body{display:none}</style>\n\nafter", (r) => { assert.match(r.textContent, /<style>body\{display:none\}<\/style>/); }],
  ["a style attribute", '<div style="position:fixed;inset:0">cover</div>', (r) => { assert.equal(r.querySelectorAll("[style]").length, 0); }],
  ["a class smuggled through a fence's language", '```x" onclick="alert(1)\ncode\n```', (r) => {
    for (const e of all(r)) for (const c of Array.from(e.classList)) assert.match(c, /^(md|hljs|language-|part|text|entry|msg|role-|head|num|role|parts)/);
  }],
  ["ANSI escapes", "\u001b[31mred\u001b[0m and \u001b]8;;http://evil\u0007link\u001b]8;;\u0007", (r) => {
    assert.ok(r.textContent.includes("␛[31mred␛[0m"), r.textContent);
  }],
  ["an iframe and a form", '<iframe src="https://evil"></iframe><form action="https://evil"><input></form>', (r) => { assert.ok(r.textContent.includes("<iframe")); }],
  ["SVG and MathML", "<svg onload=alert(1)><circle/></svg><math><mi>x</mi></math>", (r) => { assert.ok(r.textContent.includes("<svg")); }],
];

describe("untrusted text stays inert", () => {
  for (const [what, text, check] of HOSTILE) {
    it(`renders ${what} as text, inert`, () => {
      const p = page();
      const entry = renderMessage(p.document, message({ text, parts: [{ kind: "text", text }] }), { formatTime: () => "" });
      p.document.body.append(entry);
      assertInert(entry);
      check(entry);
    });
  }

  it("keeps hostile text inert in every kind of part and tool output", () => {
    const nasty = "<script>x()</script> [a](javascript:x) \u001b[1mbold\u001b[0m ![i](http://evil/i.png)";
    const tool = (t: Partial<ToolCall>): Part => ({ kind: "tool", tool: { name: "Bash", kind: "shell", summary: `$ ${nasty}`, input: { command: nasty }, output: nasty, ...t } });
    const parts: Part[] = [
      { kind: "thinking", text: nasty },
      { kind: "harness", label: nasty, text: nasty },
      { kind: "notice", label: nasty, text: nasty },
      { kind: "image", media_type: nasty, bytes: 10, name: nasty },
      tool({}),
      tool({ kind: "edit", name: "Edit", diff: [{ path: nasty, diff: `--- a/x\n+++ b/x\n@@ -1 +1 @@\n-${nasty}\n+${nasty}`, language: "html" }] }),
      tool({ kind: "todo", name: "TodoWrite", todos: [{ text: nasty, status: "in_progress" }] }),
      tool({ kind: "web", name: "WebFetch", input: { url: "javascript:alert(1)" } }),
      tool({ kind: "task", name: "Task", subagent: { session_id: "s:1", description: nasty, outcome: nasty, message_count: 3 } }),
      tool({ kind: "other", name: nasty, input: { html: nasty } }),
    ];
    const p = page();
    const entry = renderMessage(p.document, message({ parts }), { formatTime: () => "" });
    // open every fold (building its body), twice for folds inside folds
    for (let i = 0; i < 2; i++) for (const d of Array.from(entry.querySelectorAll("details"))) openFold(d);
    assertInert(entry);
    assert.ok(entry.querySelectorAll("pre.output").length >= 3, "the outputs were built");
    assert.ok((entry.textContent).includes("␛[1mbold␛[0m"), "escapes are shown as text");
  });

  it("shows very long lines whole, and huge texts plainly", () => {
    const p = page();
    const long = "x".repeat(300_000);
    const box = renderMarkdown(p.document, long);
    assert.equal(box.querySelector("pre.md-plain")?.textContent.length, long.length);
    assert.ok(long.length > MARKDOWN_LIMIT);
    const line = "y".repeat(50_000);
    assert.equal(renderMarkdown(p.document, line).textContent.trim().length, line.length);
  });

  it("decides what a link may do: http(s), files, nothing else", () => {
    assert.deepEqual(linkTarget("https://example.com/a?b=1"), { kind: "web", url: "https://example.com/a?b=1" });
    assert.deepEqual(linkTarget(" HTTP://Example.com"), { kind: "web", url: "http://example.com/" });
    assert.deepEqual(linkTarget("src/a%20b.ts#L12"), { kind: "file", path: "src/a b.ts", line: 12 });
    assert.deepEqual(linkTarget("file:///home/u/x.py"), { kind: "file", path: "/home/u/x.py", line: null });
    for (const bad of ["javascript:alert(1)", "JaVaScRiPt:x", "java\u0000script:x", "data:text/html,x", "command:x", "vscode://x", "mailto:a@b", "//evil.example/x", "file://evil.example/share/x", "#top", ""]) {
      assert.equal(linkTarget(bad).kind, "inert", bad);
    }
  });

  it("keeps only the renderer's own class names", () => {
    assert.equal(safeClasses("hljs-keyword title function_ language-ts md-link hidden entry"), "hljs-keyword function_ language-ts md-link");
    assert.equal(roleClass('user" onclick="x'), "role-useronclickx");
  });

  it("shows escapes as text and strips them from plain text", () => {
    assert.equal(shownText("\u001b[31mred\u001b[0m\r\nnext\u0007"), "␛[31mred␛[0m\nnext\\x07");
    assert.equal(plainText("\u001b[1;31mError\u001b[0m: done\r\n"), "Error: done\n");
    assert.equal(plainText("a\u0000b"), "a\\x00b");
    assert.equal(escapeHtml(`<img src="x">&`), "&#60;img src=&#34;x&#34;&#62;&#38;");
    assert.deepEqual(findAll("aaa", "a"), [[0, 1], [1, 2], [2, 3]]);
    assert.ok(isCompaction("user", ["compaction"], ""));
  });

  it("takes a search hit's terms from its highlighted ranges (code points), each once", () => {
    assert.deepEqual(hitTerms("😀 Periwinkle and periwinkle blue", [[2, 12], [17, 27], [28, 32]]), ["Periwinkle", "blue"]);
    assert.deepEqual(termsArg(["a", 3, "", "b".repeat(201), "c"]), ["a", "c"]);
    assert.deepEqual(termsArg("a"), []);
  });

  it("escapes $(icon) syntax in quick pick text", () => {
    assert.equal(escapeIcons("run $(terminal) now"), "run \\$(terminal) now");
  });

  it("writes plain text for Open as text, parts in order", () => {
    const t = formatMessage(
      message({
        text: "ignored",
        parts: [
          { kind: "text", text: "\u001b[32mok\u001b[0m <b>" },
          { kind: "thinking", text: "hmm" },
          { kind: "tool", tool: { name: "Bash", kind: "shell", summary: "$ ls", output: "a\nb" } },
        ],
      }),
    );
    assert.equal(t, "── #7 · assistant ──\nok <b>\n\n[thinking]\nhmm\n\n  → $ ls\n    a\n    b");
  });

  it("serves a page shell with a strict CSP and a nonce", () => {
    const html = transcriptHtml({ cspSource: "vscode-webview://x", nonce: "N0nce", scriptUri: "s.js", styleUri: "s.css" });
    assert.match(html, /content="default-src 'none'; style-src vscode-webview:\/\/x; script-src 'nonce-N0nce'; img-src vscode-webview:\/\/x"/);
    assert.match(html, /<script nonce="N0nce" src="s.js"><\/script>/);
    assert.equal((html.match(/<script/g) ?? []).length, 1, "no inline script");
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval|onclick|onerror/);
  });
});
