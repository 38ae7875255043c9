import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { buildersSourcesResult } from "../../src/protocol";
import { type SourcePick, sourcePicks, sourcePicksOf } from "../../src/views/sources";
import { FakeClient } from "../fakes";

const fixture = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "..", "..", "protocol", "fixtures", "builders_sources.json"), "utf8"),
) as { result: unknown };

describe("Reveal Source Files", () => {
  const picks = sourcePicks(buildersSourcesResult(fixture.result, ""));
  const at = (i: number): SourcePick => {
    const pick = picks[i];
    assert.ok(pick, `pick ${i}`);
    return pick;
  };
  const [main, gone, subagent] = [at(0), at(1), at(2)];

  it("lists every file the sidecar recorded, in its order, with its full path", () => {
    assert.deepEqual(
      picks.map((p) => p.description),
      buildersSourcesResult(fixture.result, "").files.map((f) => f.path),
    );
    assert.equal(main.label, "$(file) 0197a3c2-5e8b-4f1a-9d3c-7b2e6a4f8c10.jsonl");
    assert.equal(main.detail, "session 0197a3c2-5e8b-4f1a-9d3c-7b2e6a4f8c10 · 408.5 KB captured");
  });

  it("says which files the agent deleted, and that lazy keeps its copy", () => {
    assert.ok(gone.label.startsWith("$(trash) "), gone.label);
    assert.match(gone.detail, /deleted by claude; lazy keeps its copy \(88\.1 KB\)/);
  });

  it("names a subagent's file by its agent", () => {
    assert.match(subagent.detail, /^subagent 7c4d2e91 · /);
  });

  it("asks builders/sources for the Builder", async () => {
    const client = new FakeClient().on("builders/sources", () => buildersSourcesResult(fixture.result, ""));
    const got = await sourcePicksOf(client, "0197a3c2");
    assert.deepEqual(client.callsOf("builders/sources").map((c) => c.params), [{ id: "0197a3c2" }]);
    assert.deepEqual(got.map((p) => p.description), picks.map((p) => p.description));
  });
});
