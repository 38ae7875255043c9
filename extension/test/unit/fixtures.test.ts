// Every example of protocol/fixtures/ goes through the extension's decoders: what the
// sidecar sends is what the extension accepts. (test/fixtures.typecheck.ts checks the same
// files against the generated types at compile time.)
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { METHODS, NOTIFICATION_DECODERS, type NotificationName, type RequestName, RESULT_DECODERS } from "../../src/protocol";
import { typedClient } from "../../src/protocol/client";

const dir = path.join(__dirname, "..", "..", "..", "protocol", "fixtures");
const files = fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort();

interface Fixture {
  method: string;
  params: unknown;
  result?: unknown;
}

function isRequest(m: string): m is RequestName {
  return m in RESULT_DECODERS;
}
function isNotification(m: string): m is NotificationName {
  return m in NOTIFICATION_DECODERS;
}

describe("protocol fixtures", () => {
  it("cover every method of methods.json", () => {
    const methods = files.map((f) => (JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as Fixture).method).sort();
    assert.deepEqual(methods, Object.keys(METHODS).sort());
  });

  for (const file of files) {
    it(`${file} decodes`, () => {
      const fx = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as Fixture;
      if (isRequest(fx.method)) {
        assert.equal(METHODS[fx.method].kind, "request");
        const decoded = RESULT_DECODERS[fx.method](fx.result, "");
        assert.deepEqual(decoded, fx.result, "decoding keeps every value");
      } else if (isNotification(fx.method)) {
        const decoded = NOTIFICATION_DECODERS[fx.method](fx.params, "");
        assert.deepEqual(decoded, fx.params);
      } else {
        assert.fail(`unknown method ${fx.method}`);
      }
    });
  }

  it("rejects a result of the wrong shape with the field that failed", async () => {
    const fx = JSON.parse(fs.readFileSync(path.join(dir, "builders_list.json"), "utf8")) as { result: { items: Record<string, unknown>[] } };
    const broken = structuredClone(fx.result);
    broken.items[1] = { ...broken.items[1], message_count: "23" };
    const client = typedClient(() => Promise.resolve(broken));
    await assert.rejects(client.request("builders/list", {}), /unexpected builders\/list result from the sidecar: items\[1\]\.message_count: expected an integer/);
  });

  it("rejects a notification of the wrong shape", () => {
    assert.throws(() => NOTIFICATION_DECODERS["builders/didChange"]({ builder_ids: ["a"], reason: "deleted" }, ""), /reason: expected "captured" \| "imported"/);
  });
});
