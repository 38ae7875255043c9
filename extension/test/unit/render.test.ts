// The message view model as the transcript webview renders it (jsdom): Markdown and code,
// each tool kind's summary and body, diffs coloured and highlighted, checklists, thinking and
// harness text folded, attachments as placeholders, find marks opening the fold they are in.
import * as assert from "node:assert/strict";
import type { MessageView, Part, ToolCall } from "../../src/protocol";
import { foldText, openFold } from "../../src/webview/dom";
import { changedRanges, diffLineKind } from "../../src/webview/diff";
import { clearMarks, markTerms, termRanges } from "../../src/webview/marks";
import { builderMeta, builderTitle, estimatedHeight, renderDeferred, renderMessage } from "../../src/webview/render";
import { shellCommand } from "../../src/webview/tools";
import { builder } from "../fakes";
import { page } from "../dom";

function message(over: Partial<MessageView>): MessageView {
  return { number: 3, role: "assistant", text: "", session_id: "s1", timestamp: null, kinds: ["text"], ...over };
}

function call(over: Partial<ToolCall>): ToolCall {
  return { name: "Tool", kind: "other", summary: "Tool", input: {}, output: "done", ...over };
}

function render(parts: Part[], over: Partial<MessageView> = {}, opts: Parameters<typeof renderMessage>[2] = { formatTime: () => "" }): HTMLElement {
  const p = page();
  const entry = renderMessage(p.document, message({ parts, ...over }), opts);
  p.document.body.append(entry);
  return entry;
}

/** The entry's only tool fold, opened (its body built). */
function openTool(t: ToolCall): HTMLDetailsElement {
  const entry = render([{ kind: "tool", tool: t }]);
  const d = entry.querySelector<HTMLDetailsElement>("details.part.tool");
  assert.ok(d, "a tool fold");
  openFold(d);
  return d;
}

const EDIT_DIFF = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n def main():\n-    limit = 50\n+    limit = 100";

