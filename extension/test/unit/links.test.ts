// Links into VS Code (the URI handler) and Lazy: Open Builder… (quick open by alias, id,
// session id or prefix): what they accept, refuse and open.
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type * as vscode from "vscode";
import type { Ctx } from "../../src/ctx";
import { parseOpenUri, registerUriHandler } from "../../src/uriHandler";
import { candidatesOf, openItems, openPicked, showOpenBuilder, type OpenItem } from "../../src/views/openBuilder";
import { builder, FakeLog, FakeQuickPick, RpcError, until } from "../fakes";
import { calls, resetMock, shownBy, Uri, window } from "../mocks/vscode";

const link = (query: string, p = "/open"): vscode.Uri => Uri.from({ scheme: "vscode", path: p, query }) as unknown as vscode.Uri;

/** The handler registered by registerUriHandler, over panels that record what they open. */
function handler(open: (...a: unknown[]) => Promise<void>): { handle: (u: vscode.Uri) => Promise<void>; log: FakeLog } {
  const log = new FakeLog();
  const ctx = { log: log.asLog(), panels: { open }, report: () => undefined } as unknown as Ctx;
  registerUriHandler(ctx);
  const registered = calls.find((c) => c.method === "window.registerUriHandler")?.args[0] as vscode.UriHandler;
  return { handle: async (u) => { await registered.handleUri(u); }, log };
}

describe("a lazy link (vscode://lazy-builders.lazy/open?…)", () => {
  beforeEach(resetMock);

  it("names a Builder, a message, a subagent's line and the words to highlight", () => {
    assert.deepEqual(parseOpenUri(link("builder=reviewer&n=53&session=s%3Aagent-1&t=getUserName&t=lock+is+held")), {
      builder: "reviewer", number: 53, sessionId: "s:agent-1", terms: ["getUserName", "lock is held"],
    });
    assert.deepEqual(parseOpenUri(link("builder=0197a3c2")), { builder: "0197a3c2", number: null, sessionId: null, terms: [] });
  });

  it("refuses what lazy never writes, without quoting it", () => {
    for (const [q, p] of [["builder=x", "/run"], ["n=3", "/open"], ["builder=x&n=0", "/open"], ["builder=x&n=1e3", "/open"],
      ["builder=x&n=-2", "/open"], ["builder=x&session=", "/open"], [`builder=${"a".repeat(301)}`, "/open"]] as const) {
      const got = parseOpenUri(link(q, p));
      assert.ok(got instanceof Error, `${p}?${q}`);
      assert.ok(!got.message.includes("1e3") && !got.message.includes("run"), got.message);
    }
    const many = parseOpenUri(link([...Array(20).keys()].map((i) => `t=w${i}`).join("&") + `&t=${"x".repeat(201)}&builder=b`));
    assert.ok(!(many instanceof Error) && many.terms.length === 20 && many.terms.every((t) => t.length <= 200));
  });

  it("is the link `lazy search` prints (sidecar/lazy/cli/links.py), read back the same", function () {
    const python = path.join(__dirname, "..", "..", "..", ".venv", "bin", "python");
    if (!fs.existsSync(python)) this.skip(); // the repo's venv (make deps), as the real sidecar's tests
    const code = "from lazy.cli.links import transcript_link as t; print(t('vscode', 'b1', 7, session_id='b1:a', terms=['a b', 'é&t=x']))";
    const written = execFileSync(python, ["-c", code], { encoding: "utf8" }).trim();
    const u = new URL(written);
    assert.equal(`${u.protocol}//${u.host}`, "vscode://lazy-builders.lazy");
    assert.deepEqual(parseOpenUri(link(u.search.slice(1), u.pathname)), { builder: "b1", number: 7, sessionId: "b1:a", terms: ["a b", "é&t=x"] });
  });

  it("opens the transcript at the message with its words; a refused or failed link says so without its text", async () => {
    const opened: unknown[][] = [];
    let fail = false;
    const { handle, log } = handler((...a) => { opened.push(a); return fail ? Promise.reject(new RpcError(-32001, "no Builder '[x](command:evil)'")) : Promise.resolve(); });
    await handle(link("builder=reviewer&n=4&t=periwinkle"));
    assert.deepEqual(opened, [["reviewer", 4, null, ["periwinkle"]]]);
    await handle(link("builder=x", "/other"));
    fail = true;
    await handle(link("builder=%5Bx%5D(command:evil)"));
    const errors = shownBy("window.showErrorMessage");
    assert.equal(errors.length, 2);
    assert.ok(errors.every((m) => !m.includes("command:")), errors.join("\n"));
    assert.ok(log.lines.some((l) => l.startsWith("error a lazy link could not be opened") && l.includes("command:evil")));
  });
});

