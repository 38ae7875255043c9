// The search pick's team toggle: offered only on a machine that joined a team; on, the query
// goes to team/search and a hit opens the teammate's transcript at its message; off again, the
// local search is as it was.
import * as assert from "node:assert/strict";
import type * as vscode from "vscode";
import type { Ctx } from "../../src/ctx";
import type { SearchResults, TeamSearchResult } from "../../src/protocol";
import { teamSearch } from "../../src/team/commands";
import {
  LOCAL_BUTTON_TOOLTIP,
  SearchController,
  TEAM_BUTTON_TOOLTIP,
  teamSearchItems,
  type SearchItem,
  type SearchTarget,
  type TeamSearchTarget,
} from "../../src/views/search";
import { FakeClient, FakeQuickPick, RpcError } from "../fakes";
import { EventEmitter, resetMock } from "../mocks/vscode";
import localFixture from "../../../protocol/fixtures/search_query.json";
import teamFixture from "../../../protocol/fixtures/team_search.json";

const local = localFixture.result as SearchResults;
// the fixture's marks are one character late (its snippet's "retry" is at 10–15): this hit's
// are where the sidecar's marks() puts them
const team: TeamSearchResult = {
  hits: (teamFixture.result as TeamSearchResult).hits.map((h) => ({ ...h, marks: [[10, 15], [25, 29], [33, 37]] })),
};

/** A quick pick with the buttons the toggle lives in. */
class ButtonedQuickPick extends FakeQuickPick<SearchItem> {
  buttons: readonly vscode.QuickInputButton[] = [];
  readonly trigger = new EventEmitter<vscode.QuickInputButton>();
  readonly onDidTriggerButton = this.trigger.event;
  press(): void {
    const [b] = this.buttons;
    assert.ok(b, "a button to press");
    this.trigger.fire(b);
  }
}

function setup(client: FakeClient, joined: boolean | Error = true) {
  const pick = new ButtonedQuickPick();
  const opened: SearchTarget[] = [];
  const openedTeam: TeamSearchTarget[] = [];
  const c = new SearchController(pick.asQuickPick(), {
    client: () => client,
    scope: () => ({ all_projects: false, workspace_folders: ["/home/u/lazy"] }),
    open: (t) => opened.push(t),
    team: {
      joined: () => (joined instanceof Error ? Promise.reject(joined) : Promise.resolve(joined)),
      open: (t) => openedTeam.push(t),
    },
    debounceMs: 10,
  });
  return { pick, c, opened, openedTeam };
}

function sidecar(): FakeClient {
  return new FakeClient().on("search/query", () => local).on("team/search", () => team);
}

describe("search quick pick, the team toggle", () => {
  beforeEach(resetMock);

  it("is offered only when this machine joined a team", async () => {
    const yes = setup(sidecar(), true);
    await yes.c.teamOffered;
    assert.deepEqual(yes.pick.buttons.map((b) => b.tooltip), [TEAM_BUTTON_TOOLTIP]);
    const no = setup(sidecar(), false);
    await no.c.teamOffered;
    assert.deepEqual(no.pick.buttons, []);
    const broken = setup(sidecar(), new Error("team/status failed"));
    await broken.c.teamOffered;
    assert.deepEqual(broken.pick.buttons, []);
  });

  it("switches the query typed to team/search, and a hit opens the teammate's transcript at its message", async () => {
    const client = sidecar();
    const { pick, c, opened, openedTeam } = setup(client);
    await c.teamOffered;
    pick.value = '"lock is held" retry';
    c.onInput(pick.value);
    await new Promise((r) => setTimeout(r, 30));
    await c.lastRun;
    assert.equal(client.callsOf("search/query").length, 1, "the local search first, as before");
    pick.press();
    assert.equal(c.searchesTeam, true);
    assert.deepEqual(pick.buttons.map((b) => b.tooltip), [LOCAL_BUTTON_TOOLTIP]);
    await c.lastRun;
    assert.deepEqual(client.callsOf("team/search").map((x) => x.params), [{ query: '"lock is held" retry', limit: 20 }]);
    assert.equal(pick.title, "1 hit on the team");
    const [hit] = pick.items;
    assert.ok(hit);
    assert.equal(hit.label, "$(organization) Alice Archer · github.com/acme/app · #1");
    assert.match(hit.description ?? "", /^How do we retry when the lock is held\? · user · /);
    assert.equal(hit.detail, "How do we retry when the lock is held?");
    pick.selectedItems = [hit];
    pick.accept.fire(undefined);
    assert.deepEqual(openedTeam, [{ builderId: team.hits[0]!.builder_id, email: "alice@acme.test", number: 1, terms: ["retry", "lock", "held"] }]);
    assert.deepEqual(opened, []);
    assert.equal(pick.hidden, true);
  });

  it("typing while on the team asks the team; toggled off, this machine again", async () => {
    const client = sidecar();
    const { pick, c } = setup(client);
    await c.teamOffered;
    pick.press();
    c.onInput("tangerine");
    await new Promise((r) => setTimeout(r, 30));
    await c.lastRun;
    assert.deepEqual(client.callsOf("team/search").map((x) => (x.params as { query: string }).query), ["tangerine"]);
    pick.value = "tangerine";
    pick.press();
    await c.lastRun;
    assert.equal(c.searchesTeam, false);
    assert.deepEqual(client.callsOf("search/query").map((x) => (x.params as { query: string }).query), ["tangerine"]);
    assert.match(pick.title ?? "", /hits in/);
  });

  it("shows the team's refusal in the pick", async () => {
    const client = sidecar().on("team/search", () => {
      throw new RpcError(-32008, "cannot reach the team database at alice@db:5432/team: timeout", { kind: "unreachable" });
    });
    const { pick, c } = setup(client);
    await c.teamOffered;
    pick.press();
    await c.run("anything");
    assert.match(pick.title ?? "", /^Team search failed: cannot reach the team database/);
    assert.match(pick.items[0]?.label ?? "", /^\$\(error\) cannot reach/);
    assert.equal(pick.items[0]?.teamTarget, undefined);
  });

  it("shows a teammate's fields with their $(…) escaped", () => {
    const item = teamSearchItems({ hits: [{ ...team.hits[0]!, member: "$(zap) Eve", title: "$(alert) x", snippet: "$(bug) y", marks: [] }] })[0]!;
    assert.equal(item.label, "$(organization) \\$(zap) Eve · github.com/acme/app · #1");
    assert.match(item.description ?? "", /^\\\$\(alert\) x/);
    assert.equal(item.detail, "\\$(bug) y");
  });

  it("asks team/status for the toggle, and opens a hit through the transcript panels", async () => {
    const client = new FakeClient().on("team/status", () => ({ joined: true }));
    const openedTeam: unknown[] = [];
    const ctx = {
      client: () => client,
      panels: { openTeam: (...args: unknown[]) => openedTeam.push(args) },
    } as unknown as Ctx;
    const deps = teamSearch(ctx);
    assert.equal(await deps.joined(), true);
    deps.open({ builderId: "b1", email: "bob@acme.test", number: 4, terms: ["x"] });
    assert.deepEqual(openedTeam, [[{ builderId: "b1", email: "bob@acme.test" }, 4, ["x"]]]);
    const down = teamSearch({ client: () => undefined } as unknown as Ctx);
    assert.equal(await down.joined(), false);
  });
});
