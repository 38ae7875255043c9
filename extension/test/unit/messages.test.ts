import * as assert from "node:assert/strict";
import { parseHostMessage, parsePanelState, parseWebviewMessage } from "../../src/transcript/messages";
import { builder } from "../fakes";

describe("webview → extension messages", () => {
  it("accepts each valid kind", () => {
    assert.deepEqual(parseWebviewMessage({ type: "ready" }), { type: "ready" });
    assert.deepEqual(parseWebviewMessage({ type: "loadPage", sessionId: null, start: 201, count: 200 }), {
      type: "loadPage",
      sessionId: null,
      start: 201,
      count: 200,
    });
    assert.deepEqual(parseWebviewMessage({ type: "loadPage", sessionId: "s:1", start: 1, count: 1 }), {
      type: "loadPage",
      sessionId: "s:1",
      start: 1,
      count: 1,
    });
    assert.deepEqual(parseWebviewMessage({ type: "openAsText", sessionId: null }), { type: "openAsText", sessionId: null });
    assert.deepEqual(parseWebviewMessage({ type: "ask" }), { type: "ask" });
    const promote = { type: "promote", from: 2, to: 3, goal: "g", code: "", parent: "", prompt: "<b>x</b>" };
    assert.deepEqual(parseWebviewMessage(promote), promote);
  });

  it("accepts find, the opens and an inline page", () => {
    const ok = [
      { type: "find", sessionId: null, query: "cursor" },
      { type: "openLink", url: "https://example.com" },
      { type: "openFile", path: "src/a.ts", line: 3 },
      { type: "openFile", path: "src/a.ts", line: null },
      { type: "openMedia", sessionId: "s", number: 4 },
      { type: "openLine", sessionId: "s:agent" },
      { type: "openLine", sessionId: null },
      { type: "loadPage", sessionId: "s:agent", start: 1, count: 50, inline: true },
    ];
    for (const m of ok) assert.deepEqual(parseWebviewMessage(m), m);
    for (const m of [
      { type: "find", sessionId: null, query: "" },
      { type: "find", sessionId: null, query: "x".repeat(1001) },
      { type: "openFile", path: "a", line: 0 },
      { type: "openLink", url: 7 },
      { type: "loadPage", sessionId: null, start: 1, count: 5, inline: "yes" },
    ]) {
      assert.ok(parseWebviewMessage(m) instanceof Error, JSON.stringify(m));
    }
  });

  it("drops fields it does not know", () => {
    assert.deepEqual(parseWebviewMessage({ type: "ready", command: "rm -rf /" }), { type: "ready" });
  });

  const bad: [string, unknown][] = [
    ["not an object", "ready"],
    ["null", null],
    ["an array", [{ type: "ready" }]],
    ["no type", { start: 1 }],
    ["an unknown type", { type: "runCommand", command: "x" }],
    ["a prototype key as type", { type: "__proto__" }],
    ["start as a string", { type: "loadPage", sessionId: null, start: "1", count: 200 }],
    ["start zero", { type: "loadPage", sessionId: null, start: 0, count: 200 }],
    ["a fractional start", { type: "loadPage", sessionId: null, start: 1.5, count: 200 }],
    ["a huge count", { type: "loadPage", sessionId: null, start: 1, count: 100000 }],
    ["no sessionId", { type: "loadPage", start: 1, count: 200 }],
    ["sessionId a number", { type: "openAsText", sessionId: 7 }],
    ["a reversed range", { type: "promote", from: 3, to: 2, goal: "", code: "", parent: "", prompt: "" }],
    ["a promote without its fields", { type: "promote", from: 2, to: 3 }],
    ["a null goal", { type: "promote", from: 2, to: 3, goal: null, code: "", parent: "", prompt: "" }],
    ["a runaway prompt", { type: "promote", from: 2, to: 3, goal: "", code: "", parent: "", prompt: "x".repeat(100_001) }],
  ];
  for (const [what, value] of bad) {
    it(`rejects ${what}`, () => {
      const r = parseWebviewMessage(value);
      assert.ok(r instanceof Error, JSON.stringify(r));
    });
  }
});

