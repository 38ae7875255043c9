// The sidecar process behind a LanguageClient: found (discovery.ts), checked, started,
// stopped and restarted; its notifications and progress re-emitted as typed events. While it
// is down every request fails fast with "the sidecar is not running".
import * as vscode from "vscode";
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  State,
  WorkDoneProgress,
  WorkDoneProgressCreateRequest,
  type LanguageClientOptions,
  type ProgressToken,
  type ServerOptions,
  type WorkDoneProgressBegin,
  type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
} from "vscode-languageclient/node";
import { typedClient, type LazyClient } from "./client";
import { initializationOptions, type Settings } from "./config";
import { DecodeError, NOTIFICATION_DECODERS } from "./decode";
import {
  bundledPythonPath,
  checkPython,
  findSidecar,
  sidecarEnv,
  type DiscoveryEnv,
  type ExecFile,
  type SidecarCommand,
} from "./discovery";
import type { LazyCommand } from "./terminal";
import type { BuildersDidChange, CaptureFailure, NotificationName, Notifications } from "./protocol";

export type SidecarState =
  | { kind: "starting" }
  | { kind: "running" }
  | { kind: "stopped"; reason?: string }
  | { kind: "missing"; problem?: string };

export type ProgressValue = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

/** The server-created $/progress tokens, for the import to show them in its own notification. */
export interface ProgressSource {
  readonly onDidCreateProgress: vscode.Event<ProgressToken>;
  onProgress(token: ProgressToken, handler: (value: ProgressValue) => void): vscode.Disposable;
}

export interface SidecarDeps {
  settings(): Settings;
  discoveryEnv(): DiscoveryEnv;
  exec: ExecFile;
  log: vscode.LogOutputChannel;
  homeDir: string;
}

export class NotRunningError extends Error {
  constructor() {
    super("The lazy sidecar is not running (Lazy: Restart Sidecar starts it).");
    this.name = "NotRunningError";
  }
}

export class Sidecar implements ProgressSource, vscode.Disposable {
  private lc: LanguageClient | undefined;
  private stopping = false;
  private _state: SidecarState = { kind: "stopped" };
  private readonly stateEmitter = new vscode.EventEmitter<SidecarState>();
  private readonly changeEmitter = new vscode.EventEmitter<BuildersDidChange>();
  private readonly failEmitter = new vscode.EventEmitter<CaptureFailure>();
  private readonly progressEmitter = new vscode.EventEmitter<ProgressToken>();

  readonly onDidChangeState = this.stateEmitter.event;
  readonly onBuildersDidChange = this.changeEmitter.event;
  readonly onCaptureDidFail = this.failEmitter.event;
  readonly onDidCreateProgress = this.progressEmitter.event;

  readonly client: LazyClient = typedClient((method, params, token) => {
    const lc = this.lc;
    if (!lc || this._state.kind !== "running") return Promise.reject(new NotRunningError());
    return token ? lc.sendRequest(method, params, token) : lc.sendRequest(method, params);
  });

  private _lazy: LazyCommand | undefined;

  constructor(private readonly deps: SidecarDeps) {}

  /** How the running sidecar was started: what runs lazy's other commands the same way. */
  get lazyCommand(): LazyCommand | undefined {
    return this._state.kind === "running" ? this._lazy : undefined;
  }

  get state(): SidecarState {
    return this._state;
  }

  private setState(state: SidecarState): void {
    this._state = state;
    void vscode.commands.executeCommand("setContext", "lazy.sidecarMissing", state.kind === "missing");
    this.stateEmitter.fire(state);
  }

