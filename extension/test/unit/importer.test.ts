import * as assert from "node:assert/strict";
import { importConversations, previewLines, summarize } from "../../src/views/importer";
import type { ImportResult } from "../../src/protocol";
import { FakeClient, FakeLog, FakeProgress, RpcError } from "../fakes";
import { calls, CancellationTokenSource, resetMock, shownBy, window } from "../mocks/vscode";
import previewFixture from "../../../protocol/fixtures/import_preview.json";
import runFixture from "../../../protocol/fixtures/import_run.json";

const preview = previewFixture.result as ImportResult;
const run = runFixture.result as ImportResult;
const scope = { all_projects: false, workspace_folders: ["/home/u/lazy"] };

function answer(choice: string | undefined): void {
  window.showInformationMessage = (...args: unknown[]) => {
    calls.push({ method: "window.showInformationMessage", args });
    const modal = typeof args[1] === "object" && args[1] !== null && (args[1] as { modal?: boolean }).modal;
    return Promise.resolve(modal ? choice : undefined);
  };
}

describe("import", () => {
  beforeEach(resetMock);

  it("previews, confirms with counts per agent, runs, and summarizes", async () => {
    answer("Import");
    const client = new FakeClient().on("import/preview", () => preview).on("import/run", () => run);
    const log = new FakeLog();
    const outcome = await importConversations({ client, scope: () => scope, log: log.asLog() });
    assert.equal(outcome, "done");
    assert.deepEqual(client.calls.map((c) => c.method), ["import/preview", "import/run"]);
    assert.deepEqual(client.calls[1]?.params, scope);
    const confirm = calls.find((c) => c.method === "window.showInformationMessage")!;
    assert.equal(confirm.args[0], "Import 5 new conversations for this workspace?");
    assert.match((confirm.args[1] as { detail: string }).detail, /Claude Code: 5 new, 37 already imported, 3 one-shots ignored/);
    assert.deepEqual(confirm.args.slice(2), ["Import"]);
    assert.match(shownBy("window.showWarningMessage")[0] ?? "", /Imported 2 new conversations, 1 updated, 214 messages added\. 2 problems/);
    assert.ok(log.lines.some((l) => l.includes("quarantined") && l.includes(":118:")));
  });

  it("does nothing when the user declines", async () => {
    answer(undefined);
    const client = new FakeClient().on("import/preview", () => preview).on("import/run", () => run);
    const outcome = await importConversations({ client, scope: () => scope, log: new FakeLog().asLog() });
    assert.equal(outcome, "declined");
    assert.deepEqual(client.calls.map((c) => c.method), ["import/preview"]);
  });

  it("says so when there is nothing new", async () => {
    answer("Import");
    const none: ImportResult = { dry_run: true, reports: { claude: { missing: 0, already_imported: 4 } } };
    const client = new FakeClient().on("import/preview", () => none);
    const outcome = await importConversations({ client, scope: () => scope, log: new FakeLog().asLog() });
    assert.equal(outcome, "nothing");
    assert.match(shownBy("window.showInformationMessage")[0] ?? "", /no new conversations for this workspace \(4 conversations already imported\)/);
  });

  it("cancels through the request's token and reports what was done", async () => {
    answer("Import");
    const cts = new CancellationTokenSource();
    window.withProgress = (async (_o: unknown, task: (p: { report(v: unknown): void }, t: unknown) => Promise<unknown>) =>
      task({ report: () => undefined }, cts.token));
    const client = new FakeClient().on("import/preview", () => preview).on("import/run", (_p, token) => {
      assert.equal(token, cts.token, "the progress notification's token is the request's");
      cts.cancel();
      return { ...run, cancelled: true };
    });
    const outcome = await importConversations({ client, scope: () => scope, log: new FakeLog().asLog() });
    assert.equal(outcome, "cancelled");
    assert.match(shownBy("window.showWarningMessage")[0] ?? "", /Import cancelled; until then: 2 new/);
  });

  it("treats a cancelled request (-32800) as a cancel, not a failure", async () => {
    answer("Import");
    const client = new FakeClient().on("import/preview", () => preview).on("import/run", () => {
      throw new RpcError(-32800, "Request cancelled");
    });
    const outcome = await importConversations({ client, scope: () => scope, log: new FakeLog().asLog() });
    assert.equal(outcome, "cancelled");
    assert.equal(shownBy("window.showErrorMessage").length, 0);
  });

  it("shows the sidecar's $/progress in its notification", async () => {
    answer("Import");
    const reports: unknown[] = [];
    window.withProgress = (async (_o: unknown, task: (p: { report(v: unknown): void }, t: unknown) => Promise<unknown>) =>
      task({ report: (v) => reports.push(v) }, new CancellationTokenSource().token));
    const progress = new FakeProgress();
    const client = new FakeClient().on("import/preview", () => preview).on("import/run", () => {
      progress.play("tok",
        { kind: "begin", title: "Importing conversations" },
        { kind: "report", message: "20 of 40 session(s)", percentage: 50 },
        { kind: "report", message: "40 of 40 session(s)", percentage: 100 });
      return run;
    });
    await importConversations({ client, scope: () => scope, progress: progress.source, log: new FakeLog().asLog() });
    assert.deepEqual(reports, [
      { message: undefined, increment: 0 },
      { message: "20 of 40 session(s)", increment: 50 },
      { message: "40 of 40 session(s)", increment: 50 },
    ]);
    assert.equal(progress.handlers.size, 0, "unsubscribed after the run");
  });

  it("reports a failed preview with the machine detail", async () => {
    const client = new FakeClient().on("import/preview", () => {
      throw new RpcError(-32004, "the store is locked", { code: "locked", detail: "database is locked" });
    });
    const outcome = await importConversations({ client, scope: () => scope, log: new FakeLog().asLog() });
    assert.equal(outcome, "failed");
    assert.match(shownBy("window.showErrorMessage")[0] ?? "", /the store is locked \[locked\] database is locked \(code -32004\)/);
  });

  it("describes previews and results", () => {
    assert.deepEqual(previewLines(preview), [
      "Claude Code: 5 new, 37 already imported, 3 one-shots ignored",
      "Codex CLI: 0 new, 8 already imported",
      "OpenCode: 0 new, 0 already imported",
    ]);
    assert.equal(summarize({ dry_run: false, reports: { codex: { imported: ["a"], messages_added: 1 } } }).message,
      "Imported 1 new conversation, 0 updated, 1 message added.");
  });
});
