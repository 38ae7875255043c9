// Lazy: Export Builder…: the format picked, the file chosen, the sidecar's export written there,
// and what it did said (its range, the secrets it took out).
import * as assert from "node:assert/strict";
import { exportBuilder, exportedMessage, exportName } from "../../src/transcript/export";
import { FakeClient } from "../fakes";
import { calls, resetMock, shownBy, Uri, window } from "../mocks/vscode";

describe("export", () => {
  beforeEach(() => { resetMock(); });

  it("writes what export/builder answered to the file the user chose, and says what it did", async () => {
    window.showQuickPick = (items: { format: string }[]) => Promise.resolve(items.find((i) => i.format === "md"));
    window.showSaveDialog = () => Promise.resolve(Uri.file("/tmp/out/plan.md"));
    const client = new FakeClient().on("export/builder", (p) => ({
      text: "# Plan\n", format: p.format ?? "html", first: 1, last: 4, of: 4, redacted: true, redactions: { "aws-access-key": 2 },
    }));
    await exportBuilder(client, "b1", "Plan the tangerine migration");
    assert.deepEqual(client.callsOf("export/builder").map((c) => c.params), [{ builder_id: "b1", format: "md" }]);
    const [write] = calls.filter((c) => c.method === "workspace.fs.writeFile");
    assert.equal((write?.args[0] as Uri).fsPath, "/tmp/out/plan.md");
    assert.equal(new TextDecoder().decode(write?.args[1] as Uint8Array), "# Plan\n");
    assert.deepEqual(shownBy("window.showInformationMessage"), ["Exported messages 1–4 of 4 to plan.md (2 secrets redacted)."]);
  });

  it("does nothing when the format or the file is not chosen", async () => {
    const client = new FakeClient();
    await exportBuilder(client, "b1", "x");
    assert.deepEqual(client.callsOf("export/builder").map((c) => c.params), []);
  });

  it("names the file from the label, and says when secrets were left in", () => {
    assert.equal(exportName("Fix <the> /etc/passwd bug!", "html"), "Fix-the-etc-passwd-bug.html");
    assert.equal(exportName("…", "md"), "builder.md");
    const r = { text: "", format: "md", first: 2, last: 3, of: 9, redacted: false, redactions: {} };
    assert.equal(exportedMessage(r, "a.md"), "Exported messages 2–3 of 9 to a.md (secrets NOT redacted).");
  });
});