describe("extension → webview messages", () => {
  const m = {
    number: 1,
    role: "user",
    text: "<script>alert(1)</script>",
    session_id: "s",
    timestamp: null,
    kinds: ["text"],
  };

  it("accepts init, page, reveal and error", () => {
    assert.equal((parseHostMessage({ type: "init", builder: builder("b"), sessionId: null, focus: 3 }) as { type: string }).type, "init");
    const page = parseHostMessage({ type: "page", sessionId: null, start: 1, messages: [m], total: 1, nextStart: null });
    assert.ok(!(page instanceof Error));
    assert.equal(page.type === "page" && page.messages[0]?.text, "<script>alert(1)</script>");
    const reveal = { type: "reveal", sessionId: null, number: 4, terms: ["getUserName", "lock is held"] };
    assert.deepEqual(parseHostMessage(reveal), reveal);
    assert.ok(parseHostMessage({ ...reveal, terms: ["x".repeat(201)] }) instanceof Error, "a term is bounded");
    assert.deepEqual(parseHostMessage({ type: "error", message: "x" }), { type: "error", message: "x" });
  });

  it("accepts terms to land on, find answers, and refuses runaway terms", () => {
    assert.deepEqual(parseHostMessage({ type: "reveal", sessionId: null, number: 4, terms: ["a", "b"] }), { type: "reveal", sessionId: null, number: 4, terms: ["a", "b"] });
    const found = { type: "found", sessionId: null, query: "q", matches: [{ number: 2, count: 3 }], total: 3 };
    assert.deepEqual(parseHostMessage(found), found);
    assert.ok(parseHostMessage({ type: "reveal", sessionId: null, number: 4, terms: ["x".repeat(201)] }) instanceof Error);
    assert.ok(parseHostMessage({ type: "reveal", sessionId: null, number: 4, terms: Array(33).fill("a") }) instanceof Error);
    assert.ok(parseHostMessage({ ...found, matches: [{ number: "2", count: 3 }] }) instanceof Error);
  });

  const t = { code: "c", goal: "g", prompt: "p", created_at: "2025-06-12T10:00:00Z", builder_id: "b", from_message: 2, to_message: 3 };

  it("accepts the promote form's messages", () => {
    assert.deepEqual(parseHostMessage({ type: "tasks", tasks: [t] }), { type: "tasks", tasks: [t] });
    assert.deepEqual(parseHostMessage({ type: "pickRange", from: null, to: null }), { type: "pickRange", from: null, to: null });
    assert.deepEqual(parseHostMessage({ type: "pickRange", from: 2, to: 3 }), { type: "pickRange", from: 2, to: 3 });
    assert.deepEqual(parseHostMessage({ type: "promoted", task: t, overlapping: [] }), { type: "promoted", task: t, overlapping: [] });
    const failed = { type: "promoteFailed", message: "m", task: "c", errors: [{ field: "code", message: "taken" }] };
    assert.deepEqual(parseHostMessage(failed), failed);
  });

  it("rejects malformed promote messages", () => {
    assert.ok(parseHostMessage({ type: "tasks", tasks: [{ ...t, from_message: "2" }] }) instanceof Error);
    assert.ok(parseHostMessage({ type: "pickRange", from: 0, to: 3 }) instanceof Error);
    assert.ok(parseHostMessage({ type: "promoteFailed", message: "m", task: 1, errors: [] }) instanceof Error);
    assert.ok(parseHostMessage({ type: "promoteFailed", message: "m", task: null, errors: [{ field: "code" }] }) instanceof Error);
  });

  it("rejects malformed pages", () => {
    assert.ok(parseHostMessage({ type: "page", sessionId: null, start: 1, messages: [{ ...m, number: "1" }], total: 1, nextStart: null }) instanceof Error);
    assert.ok(parseHostMessage({ type: "init", builder: { id: 1 }, sessionId: null, focus: null }) instanceof Error);
    assert.ok(parseHostMessage({ type: "reveal", sessionId: null, number: -1, terms: [] }) instanceof Error);
  });
});

describe("panel state", () => {
  it("keeps what can restore a panel and nothing else", () => {
    assert.deepEqual(parsePanelState({ builderId: "b", sessionId: "s", number: 12 }), { builderId: "b", sessionId: "s", number: 12 });
    assert.deepEqual(parsePanelState({ builderId: "b", number: -3 }), { builderId: "b", sessionId: null, number: null });
    assert.equal(parsePanelState({ sessionId: "s" }), undefined);
    assert.equal(parsePanelState(undefined), undefined);
  });
});
