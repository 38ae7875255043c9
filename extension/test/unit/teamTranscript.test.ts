// A teammate's transcript: the host side pages it from team/page (never the local store's
// requests), refuses what only a local Builder has, finds over the pushed messages; the page
// (src/webview/transcript.ts in jsdom) shows whose it is and offers no range to promote.
import * as assert from "node:assert/strict";
import { createRequire } from "node:module";
import type { BuilderInfo, MessageView, TeamPageParams, TeamPageResult } from "../../src/protocol";
import { teamMeta } from "../../src/team/header";
import { findIn, searchable } from "../../src/team/transcript";
import { parseHostMessage, parsePanelState, type WebviewToHost } from "../../src/transcript/messages";
import { READ_ONLY, TEAM_TRANSCRIPT_KEY, TranscriptPanels, transcriptHtml, type TranscriptDeps } from "../../src/transcript/panels";
import { page, type Page } from "../dom";
import { builder, FakeClient, FakeLog, FakeWebviewPanel, until } from "../fakes";
import { calls, EventEmitter, resetMock, Uri, window } from "../mocks/vscode";
import pageFixture from "../../../protocol/fixtures/team_page.json";

const ID = "0197a3c2-5e8b-4f1a-9d3c-7b2e6a4f8c10";
const BOB = { builderId: ID, email: "bob@acme.test" };
const fixture = pageFixture.result as TeamPageResult;

/** A panel that is the active editor or not, and says when that changes. */
class TeamWebviewPanel extends FakeWebviewPanel {
  active = true;
  private readonly viewState = new EventEmitter<{ webviewPanel: TeamWebviewPanel }>();
  readonly onDidChangeViewState = this.viewState.event;
  setActive(active: boolean): void {
    this.active = active;
    this.viewState.fire({ webviewPanel: this });
  }
}

function contextValues(key: string): unknown[] {
  return calls.filter((c) => c.method === "commands.executeCommand" && c.args[0] === "setContext" && c.args[1] === key).map((c) => c.args[2]);
}

function msg(n: number, text = `message ${n}`): MessageView {
  return { number: n, role: n % 2 ? "user" : "assistant", text, session_id: "s1", timestamp: null, kinds: ["text"], parts: [{ kind: "text", text }] };
}

/** A team server holding `total` messages of Bob's, paged as team/page pages. */
function teamSidecar(total = 3, text: (n: number) => string = (n) => `message ${n}`): FakeClient {
  const all = Array.from({ length: total }, (_, i) => msg(i + 1, text(i + 1)));
  return new FakeClient().on("team/page", (p: TeamPageParams) => {
    const start = p.start ?? 1;
    const end = start + (p.count ?? 200);
    return { ...fixture, builder: { ...fixture.builder, message_count: total }, messages: all.filter((m) => m.number >= start && m.number < end), total, next_start: end <= total ? end : null };
  });
}

function panels(client: FakeClient, opened: string[] = []): TranscriptPanels {
  const deps: TranscriptDeps = {
    extensionUri: Uri.file("/ext") as never,
    client: () => client,
    log: new FakeLog().asLog(),
    onOpened: (id) => opened.push(`local ${id}`),
    openAsText: (id) => opened.push(`text ${id}`),
    onPromoted: () => undefined,
    ask: (id) => opened.push(`ask ${id}`),
    onTeamOpened: () => opened.push("team"),
  };
  return new TranscriptPanels(deps);
}

async function openTeam(client: FakeClient, number: number | null = null, terms: string[] = []) {
  const opened: string[] = [];
  const all = panels(client, opened);
  const panel = new TeamWebviewPanel();
  window.createWebviewPanel = () => panel.asPanel();
  all.openTeam(BOB, number, terms);
  panel.send({ type: "ready" });
  await until("the init", () => panel.posted.some((m) => m.type === "init"));
  return { all, panel, opened };
}

