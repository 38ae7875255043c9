// The Team view's commands (its title bar's Refresh and Push Now, a row's open) and the search
// pick's team side. In COMMANDS' table (commands.ts), as every command is registered once.
import * as vscode from "vscode";
import { needsSidecar, type CommandTable, type Ctx, type Factory } from "../ctx";
import type { TeamPushResult } from "../protocol";
import type { TeamSearchDeps } from "../views/search";
import { plainText } from "../text";
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

/** One field of a promotion: empty is a real answer (its fallback, said in the prompt);
 * undefined is Escape (the promotion is cancelled). */
async function field(title: string, prompt: string, validate?: (v: string) => string | undefined): Promise<string | undefined> {
  return vscode.window.showInputBox({ title, prompt, value: "", ignoreFocusOut: true, validateInput: validate });
}

function messageNumber(v: string): string | undefined {
  return /^\s*\d+\s*$/.test(v) && Number(v) >= 1 ? undefined : "A message number, from 1";
}

/** Promote a range of a teammate's Builder to a task on the team: the four fields start empty,
 * each saying what it falls back to (Lazy Teams' form); an overlap with another member's task
 * is said once the task exists. */
const promote = needsSidecar((ctx) => async ({ client }, arg) => {
  const ref = teamRefOf(arg) ?? ctx.panels.activeTeam();
  if (!ref) {
    void vscode.window.showInformationMessage("Lazy: pick a Builder in the Team view to promote from.");
    return;
  }
  const title = "Lazy: Promote from the Team's Builder";
  const from = await field(title, "First message of the range (the numbers the transcript shows)", messageNumber);
  if (from === undefined) return;
  const to = await field(title, "Last message of the range (included)", messageNumber);
  if (to === undefined) return;
  const goal = await field(title, "Goal — empty: what was said first in the range");
  if (goal === undefined) return;
  const code = await field(title, "Code — empty: a short slug of the goal, unique in the project");
  if (code === undefined) return;
  const parent = await field(title, "Parent task code — empty: none");
  if (parent === undefined) return;
  try {
    const r = await client.request("team/promote", {
      builder_id: ref.builderId,
      email: ref.email,
      from_message: Number(from),
      to_message: Number(to),
      goal: goal.trim() || null,
      code: code.trim() || null,
      parent: parent.trim() || null,
      prompt: null,
    });
    const t = r.task;
    void vscode.window.showInformationMessage(
      `Lazy: created task ${t.code} on the team (${t.project}) from messages ${t.from_message}–${t.to_message}: ${plainText(t.goal)}`,
    );
    for (const o of r.overlaps) void vscode.window.showWarningMessage(`Lazy: overlap: ${plainText(o)}`);
  } catch (e) {
    ctx.report("promote from the team", e);
  }
});

const open: Factory = (ctx) => (arg) => {
  const ref = teamRefOf(arg);
  if (ref) ctx.panels.openTeam(ref);
};

export const TEAM_COMMANDS: CommandTable = [
  ["lazy.team.refresh", refresh],
  ["lazy.team.push", pushNow],
  ["lazy.team.open", open],
  ["lazy.team.promote", promote],
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
