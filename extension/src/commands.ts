// The commands that are no one view's own, each a factory over the Ctx, registered from one
// table by activate(). A view's commands (its title bar, its items' menus) are in its module
// under views/; one that needs the sidecar is made with needsSidecar.
import * as vscode from "vscode";
import { needsSidecar, type CommandTable, type Factory } from "./ctx";
import { parsePromoteRange } from "./promote/range";
import { promoteSelection } from "./promote/selection";
import { openAsText } from "./transcript/asText";
import { exportBuilder } from "./transcript/export";
import { asNode, builderIdOf, builderLabel } from "./views/builders";
import { importConversations } from "./views/importer";
import { showOpenBuilder } from "./views/openBuilder";
import { showSearch } from "./views/search";
import { TEAM_COMMANDS, teamSearch } from "./team/commands";
import { termsArg } from "./text";
import { UsagePanel } from "./usage/panel";

// lazy.openTranscript(builder, number?, sessionId?, terms?): the Builder's line, or a subagent's,
// at a message, with the terms (a search hit's) highlighted there
const openTranscript: Factory = (ctx) => async (arg, number, sessionId, terms) => {
  const id = builderIdOf(arg);
  if (!id) return;
  const node = asNode(arg);
  const sid = typeof sessionId === "string" ? sessionId : node?.kind === "sidechain" ? node.info.session_id : null;
  const at = typeof number === "number" ? number : null;
  await ctx.panels.open(id, at, sid, termsArg(terms)).catch((e: unknown) => { ctx.report("open transcript", e); });
};

const openTranscriptAsText: Factory = (ctx) => async (arg, sessionId) => {
  const id = builderIdOf(arg);
  if (!id) return;
  await openAsText(id, typeof sessionId === "string" ? sessionId : null).catch((e: unknown) => { ctx.report("open as text", e); });
};

// one form for every way in: the Builders view (pick the range in the transcript) and the
// sidecar's code action on the transcript as text (its argument: the range)
const promoteMessages: Factory = (ctx) => async (arg) => {
  const range = parsePromoteRange(arg);
  const node = asNode(arg);
  const target = range ?? (node?.kind === "builder" ? { builderId: node.info.id, from: null, to: null } : undefined);
  if (!target) return;
  await ctx.panels.openForPromote(target.builderId, target.from, target.to).catch((e: unknown) => { ctx.report("promote messages", e); });
};

const promoteTheSelection: Factory = (ctx) => () =>
  promoteSelection(vscode.window.activeTextEditor).catch((e: unknown) => { ctx.report("promote the selection", e); });

const askAboutBuilder: Factory = (ctx) => (arg) => {
  const node = asNode(arg);
  if (node?.kind === "builder") ctx.ask({ id: node.info.id, label: builderLabel(node.info) });
  else if (typeof arg === "string") ctx.ask({ id: arg, label: arg.slice(0, 8) });
  else {
    const active = ctx.panels.activeBuilder();
    if (active) ctx.ask(active);
    else void vscode.window.showInformationMessage("Lazy: open a transcript, or pick a Builder in the Builders view, to ask about it.");
  }
};

// from a Builder in the tree, else the transcript in front
const exportTheBuilder = needsSidecar((ctx) => async ({ client }, arg) => {
  const node = asNode(arg);
  const target = node?.kind === "builder" ? { id: node.info.id, label: builderLabel(node.info) } : ctx.panels.activeBuilder();
  if (!target) {
    void vscode.window.showInformationMessage("Lazy: open a transcript, or pick a Builder in the Builders view, to export it.");
    return;
  }
  await exportBuilder(client, target.id, target.label).catch((e: unknown) => { ctx.report("export", e); });
});

const search: Factory = (ctx) => () => {
  showSearch({
    client: ctx.client,
    scope: () => ctx.builders.scope(),
    log: ctx.log,
    open: (t) => { void vscode.commands.executeCommand("lazy.openTranscript", t.builderId, t.number, t.sessionId, t.terms); },
    team: teamSearch(ctx),
  });
};

const openBuilder = needsSidecar((ctx) => () => {
  showOpenBuilder({ builders: () => ctx.builders.loadedBuilders, open: (ident) => ctx.panels.open(ident), log: ctx.log });
});

const importAll = needsSidecar((ctx) => async ({ client }) => {
  await importConversations({ client, scope: () => ctx.builders.scope(), progress: ctx.sidecar, log: ctx.log });
});

// Lazy: Usage, one panel for the window (made on first use; it lets itself go when closed)
let usagePanel: UsagePanel | undefined;
const showUsage: Factory = (ctx) => () => {
  usagePanel ??= new UsagePanel({ extensionUri: ctx.extensionUri, client: ctx.client, scope: () => ctx.builders.scope(), log: ctx.log });
  usagePanel.show();
};

export const COMMANDS: CommandTable = [
  ["lazy.openTranscript", openTranscript],
  ["lazy.openAsText", openTranscriptAsText],
  ["lazy.promoteMessages", promoteMessages],
  ["lazy.promoteSelection", promoteTheSelection],
  ["lazy.askAboutBuilder", askAboutBuilder],
  ["lazy.exportBuilder", exportTheBuilder],
  ["lazy.search", search],
  ["lazy.openBuilder", openBuilder],
  ["lazy.import", importAll],
  ["lazy.usage", showUsage],
  ["lazy.restartSidecar", (ctx) => () => ctx.sidecar.restart("same")],
  ["lazy.showLog", (ctx) => () => { ctx.log.show(); }],
  ...TEAM_COMMANDS,
];