describe("a teammate's transcript, host side", () => {
  beforeEach(resetMock);

  it("opens from team/page with whose it is, marks the Team view for a refresh, pages from the team", async () => {
    const client = teamSidecar(3);
    const { panel, opened } = await openTeam(client, 2, ["tangerine"]);
    const init = panel.posted.find((m) => m.type === "init") as unknown as { builder: BuilderInfo; focus: number; terms: string[]; team: unknown };
    assert.deepEqual(init.team, { member: "Bob Baker", email: "bob@acme.test", project: "github.com/acme/app" });
    assert.equal(init.builder.id, ID);
    assert.equal(init.focus, 2);
    assert.deepEqual(init.terms, ["tangerine"]);
    assert.deepEqual(opened, ["team"], "the Team view refreshes (the server marked it seen); no local badge");
    assert.match(panel.title, /^Bob Baker: /);
    panel.send({ type: "loadPage", sessionId: null, start: 1, count: 200 });
    await until("the page", () => panel.posted.some((m) => m.type === "page"));
    const pg = panel.posted.find((m) => m.type === "page") as unknown as { messages: MessageView[]; total: number; nextStart: number | null };
    assert.deepEqual([pg.messages.map((m) => m.number), pg.total, pg.nextStart], [[1, 2, 3], 3, null]);
    assert.deepEqual(client.callsOf("team/page").map((c) => c.params), [
      { builder_id: ID, email: "bob@acme.test", start: 1, count: 1 },
      { builder_id: ID, email: "bob@acme.test", start: 1, count: 200 },
    ]);
    assert.deepEqual(client.calls.map((c) => c.method).filter((m) => m !== "team/page"), [], "nothing asked of the local store");
  });

  it("refuses to promote, ask or open as text; an inline subagent is an empty page", async () => {
    const client = teamSidecar(3);
    const { panel, opened } = await openTeam(client);
    panel.send({ type: "promote", from: 1, to: 2, goal: "", code: "", parent: "", prompt: "" });
    await until("the refusal", () => panel.posted.some((m) => m.type === "promoteFailed"));
    assert.equal(panel.posted.find((m) => m.type === "promoteFailed")?.message, READ_ONLY);
    panel.send({ type: "ask" });
    panel.send({ type: "openAsText", sessionId: null });
    panel.send({ type: "loadPage", sessionId: `${ID}:sub`, start: 1, count: 50, inline: true });
    await until("the inline page", () => panel.posted.some((m) => m.type === "page"));
    assert.deepEqual(panel.posted.find((m) => m.type === "page"), { type: "page", sessionId: `${ID}:sub`, start: 1, messages: [], total: 0, nextStart: null, inline: true });
    assert.deepEqual(opened, ["team"]);
    assert.equal(client.callsOf("team/page").length, 1, "only the head: the subagent is not on the team");
  });

  it("finds over every page of the teammate's Builder", async () => {
    const client = teamSidecar(1500, (n) => (n % 500 === 0 ? "the Needle and a needle" : `message ${n}`));
    const { panel } = await openTeam(client);
    panel.send({ type: "find", sessionId: null, query: "needle" });
    await until("the answer", () => panel.posted.some((m) => m.type === "found"));
    assert.deepEqual(panel.posted.find((m) => m.type === "found"), {
      type: "found", sessionId: null, query: "needle", matches: [{ number: 500, count: 2 }, { number: 1000, count: 2 }, { number: 1500, count: 2 }], total: 6,
    });
    assert.deepEqual(client.callsOf("team/page").slice(1).map((c) => (c.params as TeamPageParams).start), [1, 1001]);
  });

  it("says while it is the active editor (the editor title's Ask and Export are not offered on it)", async () => {
    const { panel } = await openTeam(teamSidecar(3));
    assert.deepEqual(contextValues(TEAM_TRANSCRIPT_KEY), [true]);
    panel.setActive(false);
    panel.setActive(true);
    panel.dispose();
    assert.deepEqual(contextValues(TEAM_TRANSCRIPT_KEY), [true, false, true, false]);
  });

  it("says why it could not open, from the team's refusal", async () => {
    const client = new FakeClient().on("team/page", () => { throw new Error("no Builder 'nope' on the team that you can see"); });
    const all = panels(client);
    const p2 = new TeamWebviewPanel();
    window.createWebviewPanel = () => p2.asPanel();
    all.openTeam(BOB);
    p2.send({ type: "ready" });
    await until("the error", () => p2.posted.some((m) => m.type === "error"));
    assert.equal(p2.posted.some((m) => m.type === "init"), false);
    assert.match(p2.posted.find((m) => m.type === "error")?.message ?? "", /from the team: no Builder 'nope'/);
  });

  it("is one panel per teammate's Builder, apart from a local one of the same id, restored as a team one", async () => {
    const client = teamSidecar(3).on("builders/get", () => builder(ID)).on("tasks/list", () => ({ items: [] }));
    const created: TeamWebviewPanel[] = [];
    window.createWebviewPanel = () => {
      const p = new TeamWebviewPanel();
      created.push(p);
      return p.asPanel();
    };
    const all = panels(client);
    all.openTeam(BOB);
    all.openTeam(BOB, 3);
    await all.open(ID);
    assert.equal(created.length, 2, "the team one came forward; the local one is its own");
    // after a reload the serializer gets the page's state back, its teammate's email in it
    const restored = new TeamWebviewPanel();
    await all.deserializeWebviewPanel(restored.asPanel(), { builderId: ID, sessionId: null, number: 2, teamEmail: "bob@acme.test" });
    restored.send({ type: "ready" });
    await until("its init", () => restored.posted.some((m) => m.type === "init"));
    assert.ok("team" in (restored.posted.find((m) => m.type === "init") as object));
    // the local one in front: Ask and Export take it; a teammate's in front: none
    for (const p of created) p.active = false;
    created[1]!.active = true;
    assert.equal(all.activeBuilder()?.id, ID);
    created[1]!.active = false;
    assert.equal(all.activeBuilder(), undefined, "a teammate's Builder is not this store's");
  });
});

