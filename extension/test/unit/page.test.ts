// The transcript page itself (src/webview/transcript.ts) in jsdom, talking to a fake host as the
// extension would: landing on a search hit, find over the whole line across pages (pages that
// repeat messages, numbers absorbed into others), keyboard navigation, Ctrl+F, links.
import * as assert from "node:assert/strict";
import { createRequire } from "node:module";
import type { BuilderInfo, MessageView } from "../../src/protocol";
import type { WebviewToHost } from "../../src/transcript/messages";
import { transcriptHtml } from "../../src/transcript/panels";
import { builder } from "../fakes";
import { page, type Page } from "../dom";

const ID = "0197a3c2-5e8b-4f1a-9d3c-7b2e6a4f8c10";

function msg(n: number): MessageView {
  const base: MessageView = { number: n, role: n % 2 ? "user" : "assistant", text: `message ${n}`, session_id: "s1", timestamp: null, kinds: ["text"] };
  if (n === 24) return { ...base, parts: [{ kind: "text", text: "a **needle** here" }] };
  if (n === 250) {
    return { ...base, parts: [{ kind: "thinking", text: "the periwinkle needle, then a needle" }, { kind: "text", text: "[docs](https://example.com/d) [bad](javascript:alert(1)) [src](src/a.ts#L2)" }] };
  }
  if (n === 301) {
    const tool = { name: "Bash", kind: "shell" as const, summary: "$ grep", input: { command: "grep -r x" }, output: "found the needle", result_number: 302 };
    return { ...base, role: "assistant", parts: [{ kind: "tool", tool }], absorbed: [302] };
  }
  return { ...base, parts: [{ kind: "text", text: `message ${n}` }] };
}

/** The page's answer for messages from..to (302 shown inside 301). */
function pageOf(start: number, from: number, to: number, nextStart: number | null): unknown {
  const messages: MessageView[] = [];
  for (let n = from; n <= to; n++) if (n !== 302) messages.push(msg(n));
  return { type: "page", sessionId: null, start, messages, total: 400, nextStart };
}

interface Booted {
  p: Page;
  posted: WebviewToHost[];
  send(m: unknown): void;
  byId(id: string): HTMLElement;
  key(target: EventTarget, key: string, init?: KeyboardEventInit): void;
}

const G = globalThis as unknown as Record<string, unknown>;

async function boot(): Promise<Booted> {
  const html = transcriptHtml({ cspSource: "x", nonce: "n", scriptUri: "s.js", styleUri: "s.css" });
  const body = /<body>([\s\S]*)<script/.exec(html)?.[1] ?? "";
  const p = page(body);
  const posted: WebviewToHost[] = [];
  let state: unknown;
  Object.assign(G, {
    window: p.window,
    document: p.document,
    acquireVsCodeApi: () => ({ postMessage: (m: WebviewToHost) => posted.push(m), getState: () => state, setState: (s: unknown) => { state = s; } }),
  });
  // the page script runs once per load, as in a webview: a fresh copy each time
  const load = createRequire(__filename);
  const file = load.resolve("../../src/webview/transcript");
  // eslint-disable-next-line @typescript-eslint/no-dynamic-delete
  delete load.cache[file];
  load(file);
  await Promise.resolve();
  const byId = (id: string): HTMLElement => {
    const e = p.document.getElementById(id);
    assert.ok(e, `#${id}`);
    return e;
  };
  return {
    p,
    posted,
    byId,
    send: (m) => { p.window.dispatchEvent(new p.window.MessageEvent("message", { data: m })); },
    key: (target, key, init = {}) => { target.dispatchEvent(new p.window.KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...init })); },
  };
}

function info(): BuilderInfo {
  return builder(ID, { message_count: 400, title: null, summary: "Fix the parser\nand then a very long first prompt that goes on" });
}