describe("the transcript's message rendering", () => {
  it("renders text parts as Markdown with highlighted code in the editor font's classes", () => {
    const entry = render([{ kind: "text", text: "## Plan\n\n**bold** and `code`\n\n```ts\nconst x: number = 1;\n```\n\n```\nplain\n```" }]);
    assert.equal(entry.querySelector(".md h2")?.textContent, "Plan");
    assert.equal(entry.querySelector(".md strong")?.textContent, "bold");
    assert.equal(entry.querySelector(".md p code")?.textContent, "code");
    const ts = entry.querySelector("pre.md-code code.hljs.language-ts");
    assert.ok(ts, "the ts fence is highlighted");
    assert.equal(ts.querySelector(".hljs-keyword")?.textContent, "const");
    const plain = Array.from(entry.querySelectorAll("pre > code")).find((c) => c.textContent === "plain\n");
    assert.ok(plain && plain.querySelectorAll("span").length === 0, "a fence without a language is left plain");
  });

  it("aligns a table's columns by class, never a style attribute the CSP would refuse", () => {
    const entry = render([{ kind: "text", text: "| a | b | c |\n|:--|--:|:-:|\n| 1 | 2 | 3 |" }]);
    const cells = Array.from(entry.querySelectorAll(".md td")).map((td) => td.className);
    assert.deepEqual(cells, ["md-align-left", "md-align-right", "md-align-center"]);
    assert.equal(entry.querySelectorAll("[style]").length, 0);
  });

  it("makes http(s) and file links clickable through data attributes only", () => {
    const entry = render([{ kind: "text", text: "[docs](https://example.com/x) [file](src/a.ts#L4) [bad](command:x)" }]);
    const [web, file] = Array.from(entry.querySelectorAll<HTMLAnchorElement>("a.md-link"));
    assert.equal(web?.dataset.href, "https://example.com/x");
    assert.equal(file?.dataset.file, "src/a.ts");
    assert.equal(file.dataset.line, "4");
    assert.equal(entry.querySelectorAll("a[href]").length, 0);
    assert.equal(entry.querySelector(".md-inert-link")?.textContent, "bad");
  });

  it("numbers and labels the message, one Tab stop with its controls out of the Tab order", () => {
    const entry = render([{ kind: "text", text: "[x](https://e.com)" }, { kind: "tool", tool: call({}) }], { number: 12, role: "user", model: "m1" });
    const article = entry.querySelector("article.msg")!;
    assert.equal(article.id, "m-12");
    assert.equal(article.getAttribute("tabindex"), "-1");
    assert.equal(entry.querySelector(".head")?.textContent, "#12 User m1");
    for (const c of Array.from(entry.querySelectorAll<HTMLElement>("a, button, summary"))) assert.equal(c.tabIndex, -1, c.outerHTML.slice(0, 60));
  });

  it("shows a shell call as $ command, output, exit code, duration, error styling", () => {
    const t = call({ name: "Bash", kind: "shell", summary: "$ pytest -q", input: { command: "pytest -q\n  --maxfail=1" }, output: "1 failed", exit_code: 1, duration_ms: 2300, is_error: true });
    const d = openTool(t);
    assert.equal(d.querySelector("summary .tool-summary")?.textContent, "$ pytest -q");
    assert.equal(d.querySelector(".badge.exit.bad")?.textContent, "exit 1");
    assert.equal(d.querySelector(".badge.duration")?.textContent, "2.3 s");
    assert.equal(d.querySelector("pre.command")?.textContent, "$ pytest -q\n  --maxfail=1");
    assert.equal(d.querySelector("pre.output.error")?.textContent, "1 failed");
    assert.ok(d.classList.contains("is-error") && d.classList.contains("kind-shell"));
    assert.equal(shellCommand(call({ kind: "shell", input: { command: ["bash", "-lc", "ls -la"] } })), "ls -la");
  });

  it("folds a Read's output until it is opened, and says when only the head was kept", () => {
    const entry = render([{ kind: "tool", tool: call({ name: "Read", kind: "read", summary: "Read src/a.py (lines 1-80)", output: "SECRET\nline 2", output_chars: 90_000 }) }]);
    const d = entry.querySelector<HTMLDetailsElement>("details.kind-read")!;
    assert.equal(d.open, false);
    assert.ok(!entry.textContent.includes("SECRET"), "the output is not built while folded");
    openFold(d);
    assert.equal(d.querySelector("pre.output")?.textContent, "SECRET\nline 2");
    assert.equal(d.querySelector(".tool-output .tool-label")?.textContent, "Output (2 lines)");
    assert.equal(d.querySelector(".tool-output .tool-note")?.textContent, "(90,000 characters in all, the head kept)");
  });

  it("shows a file a read returned with its line numbers in a gutter, highlighted by its language", () => {
    const t = call({ name: "Read", kind: "read", summary: "Read a.py (lines 10-12)", output: "def f():\n    return 1\n\n", first_line: 10, language: "python" });
    const d = openTool(t);
    assert.equal(d.querySelector(".tool-output .tool-label")?.textContent, "Lines 10–12");
    assert.equal(d.querySelector(".file-gutter")?.textContent, "10\n11\n12");
    const code = d.querySelector(".file-code");
    assert.ok(code);
    assert.equal(code.textContent, "def f():\n    return 1\n");
    assert.equal(code.querySelector(".hljs-keyword")?.textContent, "def");
    // a read the sidecar could not number (an error, a note) is its output as it came
    const plain = openTool(call({ name: "Read", kind: "read", output: "File does not exist.", is_error: true }));
    assert.equal(plain.querySelector(".file-view"), null);
    assert.equal(plain.querySelector("pre.output")?.textContent, "File does not exist.");
  });

  it("renders an edit as a unified diff, lines coloured by kind and highlighted by language", () => {
    const d = openTool(call({ name: "Edit", kind: "edit", summary: "Edit src/app.py (+1 -1)", diff: [{ path: "src/app.py", diff: EDIT_DIFF, added: 1, removed: 1, language: "python" }] }));
    assert.equal(d.open, true, "a small diff is open from the start");
    assert.equal(d.querySelector(".diff-path")?.textContent, "src/app.py");
    assert.equal(d.querySelector(".diff-added")?.textContent, "+1");
    assert.equal(d.querySelector(".diff-removed")?.textContent, "−1");
    const kinds = Array.from(d.querySelectorAll("pre.diff > .dl")).map((l) => l.className);
    assert.deepEqual(kinds, ["dl dl-hunk", "dl dl-ctx", "dl dl-del", "dl dl-add"]);
    assert.equal(d.querySelector(".dl-add")?.textContent, "+    limit = 100");
    assert.equal(d.querySelector(".dl-add .hljs-number")?.textContent, "100");
    assert.equal(d.querySelector(".dl-ctx .hljs-keyword")?.textContent, "def");
    // within the changed line, the word that changed (inside the highlighter's span)
    assert.deepEqual(Array.from(d.querySelectorAll(".dl-chg")).map((c) => [c.closest(".dl")?.className, c.textContent]), [
      ["dl dl-del", "50"],
      ["dl dl-add", "100"],
    ]);
    assert.equal(d.querySelector(".dl-add .hljs-number .dl-chg")?.textContent, "100");
    assert.deepEqual(["+x", "-y", " z", "@@ -1 +1 @@", "+++ b/x", "--- a/x"].map(diffLineKind), ["add", "del", "ctx", "hunk", "meta", "meta"]);
  });

  it("marks what changed within a line where a removed line and an added one are mostly the same", () => {
    assert.deepEqual(changedRanges("const x = foo(a, b);", "const x = foo(a, c, b);"), [[17, 17], [17, 20]]); // "c, " put in
    assert.deepEqual(changedRanges("limit = 50", "limit = 100"), [[8, 10], [8, 11]]);
    assert.equal(changedRanges("alpha", "omega"), undefined, "nothing shared: the line's colour says it");
    assert.equal(changedRanges("same", "same"), undefined);
    assert.equal(changedRanges("x = compute(a)", "print(done)"), undefined, "two different lines");
    // paired in place: the first removed with the first added; the second has no partner
    const diff = "@@ -1,3 +1,2 @@\n-one = 1\n-two = 2\n+one = 10\n ctx";
    const d = openTool(call({ name: "Edit", kind: "edit", summary: "Edit a.py", diff: [{ path: "a.py", diff, added: 1, removed: 2, language: "python" }] }));
    assert.deepEqual(Array.from(d.querySelectorAll(".dl-chg")).map((c) => c.textContent), ["1", "10"]);
  });

  it("renders a patch of several files, each with its path", () => {
    const files = ["a.rs", "b.go"].map((p) => ({ path: p, diff: `--- a/${p}\n+++ b/${p}\n@@ -0,0 +1 @@\n+fn x() {}`, added: 1, removed: 0, language: p.endsWith(".rs") ? "rust" : "go" }));
    const d = openTool(call({ name: "apply_patch", kind: "edit", summary: "Patch a.rs, b.go (+2 -0)", diff: files }));
    assert.deepEqual(Array.from(d.querySelectorAll(".diff-path")).map((e) => e.textContent), ["a.rs", "b.go"]);
    assert.equal(d.querySelectorAll(".dl-add").length, 2);
  });

  it("shows a search's pattern and how many results it printed", () => {
    const t = call({ name: "Grep", kind: "search", summary: "Grep 'TODO' in src", input: { pattern: "TODO", path: "src" }, output: "a.py:1\nb.py:2\n\nc.py:3\n", matches: 3 });
    const d = openTool(t);
    assert.equal(d.querySelector(".badge.count")?.textContent, "3 matches");
    assert.equal(d.querySelector(".tool-field .tool-value")?.textContent, "TODO");
    const none = openTool(call({ kind: "search", output: "No files found", matches: 0 }));
    assert.equal(none.querySelector(".badge.count")?.textContent, "0 matches");
  });

  it("shows TodoWrite as a checklist, open", () => {
    const todos = [
      { text: "Write it", status: "completed" },
      { text: "Test it", status: "in_progress" },
      { text: "Ship it", status: "pending" },
    ];
    const entry = render([{ kind: "tool", tool: call({ name: "TodoWrite", kind: "todo", summary: "Todos: 1/3 done", todos }) }]);
    const d = entry.querySelector<HTMLDetailsElement>("details.kind-todo")!;
    assert.equal(d.open, true);
    const items = Array.from(d.querySelectorAll("ul.todos > li"));
    assert.deepEqual(items.map((li) => li.textContent), ["☑ Write it", "◐ Test it", "☐ Ship it"]);
    assert.deepEqual(items.map((li) => li.className), ["todo status-completed", "todo status-in_progress", "todo status-pending"]);
  });

  it("shows a web call's address as a link only when it is http(s)", () => {
    const ok = openTool(call({ name: "WebFetch", kind: "web", summary: "WebFetch https://e.com", input: { url: "https://e.com/p" } }));
    assert.equal(ok.querySelector<HTMLElement>("a.md-link.web")?.dataset.href, "https://e.com/p");
    const bad = openTool(call({ name: "WebFetch", kind: "web", summary: "WebFetch x", input: { url: "javascript:alert(1)" } }));
    assert.equal(bad.querySelectorAll("a").length, 0);
    assert.ok(bad.textContent.includes("javascript:alert(1)"));
    const q = openTool(call({ name: "WebSearch", kind: "web", summary: "WebSearch 'lazy'", input: { query: "lazy builders" } }));
    assert.match(q.querySelector(".tool-field")?.textContent ?? "", /Query lazy builders/);
  });

  it("shows a task call as its subagent: description, type, size, outcome, inline and Open", () => {
    const loads: string[] = [];
    const sub = { session_id: "b:agent-1", agent_id: "agent-1", description: "Find the parser", agent_type: "Explore", message_count: 12, outcome: "It is in **parse.py**." };
    const entry = render([{ kind: "tool", tool: call({ name: "Task", kind: "task", summary: "Task (Explore): Find the parser", subagent: sub, output: "done" }) }], {}, {
      formatTime: () => "",
      loadSubagent: (into, ref) => { loads.push(ref.session_id); into.append(into.ownerDocument.createTextNode("LOADED")); },
    });
    const d = entry.querySelector<HTMLDetailsElement>("details.kind-task")!;
    assert.equal(d.querySelector("summary .badge.count")?.textContent, "12 messages");
    openFold(d);
    assert.equal(d.querySelector(".subagent-title")?.textContent, "Find the parser");
    assert.equal(d.querySelector(".badge.agent-type")?.textContent, "Explore");
    assert.equal(d.querySelector(".subagent .md strong")?.textContent, "parse.py");
    assert.equal(d.querySelector<HTMLElement>("button[data-action=open-subagent]")?.dataset.session, "b:agent-1");
    assert.deepEqual(loads, [], "its messages are asked for only when shown");
    openFold(d.querySelector<HTMLDetailsElement>("details.subagent-inline")!);
    assert.deepEqual(loads, ["b:agent-1"]);
    assert.match(d.querySelector(".subagent-messages")?.textContent ?? "", /LOADED/);
  });

  it("shows MCP calls by server and tool, anything else by name and pretty JSON", () => {
    const mcp = openTool(call({ name: "mcp__github__create_issue", kind: "mcp", mcp_server: "github", summary: "github · create_issue", input: { title: "x" } }));
    assert.equal(mcp.querySelector("summary .tool-summary")?.textContent, "github · create_issue");
    assert.match(mcp.textContent, /Server github/);
    const other = openTool(call({ name: "Frobnicate", summary: "Frobnicate {\"level\":3}", input: { level: 3, deep: { a: [1] } } }));
    assert.equal(other.querySelector("pre.json")?.textContent, JSON.stringify({ level: 3, deep: { a: [1] } }, null, 2));
    assert.ok(other.querySelector("pre.json .hljs-attr"), "the JSON is highlighted");
  });

  it("folds thinking, and opens it when a find or search hit lies in it", () => {
    const entry = render([{ kind: "thinking", text: "The **cursor** must be opaque." }, { kind: "text", text: "Done." }]);
    const thinking = entry.querySelector<HTMLDetailsElement>("details.part.thinking")!;
    assert.equal(thinking.open, false);
    assert.equal(foldText(thinking), "The **cursor** must be opaque.");
    assert.equal(markTerms(entry.querySelector("article")!, ["nowhere"], { open: true }).length, 0);
    assert.equal(thinking.open, false, "no hit, still folded");
    const groups = markTerms(entry.querySelector("article")!, ["CURSOR"], { open: true });
    assert.equal(thinking.open, true);
    assert.equal(groups.length, 1);
    assert.equal(groups[0]?.[0]?.textContent, "cursor");
    assert.equal(groups[0][0].closest("details"), thinking);
    clearMarks(entry, "hit");
    assert.equal(entry.querySelectorAll("mark").length, 0);
    assert.equal(thinking.querySelector(".md strong")?.textContent, "cursor", "the text is whole again");
  });

  it("marks a hit across highlighted spans, and opens the tool call whose output holds it", () => {
    const entry = render([{ kind: "tool", tool: call({ name: "Bash", kind: "shell", summary: "$ make", output: "error: missing periwinkle" }) }, { kind: "text", text: "```py\nreturn_value = 1\n```" }]);
    const groups = markTerms(entry.querySelector("article")!, ["periwinkle", "value = 1"], { open: true });
    assert.equal(entry.querySelector<HTMLDetailsElement>("details.kind-shell")?.open, true);
    assert.deepEqual(groups.map((g) => g.map((m) => m.textContent).join("")), ["periwinkle", "value = 1"]);
    assert.ok((groups[1]?.length ?? 0) > 1, "one hit over several highlighted spans");
    assert.deepEqual(termRanges("aXa xa", ["xa", "a"]), [[0, 1], [1, 3], [4, 6]]);
  });

  it("labels harness text, folded, apart from the user's words; notices small", () => {
    const entry = render(
      [
        { kind: "harness", label: "System reminder", text: "<system-reminder>be brief</system-reminder>" },
        { kind: "notice", label: "Interrupted", text: "" },
      ],
      { role: "system", harness: true },
    );
    const article = entry.querySelector("article")!;
    assert.ok(article.classList.contains("harness"));
    assert.equal(entry.querySelector(".head .role")?.textContent, "Harness");
    const h = entry.querySelector<HTMLDetailsElement>("details.part.harness")!;
    assert.equal(h.open, false);
    assert.equal(h.querySelector("summary .badge.harness-label")?.textContent, "System reminder");
    openFold(h);
    assert.equal(h.querySelector("pre.harness-text")?.textContent, "<system-reminder>be brief</system-reminder>");
    assert.equal(entry.querySelector(".part.notice")?.textContent, "Interrupted");
  });

  it("shows an image as a labelled placeholder with its size and an action to open its source", () => {
    const entry = render([{ kind: "image", media_type: "image/png", bytes: 12_800, name: null }]);
    const media = entry.querySelector(".part.media")!;
    assert.match(media.textContent, /Image · image\/png · 12\.5 KB/);
    assert.match(media.textContent, /not kept by lazy \(only its size and digest\)/);
    const open = media.querySelector<HTMLButtonElement>("button[data-action=open-media]")!;
    assert.equal(open.dataset.session, "s1");
  });

  it("defers a message's parts: its head now, its body once built, at its estimated height until then", () => {
    const p = page();
    const m = message({ parts: [{ kind: "text", text: "## Plan\n\nline\n".repeat(20) }, { kind: "tool", tool: call({ name: "Bash", kind: "shell", summary: "$ ls" }) }] });
    const { entry, build } = renderDeferred(p.document, m, { formatTime: () => "" });
    p.document.body.append(entry);
    const body = entry.querySelector<HTMLElement>("article.msg > .parts");
    assert.ok(body);
    assert.equal(entry.querySelector("header.head .num")?.textContent, "#3");
    assert.equal(body.childElementCount, 0, "nothing of the body is built before it is asked for");
    assert.equal(body.style.minHeight, `${estimatedHeight(m)}px`);
    assert.ok(estimatedHeight(m) > 20 * 3 * 19, "three lines of text a repeat, each at least a line high");
    let built = 0;
    p.document.body.addEventListener("lazy-built", () => { built++; });
    build();
    build();
    assert.equal(entry.querySelectorAll(".md h2").length, 20);
    assert.equal(entry.querySelectorAll("details.part.tool").length, 1);
    assert.equal(body.getAttribute("style"), null, "the estimate is gone once built");
    assert.equal(built, 1, "built once, and announced once (nav.ts puts its controls in the Tab order)");
  });

  it("marks a compaction and a new session", () => {
    const p = page();
    const prev = message({ number: 2, session_id: "s0" });
    const entry = renderMessage(p.document, message({ parts: [{ kind: "harness", label: "Compaction", text: "compacted" }] }), { formatTime: () => "", previous: prev });
    assert.ok(entry.querySelector(".divider.session"));
    assert.ok(entry.querySelector(".divider.compaction"));
  });

  it("titles the header with one line: the title, else the summary's first line", () => {
    assert.equal(builderTitle(builder("b", { title: "Named", summary: "long\nprompt" })), "Named");
    assert.equal(builderTitle(builder("b", { title: null, summary: "\n  First line of the prompt\nsecond line" })), "First line of the prompt");
    assert.ok(builderTitle(builder("b", { title: null, summary: "w".repeat(500) })).length <= 120);
    assert.match(builderMeta(builder("b"), () => "today"), /claude · \/ws\/app · today · 10 messages/);
  });
});
