// The command tables: every command package.json contributes is registered exactly once (by
// the general table or by its view), and one that needs the sidecar does nothing while it is
// down but say so.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { COMMANDS } from "../../src/commands";
import { needsSidecar, NOT_RUNNING, registerCommands, whenRunning, type Ctx } from "../../src/ctx";
import type { Sidecar } from "../../src/sidecar/sidecar";
import { registerBuildersView } from "../../src/views/buildersView";
import { registerHealthView } from "../../src/views/doctor";
import { registerTasksView } from "../../src/views/tasks";
import { FakeClient } from "../fakes";
import { registered, resetMock, shownBy } from "../mocks/vscode";

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as {
  contributes: { commands: { command: string }[] };
};

function sidecarIn(kind: "running" | "stopped"): Sidecar {
  const lazy = { command: "/bin/lazy", args: [], env: {} };
  return {
    state: kind === "running" ? { kind, store: "/s" } : { kind },
    client: new FakeClient(),
    lazyCommand: kind === "running" ? lazy : undefined,
  } as unknown as Sidecar;
}

function fakeCtx(sidecar: Sidecar): Ctx {
  return {
    sidecar,
    builders: { showsAllProjects: false, message: undefined, onDidChangeMessage: () => ({ dispose: () => undefined }) },
    whenRunning: () => whenRunning(sidecar),
  } as unknown as Ctx;
}

describe("commands", () => {
  beforeEach(() => {
    resetMock();
    registered.clear();
  });

  it("registers every contributed command once, each view its own", () => {
    const ctx = fakeCtx(sidecarIn("running"));
    const subs = [...registerCommands(ctx, COMMANDS), ...registerBuildersView(ctx), ...registerHealthView(ctx), ...registerTasksView(ctx)];
    assert.deepEqual([...registered.keys()].sort(), manifest.contributes.commands.map((c) => c.command).sort());
    for (const s of subs) s.dispose();
    assert.equal(registered.size, 0);
  });

  it("tells the user once that the sidecar is not running, and runs nothing", async () => {
    let ran = 0;
    const factory = needsSidecar(() => () => { ran++; });
    await factory(fakeCtx(sidecarIn("stopped")))("arg");
    assert.equal(ran, 0);
    assert.deepEqual(shownBy("window.showErrorMessage"), [NOT_RUNNING]);
    await factory(fakeCtx(sidecarIn("running")))("arg");
    assert.equal(ran, 1);
  });

  it("hands a running sidecar's client and lazy command to the command", () => {
    const sidecar = sidecarIn("running");
    let seen: unknown[] = [];
    needsSidecar(() => (running, ...args) => { seen = [running.client, running.lazy, ...args]; })(fakeCtx(sidecar))("b1");
    assert.deepEqual(seen, [sidecar.client, sidecar.lazyCommand, "b1"]);
  });
});
