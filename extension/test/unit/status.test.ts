import * as assert from "node:assert/strict";
import { StatusBar } from "../../src/views/status";
import type { CaptureStatusResult } from "../../src/protocol";
import { FakeClient, FakeStatusBarItem } from "../fakes";
import fixture from "../../../protocol/fixtures/capture_status.json";
import failFixture from "../../../protocol/fixtures/capture_didFail.json";

const healthy: CaptureStatusResult = { live: true, roots: ["/home/u/.claude/projects"], last_sweep_at: null, captured: 3, last_failure: null };

describe("status bar", () => {
  it("shows starting, then live from capture/status", async () => {
    const item = new FakeStatusBarItem();
    const client = new FakeClient().on("capture/status", () => healthy);
    const s = new StatusBar(item.asItem(), () => client);
    assert.equal(item.shown, true);
    assert.match(item.text, /sync~spin/);
    await s.setSidecarState({ kind: "running", store: "/home/u/.lazy" });
    assert.equal(item.text, "$(database) Lazy: live");
    assert.match(String(item.tooltip), /Captured since start: 3/);
    assert.equal(item.command, "lazy.showLog");
  });

  it("shows not live", async () => {
    const item = new FakeStatusBarItem();
    const client = new FakeClient().on("capture/status", () => ({ ...healthy, live: false }));
    const s = new StatusBar(item.asItem(), () => client);
    await s.setSidecarState({ kind: "running", store: "/home/u/.lazy" });
    assert.equal(item.text, "$(warning) Lazy: not live");
  });

  it("shows the last failure from capture/status with its machine detail", async () => {
    const item = new FakeStatusBarItem();
    const client = new FakeClient().on("capture/status", () => fixture.result as CaptureStatusResult);
    const s = new StatusBar(item.asItem(), () => client);
    await s.setSidecarState({ kind: "running", store: "/home/u/.lazy" });
    assert.equal(item.text, "$(error) Lazy");
    assert.match(String(item.tooltip), /0197a3c2-5e8b-4f1a-9d3c-7b2e6a4f8c10\.jsonl:412/);
    assert.match(String(item.tooltip), /not a JSON object \(list\) \[bad-line\]/);
  });

  it("shows a capture/didFail notification", async () => {
    const item = new FakeStatusBarItem();
    const client = new FakeClient().on("capture/status", () => healthy);
    const s = new StatusBar(item.asItem(), () => client);
    await s.setSidecarState({ kind: "running", store: "/home/u/.lazy" });
    s.onCaptureDidFail(failFixture.params);
    assert.equal(item.text, "$(error) Lazy");
    assert.match(String(item.tooltip), /the file could not be read \[read-error\]\nPermissionError/);
    assert.doesNotMatch(String(item.tooltip), /jsonl:/, "no line when there is none");
  });

  it("offers a restart when the sidecar stopped", async () => {
    const item = new FakeStatusBarItem();
    const s = new StatusBar(item.asItem(), () => undefined);
    await s.setSidecarState({ kind: "stopped", reason: "the sidecar process exited" });
    assert.equal(item.text, "$(error) Lazy: sidecar stopped");
    assert.equal(item.command, "lazy.restartSidecar");
    assert.match(String(item.tooltip), /process exited\nClick to restart/);
  });

  it("points to the settings when the sidecar is missing", async () => {
    const item = new FakeStatusBarItem();
    const s = new StatusBar(item.asItem(), () => undefined);
    await s.setSidecarState({ kind: "missing" });
    assert.equal(item.text, "$(warning) Lazy: no sidecar");
    assert.deepEqual((item.command as { arguments: unknown[] }).arguments, ["lazy."]);
  });

  it("survives a failing capture/status", async () => {
    const item = new FakeStatusBarItem();
    const client = new FakeClient().on("capture/status", () => {
      throw new Error("boom");
    });
    const s = new StatusBar(item.asItem(), () => client);
    await s.setSidecarState({ kind: "running", store: "/home/u/.lazy" });
    assert.equal(item.text, "$(warning) Lazy: not live");
    assert.match(String(item.tooltip), /unknown/);
  });
});
