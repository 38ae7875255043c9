// The sidecar process: resolved once from the settings (launch.ts), started, stopped and
// restarted over a SidecarConnection (languageClient.ts); its notifications and progress
// re-emitted as typed events. While it is down every request fails fast with "the sidecar is
// not running". A restart runs the same Launch again; settings changed since are applied only
// when the user asks for them (the settings prompt, or the question a restart then asks).
import * as vscode from "vscode";
import type {
  ProgressToken,
  WorkDoneProgressBegin,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from "vscode-languageclient/node";
import { typedClient, type LazyClient } from "../protocol/client";
import type { Settings } from "./config";
import { type BuildersDidChange, type CaptureFailure, DecodeError, NOTIFICATION_DECODERS, type NotificationName, type Notifications } from "../protocol";
import type { DiscoveryEnv, ExecFile } from "./discovery";
import { resolveLaunch, settingChanges, type Launch } from "./launch";
import type { LazyCommand } from "./terminal";

export type SidecarState =
  | { kind: "starting" }
  | { kind: "running"; store: string }
  | { kind: "stopped"; reason?: string }
  | { kind: "missing"; problem?: string };

export type ProgressValue = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

/** The server-created $/progress tokens, for the import to show them in its own notification. */
export interface ProgressSource {
  readonly onDidCreateProgress: vscode.Event<ProgressToken>;
  onProgress(token: ProgressToken, handler: (value: ProgressValue) => void): Subscription;
}

/** What a subscription hands back (vscode's and vscode-jsonrpc's Disposable alike). */
export interface Subscription {
  dispose(): void;
}

/** One running sidecar process, as the Sidecar drives it. */
export interface SidecarConnection {
  start(): Promise<void>;
  stop(timeoutMs: number): Promise<void>;
  sendRequest(method: string, params: unknown, token?: vscode.CancellationToken): Promise<unknown>;
  /** The connection stopped: asked to, or the process went away. */
  onStopped(handler: () => void): Subscription;
  onNotification(name: string, handler: (raw: unknown) => void): Subscription;
  onProgressCreated(handler: (token: ProgressToken) => void): Subscription;
  onProgress(token: ProgressToken, handler: (value: ProgressValue) => void): Subscription;
}

export interface SidecarDeps {
  settings(): Settings;
  discoveryEnv(): DiscoveryEnv;
  exec: ExecFile;
  log: vscode.LogOutputChannel;
  homeDir: string;
  connect(launch: Launch, log: vscode.LogOutputChannel): SidecarConnection;
  /** The environment the sidecar's starts from (the extension host's by default). */
  baseEnv?: NodeJS.ProcessEnv;
}

/** A restart: with the Launch the sidecar ran (asking first when the settings changed since),
 * or with the settings as they are now (the user chose to apply them). */
export type RestartWith = "same" | "settings";

export class NotRunningError extends Error {
  constructor() {
    super("The lazy sidecar is not running (Lazy: Restart Sidecar starts it).");
    this.name = "NotRunningError";
  }
}

export class Sidecar implements ProgressSource, vscode.Disposable {
  private conn: SidecarConnection | undefined;
  private stopping = false;
  private _launch: Launch | undefined;
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
    const conn = this.conn;
    if (!conn || this._state.kind !== "running") return Promise.reject(new NotRunningError());
    return conn.sendRequest(method, params, token);
  });

  constructor(private readonly deps: SidecarDeps) {}

  /** How the running sidecar was started: what runs lazy's other commands the same way. */
  get lazyCommand(): LazyCommand | undefined {
    const l = this._launch;
    return this._state.kind === "running" && l ? { command: l.sidecar.command, args: l.sidecar.args, env: l.env } : undefined;
  }

  /** How the settings now differ from those the sidecar was started with, one line each. */
  settingChanges(): string[] {
    const l = this._launch;
    return l ? settingChanges(l.settings, this.deps.settings(), this.deps.homeDir) : [];
  }

  /** What the sidecar runs (or last ran): every restart runs it again. */
  get launch(): Launch | undefined {
    return this._launch;
  }

  get state(): SidecarState {
    return this._state;
  }

  private setState(state: SidecarState): void {
    this._state = state;
    void vscode.commands.executeCommand("setContext", "lazy.sidecarMissing", state.kind === "missing");
    this.stateEmitter.fire(state);
  }

  /** The first start resolves the settings; a later one runs what that resolved. */
  async start(): Promise<void> {
    if (this.conn) return;
    if (this._launch) {
      await this.run(this._launch);
      return;
    }
    await this.startFrom(this.deps.settings());
  }

  private async startFrom(settings: Settings): Promise<void> {
    this.setState({ kind: "starting" });
    const resolved = await resolveLaunch(settings, {
      discovery: this.deps.discoveryEnv(),
      exec: this.deps.exec,
      baseEnv: this.deps.baseEnv ?? process.env,
      homeDir: this.deps.homeDir,
    });
    if (resolved.kind === "missing") {
      const { problem, setting } = resolved;
      if (problem) {
        this.deps.log.error(problem);
        void vscode.window.showErrorMessage(problem, ...(setting ? ["Open Settings"] : [])).then((pick) => {
          if (pick && setting) void vscode.commands.executeCommand("workbench.action.openSettings", setting);
        });
      } else {
        this.deps.log.warn("no lazy sidecar found (lazy.sidecar.path, lazy.python, PATH, .venv)");
      }
      this.setState({ kind: "missing", problem });
      return;
    }
    await this.run(resolved.launch);
  }

  private async run(launch: Launch): Promise<void> {
    const log = this.deps.log;
    this._launch = launch;
    if (this._state.kind !== "starting") this.setState({ kind: "starting" });
    const { sidecar } = launch;
    log.info(`starting the sidecar (${sidecar.source}): ${sidecar.command} ${sidecar.args.join(" ")}; store ${launch.store}`);
    const conn = this.deps.connect(launch, log);
    this.conn = conn;
    conn.onStopped(() => {
      if (this.conn !== conn || this.stopping) return;
      log.error("the sidecar stopped");
      this.conn = undefined;
      this.setState({ kind: "stopped", reason: "the sidecar process exited" });
    });
    this.listen(conn, "builders/didChange", (p) => { this.changeEmitter.fire(p); });
    this.listen(conn, "capture/didFail", (p) => { this.failEmitter.fire(p); });
    try {
      await conn.start();
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      log.error(`the sidecar did not start: ${reason}`);
      if (this.conn === conn) this.conn = undefined;
      this.setState({ kind: "stopped", reason });
      return;
    }
    if (this.conn !== conn) return; // it stopped while starting
    conn.onProgressCreated((token) => { this.progressEmitter.fire(token); });
    this.setState({ kind: "running", store: launch.store });
  }

  private listen<N extends NotificationName>(
    conn: SidecarConnection,
    name: N,
    fire: (params: Notifications[N]) => void,
  ): void {
    conn.onNotification(name, (raw: unknown) => {
      try {
        fire(NOTIFICATION_DECODERS[name](raw, ""));
      } catch (e) {
        if (e instanceof DecodeError) this.deps.log.error(`ignored a malformed ${name}: ${e.message}`);
        else throw e;
      }
    });
  }

  onProgress(token: ProgressToken, handler: (value: ProgressValue) => void): vscode.Disposable {
    const conn = this.conn;
    if (!conn) return new vscode.Disposable(() => undefined);
    const sub = conn.onProgress(token, handler);
    return new vscode.Disposable(() => { sub.dispose(); });
  }

  async stop(): Promise<void> {
    const conn = this.conn;
    if (!conn) return;
    this.stopping = true;
    try {
      await conn.stop(5000);
    } catch (e) {
      this.deps.log.warn(`stopping the sidecar: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.stopping = false;
      this.conn = undefined;
      this.setState({ kind: "stopped" });
    }
  }

  /** Stop and start again. `same` (Lazy: Restart Sidecar) runs the Launch it ran; when the
   * settings changed since, it asks which to use (a dismissed question restarts nothing).
   * `settings` (the user applied changed settings) resolves them afresh. */
  async restart(how: RestartWith = "same"): Promise<void> {
    const before = this._launch;
    let next: Settings | undefined;
    if (!before || how === "settings") {
      next = this.deps.settings();
    } else {
      const now = this.deps.settings();
      const changes = settingChanges(before.settings, now, this.deps.homeDir);
      if (changes.length > 0) {
        const apply = "Use the New Settings";
        const keep = "Keep the Ones It Started With";
        const pick = await vscode.window.showWarningMessage(
          "Lazy: the settings changed since the sidecar started. Restart it with the new settings?",
          { modal: true, detail: changes.join("\n") },
          apply,
          keep,
        );
        if (pick === undefined) return;
        if (pick === apply) next = now;
        this.deps.log.info(`restart: ${pick === apply ? "applying" : "keeping the sidecar's settings over"} ${changes.join("; ")}`);
      }
    }
    await this.stop();
    if (next) {
      if (before) {
        const changes = settingChanges(before.settings, next, this.deps.homeDir);
        if (changes.length > 0) this.deps.log.info(`the sidecar restarts with new settings: ${changes.join("; ")}`);
      }
      await this.startFrom(next);
    } else {
      await this.start();
    }
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
    this.changeEmitter.dispose();
    this.failEmitter.dispose();
    this.progressEmitter.dispose();
  }
}
