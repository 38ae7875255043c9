// The building blocks protocol/decode.ts is generated from: each says which field failed.
import * as assert from "node:assert/strict";
import { arr, int, literal, never, nullable, obj, optional, record, str, tuple, union, unknown } from "../../src/protocol";

describe("decoders", () => {
  it("checks a pair item by item", () => {
    const pair = tuple(int, int);
    assert.deepEqual(pair([1, 2], "h"), [1, 2]);
    assert.throws(() => pair([1], "h"), /h: expected a pair/);
    assert.throws(() => pair([1, "2"], "h"), /h\[1\]: expected an integer/);
  });

  it("takes the first member of a union that accepts the value", () => {
    const d = nullable(union(obj<{ n: number }>({ n: int }), str));
    assert.deepEqual(d({ n: 1 }, "x"), { n: 1 });
    assert.equal(d("s", "x"), "s");
    assert.equal(d(null, "x"), null);
    assert.throws(() => d(3, "x"), /x: expected an object or a string/);
  });

  it("compares literals of any JSON type exactly", () => {
    assert.equal(literal(null)(null, "r"), null);
    assert.throws(() => literal(null)(undefined, "r"), /r: expected null/);
    assert.throws(() => literal("a", "b")("c", "r"), /r: expected "a" \| "b"/);
    assert.throws(() => literal(1)("1", "r"), /r: expected 1/);
  });

  it("keeps an empty object empty and passes anything through unknown", () => {
    assert.deepEqual(record(never)({}, "o"), {});
    assert.throws(() => record(never)({ a: 1 }, "o"), /o\.a: expected nothing/);
    assert.deepEqual(record(unknown)({ a: [1] }, "o"), { a: [1] });
  });

  it("leaves an absent optional field absent", () => {
    const d = obj<{ a?: string[] }>({ a: optional(arr(str)) });
    assert.deepEqual(d({}, ""), {});
    assert.throws(() => d({ a: [1] }, ""), /a\[0\]: expected a string/);
  });
});
