// The transcript panels' host side through a fake webview panel: what a panel asks the sidecar
// (builders/get, tasks/list, transcripts/page), and what it shows while the sidecar is down and
// after it is back (issue 13: open transcripts keep working across a restart).
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { insideFolder, workspaceFile } from "../../src/transcript/open";
import { FIND_LIMIT, TranscriptPanels, type TranscriptDeps } from "../../src/transcript/panels";
import { TranscriptTextProvider, transcriptUri } from "../../src/transcript/asText";
import { builder, FakeClient, FakeLog, FakeWebviewPanel, until } from "../fakes";
import { calls, CancellationTokenSource, resetMock, Uri, window } from "../mocks/vscode";

const ID = "0197a3c2-5e8b-4f1a-9d3c-7b2e6a4f8c10";

function sidecar(): FakeClient {
  const info = builder(ID, { message_count: 3 });
  return new FakeClient()
    .on("builders/get", () => info)
    .on("tasks/list", () => ({ items: [] }))
    .on("transcripts/page", (p) => ({ builder: info, session_id: p.session_id ?? null, messages: [], total: 3, next_start: null }));
}

function panels(client: () => FakeClient | undefined): TranscriptPanels {
  const deps: TranscriptDeps = {
    extensionUri: Uri.file("/ext") as never,
    client,
    log: new FakeLog().asLog(),
    onOpened: () => undefined,
    openAsText: () => undefined,
    onPromoted: () => undefined,
    ask: () => undefined,
  };
  return new TranscriptPanels(deps);
}

describe("an open transcript across a sidecar restart", () => {
  beforeEach(resetMock);

  it("asks for its Builder and pages, says the sidecar is down while it is, and reloads when it is back", async () => {
    const client = sidecar();
    let up = true;
    const all = panels(() => (up ? client : undefined));
    const panel = new FakeWebviewPanel();
    await all.deserializeWebviewPanel(panel.asPanel(), { builderId: ID, sessionId: null, number: null });
    panel.send({ type: "ready" });
    await until("the init", () => panel.posted.some((m) => m.type === "init"));
    panel.send({ type: "loadPage", sessionId: null, start: 1, count: 200 });
    await until("the page", () => panel.posted.some((m) => m.type === "page"));
    assert.deepEqual(client.callsOf("transcripts/page").map((c) => c.params), [{ builder_id: ID, session_id: null, start: 1, count: 200 }]);

    up = false;
    all.sidecarDown("the sidecar process exited");
    const shown = panel.posted.at(-1);
    assert.equal(shown?.type, "error");
    assert.match(shown.message ?? "", /the sidecar process exited.*Restart Sidecar/);

    up = true;
    const gets = client.callsOf("builders/get").length;
    all.reloadAll();
    await until("the second init", () => panel.posted.filter((m) => m.type === "init").length === 2);
    assert.equal(client.callsOf("builders/get").length, gets + 1);
  });

  it("as text, pages through transcripts/page", async () => {
    const client = sidecar();
    const text = await new TranscriptTextProvider(() => client).provideTextDocumentContent(
      transcriptUri(ID, null),
      new CancellationTokenSource().token,
    );
    assert.ok(text.length > 0);
    assert.deepEqual(client.callsOf("transcripts/page").map((c) => c.params), [{ builder_id: ID, session_id: null, start: 1, count: 1000 }]);
  });
});

