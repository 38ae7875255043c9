// Transcript text is untrusted: it must reach the page only as text.
import * as assert from "node:assert/strict";
import type { MessageView } from "../../src/protocol";
import { escapeHtml, findAll, isCompaction, plainText } from "../../src/text";
import { transcriptHtml } from "../../src/transcript/panels";
import { formatMessage } from "../../src/transcript/asText";
import { renderMessage, roleClass } from "../../src/webview/render";
import { escapeIcons } from "../../src/views/search";

/** A document whose elements keep text only and refuse any markup. */
class FakeNode {
  children: FakeNode[] = [];
  constructor(
    readonly tag: string,
    public text = "",
  ) {}
}

class FakeElement extends FakeNode {
  className = "";
  id = "";
  open = false;
  value = "";
  readonly dataset: Record<string, string> = {};
  readonly attributes: Record<string, string> = {};
  set textContent(t: string) {
    this.children = [new FakeNode("#text", t)];
  }
  get textContent(): string {
    return this.children.map((c) => (c instanceof FakeElement ? c.textContent : c.text)).join("");
  }
  set innerHTML(_: string) {
    throw new Error("innerHTML must never be used");
  }
  set outerHTML(_: string) {
    throw new Error("outerHTML must never be used");
  }
  insertAdjacentHTML(): void {
    throw new Error("insertAdjacentHTML must never be used");
  }
  setAttribute(k: string, v: string): void {
    this.attributes[k] = v;
  }
  append(...nodes: FakeNode[]): void {
    this.children.push(...nodes);
  }
  replaceChildren(...nodes: FakeNode[]): void {
    this.children = nodes;
  }
  all(): FakeElement[] {
    const out: FakeElement[] = [this];
    for (const c of this.children) if (c instanceof FakeElement) out.push(...c.all());
    return out;
  }
}

const fakeDoc = {
  createElement: (tag: string) => new FakeElement(tag),
  createTextNode: (t: string) => new FakeNode("#text", t),
} as unknown as Document;

function message(over: Partial<MessageView>): MessageView {
  return { number: 7, role: "assistant", text: "", session_id: "s1", timestamp: null, kinds: ["text"], ...over };
}

const NASTY = [
  "<script>alert(document.cookie)</script>",
  '<img src=x onerror="alert(1)">',
  '<a href="javascript:alert(1)">click</a>',
  "\u001b[31mred\u001b[0m \u001b]8;;http://evil\u0007link\u001b]8;;\u0007",
];

