// Composition root: builds the pieces, wires the sidecar's events to them, registers the
// commands. Decisions live in the sidecar; the modules here render and forward.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as os from "node:os";
import * as vscode from "vscode";
import { AnswerPanels, askAbout, type AskTarget } from "./ask/ask";
import { BuildersProvider, builderLabel, type Node } from "./views/builders";
import { readSettings } from "./sidecar/config";
import { isRecord } from "./protocol";
import type { DiscoveryEnv, ExecFile } from "./sidecar/discovery";
import { importConversations } from "./views/importer";
import { showSearch } from "./views/search";
import { connectLanguageClient } from "./sidecar/languageClient";
import { Sidecar } from "./sidecar/sidecar";
import { sourcePicksOf } from "./views/sources";
import { StatusBar } from "./views/status";
import { resumeTerminal } from "./sidecar/terminal";
import { nameBuilder } from "./views/naming";
import { parsePromoteRange } from "./promote/range";
import { promoteSelection } from "./promote/selection";
import { TasksProvider } from "./views/tasks";
import { fixTerminal, HealthProvider, type HealthNode } from "./views/doctor";
import { TranscriptPanels, VIEW_TYPE } from "./transcript/panels";
import { openAsText, SCHEME, TranscriptTextProvider } from "./transcript/asText";

const execFileText: ExecFile = (file, args) =>
  new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 15_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(stderr.trim() || err.message));
      else resolve(stdout);
    });
  });

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The sidecar the .vsix carries (`make vsix`), when it does. */
function bundledDir(extensionPath: string): string | undefined {
  const dir = path.join(extensionPath, "bundled");
  return fs.existsSync(path.join(dir, "common", "lazy", "cli", "main.py")) ? dir : undefined;
}

function workspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
}

/** A tree node, when a command was run from the view (menus pass the element). */
function asNode(arg: unknown): Node | undefined {
  return isRecord(arg) && typeof arg.kind === "string" && typeof arg.id === "string" ? (arg as unknown as Node) : undefined;
}