describe("a transcript panel's find, links and lines", () => {
  beforeEach(resetMock);

  async function opened(client: FakeClient, state = { builderId: ID, sessionId: null as string | null, number: null as number | null }) {
    const all = panels(() => client);
    const panel = new FakeWebviewPanel();
    await all.deserializeWebviewPanel(panel.asPanel(), state);
    panel.send({ type: "ready" });
    await until("the init", () => panel.posted.some((m) => m.type === "init"));
    return { all, panel };
  }

  it("finds over the whole line through transcripts/find and posts the answer", async () => {
    const client = sidecar().on("transcripts/find", (p) => ({ matches: [{ number: 24, count: 2 }], total: p.query === "cursor" ? 2 : 0 }));
    const { panel } = await opened(client);
    panel.send({ type: "find", sessionId: null, query: "cursor" });
    await until("the answer", () => panel.posted.some((m) => m.type === "found"));
    assert.deepEqual(client.callsOf("transcripts/find").map((c) => c.params), [{ builder_id: ID, session_id: null, query: "cursor", limit: FIND_LIMIT }]);
    assert.deepEqual(panel.posted.find((m) => m.type === "found"), { type: "found", sessionId: null, query: "cursor", matches: [{ number: 24, count: 2 }], total: 2 });
  });

  it("says why find failed", async () => {
    const client = sidecar().on("transcripts/find", () => { throw new Error("store locked"); });
    const { panel } = await opened(client);
    panel.send({ type: "find", sessionId: null, query: "x" });
    await until("the failure", () => panel.posted.some((m) => m.type === "findFailed"));
    assert.match(panel.posted.find((m) => m.type === "findFailed")?.message ?? "", /Find failed: store locked/);
  });

  it("opens only http(s) links, through VS Code", async () => {
    const { panel } = await opened(sidecar());
    panel.send({ type: "openLink", url: "javascript:alert(1)" });
    panel.send({ type: "openLink", url: "command:workbench.action.terminal.new" });
    panel.send({ type: "openLink", url: "https://example.com/a" });
    await until("the open", () => calls.some((c) => c.method === "env.openExternal"));
    const opened_ = calls.filter((c) => c.method === "env.openExternal").map((c) => c.args[0] as Uri);
    assert.deepEqual(opened_.map((u) => `${u.scheme}:${u.path}`), ["https://example.com/a"]);
  });

  it("lands on a message with the search's terms, in init and in a later reveal", async () => {
    const client = sidecar();
    const all = panels(() => client);
    const panel = new FakeWebviewPanel();
    window.createWebviewPanel = () => panel.asPanel();
    await all.open(ID, 2, null, ["periwinkle", "blue"]);
    panel.send({ type: "ready" });
    await until("the init", () => panel.posted.some((m) => m.type === "init"));
    const init = panel.posted.find((m) => m.type === "init") as unknown as { focus: number; terms: string[] };
    assert.equal(init.focus, 2);
    assert.deepEqual(init.terms, ["periwinkle", "blue"]);
    await all.open(ID, 3, null, ["cursor"]);
    assert.deepEqual(panel.posted.at(-1), { type: "reveal", sessionId: null, number: 3, terms: ["cursor"] });
  });

  it("opens a subagent on its own panel, the Builder's stays", async () => {
    const side = `${ID}:7c4d2e91`;
    const info = builder(ID, { message_count: 3, sidechains: [{ session_id: side, agent_id: "7c4d2e91", message_count: 14 }] });
    const client = sidecar().on("builders/get", () => info);
    const created: FakeWebviewPanel[] = [];
    window.createWebviewPanel = () => {
      const p = new FakeWebviewPanel();
      created.push(p);
      return p.asPanel();
    };
    const all = panels(() => client);
    await all.open(ID);
    created[0]!.send({ type: "ready" });
    await until("the first init", () => created[0]!.posted.some((m) => m.type === "init"));
    created[0]!.send({ type: "openLine", sessionId: side });
    await until("a second panel", () => created.length === 2);
    created[1]!.send({ type: "ready" });
    await until("its init", () => created[1]!.posted.some((m) => m.type === "init"));
    assert.equal((created[1]!.posted.find((m) => m.type === "init") as unknown as { sessionId: string }).sessionId, side);
    // the same subagent again: that panel comes forward, no third one
    created[0]!.send({ type: "openLine", sessionId: side });
    await all.open(ID, null, side);
    assert.equal(created.length, 2);
  });

  it("pages a subagent shown inline without leaving the panel's line", async () => {
    const client = sidecar();
    const { panel } = await opened(client);
    panel.send({ type: "loadPage", sessionId: `${ID}:x`, start: 1, count: 50, inline: true });
    await until("the inline page", () => panel.posted.some((m) => m.type === "page"));
    assert.equal((panel.posted.find((m) => m.type === "page") as unknown as { inline: boolean }).inline, true);
    panel.send({ type: "openAsText", sessionId: null });
    panel.send({ type: "loadPage", sessionId: null, start: 1, count: 200 });
    await until("the line's page", () => panel.posted.filter((m) => m.type === "page").length === 2);
    assert.equal("inline" in (panel.posted.filter((m) => m.type === "page")[1] as object), false);
  });
});

describe("opening a file a transcript links to", () => {
  let root: string;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "lazy-open-"));
    fs.mkdirSync(path.join(root, "ws", "src"), { recursive: true });
    fs.writeFileSync(path.join(root, "ws", "src", "a.ts"), "x");
    fs.writeFileSync(path.join(root, "outside.txt"), "secret");
    fs.symlinkSync(path.join(root, "outside.txt"), path.join(root, "ws", "escape.txt"));
  });
  after(() => { fs.rmSync(root, { recursive: true, force: true }); });

  it("opens files inside a workspace folder only, symbolic links followed", async () => {
    const ws = path.join(root, "ws");
    assert.equal(await workspaceFile("src/a.ts", [ws], null), fs.realpathSync(path.join(ws, "src", "a.ts")));
    assert.equal(await workspaceFile(path.join(ws, "src", "a.ts"), [ws], null), fs.realpathSync(path.join(ws, "src", "a.ts")));
    assert.equal(await workspaceFile("a.ts", [ws], path.join(ws, "src")), fs.realpathSync(path.join(ws, "src", "a.ts")), "relative to the Builder's project");
    assert.equal(await workspaceFile("../outside.txt", [ws], null), undefined);
    assert.equal(await workspaceFile(path.join(root, "outside.txt"), [ws], null), undefined);
    assert.equal(await workspaceFile("escape.txt", [ws], null), undefined, "a link out of the folder");
    assert.equal(await workspaceFile("src", [ws], null), undefined, "a folder is not opened");
    assert.equal(await workspaceFile("src/a.ts", [], null), undefined, "no folder open");
    assert.ok(insideFolder("/a/b/c", "/a/b") && !insideFolder("/a/bc", "/a/b") && !insideFolder("/a", "/a/b"));
  });
});
