// The Team view as VS Code shows it: its tree, who this machine pushes as in its description,
// and a fresh look each time it is shown again (teammates push while it is folded).
import * as vscode from "vscode";
import type { Ctx } from "../ctx";
import type { TeamStatusResult } from "../protocol";

export function teamDescription(s: TeamStatusResult | undefined): string | undefined {
  if (!s?.joined) return undefined;
  return s.failing_since ? `${s.email ?? ""} · push failing`.trim() : (s.email ?? undefined);
}

export function registerTeamView(ctx: Ctx): vscode.Disposable[] {
  const { team } = ctx;
  const tree = vscode.window.createTreeView("lazy.team", { treeDataProvider: team });
  const describe = (s: TeamStatusResult | undefined): void => {
    tree.description = teamDescription(s);
  };
  describe(team.status);
  return [
    tree,
    team.onDidChangeStatus(describe),
    tree.onDidChangeVisibility((e) => {
      // shown again: teammates may have pushed meanwhile (its first showing loads anyway)
      if (e.visible && team.status !== undefined) void team.refresh();
    }),
  ];
}
