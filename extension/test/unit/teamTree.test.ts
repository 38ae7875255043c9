// The Team view from a fake sidecar's answers: the team's Builders grouped by project, the
// "grew" mark, the welcome of a machine with no team (its context key), the server's refusal
// as one error row, and the title bar's Push Now.
import * as assert from "node:assert/strict";
import type { Ctx } from "../../src/ctx";
import type { TeamBuilder, TeamPushResult, TeamStatusResult } from "../../src/protocol";
import { pushedMessage, TEAM_COMMANDS } from "../../src/team/commands";
import { GREW_TOOLTIP, JOINED_KEY, NOT_JOINED_KEY, TeamProvider, teamRefOf, type TeamNode } from "../../src/team/tree";
import { teamDescription } from "../../src/team/view";
import { FakeClient, RpcError } from "../fakes";
import { calls, resetMock, shownBy, ThemeIcon, TreeItemCollapsibleState, window, type TreeItem } from "../mocks/vscode";
import buildersFixture from "../../../protocol/fixtures/team_builders.json";
import pushFixture from "../../../protocol/fixtures/team_push.json";
import statusFixture from "../../../protocol/fixtures/team_status.json";

const TEAM_FAILED = -32008;
const NOW = new Date("2026-12-03T12:00:00Z");
const joined = statusFixture.result as TeamStatusResult;

function contextValue(key: string): unknown {
  return calls.filter((c) => c.method === "commands.executeCommand" && c.args[0] === "setContext" && c.args[1] === key).at(-1)?.args[2];
}

function teamBuilder(id: string, over: Partial<TeamBuilder> = {}): TeamBuilder {
  return {
    ...(buildersFixture.result.items[0] as TeamBuilder),
    builder_id: id,
    title: `title of ${id}`,
    grew: false,
    ...over,
  };
}

const ITEMS: TeamBuilder[] = [
  teamBuilder("b1", { project: "github.com/acme/app", member: "Bob Baker", email: "bob@acme.test", grew: true, updated_at: "2026-12-03T11:50:00Z" }),
  teamBuilder("c1", { project: "github.com/acme/web", member: "Carol Cole", email: "carol@acme.test", agent: "codex", updated_at: "2026-12-03T10:00:00Z" }),
  teamBuilder("b2", { project: "github.com/acme/app", member: "Bob Baker", email: "bob@acme.test", updated_at: "2026-12-02T09:00:00Z" }),
];

function sidecar(items: TeamBuilder[] = ITEMS, status: TeamStatusResult = joined): FakeClient {
  return new FakeClient().on("team/status", () => status).on("team/builders", () => ({ items }));
}

function provider(client: FakeClient | undefined): TeamProvider {
  return new TeamProvider({ client: () => client, now: () => NOW });
}

function item(p: TeamProvider, n: TeamNode): TreeItem {
  return p.getTreeItem(n) as unknown as TreeItem;
}

async function labels(p: TeamProvider, node?: TeamNode): Promise<string[]> {
  return (await p.getChildren(node)).map((n) => item(p, n).label);
}

