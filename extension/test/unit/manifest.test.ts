// What package.json promises VS Code: every command a menu or view names exists, and the
// texts VS Code renders from it (welcome views) hold no escape sequences shown literally.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";

interface Manifest {
  contributes: {
    commands: { command: string }[];
    viewsWelcome: { view: string; contents: string }[];
    menus: Record<string, { command?: string }[]>;
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
});
