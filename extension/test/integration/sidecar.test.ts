// The real sidecar (the repo's .venv/bin/lazy, or LAZY_SIDECAR) over stdio with the same
// JSON-RPC library the LanguageClient uses, on an empty temporary store: every answer goes
// through the extension's decoders. Skipped when no sidecar is installed.
import * as assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node";
import { ErrorCode, type RequestName, type Requests, RESULT_DECODERS } from "../../src/protocol";

const repo = path.resolve(__dirname, "..", "..", "..");
const exe = process.env.LAZY_SIDECAR ?? path.join(repo, ".venv", "bin", "lazy");
const corpus = path.join(process.env.LAZY_CORPUS ?? path.join(repo, "..", "shared", "corpus"), "claude-code");

describe("the real sidecar", function () {
  this.timeout(60_000);
  let proc: ChildProcess | undefined;
  let conn: MessageConnection | undefined;
  let home = "";

  before(async function () {
    if (!fs.existsSync(exe)) this.skip();
    // a path with a space, as vscode-common-python-lsp's CI does, to catch quoting bugs
    home = fs.mkdtempSync(path.join(os.tmpdir(), "lazy store "));
    const fakeHome = fs.mkdtempSync(path.join(os.tmpdir(), "lazy-home-"));
    proc = spawn(exe, ["sidecar"], {
      env: { ...process.env, LAZY_HOME: home, HOME: fakeHome, PYTHONUNBUFFERED: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    proc.stderr?.resume();
    const p = proc;
    if (!p.stdout || !p.stdin) throw new Error("no stdio");
    conn = createMessageConnection(new StreamMessageReader(p.stdout), new StreamMessageWriter(p.stdin));
    conn.listen();
    await conn.sendRequest("initialize", {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
      // the shared corpus of real Claude Code sessions, when there, as an extra source root
      initializationOptions: {
        live_capture: false,
        extra_roots: { claude: fs.existsSync(corpus) ? [corpus] : [], codex: [], opencode: [] },
      },
    });
    await conn.sendNotification("initialized", {});
  });

  after(async () => {
    if (conn) {
      try {
        await conn.sendRequest("shutdown");
        await conn.sendNotification("exit");
      } catch {
        /* already gone */
      }
      conn.dispose();
    }
    proc?.kill();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  async function call<M extends RequestName>(method: M, params: Requests[M]["params"]): Promise<Requests[M]["result"]> {
    if (!conn) throw new Error("not connected");
    const raw: unknown = await conn.sendRequest(method, params);
    return RESULT_DECODERS[method](raw, "");
  }

  const scope = { all_projects: false, workspace_folders: ["/nowhere/project"] };

  it("answers builders/list with an empty first page", async () => {
    const r = await call("builders/list", { ...scope, limit: 10 });
    assert.deepEqual(r.items, []);
    assert.equal(r.next_cursor ?? null, null);
  });

  it("answers usage/report for a project with nothing, and a bad span with -32602", async () => {
    const r = await call("usage/report", { ...scope, by: "model", since: "30d", until: null });
    assert.equal(r.by, "model");
    assert.deepEqual(r.rows, []);
    const total = r.total;
    assert.ok(total, "usage/report answers with a total");
    assert.equal(total.responses, 0);
    assert.equal(total.cost_micros, null);
    assert.match(r.prices ?? "", /^prices of genai-prices /);
    await assert.rejects(call("usage/report", { ...scope, by: "day", since: "next tuesday", until: null }),
      (e: { code?: number }) => e.code === ErrorCode.InvalidParams);
  });

  it("answers capture/status (live capture off as asked)", async () => {
    const r = await call("capture/status", {});
    assert.equal(r.live, false);
  });

  it("answers search/query, and a bad query with -32003 and the part", async () => {
    const r = await call("search/query", { ...scope, query: "cursor" });
    assert.equal(r.total_hits, 0);
    await assert.rejects(call("search/query", { ...scope, query: "nosuchfield:x" }), (e: { code?: number; data?: { part?: unknown } }) => {
      assert.equal(e.code, ErrorCode.BadQuery);
      assert.equal(typeof e.data?.part, "string");
      return true;
    });
  });

  it("answers builders/get for an unknown id with -32001", async () => {
    await assert.rejects(call("builders/get", { id: "0000dead" }), (e: { code?: number }) => e.code === ErrorCode.NotFound);
  });

  it("answers import/preview for a project with nothing", async () => {
    const r = await call("import/preview", { ...scope, tools: ["claude", "codex", "opencode"] });
    assert.equal(r.dry_run, true);
  });

  it("imports real sessions and pages their transcripts through the decoders", async function () {
    if (!fs.existsSync(corpus)) this.skip();
    const all = { all_projects: true, workspace_folders: [] };
    const run = await call("import/run", { ...all, tools: ["claude"] });
    assert.equal(run.dry_run, false);
    const list = await call("builders/list", { ...all, limit: 500 });
    assert.ok(list.items.length > 0, "the corpus gives Builders");
    let pages = 0;
    for (const b of list.items.slice(0, 25)) {
      const page = await call("transcripts/page", { builder_id: b.id, start: 1, count: 200 });
      assert.equal(page.builder.id, b.id);
      for (const s of b.sidechains ?? []) {
        await call("transcripts/page", { builder_id: b.id, session_id: s.session_id, start: 1, count: 50 });
      }
      pages++;
    }
    assert.ok(pages > 0);
    const hits = await call("search/query", { ...all, query: "the" });
    assert.ok(hits.groups.every((g) => g.hits.length > 0));
  });

  it("rejects invalid params with -32602", async () => {
    await assert.rejects(
      call("transcripts/page", { builder_id: "x", start: 0 }),
      (e: { code?: number }) => e.code === ErrorCode.InvalidParams,
    );
  });
});