describe("Team view", () => {
  beforeEach(resetMock);

  it("groups the team's Builders by project, in the order of their newest", async () => {
    const client = sidecar();
    const p = provider(client);
    assert.deepEqual(await labels(p), ["github.com/acme/app", "github.com/acme/web"]);
    const [app, web] = await p.getChildren();
    assert.equal(item(p, app!).collapsibleState, TreeItemCollapsibleState.Expanded);
    assert.equal(item(p, app!).description, "2 Builders · 1 grew");
    assert.equal(item(p, web!).description, "1 Builder");
    assert.deepEqual(await labels(p, app), ["title of b1", "title of b2"]);
    assert.deepEqual(await labels(p, web), ["title of c1"]);
    assert.deepEqual(client.callsOf("team/builders").map((c) => c.params), [{ limit: 200 }]);
    assert.equal(contextValue(JOINED_KEY), true);
    assert.equal(contextValue(NOT_JOINED_KEY), false);
    // stable ids (a member's email with the Builder's), and the parent for reveal
    const [b1] = await p.getChildren(app);
    assert.equal(item(p, b1!).id, "team:builder:bob@acme.test/b1");
    assert.equal(p.getParent(b1!), app);
    assert.equal((await p.getChildren(app))[0], b1, "the same node object on the next ask");
  });

  it("marks a Builder that grew since it was last opened, and says so in its tooltip", async () => {
    const p = provider(sidecar());
    const [app] = await p.getChildren();
    const [grown, seen] = await p.getChildren(app);
    const g = item(p, grown!);
    assert.equal(g.description, "● Bob Baker · Claude Code · 10 min ago");
    assert.match(g.tooltip as string, new RegExp(`Messages: 12 \\(${GREW_TOOLTIP}\\)`));
    assert.equal((g.iconPath as ThemeIcon).id, "circle-filled");
    const s = item(p, seen!);
    assert.equal(s.description, "Bob Baker · Claude Code · yesterday");
    assert.doesNotMatch(s.tooltip as string, /new messages/);
    assert.notEqual((s.iconPath as ThemeIcon).id, "circle-filled");
    // a click opens it by the member's email and its id
    assert.deepEqual(g.command, { title: "Open Teammate's Transcript", command: "lazy.team.open", arguments: [{ builderId: "b1", email: "bob@acme.test" }] });
    assert.equal(g.contextValue, "teamBuilder");
    assert.deepEqual(teamRefOf(grown), { builderId: "b1", email: "bob@acme.test" });
    assert.deepEqual(teamRefOf(g.command.arguments[0]), { builderId: "b1", email: "bob@acme.test" });
    assert.equal(teamRefOf({ kind: "builder", id: "builder:x", info: {} }), undefined);
  });

  it("shows a teammate's title and name as plain text", async () => {
    const hostile = teamBuilder("h1", { title: "\u001b[31m$(zap) <b>red</b>\u001b[0m\nsecond line", member: "Eve\u0007" });
    const p = provider(sidecar([hostile]));
    const [project] = await p.getChildren();
    const [row] = await p.getChildren(project);
    const it_ = item(p, row!);
    assert.equal(it_.label, "$(zap) <b>red</b> second line");
    assert.match(String(it_.description), /^Eve\\x07 · /);
  });

  it("on a machine that has not joined: nothing listed, the welcome's context key set, the server not asked", async () => {
    const client = sidecar(ITEMS, { joined: false });
    const p = provider(client);
    assert.deepEqual(await p.getChildren(), []);
    assert.equal(contextValue(NOT_JOINED_KEY), true);
    assert.equal(contextValue(JOINED_KEY), false);
    assert.equal(client.callsOf("team/builders").length, 0);
    assert.equal(teamDescription(p.status), undefined);
  });

  it("shows the server's refusal as one error row with a retry, never throwing", async () => {
    const message = "cannot reach the team database at alice@db:5432/team: connection refused";
    const client = sidecar().on("team/builders", () => { throw new RpcError(TEAM_FAILED, message, { kind: "unreachable" }); });
    const p = provider(client);
    const roots = await p.getChildren();
    assert.equal(roots.length, 1);
    const row = item(p, roots[0]!);
    assert.equal(row.label, message);
    assert.equal((row.iconPath as ThemeIcon).id, "error");
    assert.equal(row.command?.command, "lazy.team.refresh");
    // still joined: Push Now stays, the welcome does not show
    assert.equal(contextValue(JOINED_KEY), true);
    assert.equal(contextValue(NOT_JOINED_KEY), false);
    // the server is back: Refresh lists the Builders again
    client.on("team/builders", () => ({ items: ITEMS }));
    await p.refresh();
    assert.deepEqual(await labels(p), ["github.com/acme/app", "github.com/acme/web"]);
  });

  it("takes a not-joined refusal of team/builders for the welcome", async () => {
    const client = sidecar().on("team/builders", () => {
      throw new RpcError(TEAM_FAILED, "this machine has not joined a team: run `lazy team join <conninfo>`", { kind: "not-joined" });
    });
    const p = provider(client);
    assert.deepEqual(await p.getChildren(), []);
    assert.equal(contextValue(NOT_JOINED_KEY), true);
  });

  it("says a joined team with no Builders yet, offering Push Now", async () => {
    const p = provider(sidecar([]));
    const [row] = await p.getChildren();
    assert.equal(item(p, row!).command?.command, "lazy.team.push");
    assert.match(item(p, row!).label, /No Builders on the team yet/);
  });

  it("shows nothing of the team while the sidecar is down, and asks again when it is back", async () => {
    const client = sidecar();
    let up = false;
    const p = new TeamProvider({ client: () => (up ? client : undefined), now: () => NOW });
    assert.deepEqual(await p.getChildren(), [], "starting: empty, no welcome");
    assert.equal(contextValue(NOT_JOINED_KEY), false);
    p.clear("The lazy sidecar exited.");
    assert.deepEqual(await labels(p), ["The lazy sidecar exited."]);
    up = true;
    await p.resume();
    assert.deepEqual(await labels(p), ["github.com/acme/app", "github.com/acme/web"]);
    assert.equal(teamDescription(p.status), "alice@acme.test");
  });
});