describe("a teammate's transcript, the messages and the header", () => {
  it("decodes an init with whose it is, and keeps a panel's teammate's email", () => {
    const init = { type: "init", builder: fixture.builder, sessionId: null, focus: null, team: { member: "Bob", email: "bob@acme.test", project: "github.com/acme/app" } };
    assert.deepEqual(parseHostMessage(init), init);
    assert.ok(parseHostMessage({ ...init, team: { member: "Bob" } }) instanceof Error);
    assert.deepEqual(parsePanelState({ builderId: ID, sessionId: null, number: 4, teamEmail: "bob@acme.test" }), { builderId: ID, sessionId: null, number: 4, teamEmail: "bob@acme.test" });
    assert.deepEqual(parsePanelState({ builderId: ID, sessionId: null, number: 4, teamEmail: 7 }), { builderId: ID, sessionId: null, number: 4 });
  });

  it("says member · project first, and read-only", () => {
    const meta = teamMeta({ member: "Bob Baker", email: "bob@acme.test", project: "github.com/acme/app" }, fixture.builder, () => "2025-06-12 09:14");
    assert.equal(meta, "Bob Baker · github.com/acme/app · Claude Code · 2025-06-12 09:14 · 86 messages · read-only");
  });

  it("finds in every text a person sees (tool output, diffs, todos), case ignored", () => {
    const [, second] = fixture.messages;
    assert.ok(second);
    assert.ok(searchable(second).some((t) => t.includes("limit = 100")), "the diff");
    assert.deepEqual(findIn(fixture.messages, "LIMIT", 10), { matches: [{ number: 2, count: 2 }], total: 2 });
    assert.deepEqual(findIn(fixture.messages, "cursor", 1), { matches: [{ number: 1, count: 1 }], total: 2 });
    assert.deepEqual(searchable({ ...msg(1), parts: [] }), ["message 1"]);
  });
});

describe("a teammate's transcript, the page", () => {
  const G = globalThis as unknown as Record<string, unknown>;

  afterEach(() => {
    (G.window as Window | undefined)?.close();
    for (const k of ["window", "document", "acquireVsCodeApi"]) Reflect.deleteProperty(G, k);
  });

  async function boot(): Promise<{ p: Page; posted: WebviewToHost[]; state: () => unknown; send(m: unknown): void; byId(id: string): HTMLElement }> {
    const html = transcriptHtml({ cspSource: "x", nonce: "n", scriptUri: "s.js", styleUri: "s.css" });
    const p = page(/<body>([\s\S]*)<script/.exec(html)?.[1] ?? "");
    const posted: WebviewToHost[] = [];
    let state: unknown;
    Object.assign(G, {
      window: p.window,
      document: p.document,
      acquireVsCodeApi: () => ({ postMessage: (m: WebviewToHost) => posted.push(m), getState: () => state, setState: (s: unknown) => { state = s; } }),
    });
    const load = createRequire(__filename);
    const file = load.resolve("../../src/webview/transcript");
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete
    delete load.cache[file];
    load(file);
    await Promise.resolve();
    return {
      p,
      posted,
      state: () => state,
      send: (m) => { p.window.dispatchEvent(new p.window.MessageEvent("message", { data: m })); },
      byId: (id) => p.document.getElementById(id) ?? assert.fail(`#${id}`),
    };
  }

  const page3 = { type: "page", sessionId: null, start: 1, messages: [msg(1), msg(2, "<img src=x onerror=alert(1)> reply"), msg(3)], total: 3, nextStart: null };

  it("shows whose it is, offers no Start here / End here, no Ask and no Open as text", async () => {
    const b = await boot();
    const team = { member: "Bob Baker", email: "bob@acme.test", project: "github.com/acme/app" };
    b.send({ type: "init", builder: fixture.builder, sessionId: null, focus: null, team });
    b.send(page3);
    assert.match(b.byId("meta").textContent, /^Bob Baker · github\.com\/acme\/app · /);
    assert.match(b.byId("meta").textContent, /read-only$/);
    assert.equal(b.byId("m-2").textContent.includes("<img src=x onerror=alert(1)> reply"), true, "the teammate's text, as text");
    assert.equal(b.p.document.querySelectorAll("img").length, 0);
    assert.equal(b.p.document.querySelectorAll("button.range-start, button.range-end").length, 0);
    assert.equal(b.byId("ask").hidden, true);
    assert.equal(b.byId("open-as-text").hidden, true);
    // a pick from outside (none is offered, but a stale one) does nothing
    b.send({ type: "pickRange", from: 1, to: 2 });
    assert.equal((b.byId("promote") as HTMLFormElement).hidden, true);
    assert.deepEqual(b.state(), { builderId: ID, sessionId: null, number: null, teamEmail: "bob@acme.test" });
  });

  it("a local transcript after it still offers them", async () => {
    const b = await boot();
    b.send({ type: "init", builder: builder(ID, { message_count: 3 }), sessionId: null, focus: null });
    b.send(page3);
    assert.equal(b.p.document.querySelectorAll("button.range-start").length, 3);
    assert.equal(b.byId("ask").hidden, false);
  });
});
