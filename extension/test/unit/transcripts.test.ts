// The transcript panels' host side through a fake webview panel: what a panel asks the sidecar
// (builders/get, tasks/list, transcripts/page), and what it shows while the sidecar is down and
// after it is back (issue 13: open transcripts keep working across a restart).
import * as assert from "node:assert/strict";
import { TranscriptPanels, type TranscriptDeps } from "../../src/transcript/panels";
import { TranscriptTextProvider, transcriptUri } from "../../src/transcript/asText";
import { builder, FakeClient, FakeLog, FakeWebviewPanel, until } from "../fakes";
import { CancellationTokenSource, resetMock, Uri, window } from "../mocks/vscode";

const ID = "0197a3c2-5e8b-4f1a-9d3c-7b2e6a4f8c10";

function sidecar(): FakeClient {
  const info = builder(ID, { message_count: 3 });
  return new FakeClient()
    .on("builders/get", () => info)
    .on("tasks/list", () => ({ items: [] }))
    .on("transcripts/page", (p) => ({ builder: info, session_id: p.session_id ?? null, messages: [], total: 3, next_start: null }));
}

function panels(client: () => FakeClient | undefined, log = new FakeLog()): TranscriptPanels {
  const deps: TranscriptDeps = {
    extensionUri: Uri.file("/ext") as never,
    client,
    log: log.asLog(),
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

describe("opening a transcript at a search hit", () => {
  beforeEach(resetMock);

  /** The panel the next open creates. */
  function nextPanel(): FakeWebviewPanel {
    const panel = new FakeWebviewPanel();
    window.createWebviewPanel = () => panel.asPanel();
    return panel;
  }

  it("loads the page around the message, then reveals it with the matched words", async () => {
    const log = new FakeLog();
    const all = panels(() => sidecar(), log);
    const panel = nextPanel();
    await all.open("reviewer", 53, null, ["getUserName", "retention policy"]);
    panel.send({ type: "ready" });
    await until("the reveal", () => panel.posted.some((m) => m.type === "reveal"));
    const [init, reveal] = panel.posted.filter((m) => m.type === "init" || m.type === "reveal");
    assert.deepEqual({ ...init, builder: undefined }, { type: "init", builder: undefined, sessionId: null, focus: 53 });
    assert.deepEqual(reveal, { type: "reveal", sessionId: null, number: 53, terms: ["getUserName", "retention policy"] });
    assert.ok(log.lines.includes(`info transcript ${ID}: reveal #53, terms ["getUserName","retention policy"]`), log.lines.join("\n"));
  });

  it("sends an open panel to another hit, in a subagent's line, with its own words", async () => {
    const all = panels(() => sidecar());
    const panel = nextPanel();
    await all.open(ID, 2, null, ["first"]);
    panel.send({ type: "ready" });
    await until("the first reveal", () => panel.posted.some((m) => m.type === "reveal"));
    await all.open(ID, 7, `${ID}:agent-a1`, ["second"]);
    const reveals = panel.posted.filter((m) => m.type === "reveal");
    assert.deepEqual(reveals.at(-1), { type: "reveal", sessionId: `${ID}:agent-a1`, number: 7, terms: ["second"] });
    assert.equal(panel.posted.filter((m) => m.type === "init").length, 1, "an open page is not reloaded");
  });

  it("reveals with no words for a message opened otherwise (a task's range, an answer's #N)", async () => {
    const all = panels(() => sidecar());
    const panel = nextPanel();
    await all.open(ID, 3);
    panel.send({ type: "ready" });
    await until("the reveal", () => panel.posted.some((m) => m.type === "reveal"));
    assert.deepEqual(panel.posted.find((m) => m.type === "reveal"), { type: "reveal", sessionId: null, number: 3, terms: [] });
  });
});
