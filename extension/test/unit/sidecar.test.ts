// Starting and restarting the sidecar (issue 13): a restart runs exactly what the first start
// resolved from the settings, the same executable against the same store, and changed settings
// are applied only when the user says so; never a fall-back to another sidecar or ~/.lazy.
import * as assert from "node:assert/strict";
import { readSettings, type Settings } from "../../src/sidecar/config";
import type { DiscoveryEnv } from "../../src/sidecar/discovery";
import type { Launch } from "../../src/sidecar/launch";
import { Sidecar, type SidecarState } from "../../src/sidecar/sidecar";
import { FakeConnection, FakeLog } from "../fakes";
import { calls, resetMock, window } from "../mocks/vscode";

const WRAPPER = "/opt/lazy/wrapper";
const STORE = "/stores/one";
const DEFAULTS: Settings = readSettings(() => undefined);
const CONFIGURED: Settings = { ...DEFAULTS, sidecarPath: WRAPPER, store: STORE };

class World {
  settings: Settings = CONFIGURED;
  discovered = 0;
  readonly connections: FakeConnection[] = [];
  readonly states: SidecarState["kind"][] = [];
  readonly log = new FakeLog();
  readonly sidecar = new Sidecar({
    settings: () => this.settings,
    discoveryEnv: (): DiscoveryEnv => {
      this.discovered++;
      return {
        pathEnv: "/usr/bin",
        workspaceFolders: [],
        platform: "linux",
        homeDir: "/home/u",
        isExecutable: (f) => f === WRAPPER || f === "/usr/bin/python3",
        bundledDir: "/ext/bundled",
      };
    },
    exec: () => Promise.resolve("(3, 12)\n"),
    log: this.log.asLog(),
    homeDir: "/home/u",
    baseEnv: { PATH: "/usr/bin" },
    connect: (launch: Launch) => {
      const c = new FakeConnection(launch);
      this.connections.push(c);
      return c;
    },
  });

  constructor() {
    this.sidecar.onDidChangeState((s) => this.states.push(s.kind));
  }

  last(): FakeConnection {
    const c = this.connections.at(-1);
    assert.ok(c, "no sidecar was started");
    return c;
  }
}

/** The modal question a restart asks, answered with `pick`; what it asked is in `calls`. */
function answerWith(pick: string | undefined): void {
  window.showWarningMessage = (...args: unknown[]) => {
    calls.push({ method: "window.showWarningMessage", args });
    return Promise.resolve(pick);
  };
}

describe("the sidecar's start and restart", () => {
  beforeEach(resetMock);

  it("starts lazy.sidecar.path against lazy.store", async () => {
    const w = new World();
    await w.sidecar.start();
    const { launch } = w.last();
    assert.equal(launch.sidecar.command, WRAPPER);
    assert.deepEqual(launch.sidecar.args, ["sidecar"]);
    assert.equal(launch.env.LAZY_HOME, STORE);
    assert.deepEqual(w.sidecar.state, { kind: "running", store: STORE });
  });

  it("after the sidecar is killed, Restart Sidecar runs the very same launch again", async () => {
    const w = new World();
    await w.sidecar.start();
    const first = w.last();
    first.kill();
    assert.deepEqual(w.sidecar.state, { kind: "stopped", reason: "the sidecar process exited" });
    await w.sidecar.restart("same");
    assert.equal(w.connections.length, 2);
    assert.deepEqual(w.last().launch, first.launch);
    assert.equal(w.discovered, 1, "the restart looked for a sidecar again instead of running the one it ran");
    assert.deepEqual(w.sidecar.state, { kind: "running", store: STORE });
    assert.deepEqual(calls.filter((c) => c.method === "window.showWarningMessage"), [], "it asked with nothing changed");
    assert.deepEqual(w.states, ["starting", "running", "stopped", "starting", "running"]);
  });

  it("settings that read back empty at a restart never switch it to the bundled sidecar and ~/.lazy unasked", async () => {
    const w = new World();
    await w.sidecar.start();
    const first = w.last();
    first.kill();
    w.settings = DEFAULTS;
    answerWith("Keep the Ones It Started With");
    await w.sidecar.restart("same");
    const [asked] = calls.filter((c) => c.method === "window.showWarningMessage");
    assert.ok(asked, "the changed settings were applied without asking");
    const detail = (asked.args[1] as { detail: string; modal: boolean }).detail;
    assert.match(detail, /lazy\.sidecar\.path: “\/opt\/lazy\/wrapper” → \(not set\)/);
    assert.match(detail, /lazy\.store: “\/stores\/one” → \(not set\)/);
    assert.deepEqual(w.last().launch, first.launch);
    assert.equal(w.last().launch.env.LAZY_HOME, STORE);
  });

  it("a restart whose question is dismissed restarts nothing", async () => {
    const w = new World();
    await w.sidecar.start();
    w.settings = { ...CONFIGURED, store: "/stores/two" };
    answerWith(undefined);
    await w.sidecar.restart("same");
    assert.equal(w.connections.length, 1);
    assert.equal(w.last().stopped, false, "the running sidecar was stopped");
    assert.deepEqual(w.sidecar.state, { kind: "running", store: STORE });
  });

  it("changed settings apply when the user picks them, and the log names the change", async () => {
    const w = new World();
    await w.sidecar.start();
    w.settings = { ...CONFIGURED, store: "/stores/two" };
    answerWith("Use the New Settings");
    await w.sidecar.restart("same");
    assert.equal(w.last().launch.env.LAZY_HOME, "/stores/two");
    assert.equal(w.last().launch.sidecar.command, WRAPPER);
    assert.ok(w.log.lines.some((l) => l.includes("lazy.store: “/stores/one” → “/stores/two”")), w.log.lines.join("\n"));
    // the settings prompt's Restart applies them without a second question
    calls.length = 0;
    w.settings = { ...CONFIGURED, store: "/stores/three" };
    await w.sidecar.restart("settings");
    assert.equal(w.last().launch.env.LAZY_HOME, "/stores/three");
    assert.deepEqual(calls.filter((c) => c.method === "window.showWarningMessage"), []);
  });
});
