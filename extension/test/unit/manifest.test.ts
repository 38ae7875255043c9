// What package.json promises VS Code: every command a menu or view names exists, and the
// texts VS Code renders from it (welcome views) hold no escape sequences shown literally.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { AGENT_IDS } from "../../src/protocol";

interface Manifest {
  contributes: {
    commands: { command: string }[];
    viewsWelcome: { view: string; contents: string }[];
    menus: Record<string, { command?: string }[]>;
    configuration: { properties: Record<string, { scope?: string; properties?: Record<string, unknown> }> };
  };
}

const manifest = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"),
) as Manifest;

describe("package.json", () => {
  it("welcome views break lines with newlines, never a literal \\n", () => {
    for (const w of manifest.contributes.viewsWelcome) {
      assert.ok(!w.contents.includes("\\n"), `${w.view}: ${w.contents}`);
    }
  });

  it("every command a menu or welcome link names is contributed", () => {
    const known = new Set(manifest.contributes.commands.map((c) => c.command));
    const named = Object.values(manifest.contributes.menus).flatMap((items) => items.map((i) => i.command));
    const linked = manifest.contributes.viewsWelcome.flatMap((w) =>
      [...w.contents.matchAll(/\(command:([\w.]+)/g)].map((m) => m[1]),
    );
    for (const c of [...named, ...linked]) {
      if (c && !c.startsWith("workbench.")) assert.ok(known.has(c), `${c} is not in contributes.commands`);
    }
  });

  it("every lazy.* setting is read from the user's settings in a remote window too", () => {
    // VS Code drops machine-scoped settings from the local user settings of a remote window
    // (code-server is one), but only once it re-reads them: lazy.store set there served the
    // first start, and any later edit of settings.json turned it into ~/.lazy (issue 13)
    for (const [key, p] of Object.entries(manifest.contributes.configuration.properties)) {
      assert.ok(!["machine", "machine-overridable", "application"].includes(p.scope ?? "window"), `${key} has scope ${p.scope ?? ""}`);
    }
  });

  it("lazy.extraSourceRoots takes a list per agent, as lazy.agents names them", () => {
    const roots = manifest.contributes.configuration.properties["lazy.extraSourceRoots"];
    assert.deepEqual(Object.keys(roots?.properties ?? {}), AGENT_IDS);
  });
});