describe("the transcript page", () => {
  afterEach(() => {
    // the page's timers (its window's) end with it
    (G.window as Window | undefined)?.close();
    for (const k of ["window", "document", "acquireVsCodeApi"]) Reflect.deleteProperty(G, k);
  });

  it("lands on a search hit: loads its page, marks it, highlights the terms in the thinking it opens", async () => {
    const b = await boot();
    assert.deepEqual(b.posted, [{ type: "ready" }]);
    b.send({ type: "init", builder: info(), sessionId: null, focus: 250, terms: ["periwinkle"] });
    assert.equal(b.byId("title").textContent, "Fix the parser", "a one-line title");
    assert.deepEqual(b.posted.at(-1), { type: "loadPage", sessionId: null, start: 230, count: 200 });
    b.send(pageOf(230, 228, 429, 430));
    const target = b.byId("m-250");
    assert.ok(target.classList.contains("target"));
    const thinking = target.querySelector<HTMLDetailsElement>("details.thinking")!;
    assert.equal(thinking.open, true, "the thinking the hit is in is open");
    assert.deepEqual(Array.from(target.querySelectorAll("mark.term")).map((m) => m.textContent), ["periwinkle"]);
    assert.equal(b.p.document.activeElement, target, "the landed message has focus");
    assert.ok(b.p.scrolled.includes(target.querySelector("mark.term")!), "scrolled to the hit");
    assert.equal(b.byId("m-249").querySelector("details.thinking"), null);
  });

  it("keeps one entry per message when pages repeat messages or absorb them", async () => {
    const b = await boot();
    b.send({ type: "init", builder: info(), sessionId: null, focus: 250, terms: [] });
    b.send(pageOf(230, 228, 429, 430));
    b.send(pageOf(30, 28, 231, 228)); // the page before: it repeats 228-231
    b.send(pageOf(430, 299, 431, null)); // a page that repeats the step holding 301-302
    const ids = Array.from(b.p.document.querySelectorAll("article.msg[id]")).map((a) => a.id);
    assert.equal(new Set(ids).size, ids.length, "no message twice");
    assert.deepEqual([ids[0], ids.at(-1)], ["m-28", "m-431"]);
    assert.equal(b.p.document.getElementById("m-302"), null, "302 is shown inside 301");
    const numbers = ids.map((i) => Number(i.slice(2)));
    assert.deepEqual(numbers, [...numbers].sort((x, y) => x - y), "in order");
    // near the top of what is loaded: the messages before it are asked for next
    assert.deepEqual(b.posted.at(-1), { type: "loadPage", sessionId: null, start: 1, count: 27 });
  });

  it("finds over the whole Builder: 1 of 4, loading the page of each match, marking it", async () => {
    const b = await boot();
    b.send({ type: "init", builder: info(), sessionId: null, focus: 250, terms: [] });
    b.send(pageOf(230, 228, 429, 430));
    const find = b.byId("find") as HTMLInputElement;
    find.value = "needle";
    b.key(find, "Enter");
    assert.deepEqual(b.posted.at(-1), { type: "find", sessionId: null, query: "needle" });
    b.send({ type: "found", sessionId: null, query: "needle", matches: [{ number: 24, count: 1 }, { number: 250, count: 2 }, { number: 302, count: 1 }], total: 4 });
    assert.equal(b.byId("find-count").textContent, "1 of 4");
    // #24 is not loaded: its page is asked for, the match shown when it comes
    assert.deepEqual(b.posted.at(-1), { type: "loadPage", sessionId: null, start: 4, count: 200 });
    b.send(pageOf(4, 4, 203, 204));
    const m24 = b.byId("m-24");
    assert.deepEqual(Array.from(m24.querySelectorAll("mark.hit.current")).map((m) => m.textContent), ["needle"]);
    b.key(find, "Enter");
    assert.equal(b.byId("find-count").textContent, "2 of 4");
    b.send(pageOf(230, 228, 429, 430));
    const m250 = b.byId("m-250");
    assert.equal(m250.querySelector<HTMLDetailsElement>("details.thinking")?.open, true);
    assert.equal(m250.querySelectorAll("mark.hit").length, 2);
    assert.equal(m250.querySelector("mark.hit.current"), m250.querySelectorAll("mark.hit")[0]);
    b.key(find, "Enter");
    assert.equal(b.byId("find-count").textContent, "3 of 4");
    assert.equal(m250.querySelector("mark.hit.current"), m250.querySelectorAll("mark.hit")[1], "the second match in the same message");
    b.key(find, "Enter");
    assert.equal(b.byId("find-count").textContent, "4 of 4");
    // 302 is absorbed into 301: the match is in 301's tool output, which opens
    const m301 = b.byId("m-301");
    assert.equal(m301.querySelector<HTMLDetailsElement>("details.kind-shell")?.open, true);
    assert.equal(m301.querySelector("mark.hit.current")?.closest("pre.output")?.textContent, "found the needle");
    b.key(find, "Enter", { shiftKey: true });
    assert.equal(b.byId("find-count").textContent, "3 of 4");
  });

  it("drops an answer for an older query, and says when nothing matched", async () => {
    const b = await boot();
    b.send({ type: "init", builder: info(), sessionId: null, focus: null });
    b.send(pageOf(1, 1, 200, 201));
    const find = b.byId("find") as HTMLInputElement;
    find.value = "new";
    b.key(find, "Enter");
    b.send({ type: "found", sessionId: null, query: "old", matches: [{ number: 5, count: 1 }], total: 1 });
    assert.equal(b.byId("find-count").textContent, "Finding…");
    b.send({ type: "found", sessionId: null, query: "new", matches: [], total: 0 });
    assert.equal(b.byId("find-count").textContent, "No results");
  });

  it("is one Tab stop per message; arrows and j/k move; its controls join the Tab order when it has focus", async () => {
    const b = await boot();
    b.send({ type: "init", builder: info(), sessionId: null, focus: null });
    b.send(pageOf(1, 1, 60, 61));
    const list = b.byId("messages");
    const stops = (): Element[] => Array.from(list.querySelectorAll<HTMLElement>("*")).filter((e) => e.tabIndex >= 0);
    assert.deepEqual(stops().map((e) => e.id), ["m-1"], "60 messages, one Tab stop");
    b.byId("m-1").focus();
    const inner = stops().filter((e) => e.tagName === "BUTTON").map((e) => e.textContent);
    assert.deepEqual(inner, ["Start here", "End here"], "the focused message's buttons are reachable");
    b.key(b.byId("m-1"), "j");
    assert.equal(b.p.document.activeElement?.id, "m-2");
    b.key(b.byId("m-2"), "ArrowDown");
    assert.equal(b.p.document.activeElement.id, "m-3");
    b.key(b.byId("m-3"), "k");
    b.key(b.byId("m-2"), "ArrowUp");
    assert.equal(b.p.document.activeElement.id, "m-1");
    assert.deepEqual(stops().filter((e) => e.tagName === "ARTICLE").map((e) => e.id), ["m-1"], "the Tab stop moved with focus");
    assert.equal(b.byId("m-2").querySelector<HTMLElement>("button")?.tabIndex, -1, "the buttons of a message left are out again");
    // typing j in the find box types
    const find = b.byId("find");
    b.key(find, "j");
    assert.equal(b.p.document.activeElement.id, "m-1");
  });

  it("focuses find on Ctrl+F and Cmd+F", async () => {
    const b = await boot();
    b.send({ type: "init", builder: info(), sessionId: null, focus: null });
    b.key(b.p.document.body, "f", { ctrlKey: true });
    assert.equal(b.p.document.activeElement?.id, "find");
    b.byId("ask").focus();
    b.key(b.p.document.body, "F", { metaKey: true });
    assert.equal(b.p.document.activeElement.id, "find");
  });

  it("asks the extension to open http(s) and file links; others do nothing", async () => {
    const b = await boot();
    b.send({ type: "init", builder: info(), sessionId: null, focus: 250, terms: [] });
    b.send(pageOf(230, 228, 429, 430));
    const m250 = b.byId("m-250");
    const before = b.posted.length;
    m250.querySelector<HTMLElement>(".md-inert-link")?.click();
    assert.equal(b.posted.length, before);
    m250.querySelector<HTMLElement>("a.md-link.web")?.click();
    m250.querySelector<HTMLElement>("a.md-link.file")?.click();
    assert.deepEqual(b.posted.slice(before), [
      { type: "openLink", url: "https://example.com/d" },
      { type: "openFile", path: "src/a.ts", line: 2 },
    ]);
  });

  it("shows a subagent inline: asks for its page, renders its messages nested, offers more", async () => {
    const b = await boot();
    const side = `${ID}:agent-1`;
    b.send({ type: "init", builder: info(), sessionId: null, focus: null });
    const task = { name: "Task", kind: "task", summary: "Task: look", subagent: { session_id: side, description: "Look around", message_count: 60 }, output: "ok" };
    b.send({ type: "page", sessionId: null, start: 1, messages: [{ ...msg(1), parts: [{ kind: "tool", tool: task }] }], total: 1, nextStart: null });
    const fold = b.byId("m-1").querySelector<HTMLDetailsElement>("details.kind-task")!;
    fold.open = true;
    fold.dispatchEvent(new b.p.window.Event("toggle"));
    const inline = fold.querySelector<HTMLDetailsElement>("details.subagent-inline")!;
    inline.open = true;
    inline.dispatchEvent(new b.p.window.Event("toggle"));
    assert.deepEqual(b.posted.at(-1), { type: "loadPage", sessionId: side, start: 1, count: 50, inline: true });
    const sub = Array.from({ length: 50 }, (_, i) => ({ ...msg(i + 1), session_id: side }));
    b.send({ type: "page", sessionId: side, start: 1, messages: sub, total: 60, nextStart: 51, inline: true });
    const nested = fold.querySelectorAll(".subagent-messages > .entry.nested");
    assert.equal(nested.length, 50);
    assert.equal(nested[0]?.querySelector("article")?.id, "", "nested messages carry no ids");
    assert.equal(b.byId("m-1").querySelectorAll("article[id]").length, 0);
    fold.querySelector<HTMLElement>("button[data-action=inline-more]")?.click();
    assert.deepEqual(b.posted.at(-1), { type: "loadPage", sessionId: side, start: 51, count: 50, inline: true });
    fold.querySelector<HTMLElement>("button[data-action=open-subagent]")?.click();
    assert.deepEqual(b.posted.at(-1), { type: "openLine", sessionId: side });
  });
});
