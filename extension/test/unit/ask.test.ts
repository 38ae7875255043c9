import * as assert from "node:assert/strict";
import { askAbout, answerHtml } from "../../src/ask/ask";
import { answerParts, chunkCounts, parseAnswerMessage, parseHostAnswer } from "../../src/ask/messages";
import type { AskRunResult } from "../../src/protocol";
import { FakeClient, FakeLog, FakeProgress, RpcError } from "../fakes";
import { calls, CancellationTokenSource, resetMock, shownBy, window } from "../mocks/vscode";
import askFixture from "../../../protocol/fixtures/ask_run.json";

const answered = askFixture.result as AskRunResult;
const target = { id: "0197a3c2-5e8b-4f1a-9d3c-7b2e6a4f8c10", label: "Design the store" };

function typing(answer: string | undefined): void {
  window.showInputBox = (...args: unknown[]) => {
    calls.push({ method: "window.showInputBox", args });
    return Promise.resolve(answer);
  };
}

describe("Ask About This Builder", () => {
  beforeEach(resetMock);

  it("asks the typed question with the notification's token, and shows the answer", async () => {
    typing("  what did we decide about retention?  ");
    const cts = new CancellationTokenSource();
    window.withProgress = (async (_o: unknown, task: (p: { report(v: unknown): void }, t: unknown) => Promise<unknown>) =>
      task({ report: () => undefined }, cts.token));
    const client = new FakeClient().on("ask/run", () => answered);
    const got: unknown[] = [];
    const outcome = await askAbout({ client, log: new FakeLog().asLog(), show: (...a) => got.push(a) }, target);
    assert.equal(outcome, "answered");
    const call = client.callsOf("ask/run")[0];
    assert.ok(call);
    assert.deepEqual(call.params, { id: target.id, question: "what did we decide about retention?" });
    assert.equal(call.token, cts.token, "cancelling the notification cancels the request");
    assert.deepEqual(got, [[target.label, "what did we decide about retention?", answered]]);
  });

  it("shows the sidecar's $/progress in its notification", async () => {
    const reports: unknown[] = [];
    window.withProgress = (async (_o: unknown, task: (p: { report(v: unknown): void }, t: unknown) => Promise<unknown>) =>
      task({ report: (v) => reports.push(v) }, new CancellationTokenSource().token));
    const progress = new FakeProgress();
    const client = new FakeClient().on("ask/run", () => {
      progress.play("t1",
        { kind: "begin", title: "Asking 0197a3c2" },
        { kind: "report", message: "excerpt 1 of 3" },
        { kind: "end" });
      return answered;
    });
    await askAbout({ client, progress: progress.source, log: new FakeLog().asLog(), show: () => undefined }, target, "why?");
    assert.deepEqual(reports, [{ message: "Asking 0197a3c2" }, { message: "excerpt 1 of 3" }]);
    assert.equal(progress.handlers.size, 0, "the progress subscription ends with the request");
  });

  it("does nothing when the question is dismissed or empty", async () => {
    const client = new FakeClient();
    typing(undefined);
    assert.equal(await askAbout({ client, log: new FakeLog().asLog(), show: () => undefined }, target), "dismissed");
    typing("   ");
    assert.equal(await askAbout({ client, log: new FakeLog().asLog(), show: () => undefined }, target), "dismissed");
    assert.equal(client.calls.length, 0);
  });

  it("says a cancelled ask was cancelled", async () => {
    const client = new FakeClient().on("ask/run", () => Promise.reject(new RpcError(-32800, "cancelled")));
    assert.equal(await askAbout({ client, log: new FakeLog().asLog(), show: () => undefined }, target, "q"), "cancelled");
    assert.deepEqual(shownBy("window.showInformationMessage"), ["Lazy: ask cancelled."]);
  });

  it("shows an unmet prerequisite as the one sentence lazy ask prints, with its fix", async () => {
    // the sidecar's message is the sentence `lazy ask` prints; the code and detail beside it
    const sentence =
      "lazy ask runs every one-shot in a Docker container, never on the host, and no Docker engine answers at unix:///run/none.sock: start it (sudo systemctl start docker) or point DOCKER_HOST at a running one";
    const data = { code: "docker-unavailable", detail: "FileNotFoundError: No such file or directory", warnings: [] };
    const log = new FakeLog();
    const client = new FakeClient().on("ask/run", () => Promise.reject(new RpcError(-32007, sentence, data)));
    assert.equal(await askAbout({ client, log: log.asLog(), show: () => undefined }, target, "q"), "failed");
    const shown = shownBy("window.showErrorMessage");
    assert.deepEqual(shown, [`Lazy: ${sentence} [docker-unavailable: FileNotFoundError: No such file or directory]`]);
    assert.ok(!shown.some((m) => m.includes("-32007")), "not the bare JSON-RPC code");
  });

  it("shows any other failure the way lazy ask prints it, its warnings in the log", async () => {
    const data = { code: "ALL_EXCERPTS_FAILED", detail: "model-error: overloaded", warnings: ["excerpt 1 of 2 was not read"] };
    const log = new FakeLog();
    const message = "every excerpt failed to read (2 of 2), so there is nothing to answer from";
    const client = new FakeClient().on("ask/run", () => Promise.reject(new RpcError(-32007, message, data)));
    assert.equal(await askAbout({ client, log: log.asLog(), show: () => undefined }, target, "q"), "failed");
    assert.deepEqual(shownBy("window.showErrorMessage"), [`Lazy: ${message} [ALL_EXCERPTS_FAILED: model-error: overloaded]`]);
    assert.ok(log.lines.some((l) => l.includes("excerpt 1 of 2 was not read")), JSON.stringify(log.lines));
  });

  it("shows a failure that is not the ask's own with its JSON-RPC code", async () => {
    const client = new FakeClient().on("ask/run", () => Promise.reject(new RpcError(-32004, "the store is busy", { code: "busy", detail: "" })));
    assert.equal(await askAbout({ client, log: new FakeLog().asLog(), show: () => undefined }, target, "q"), "failed");
    assert.deepEqual(shownBy("window.showErrorMessage"), ["Lazy: ask failed: the store is busy [busy] (code -32004)"]);
  });
});