/** A command's argument: a tree node or a Builder id. */
function builderIdOf(arg: unknown): string | undefined {
  if (typeof arg === "string") return arg;
  const node = asNode(arg);
  if (node?.kind === "builder") return node.info.id;
  if (node?.kind === "sidechain") return node.builderId;
  return undefined;
}

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel("Lazy", { log: true });
  const settings = () => readSettings((key) => vscode.workspace.getConfiguration("lazy").get(key));
  const discoveryEnv = (): DiscoveryEnv => ({
    pathEnv: process.env.PATH,
    workspaceFolders: workspaceFolders(),
    platform: process.platform,
    homeDir: os.homedir(),
    isExecutable,
    bundledDir: bundledDir(context.extensionUri.fsPath),
  });
  const sidecar = new Sidecar({
    settings,
    discoveryEnv,
    exec: execFileText,
    log,
    homeDir: os.homedir(),
    connect: connectLanguageClient,
  });
  const client = () => (sidecar.state.kind === "running" ? sidecar.client : undefined);

  const builders = new BuildersProvider({ client, workspaceFolders, store: context.globalState, log });
  const health = new HealthProvider(client);
  const tasks = new TasksProvider(client, () => builders.scope());
  const refreshTasks = (): void => {
    tasks.refresh().catch((e: unknown) => { log.warn(`tasks/list: ${e instanceof Error ? e.message : String(e)}`); });
  };
  const tree = vscode.window.createTreeView("lazy.builders", { treeDataProvider: builders, showCollapseAll: true });
  const describeScope = () => {
    tree.description = builders.showsAllProjects ? "All projects" : "Workspace";
  };
  describeScope();

  const status = new StatusBar(vscode.window.createStatusBarItem("lazy.status", vscode.StatusBarAlignment.Left, 50), client, log);
  const textProvider = new TranscriptTextProvider(client);
  const answers = new AnswerPanels(
    context.extensionUri,
    (id, n) => { void panels.open(id, n).catch((e: unknown) => { report("open transcript", e); }); },
    log,
  );
  const ask = (target: AskTarget): void => {
    void askAbout({ client, progress: sidecar, log, show: (label, q, r) => { answers.show(label, q, r); } }, target);
  };
  const panels = new TranscriptPanels({
    extensionUri: context.extensionUri,
    client,
    log,
    onOpened: (id, count) => { void builders.markOpened(id, count); },
    openAsText: (id, sid) => { void openAsText(id, sid).catch((e: unknown) => { report("open as text", e); }); },
    onPromoted: () => { refreshTasks(); },
    ask: (id, label) => { ask({ id, label }); },
  });

  const report = (what: string, e: unknown): void => {
    const msg = e instanceof Error ? e.message : String(e);
    log.error(`${what}: ${msg}`);
    void vscode.window.showErrorMessage(`Lazy: ${what} failed: ${msg}`);
  };

  context.subscriptions.push(
    log,
    sidecar,
    builders,
    tree,
    status,
    textProvider,
    panels,
    answers,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, textProvider),
    vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, panels),
    // every view follows the sidecar: down, each says so (nothing of the last store lingers);
    // back, each asks again
    sidecar.onDidChangeState((state) => {
      void status.setSidecarState(state);
      health.setSidecarState(state);
      refreshTasks();
      if (state.kind === "running") {
        void builders.resume();
        panels.reloadAll();
      } else {
        const reason = state.kind === "stopped" ? (state.reason ?? "The lazy sidecar stopped.") : undefined;
        builders.clear(reason);
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
      if (!e.affectsConfiguration("lazy")) return;
      // named, so a store switched by what VS Code now reads is never applied unseen
      const changes = sidecar.settingChanges();
      if (sidecar.launch && changes.length === 0) return;
      const what = changes.length > 0 ? ` (${changes.join("; ")})` : "";
      void vscode.window.showInformationMessage(`Lazy: the settings changed${what}. Restart the sidecar with them?`, "Restart").then((pick) => {
        if (pick) void sidecar.restart("settings");
      });
    }),

    vscode.commands.registerCommand("lazy.openTranscript", async (arg?: unknown, number?: unknown, sessionId?: unknown) => {
      const id = builderIdOf(arg);
      if (!id) return;
      const node = asNode(arg);
      const sid = typeof sessionId === "string" ? sessionId : node?.kind === "sidechain" ? node.info.session_id : null;
      await panels.open(id, typeof number === "number" ? number : null, sid).catch((e: unknown) => { report("open transcript", e); });
    }),
    vscode.commands.registerCommand("lazy.openAsText", async (arg?: unknown, sessionId?: unknown) => {
      const id = builderIdOf(arg);
      if (!id) return;
      await openAsText(id, typeof sessionId === "string" ? sessionId : null).catch((e: unknown) => { report("open as text", e); });
    }),
    vscode.commands.registerCommand("lazy.copyId", async (arg?: unknown) => {
      const id = builderIdOf(arg);
      if (!id) return;
      await vscode.env.clipboard.writeText(id);
      vscode.window.setStatusBarMessage(`Copied ${id}`, 2000);
    }),
    vscode.commands.registerCommand("lazy.revealSourceFiles", async (arg?: unknown) => {
      const id = builderIdOf(arg);
      const c = client();
      if (!id || !c) return;
      let picks;
      try {
        picks = await sourcePicksOf(c, id);
      } catch (e) {
        report("list source files", e);
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
    }),
    health,
    vscode.window.createTreeView("lazy.health", { treeDataProvider: health }),
    vscode.commands.registerCommand("lazy.health.refresh", () =>
      vscode.window.withProgress({ location: { viewId: "lazy.health" } }, () => health.refresh()),
    ),
    vscode.commands.registerCommand("lazy.health.fix", (node?: HealthNode) => {
      const lazy = sidecar.lazyCommand;
      if (node?.kind !== "check" || !lazy) return;
      const options = fixTerminal(node.check, lazy);
      if (options) vscode.window.createTerminal(options).show();
    }),
    tasks,
    vscode.window.createTreeView("lazy.tasks", { treeDataProvider: tasks }),
    vscode.commands.registerCommand("lazy.tasks.refresh", refreshTasks),
    // one form for every way in: the Builders view (pick the range in the transcript) and the
    // sidecar's code action on the transcript as text (its argument: the range)
    vscode.commands.registerCommand("lazy.promoteMessages", async (arg?: unknown) => {
      const range = parsePromoteRange(arg);
      const node = asNode(arg);
      const target = range ?? (node?.kind === "builder" ? { builderId: node.info.id, from: null, to: null } : undefined);
      if (!target) return;
      await panels.openForPromote(target.builderId, target.from, target.to).catch((e: unknown) => { report("promote messages", e); });
    }),
    vscode.commands.registerCommand("lazy.promoteSelection", () =>
      promoteSelection(vscode.window.activeTextEditor).catch((e: unknown) => { report("promote the selection", e); }),
    ),
    vscode.commands.registerCommand("lazy.askAboutBuilder", (arg?: unknown) => {
      const node = asNode(arg);
      if (node?.kind === "builder") ask({ id: node.info.id, label: builderLabel(node.info) });
      else if (typeof arg === "string") ask({ id: arg, label: arg.slice(0, 8) });
      else {
        const active = panels.activeBuilder();
        if (active) ask(active);
        else void vscode.window.showInformationMessage("Lazy: open a transcript, or pick a Builder in the Builders view, to ask about it.");
      }
    }),
    vscode.commands.registerCommand("lazy.nameBuilder", async (arg?: unknown) => {
      const node = asNode(arg);
      const c = client();
      if (node?.kind !== "builder" || !c) return;
      if (await nameBuilder(c, node.info)) await builders.refresh();
    }),
    vscode.commands.registerCommand("lazy.resumeInTerminal", (arg?: unknown) => {
      const node = asNode(arg);
      const lazy = sidecar.lazyCommand;
      if (node?.kind !== "builder") return;
      if (!lazy) {
        void vscode.window.showWarningMessage("Lazy: the sidecar is not running; restart it first.");
        return;
      }
      const t = resumeTerminal(node.info, lazy, node.info.alias);
      if (!t) {
        void vscode.window.showInformationMessage(`Lazy: ${node.info.short_id} is a ${node.info.tool} conversation; Resume in Terminal runs Claude Code.`);
        return;
      }
      vscode.window.createTerminal({ name: t.name, cwd: t.cwd, shellPath: t.shellPath, shellArgs: t.shellArgs, env: t.env }).show();
    }),
    vscode.commands.registerCommand("lazy.refresh", async () => {
      await builders.refresh();
      await status.poll();
    }),
    vscode.commands.registerCommand("lazy.toggleAllProjects", async () => {
      await builders.setAllProjects(!builders.showsAllProjects);
      describeScope();
    }),
    vscode.commands.registerCommand("lazy.showWorkspaceProjects", async () => {
      await builders.setAllProjects(false);
      describeScope();
    }),
    vscode.commands.registerCommand("lazy.loadMore", () => builders.loadMore()),
    vscode.commands.registerCommand("lazy.search", () => {
      showSearch({
        client,
        scope: () => builders.scope(),
        log,
        open: (t) => { void vscode.commands.executeCommand("lazy.openTranscript", t.builderId, t.number, t.sessionId); },
      });
    }),
    vscode.commands.registerCommand("lazy.import", async () => {
      await importConversations({ client, scope: () => builders.scope(), progress: sidecar, log });
    }),
    vscode.commands.registerCommand("lazy.restartSidecar", () => sidecar.restart("same")),
    vscode.commands.registerCommand("lazy.showLog", () => { log.show(); }),
  );

  void sidecar.start();
}

export function deactivate(): void {
  // the Sidecar is in context.subscriptions: VS Code disposes it, which stops the client
}