  async start(): Promise<void> {
    if (this.lc) return;
    const settings = this.deps.settings();
    const found = findSidecar(settings, this.deps.discoveryEnv());
    if (found.kind === "missing") {
      if (found.problem) {
        this.deps.log.error(found.problem);
        void vscode.window.showErrorMessage(found.problem, "Open Settings").then((pick) => {
          if (pick) void vscode.commands.executeCommand("workbench.action.openSettings", "lazy.");
        });
      } else {
        this.deps.log.warn("no lazy sidecar found (lazy.sidecar.path, lazy.python, PATH, .venv)");
      }
      this.setState({ kind: "missing", problem: found.problem });
      return;
    }
    const sidecar = found.sidecar;
    this.setState({ kind: "starting" });
    if (sidecar.python) {
      const problem = await checkPython(sidecar.python, this.deps.exec);
      if (problem) {
        this.deps.log.error(problem);
        void vscode.window.showErrorMessage(problem, "Open Settings").then((pick) => {
          if (pick) void vscode.commands.executeCommand("workbench.action.openSettings", "lazy.python");
        });
        this.setState({ kind: "missing", problem });
        return;
      }
    }
    let pythonPath: string | undefined;
    if (sidecar.bundled) {
      const got = await bundledPythonPath(sidecar.bundled, sidecar.command, this.deps.exec);
      if ("problem" in got) {
        this.deps.log.error(got.problem);
        void vscode.window.showErrorMessage(got.problem);
        this.setState({ kind: "missing", problem: got.problem });
        return;
      }
      pythonPath = got.pythonPath;
    }
    await this.launch(sidecar, settings, pythonPath);
  }

  private async launch(sidecar: SidecarCommand, settings: Settings, pythonPath?: string): Promise<void> {
    const log = this.deps.log;
    log.info(`starting the sidecar (${sidecar.source}): ${sidecar.command} ${sidecar.args.join(" ")}`);
    // no `transport`: with TransportKind.stdio the client would append --stdio to the
    // command line, which `lazy sidecar` does not take (stdio is its only transport)
    const env = sidecarEnv(settings, process.env, this.deps.homeDir, pythonPath);
    this._lazy = { command: sidecar.command, args: sidecar.args, env };
    const serverOptions: ServerOptions = {
      command: sidecar.command,
      args: sidecar.args,
      options: { env },
    };
    const clientOptions: LanguageClientOptions = {
      // the transcript opened as text: the sidecar offers "Promote messages N–M to task" on a
      // selection there (textDocument/codeAction), so those documents are synced to it
      documentSelector: [{ scheme: "lazy-transcript" }],
      outputChannel: log,
      initializationOptions: initializationOptions(settings),
      // the status bar offers the restart: a crash loop restarting itself would only hide it
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue, handled: true }),
        closed: () => ({ action: CloseAction.DoNotRestart, handled: true }),
      },
    };
    const lc = new LanguageClient("lazy", "Lazy Sidecar", serverOptions, clientOptions);
    this.lc = lc;
    lc.onDidChangeState((e) => {
      if (this.lc !== lc) return;
      if (e.newState === State.Stopped && !this.stopping) {
        log.error("the sidecar stopped");
        this.lc = undefined;
        this.setState({ kind: "stopped", reason: "the sidecar process exited" });
      }
    });
    this.listen(lc, "builders/didChange", (p) => { this.changeEmitter.fire(p); });
    this.listen(lc, "capture/didFail", (p) => { this.failEmitter.fire(p); });
    try {
      await lc.start();
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      log.error(`the sidecar did not start: ${reason}`);
      this.lc = undefined;
      this.setState({ kind: "stopped", reason });
      return;
    }
    // Our own handler replaces the client's default progress UI, so that the import shows
    // the sidecar's $/progress inside its one cancellable notification.
    lc.onRequest(WorkDoneProgressCreateRequest.type, (params) => {
      this.progressEmitter.fire(params.token);
    });
    this.setState({ kind: "running" });
  }

  private listen<N extends NotificationName>(
    lc: LanguageClient,
    name: N,
    fire: (params: Notifications[N]) => void,
  ): void {
    lc.onNotification(name, (raw: unknown) => {
      try {
        fire(NOTIFICATION_DECODERS[name](raw, ""));
      } catch (e) {
        if (e instanceof DecodeError) this.deps.log.error(`ignored a malformed ${name}: ${e.message}`);
        else throw e;
      }
    });
  }

  onProgress(token: ProgressToken, handler: (value: ProgressValue) => void): vscode.Disposable {
    const lc = this.lc;
    if (!lc) return new vscode.Disposable(() => undefined);
    return lc.onProgress(WorkDoneProgress.type, token, handler);
  }

  async stop(): Promise<void> {
    const lc = this.lc;
    if (!lc) return;
    this.stopping = true;
    try {
      await lc.stop(5000);
    } catch (e) {
      this.deps.log.warn(`stopping the sidecar: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.stopping = false;
      this.lc = undefined;
      this.setState({ kind: "stopped" });
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
    this.changeEmitter.dispose();
    this.failEmitter.dispose();
    this.progressEmitter.dispose();
  }
}
