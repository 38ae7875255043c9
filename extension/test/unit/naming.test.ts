import * as assert from "node:assert/strict";
import { nameBuilder } from "../../src/views/naming";
import type { BuilderInfo } from "../../src/protocol";
import { FakeClient, RpcError } from "../fakes";
import { calls, resetMock, window } from "../mocks/vscode";

const info: BuilderInfo = {
  id: "0197a3c2-5e8b-4f1a-9d3c-7b2e6a4f8c10",
  short_id: "0197a3c2",
  tool: "claude",
  project: "/home/u/lazy",
  started_at: null,
  updated_at: null,
  message_count: 3,
  summary: "Review the PR",
  alias: "old-name",
};

function typed(answer: string | undefined): void {
  window.showInputBox = (...args: unknown[]) => {
    calls.push({ method: "window.showInputBox", args });
    return Promise.resolve(answer);
  };
}

describe("Name This Builder", () => {
  beforeEach(resetMock);

  it("asks with the current alias filled in and sends the trimmed name", async () => {
    typed("  reviewer ");
    const client = new FakeClient().on("builders/name", (p) => Promise.resolve({ ...info, alias: p.name }));
    const named = await nameBuilder(client, info);
    assert.equal(named?.alias, "reviewer");
    assert.deepEqual(client.callsOf("builders/name")[0]?.params, { id: info.id, name: "reviewer" });
    const [opts] = calls.find((c) => c.method === "window.showInputBox")?.args as [{ value: string }];
    assert.equal(opts.value, "old-name");
  });

  it("an empty name removes the alias; dismissing sends nothing", async () => {
    typed("");
    const client = new FakeClient().on("builders/name", () => Promise.resolve({ ...info, alias: null }));
    await nameBuilder(client, info);
    assert.deepEqual(client.callsOf("builders/name")[0]?.params, { id: info.id, name: null });
    typed(undefined);
    assert.equal(await nameBuilder(client, info), undefined);
    assert.equal(client.callsOf("builders/name").length, 1);
  });

  it("shows the sidecar's refusal as it says it", async () => {
    typed("taken");
    const client = new FakeClient().on("builders/name", () =>
      Promise.reject(new RpcError(-32005, "alias 'taken' already names 0198ffff in /home/u/lazy", { name: "taken", builder_id: "0198ffff" })),
    );
    assert.equal(await nameBuilder(client, info), undefined);
    const shown = calls.find((c) => c.method === "window.showErrorMessage");
    assert.match(String(shown?.args[0]), /already names 0198ffff .*\(code -32005\)/);
  });
});