describe("untrusted text stays inert", () => {
  it("strips ANSI escapes and shows other controls escaped", () => {
    assert.equal(plainText("\u001b[1;31mError\u001b[0m: done\r\n"), "Error: done\n");
    assert.equal(plainText("\u001b]8;;http://x\u0007link\u001b]8;;\u0007"), "link");
    assert.equal(plainText("a\u0000b\u0008c"), "a\\x00b\\x08c");
    assert.equal(plainText("tab\tand\nnewline"), "tab\tand\nnewline");
  });

  it("escapes HTML for the page shell", () => {
    assert.equal(escapeHtml(`<img src="x" onerror='y'>&`), "&#60;img src=&#34;x&#34; onerror=&#39;y&#39;&#62;&#38;");
  });

  for (const text of NASTY) {
    it(`renders ${JSON.stringify(text.slice(0, 30))} as text only`, () => {
      const { entry } = renderMessage(fakeDoc, message({ text, parts: [{ kind: "tool", tool: { name: "Bash", summary: text } }] }), { query: "", formatTime: () => "" });
      const root = entry as unknown as FakeElement;
      const tags = root.all().map((e) => e.tag);
      assert.ok(!tags.some((t) => ["script", "img", "a", "iframe", "style"].includes(t)), tags.join(","));
      assert.ok(root.all().every((e) => Object.keys(e.attributes).length === 0), "no attributes set from text");
      assert.ok(root.textContent.includes(plainText(text)));
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(root.textContent, /\u001b/);
    });
  }

  it("highlights find matches with <mark> elements holding text", () => {
    const { entry, matches } = renderMessage(fakeDoc, message({ text: "a <b>needle</b> and NEEDLE" }), {
      query: "needle",
      formatTime: () => "",
    });
    assert.equal(matches, 2);
    const marks = (entry as unknown as FakeElement).all().filter((e) => e.tag === "mark");
    assert.deepEqual(marks.map((m) => m.textContent), ["needle", "NEEDLE"]);
    assert.deepEqual(findAll("aaa", "a"), [[0, 1], [1, 2], [2, 3]]);
  });

  it("folds reasoning and tool output, marks compaction", () => {
    const r = renderMessage(fakeDoc, message({ role: "reasoning", text: "thinking" }), { query: "", formatTime: () => "" });
    const details = (r.entry as unknown as FakeElement).all().filter((e) => e.tag === "details");
    assert.equal(details.length, 1);
    assert.equal(details[0]?.open, false);
    const c = renderMessage(fakeDoc, message({ role: "system", text: "Conversation compacted", kinds: ["text"] }), { query: "", formatTime: () => "" });
    assert.ok((c.entry as unknown as FakeElement).all().some((e) => e.className.includes("compaction")));
    assert.ok(isCompaction("user", ["compaction"], ""));
    assert.ok(!isCompaction("user", ["text"], "we compacted the disk"));
  });

  it("shows a short tool call inline, folds a long one, and never previews tool output", () => {
    const opts = { query: "", formatTime: () => "" };
    const short = renderMessage(fakeDoc, message({ role: "tool_call", tool_name: "Read", text: 'Read({"file_path":"/a"})' }), opts);
    assert.equal((short.entry as unknown as FakeElement).all().filter((e) => e.tag === "details").length, 0);
    const long = renderMessage(fakeDoc, message({ role: "tool_call", tool_name: "Write", text: "Write(" + "x".repeat(300) + ")" }), opts);
    assert.equal((long.entry as unknown as FakeElement).all().filter((e) => e.tag === "details").length, 1);
    const out = renderMessage(fakeDoc, message({ role: "tool_result", tool_name: "Read", text: "SECRET OUTPUT\nline 2" }), opts);
    const summary = (out.entry as unknown as FakeElement).all().find((e) => e.tag === "summary")!;
    assert.equal(summary.textContent, "Tool result: Read (2 lines)");
    const head = (out.entry as unknown as FakeElement).all().find((e) => e.tag === "header")!;
    assert.equal(head.textContent, "#7 Tool result Read", "parts separated by real spaces");
  });

  it("keeps role class names to safe characters", () => {
    assert.equal(roleClass('user" onclick="x'), "role-useronclickx");
    assert.equal(roleClass("tool_result"), "role-tool_result");
  });

  it("escapes $(icon) syntax in quick pick text", () => {
    assert.equal(escapeIcons("run $(terminal) now"), "run \\$(terminal) now");
    assert.equal(escapeIcons("already \\$(x)"), "already \\$(x)");
  });

  it("writes plain text for Open as text", () => {
    const t = formatMessage(message({ text: "\u001b[32mok\u001b[0m <b>", parts: [{ kind: "tool", tool: { name: "Bash", summary: "Bash(ls)" } }] }));
    assert.equal(t, "── #7 · assistant ──\nok <b>\n  → Bash(ls)");
  });

  it("serves a page shell with a strict CSP and a nonce", () => {
    const html = transcriptHtml({ cspSource: "vscode-webview://x", nonce: "N0nce", scriptUri: "s.js", styleUri: "s.css" });
    assert.match(html, /content="default-src 'none'; style-src vscode-webview:\/\/x; script-src 'nonce-N0nce'; img-src vscode-webview:\/\/x"/);
    assert.match(html, /<script nonce="N0nce" src="s.js"><\/script>/);
    assert.equal((html.match(/<script/g) ?? []).length, 1, "no inline script");
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval|onclick|onerror/);
  });
});
