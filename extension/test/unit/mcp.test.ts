// The MCP server the extension offers VS Code's chat: what the sidecar runs, with `mcp` for
// `sidecar`, its store and bundled Python path; none when lazy.mcp.enabled is off, and no
// provider at all on a VS Code without the API (1.101+).
import * as assert from "node:assert/strict";
import { mcpServer, PROVIDER_ID, registerMcpProvider, type McpHost } from "../../src/mcp";
import { readSettings, type Settings } from "../../src/sidecar/config";
import { resolveLaunch, type Launch } from "../../src/sidecar/launch";
import { FakeLog } from "../fakes";
import * as mock from "../mocks/vscode";

const DEFAULTS: Settings = readSettings(() => undefined);

async function launched(settings: Settings, onPath: string[] = []): Promise<Launch> {
  const got = await resolveLaunch(settings, {
    discovery: {
      pathEnv: "/usr/bin",
      workspaceFolders: [],
      platform: "linux",
      homeDir: "/home/u",
      isExecutable: (f) => ["/opt/lazy/bin/lazy", "/usr/bin/python3", ...onPath].includes(f),
      bundledDir: "/ext/bundled",
    },
    exec: () => Promise.resolve("(3, 12)\n/ext/bundled/py312\n"),
    baseEnv: { PATH: "/usr/bin", SECRET_OF_THE_HOST: "x" },
    homeDir: "/home/u",
  });
  assert.equal(got.kind, "launch");
  return (got as { launch: Launch }).launch;
}

describe("mcp", () => {
  it("runs the configured lazy with mcp, against the configured store", async () => {
    const s = mcpServer(await launched({ ...DEFAULTS, sidecarPath: "/opt/lazy/bin/lazy", store: "~/stores/a" }));
    assert.deepEqual(s, { label: "lazy", command: "/opt/lazy/bin/lazy", args: ["mcp"], env: { LAZY_HOME: "/home/u/stores/a" } });
  });

  it("runs a configured Python's lazy.cli.main mcp", async () => {
    const s = mcpServer(await launched({ ...DEFAULTS, python: "/usr/bin/python3" }));
    assert.deepEqual([s.command, s.args, s.env], ["/usr/bin/python3", ["-m", "lazy.cli.main", "mcp"], {}]);
  });

  it("offers nothing, and says why, on a VS Code without the MCP API", () => {
    const log = new FakeLog();
    const host: McpHost = { launch: () => undefined, onDidChange: new mock.EventEmitter<unknown>().event, enabled: () => true, log: log.asLog(), version: "0.1.0" };
    assert.deepEqual(registerMcpProvider(host), []);
    assert.match(log.lines.join("\n"), /no MCP server definition API \(1\.101\+\)/);
  });

  it("still activates when this VS Code refuses the provider (1.100 wants a contribution of its own)", () => {
    const refuse = (): mock.Disposable => {
      throw new Error('MCP configuration providers must be registered in the contributes.modelContextServerCollections array within your package.json, but "lazy.mcp" was not');
    };
    mock.setMcpApi(refuse, class {});
    try {
      const log = new FakeLog();
      const host: McpHost = { launch: () => undefined, onDidChange: new mock.EventEmitter<unknown>().event, enabled: () => true, log: log.asLog(), version: "0.1.0" };
      assert.deepEqual(registerMcpProvider(host), []);
      assert.match(log.lines.join("\n"), /not offered to VS Code's chat: MCP configuration providers must be registered/);
    } finally {
      mock.setMcpApi(undefined, undefined);
    }
  });

  describe("with the API", () => {
    class Definition {
      constructor(readonly label: string, readonly command: string, readonly args: string[], readonly env: Record<string, string>, readonly version: string) {}
    }
    const registered: { id: string; provider: { provideMcpServerDefinitions(): unknown[]; onDidChangeMcpServerDefinitions: mock.Event<void> } }[] = [];
    before(() => {
      const register = (id: string, provider: (typeof registered)[0]["provider"]): mock.Disposable => {
        registered.push({ id, provider });
        return new mock.Disposable(() => undefined);
      };
      mock.setMcpApi(register, Definition);
    });
    after(() => { mock.setMcpApi(undefined, undefined); });

    it("gives the sidecar's server, none when turned off, and says when that changes", async () => {
      const launch = await launched({ ...DEFAULTS, sidecarPath: "/opt/lazy/bin/lazy" });
      const now: { launch?: Launch; enabled: boolean } = { enabled: true };
      const restarted = new mock.EventEmitter<unknown>();
      const disposables = registerMcpProvider({ launch: () => now.launch, onDidChange: restarted.event, enabled: () => now.enabled, log: new FakeLog().asLog(), version: "0.1.0" });
      assert.equal(registered.length, 1);
      const { id, provider } = registered[0] ?? assert.fail("nothing registered");
      assert.equal(id, PROVIDER_ID);
      let changes = 0;
      provider.onDidChangeMcpServerDefinitions(() => { changes++; });
      assert.deepEqual(provider.provideMcpServerDefinitions(), []); // no sidecar started yet
      now.launch = launch;
      restarted.fire({ kind: "running" });
      const [d] = provider.provideMcpServerDefinitions() as Definition[];
      assert.deepEqual([d?.label, d?.command, d?.args, d?.version], ["lazy", "/opt/lazy/bin/lazy", ["mcp"], "0.1.0"]);
      now.enabled = false;
      mock.configurationChanged.fire({ affectsConfiguration: (s) => s === "lazy.mcp.enabled" });
      assert.deepEqual(provider.provideMcpServerDefinitions(), []);
      assert.equal(changes, 2);
      for (const x of disposables) x.dispose();
    });
  });
});