describe("the answer page", () => {
  it("turns #N references into links, and nothing else", () => {
    assert.deepEqual(answerParts("zstd at level 3 (#2), see #13 and #14."), [
      { text: "zstd at level 3 (" }, { ref: 2 }, { text: "), see " }, { ref: 13 }, { text: " and " }, { ref: 14 }, { text: "." },
    ]);
    assert.deepEqual(answerParts("issue a#12, #0, C# and #x"), [{ text: "issue a#12, #0, C# and #x" }]);
    assert.deepEqual(answerParts(""), [{ text: "" }]);
  });

  it("counts the excerpts it stands on", () => {
    assert.equal(chunkCounts({ ...answered, chunks: 1, relevant_chunks: 1 }), "1 excerpt read, 1 relevant");
    assert.equal(chunkCounts(answered), "3 excerpts read, 1 relevant");
  });

  it("validates what crosses the boundary", () => {
    assert.deepEqual(parseAnswerMessage({ type: "reveal", number: 12 }), { type: "reveal", number: 12 });
    assert.deepEqual(parseAnswerMessage({ type: "ready", x: 1 }), { type: "ready" });
    for (const bad of [{ type: "reveal", number: 0 }, { type: "reveal", number: "12" }, { type: "run" }, null, "ready"])
      assert.ok(parseAnswerMessage(bad) instanceof Error, JSON.stringify(bad));
    const ok = parseHostAnswer({ type: "answer", label: "l", question: "q", result: answered });
    assert.ok(!(ok instanceof Error) && ok.result.answer === answered.answer);
    assert.ok(parseHostAnswer({ type: "answer", label: "l", question: "q", result: { ...answered, chunks: "3" } }) instanceof Error);
  });

  it("is a static shell under a strict CSP with a nonce", () => {
    const html = answerHtml({ cspSource: "vscode-webview:", nonce: "N0NCE", scriptUri: "s.js", styleUri: "s.css" });
    assert.match(html, /default-src 'none'; style-src vscode-webview:; script-src 'nonce-N0NCE'/);
    assert.match(html, /<script nonce="N0NCE" src="s.js">/);
  });
});
