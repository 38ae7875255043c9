// The Builders view as VS Code shows it: its tree, the scope in its description, and its
// commands (the title bar's, and those of a Builder's menu).
import * as vscode from "vscode";
import { needsSidecar, registerCommands, type CommandTable, type Ctx, type Factory } from "../ctx";
import { resumeTerminal } from "../sidecar/terminal";
import { asNode, builderIdOf } from "./builders";
import { nameBuilder } from "./naming";
import { sourcePicksOf } from "./sources";

const copyId: Factory = () => async (arg) => {
  const id = builderIdOf(arg);
  if (!id) return;
  await vscode.env.clipboard.writeText(id);
  vscode.window.setStatusBarMessage(`Copied ${id}`, 2000);
};

const revealSourceFiles = needsSidecar((ctx) => async ({ client }, arg) => {
  const id = builderIdOf(arg);
  if (!id) return;
  let picks;
  try {
    picks = await sourcePicksOf(client, id);
  } catch (e) {
    ctx.report("list source files", e);
    return;
  }
  const short = id.slice(0, 8);
  if (picks.length === 0) {
    void vscode.window.showInformationMessage(`Lazy: ${short} has no source files on record.`);
    return;
  }
  const pick = await vscode.window.showQuickPick(picks, {
    title: `Source files of ${short}`,
    placeHolder: "Pick a file to reveal (the agent owns it: lazy only reads it)",
    matchOnDescription: true,
  });
  if (!pick) return;
  if (!pick.file.exists) {
    void vscode.window.showInformationMessage(
      `Lazy: ${pick.file.path} is gone (${pick.file.tool} deletes old sessions); its messages are still in lazy's store.`,
    );
    return;
  }
  // a remote window (code-server, SSH) has no OS file manager of its own: open the file instead
  const how = vscode.env.remoteName ? "vscode.open" : "revealFileInOS";
  await vscode.commands.executeCommand(how, vscode.Uri.file(pick.file.path));
});

const nameIt = needsSidecar((ctx) => async ({ client }, arg) => {
  const node = asNode(arg);
  if (node?.kind !== "builder") return;
  if (await nameBuilder(client, node.info)) await ctx.builders.refresh();
});

const resumeInTerminal = needsSidecar(() => ({ lazy }, arg) => {
  const node = asNode(arg);
  if (node?.kind !== "builder") return;
  const t = resumeTerminal(node.info, lazy, node.info.alias);
  if (!t) {
    void vscode.window.showInformationMessage(`Lazy: ${node.info.short_id} is a ${node.info.tool} conversation; Resume in Terminal runs Claude Code.`);
    return;
  }
  vscode.window.createTerminal({ name: t.name, cwd: t.cwd, shellPath: t.shellPath, shellArgs: t.shellArgs, env: t.env }).show();
});

export function registerBuildersView(ctx: Ctx): vscode.Disposable[] {
  const { builders } = ctx;
  const tree = vscode.window.createTreeView("lazy.builders", { treeDataProvider: builders, showCollapseAll: true });
  const describeScope = (): void => {
    tree.description = builders.showsAllProjects ? "All projects" : "Workspace";
  };
  describeScope();
  // an empty workspace: "No conversations for this workspace; N in other projects."
  tree.message = builders.message;
  const message = builders.onDidChangeMessage((m) => { tree.message = m; });
  const commands: CommandTable = [
    ["lazy.copyId", copyId],
    ["lazy.revealSourceFiles", revealSourceFiles],
    ["lazy.nameBuilder", nameIt],
    ["lazy.resumeInTerminal", resumeInTerminal],
    ["lazy.refresh", () => async () => {
      await builders.refresh();
      await ctx.status.poll();
    }],
    ["lazy.toggleAllProjects", () => async () => {
      await builders.setAllProjects(!builders.showsAllProjects);
      describeScope();
    }],
    ["lazy.showWorkspaceProjects", () => async () => {
      await builders.setAllProjects(false);
      describeScope();
    }],
    ["lazy.loadMore", () => () => builders.loadMore()],
  ];
  return [tree, message, ...registerCommands(ctx, commands)];
}
