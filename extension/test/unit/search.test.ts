import * as assert from "node:assert/strict";
import { SearchController, searchItems, type SearchItem, type SearchTarget } from "../../src/views/search";
import type { SearchResults } from "../../src/protocol";
import { FakeClient, FakeQuickPick, RpcError, sleep } from "../fakes";
import { QuickPickItemKind } from "../mocks/vscode";
import fixture from "../../../protocol/fixtures/search_query.json";

const results = fixture.result as SearchResults;

function setup(client: FakeClient) {
  const pick = new FakeQuickPick<SearchItem>();
  const opened: SearchTarget[] = [];
  const c = new SearchController(pick.asQuickPick(), {
    client: () => client,
    scope: () => ({ all_projects: false, workspace_folders: ["/home/u/lazy"] }),
    open: (t) => opened.push(t),
    debounceMs: 20,
  });
  return { pick, c, opened };
}

describe("search quick pick", () => {
  it("turns results into a separator per Builder and one item per hit", () => {
    const items = searchItems(results);
    const g = results.groups[0]!;
    assert.equal(items[0]?.kind, QuickPickItemKind.Separator);
    assert.equal(items[0].label, g.summary);
    const first = items[1]!;
    assert.equal(first.label, `$(sparkle) #${g.hits[0]!.number} user`);
    assert.equal(first.detail, g.hits[0]!.snippet);
    assert.ok(first.alwaysShow, "the sidecar filters, not the quick pick");
    // what the query matched there goes along, to highlight where the hit opens
    assert.deepEqual(first.target, { builderId: g.builder_id, number: 1, sessionId: null, terms: ["pages", "cursor"] });
    const sub = items.find((i) => i.label.includes("(subagent)"));
    const side = g.hits.find((h) => h.sidechain);
    assert.deepEqual(sub?.target, { builderId: g.builder_id, number: side?.number, sessionId: side?.session_id, terms: ["cursor"] });
  });

  it("shows a memory of no conversation without anything to open", () => {
    const memory: SearchResults = {
      query: "in:memories prefs",
      total_hits: 1,
      groups: [
        {
          builder_id: "",
          short_id: "memory",
          started_at: null,
          project: "/home/u/lazy",
          tool: "claude",
          summary: "Claude Code memory records (/share/projects/lazy/claude_memory)",
          score: 1,
          hits: [
            {
              number: 0, role: "assistant", session_id: "", timestamp: null, score: 1,
              snippet: "prefers tabs", highlights: [], sidechain: false, field: "memory",
              kind: "memory", memory_path: "/share/projects/lazy/claude_memory/prefs",
            },
          ],
        },
      ],
    };
    const item = searchItems(memory)[1];
    assert.ok(item);
    assert.equal(item.label, "$(note) /share/projects/lazy/claude_memory/prefs");
    assert.equal(item.description, "lazy get /share/projects/lazy/claude_memory/prefs");
    assert.equal(item.target, undefined);
  });

  it("debounces typing into one request with the workspace scope", async () => {
    const client = new FakeClient().on("search/query", () => results);
    const { pick, c } = setup(client);
    c.onInput("cur");
    c.onInput("curs");
    c.onInput("cursor pages");
    await sleep(5);
    assert.equal(client.calls.length, 0, "nothing before the pause");
    await sleep(40);
    await c.lastRun;
    assert.equal(client.calls.length, 1);
    assert.deepEqual(client.calls[0]?.params, {
      all_projects: false,
      workspace_folders: ["/home/u/lazy"],
      query: "cursor pages",
      limit: 20,
    });
    assert.equal(pick.items.length, searchItems(results).length);
    assert.match(pick.title ?? "", /3 hits in/);
    assert.equal(pick.busy, false);
  });

  it("cancels the request in flight when the query changes", async () => {
    const pending: ((r: SearchResults) => void)[] = [];
    const client = new FakeClient().on("search/query", () => new Promise<SearchResults>((r) => pending.push(r)));
    const { pick, c } = setup(client);
    const first = c.run("old");
    const second = c.run("new");
    assert.equal(client.calls.length, 2);
    assert.equal(client.calls[0]?.token?.isCancellationRequested, true);
    assert.equal(client.calls[1]?.token?.isCancellationRequested, false);
    pending[1]!({ query: "new", total_hits: 0, groups: [] });
    await second;
    pending[0]!(results); // the stale answer arrives late
    await first;
    assert.deepEqual(pick.items.map((i) => i.label), ["No matches"], "the stale answer is not shown");
  });

  it("typing cancels the request in flight before the debounce fires", () => {
    const client = new FakeClient().on("search/query", () => new Promise<SearchResults>(() => undefined));
    const { c } = setup(client);
    void c.run("slow");
    c.onInput("slower");
    assert.equal(client.calls[0]?.token?.isCancellationRequested, true);
    c.dispose();
  });

  it("shows a bad query (-32003) in the pick, with the part", async () => {
    const client = new FakeClient().on("search/query", () => {
      throw new RpcError(-32003, "unknown field 'rol'", { part: "rol:user" });
    });
    const { pick, c } = setup(client);
    await c.run("rol:user");
    assert.match(pick.title ?? "", /^Bad query: unknown field 'rol'/);
    assert.equal(pick.items.length, 1);
    assert.match(pick.items[0]!.label, /^\$\(error\) unknown field 'rol'/);
    assert.equal(pick.items[0]!.detail, "near “rol:user”");
    assert.equal(pick.items[0]!.target, undefined);
    assert.equal(pick.busy, false);
  });

  it("opens the transcript at the chosen hit, and ignores message rows", async () => {
    const client = new FakeClient().on("search/query", () => results);
    const { pick, c, opened } = setup(client);
    await c.run("cursor");
    pick.selectedItems = [{ label: "No matches" }];
    pick.accept.fire(undefined);
    assert.equal(opened.length, 0);
    assert.equal(pick.hidden, false);
    pick.selectedItems = [pick.items[1]!];
    pick.accept.fire(undefined);
    assert.deepEqual(opened, [{ builderId: results.groups[0]!.builder_id, number: 1, sessionId: null, terms: ["pages", "cursor"] }]);
    assert.equal(pick.hidden, true);
  });

  it("clears on an empty query without asking", async () => {
    const client = new FakeClient().on("search/query", () => results);
    const { pick, c } = setup(client);
    pick.items = [{ label: "x" }];
    c.onInput("   ");
    await sleep(30);
    assert.equal(client.calls.length, 0);
    assert.deepEqual(pick.items, []);
  });
});
