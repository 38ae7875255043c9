// The extension's requests against the sidecar's strict params (test/wire.ts): the contract
// refuses what the sidecar refuses, and every request of the protocol is sent, and checked,
// by some feature test of this suite (run it whole: npm test).
import * as assert from "node:assert/strict";
import { initializationOptions, readSettings } from "../../src/sidecar/config";
import { initializationProblems, paramsProblems, REQUEST_METHODS, sentMethods } from "../wire";

describe("the requests the extension sends", () => {
  const scope = { all_projects: false, workspace_folders: ["/ws/app"] };

  it("are checked against a contract that refuses an unknown field, naming it", () => {
    assert.deepEqual(paramsProblems("builders/list", { ...scope, limit: 50 }), []);
    const unknown = paramsProblems("builders/list", { ...scope, allProjects: true });
    assert.equal(unknown.length, 1, unknown.join("; "));
    assert.match(unknown[0] ?? "", /“allProjects”/);
    for (const method of REQUEST_METHODS) {
      assert.notDeepEqual(paramsProblems(method, { noSuchField: 1 }), [], `${method} takes a field it does not know`);
    }
  });

  it("start with initializationOptions the sidecar takes, and it refuses a misspelt one", () => {
    const settings = readSettings((key) => ({ liveCapture: false, extraSourceRoots: { claude: ["/more"] } })[key]);
    assert.deepEqual(initializationProblems(initializationOptions(settings)), []);
    assert.deepEqual(initializationProblems(initializationOptions(readSettings(() => undefined))), []);
    assert.notDeepEqual(initializationProblems({ liveCapture: false }), []);
    assert.notDeepEqual(initializationProblems({ live_capture: "false" }), []);
  });

  it("are checked against a contract that refuses a value of the wrong type", () => {
    assert.notDeepEqual(paramsProblems("builders/list", { ...scope, all_projects: "true" }), []);
    assert.notDeepEqual(paramsProblems("builders/list", { ...scope, limit: "5" }), []);
    assert.notDeepEqual(paramsProblems("transcripts/page", { builder_id: "b", start: 1.5 }), []);
    assert.notDeepEqual(paramsProblems("doctor/run", null), []);
  });
});

// after every test of the run: a request no feature test sends would go unchecked
after(function () {
  if (sentMethods.size === 0) return; // this file alone: nothing else ran
  const unsent = REQUEST_METHODS.filter((m) => !sentMethods.has(m));
  assert.deepEqual(unsent, [], "requests no feature test sent through a FakeClient (so never checked against protocol/schema.json)");
});