describe("Team commands", () => {
  beforeEach(resetMock);

  function ctxWith(client: FakeClient, team: TeamProvider): { ctx: Ctx; reported: string[] } {
    const reported: string[] = [];
    const ctx = {
      team,
      whenRunning: () => ({ client, lazy: { command: "lazy", args: [], env: {} } }),
      report: (what: string, e: unknown) => reported.push(`${what}: ${e instanceof Error ? e.message : String(e)}`),
      panels: { openTeam: (ref: unknown) => reported.push(`open ${JSON.stringify(ref)}`) },
    } as unknown as Ctx;
    return { ctx, reported };
  }

  function command(id: string, ctx: Ctx): (...args: unknown[]) => unknown {
    const factory = TEAM_COMMANDS.find(([c]) => c === id)?.[1];
    assert.ok(factory, id);
    return factory(ctx);
  }

  it("Push Now pushes, says what was sent, and lists the team again", async () => {
    const sent: TeamPushResult = { builders: 1, messages: 2, unchanged: 4, redactions: {}, skipped: [] };
    const client = sidecar().on("team/push", () => sent);
    const team = provider(client);
    const { ctx } = ctxWith(client, team);
    await command("lazy.team.push", ctx)();
    assert.deepEqual(client.callsOf("team/push").map((c) => c.params), [{}]);
    const shown = calls.filter((c) => c.method === "window.showInformationMessage").map((c) => String(c.args[0]));
    assert.deepEqual(shown, ["Lazy: Sent 1 Builder(s), 2 message(s); 4 already on the team as they are."]);
    assert.equal(client.callsOf("team/builders").length, 1, "the view asked again after the push");
  });

  it("says what a push redacted and skipped, as lazy team push does", () => {
    assert.equal(
      pushedMessage(pushFixture.result as TeamPushResult),
      "Lazy: Sent 1 Builder(s), 2 message(s); 2 redaction(s): aws-access-key 2; 4 already on the team as they are."
        + " Skipped 1 Builder(s) of /home/alice/scratch: no git remote: name it with `lazy team name <dir> <name>`.",
    );
  });

  it("a refused push is reported, and the view still asks again", async () => {
    const client = sidecar().on("team/push", () => {
      throw new RpcError(TEAM_FAILED, "not a member of project github.com/acme/app: ask a member to run `lazy team add`", { kind: "rights" });
    });
    const team = provider(client);
    const { ctx, reported } = ctxWith(client, team);
    await command("lazy.team.push", ctx)();
    assert.deepEqual(reported, ["push to the team: not a member of project github.com/acme/app: ask a member to run `lazy team add`"]);
    assert.equal(client.callsOf("team/status").length, 1);
  });

  it("opens a row's Builder, from a click or from its menu", () => {
    const client = sidecar();
    const { ctx, reported } = ctxWith(client, provider(client));
    const open = command("lazy.team.open", ctx);
    open({ builderId: "b1", email: "bob@acme.test" });
    open({ kind: "teamBuilder", id: "team:builder:bob@acme.test/b2", info: ITEMS[2] });
    open("nonsense");
    assert.deepEqual(reported, ['open {"builderId":"b1","email":"bob@acme.test"}', 'open {"builderId":"b2","email":"bob@acme.test"}']);
  });
  it("Promote from Team Builder asks the four fields empty, each falling back, and says an overlap after", async () => {
    const promoted = {
      task: { code: "plan-the-tangerine-migration", goal: "Plan the tangerine migration", by: "Alice Archer",
        project: "github.com/acme/app", builder_id: "b1", from_message: 1, to_message: 2 },
      overlaps: ["message 2 also went into Bob Baker's task copy-it (messages 2–4: Copy it)"],
    };
    const client = sidecar().on("team/promote", () => promoted);
    const { ctx, reported } = ctxWith(client, provider(client));
    const answers = ["1", "2", "", "", ""]; // a range, then every field left empty
    const prompts: string[] = [];
    window.showInputBox = ((o: { prompt: string; value: string }) => {
      prompts.push(`${o.prompt} [${o.value}]`);
      return Promise.resolve(answers.shift());
    }) as typeof window.showInputBox;
    await command("lazy.team.promote", ctx)({ kind: "teamBuilder", id: "x", info: ITEMS[0] });
    assert.deepEqual(reported, []);
    assert.deepEqual(client.callsOf("team/promote").map((c) => c.params), [
      { builder_id: "b1", email: "bob@acme.test", from_message: 1, to_message: 2, goal: null, code: null, parent: null, prompt: null },
    ]);
    assert.ok(prompts.slice(2).every((p) => p.includes("empty:") && p.endsWith("[]")), prompts.join("\n"));
    assert.deepEqual(shownBy("window.showInformationMessage"), [
      "Lazy: created task plan-the-tangerine-migration on the team (github.com/acme/app) from messages 1–2: Plan the tangerine migration",
    ]);
    assert.deepEqual(shownBy("window.showWarningMessage"), [`Lazy: overlap: ${promoted.overlaps[0]}`]);
    // Escape at any field: nothing is promoted
    answers.push("1", undefined as unknown as string);
    await command("lazy.team.promote", ctx)({ builderId: "b1", email: "bob@acme.test" });
    assert.equal(client.callsOf("team/promote").length, 1);
  });
});