describe("Lazy: Open Builder…", () => {
  beforeEach(resetMock);
  const loaded = [builder("0197a3c2-aaaa", { alias: "reviewer", summary: "Review the PR", project: "/ws/app" }), builder("0197b000-bbbb", { tool: "codex" })];

  it("lists the loaded Builders by name, and offers what is typed as it is, last", () => {
    assert.deepEqual(openItems(loaded, "").map((i) => [i.ident, i.label]), [
      ["0197a3c2-aaaa", "$(sparkle) reviewer"],
      ["0197b000-bbbb", "$(terminal) summary of 0197b000-bbbb"],
    ]);
    const typed = openItems(loaded, "  other-alias ");
    assert.deepEqual(typed.at(-1), {
      ident: "other-alias", label: "$(arrow-right) Open “other-alias”", description: "an id, a session id, a prefix or an alias", alwaysShow: true,
    });
    assert.equal(openItems(loaded, "$(alert)").at(-1)?.label, "$(arrow-right) Open “\\$(alert)”", "typed text shows no icons");
    assert.equal(openItems(loaded, "")[1]?.detail, "0197b000-bbbb", "a pasted id finds its row");
  });

  it("opens the picked row's Builder, or the text typed", async () => {
    const pick = new FakeQuickPick<OpenItem>();
    window.createQuickPick = () => pick.asQuickPick();
    const opened: string[] = [];
    showOpenBuilder({ builders: () => loaded, open: (id) => { opened.push(id); return Promise.resolve(); } });
    pick.changeValue.fire("some-name");
    pick.selectedItems = [pick.items.at(-1)!];
    pick.accept.fire(undefined);
    await until("the open", () => opened.length === 1);
    assert.deepEqual(opened, ["some-name"]);
    assert.equal(pick.hidden, true);
  });

  it("asks which Builder when a name answers to several; says so when none", async () => {
    const ambiguous = new RpcError(-32002, "'reviewer' matches 2 conversations", {
      prefix: "reviewer",
      candidates: [{ id: "id-one", started_at: "2025-06-12T09:00:00Z", summary: "first\nsummary" }, { id: "id-two", started_at: null, summary: "" }],
    });
    const items = candidatesOf(ambiguous);
    assert.deepEqual(items?.map((i) => [i.ident, i.label]), [["id-one", "first summary"], ["id-two", "id-two"]]);
    const opened: string[] = [];
    window.showQuickPick = ((offered: OpenItem[]) => Promise.resolve(offered[1]));
    await openPicked({ builders: () => [], open: (id) => {
      opened.push(id);
      return id === "reviewer" ? Promise.reject(ambiguous) : Promise.resolve();
    } }, "reviewer");
    assert.deepEqual(opened, ["reviewer", "id-two"]);
    await openPicked({ builders: () => [], open: () => Promise.reject(new RpcError(-32001, "no Builder 'nope'", { id: "nope" })) }, "nope");
    assert.deepEqual(shownBy("window.showErrorMessage"), ["Lazy: no Builder is named “nope” (an id, a session id, a prefix or an alias)"]);
  });
});
