// The Team view's commands (its title bar's Refresh and Push Now, a row's open) and the search
// pick's team side. In COMMANDS' table (commands.ts), as every command is registered once.
import * as vscode from "vscode";
import { needsSidecar, type CommandTable, type Ctx, type Factory } from "../ctx";
import type { TeamPushResult } from "../protocol";
import type { TeamSearchDeps } from "../views/search";
import { teamRefOf } from "./tree";

/** What a push sent, as `lazy team push` says it. */
export function pushedMessage(r: TeamPushResult): string {
  const counts = Object.entries(r.redactions);
  const redactions = counts.reduce((n, [, v]) => n + v, 0);
  const which = counts.map(([k, v]) => `${k} ${v}`).join(", ");
  const parts = [
    `Sent ${r.builders} Builder(s), ${r.messages} message(s)`,
    ...(redactions > 0 ? [`${redactions} redaction(s): ${which}`] : []),
    `${r.unchanged} already on the team as they are.`,
  ];
  const skipped = r.skipped.map((s) => ` Skipped ${s}.`).join("");
  return `Lazy: ${parts.join("; ")}${skipped}`;
}

const refresh: Factory = (ctx) => () => ctx.team.refresh();

const pushNow = needsSidecar((ctx) => async ({ client }) => {
  try {
    const r = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "Lazy: pushing to the team…" },
      () => client.request("team/push", {}),
    );
    void vscode.window.showInformationMessage(pushedMessage(r));
  } catch (e) {
    ctx.report("push to the team", e);
  }
  // after a failure too: team/status now holds it, and the server may have moved on
  await ctx.team.refresh();
});

const open: Factory = (ctx) => (arg) => {
  const ref = teamRefOf(arg);
  if (ref) ctx.panels.openTeam(ref);
};

export const TEAM_COMMANDS: CommandTable = [
  ["lazy.team.refresh", refresh],
  ["lazy.team.push", pushNow],
  ["lazy.team.open", open],
];

/** The search pick's team toggle: offered when team/status says joined; a hit opens the
 * teammate's transcript at its message. */
export function teamSearch(ctx: Ctx): TeamSearchDeps {
  return {
    joined: async () => {
      const client = ctx.client();
      return client ? (await client.request("team/status", {})).joined : false;
    },
    open: (t) => { ctx.panels.openTeam({ builderId: t.builderId, email: t.email }, t.number, t.terms); },
  };
}
