import * as assert from "node:assert/strict";
import type { BuilderInfo } from "../../src/protocol";
import { resumeTerminal } from "../../src/sidecar/terminal";

const info = (over: Partial<BuilderInfo> = {}): BuilderInfo => ({
  id: "0197a3c2-5e8b-4f1a-9d3c-7b2e6a4f8c10",
  short_id: "0197a3c2",
  tool: "claude",
  project: "/home/u/lazy",
  started_at: null,
  updated_at: null,
  message_count: 3,
  summary: "<script>rm -rf /</script>",
  ...over,
});

describe("Resume in Terminal", () => {
  const bundled = { command: "/usr/bin/python3", args: ["-m", "lazy.cli.main", "sidecar"], env: { PYTHONPATH: "/ext/bundled/common" } };

  it("runs lazy builder --resume with the sidecar's own executable, Python and packages", () => {
    const t = resumeTerminal(info(), bundled);
    assert.deepEqual(t, {
      name: "Lazy: 0197a3c2",
      cwd: "/home/u/lazy",
      shellPath: "/usr/bin/python3",
      shellArgs: ["-m", "lazy.cli.main", "builder", "--resume", "0197a3c2-5e8b-4f1a-9d3c-7b2e6a4f8c10"],
      env: { PYTHONPATH: "/ext/bundled/common" },
    });
  });

  it("resumes by the alias when the Builder has one; a lazy executable takes no prefix", () => {
    const t = resumeTerminal(info(), { command: "/home/u/.venv/bin/lazy", args: ["sidecar"], env: {} }, "reviewer");
    assert.ok(t);
    assert.deepEqual(t.shellArgs, ["builder", "--resume", "reviewer"]);
    assert.equal(t.name, "Lazy: reviewer");
  });

  it("never puts transcript text on the command line, and refuses other agents", () => {
    const t = resumeTerminal(info(), bundled);
    assert.ok(!JSON.stringify(t).includes("script"));
    assert.equal(resumeTerminal(info({ tool: "codex" }), bundled), undefined);
  });
});
