// Composition root: builds the context, lets every view follow the sidecar, registers the
// views and the commands, starts the sidecar. Decisions live in the sidecar; the modules here
// render and forward.
import * as vscode from "vscode";
import { AnswerPanels, askAbout, type AskTarget } from "./ask/ask";
import { COMMANDS } from "./commands";
import { registerCommands, whenRunning, type Ctx, type Disposable, type Running } from "./ctx";
import type { LazyClient } from "./protocol/client";
import { createSidecar, workspaceFolders } from "./sidecar/host";
import type { Sidecar } from "./sidecar/sidecar";
import { openAsText, SCHEME, TranscriptTextProvider } from "./transcript/asText";
import { TranscriptPanels, VIEW_TYPE } from "./transcript/panels";
import { registerMcpProvider, SETTING as MCP_SETTING } from "./mcp";
import { BuildersProvider } from "./views/builders";
import { registerBuildersView } from "./views/buildersView";
import { HealthProvider, registerHealthView } from "./views/doctor";
import { StatusBar } from "./views/status";
import { registerTasksView, TasksProvider } from "./views/tasks";
import { TeamProvider } from "./team/tree";
import { registerTeamView } from "./team/view";
import { registerUriHandler } from "./uriHandler";

function reporter(log: vscode.LogOutputChannel): (what: string, e: unknown) => void {
  return (what, e) => {
    const msg = e instanceof Error ? e.message : String(e);
    log.error(`${what}: ${msg}`);
    void vscode.window.showErrorMessage(`Lazy: ${what} failed: ${msg}`);
  };
}

function createCtx(context: vscode.ExtensionContext): Ctx {
  const extensionUri = context.extensionUri;
  const log = vscode.window.createOutputChannel("Lazy", { log: true });
  const sidecar = createSidecar(extensionUri, log);
  const client = (): LazyClient | undefined => (sidecar.state.kind === "running" ? sidecar.client : undefined);
  const report = reporter(log);
  const builders = new BuildersProvider({
    client, workspaceFolders, store: context.globalState, workspaceStore: context.workspaceState, extensionUri, log,
  });
  const tasks = new TasksProvider(client, () => builders.scope());
  const team = new TeamProvider({ client, extensionUri, log });
  const refreshTasks = (): void => {
    tasks.refresh().catch((e: unknown) => { log.warn(`tasks/list: ${e instanceof Error ? e.message : String(e)}`); });
  };
  const running = (): Running | undefined => whenRunning(sidecar);
  const answers = new AnswerPanels(
    extensionUri,
    (id, n) => { void panels.open(id, n).catch((e: unknown) => { report("open transcript", e); }); },
    log,
  );
  const ask = (target: AskTarget): void => {
    const r = running();
    if (!r) return;
    void askAbout({ client: r.client, progress: sidecar, log, show: (label, q, r) => { answers.show(label, q, r); } }, target);
  };
  const panels = new TranscriptPanels({
    extensionUri,
    client,
    log,
    onOpened: (id, count) => { void builders.markOpened(id, count); },
    openAsText: (id, sid) => { void openAsText(id, sid).catch((e: unknown) => { report("open as text", e); }); },
    onPromoted: () => { refreshTasks(); },
    ask: (id, label) => { ask({ id, label }); },
    onTeamOpened: () => { void team.refresh(); },
  });
  const health = new HealthProvider(client);
  const status = new StatusBar(vscode.window.createStatusBarItem("lazy.status", vscode.StatusBarAlignment.Left, 50), client, log);
  const textProvider = new TranscriptTextProvider(client);
  const disposables: Disposable[] = [
    log, sidecar, builders, status, textProvider, panels, answers, health, tasks, team,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, textProvider),
    vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, panels),
  ];
  return {
    extensionUri, log, sidecar, builders, health, tasks, team, status, panels, answers,
    client, whenRunning: running, report, ask, refreshTasks, disposables,
  };
}

/** Every view follows the sidecar: down, each says so (nothing of the last store lingers);
 * back, each asks again. */
function followSidecar(ctx: Ctx): vscode.Disposable[] {
  const { sidecar, status, health, builders, panels, team, log } = ctx;
  return [
    sidecar.onDidChangeState((state) => {
      void status.setSidecarState(state);
      health.setSidecarState(state);
      ctx.refreshTasks();
      if (state.kind === "running") {
        void builders.resume();
        void team.resume();
        panels.reloadAll();
      } else {
        const reason = state.kind === "stopped" ? (state.reason ?? "The lazy sidecar stopped.") : undefined;
        builders.clear(reason);
        team.clear(reason);
        if (state.kind !== "starting") panels.sidecarDown(reason ?? "The lazy sidecar is not running.");
      }
    }),
    sidecar.onBuildersDidChange((change) => {
      builders.onBuildersDidChange(change);
      void status.poll();
    }),
    sidecar.onCaptureDidFail((f) => {
      log.warn(`capture failed: ${f.file}${f.line ? `:${f.line}` : ""}: ${f.reason} [${f.code}] ${f.detail ?? ""}`);
      status.onCaptureDidFail(f);
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => { void builders.refresh(); }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("lazy")) offerRestart(sidecar);
    }),
  ];
}

/** The settings changed: named, so a store switched by what VS Code now reads is never
 * applied unseen; the user restarts the sidecar with them, or not. */
function offerRestart(sidecar: Sidecar): void {
  const changes = sidecar.settingChanges();
  if (sidecar.launch && changes.length === 0) return;
  const what = changes.length > 0 ? ` (${changes.join("; ")})` : "";
  void vscode.window.showInformationMessage(`Lazy: the settings changed${what}. Restart the sidecar with them?`, "Restart").then((pick) => {
    if (pick) void sidecar.restart("settings");
  });
}

function extensionVersion(context: vscode.ExtensionContext): string {
  const v = (context.extension.packageJSON as { version?: unknown }).version;
  return typeof v === "string" ? v : "";
}

export function activate(context: vscode.ExtensionContext): void {
  const ctx = createCtx(context);
  context.subscriptions.push(
    ...ctx.disposables,
    ...followSidecar(ctx),
    ...registerBuildersView(ctx),
    ...registerTeamView(ctx),
    ...registerHealthView(ctx),
    ...registerTasksView(ctx),
    ...registerCommands(ctx, COMMANDS),
    registerUriHandler(ctx),
    ...registerMcpProvider({
      launch: () => ctx.sidecar.launch,
      onDidChange: ctx.sidecar.onDidChangeState,
      enabled: () => vscode.workspace.getConfiguration().get<boolean>(MCP_SETTING, true),
      log: ctx.log,
      version: extensionVersion(context),
    }),
  );
  void ctx.sidecar.start();
}

export function deactivate(): void {
  // the Sidecar is in context.subscriptions: VS Code disposes it, which stops the client
}
