// Fakes for the seams the features depend on: the sidecar client, a QuickPick, a status bar
// item, the log and globalState.
import type * as vscode from "vscode";
import type { LazyClient } from "../src/protocol/client";
import type { BuilderInfo, RequestName, Requests } from "../src/protocol";
import type { Launch } from "../src/sidecar/launch";
import type { ProgressSource, ProgressValue, SidecarConnection, Subscription } from "../src/sidecar/sidecar";
import { Disposable, EventEmitter } from "./mocks/vscode";
import { checkSent } from "./wire";

type Handler<M extends RequestName> = (
  params: Requests[M]["params"],
  token: vscode.CancellationToken | undefined,
) => Requests[M]["result"] | Promise<Requests[M]["result"]>;

export interface Call {
  method: RequestName;
  params: unknown;
  token: vscode.CancellationToken | undefined;
}

export class FakeClient implements LazyClient {
  readonly calls: Call[] = [];
  private readonly handlers = new Map<string, Handler<RequestName>>();

  on<M extends RequestName>(method: M, handler: Handler<M>): this {
    this.handlers.set(method, handler as unknown as Handler<RequestName>);
    return this;
  }

  callsOf(method: RequestName): Call[] {
    return this.calls.filter((c) => c.method === method);
  }

  async request<M extends RequestName>(
    method: M,
    params: Requests[M]["params"],
    token?: vscode.CancellationToken,
  ): Promise<Requests[M]["result"]> {
    this.calls.push({ method, params, token });
    // what the extension sends must be what the sidecar's strict params models take
    checkSent(method, params);
    const h = this.handlers.get(method) as Handler<M> | undefined;
    if (!h) throw new Error(`no fake for ${method}`);
    return await h(params, token);
  }
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export function builder(id: string, over: Partial<BuilderInfo> = {}): BuilderInfo {
  return {
    id,
    short_id: id.slice(0, 8),
    tool: "claude",
    project: "/ws/app",
    started_at: "2025-06-12T09:00:00Z",
    updated_at: "2025-06-12T10:00:00Z",
    message_count: 10,
    summary: `summary of ${id}`,
    title: null,
    session_ids: [id],
    sidechains: [],
    forked_from: null,
    ...over,
  };
}

export class FakeQuickPick<T extends vscode.QuickPickItem> {
  items: readonly T[] = [];
  selectedItems: readonly T[] = [];
  activeItems: readonly T[] = [];
  value = "";
  title: string | undefined;
  placeholder: string | undefined;
  busy = false;
  matchOnDescription = false;
  matchOnDetail = false;
  hidden = false;
  readonly changeValue = new EventEmitter<string>();
  readonly accept = new EventEmitter<undefined>();
  readonly hideEmitter = new EventEmitter<undefined>();
  readonly onDidChangeValue = this.changeValue.event;
  readonly onDidAccept = this.accept.event;
  readonly onDidHide = this.hideEmitter.event;
  show(): void {
    this.hidden = false;
  }
  hide(): void {
    this.hidden = true;
    this.hideEmitter.fire(undefined);
  }
  dispose(): void {
    /* nothing to free */
  }
  asQuickPick(): vscode.QuickPick<T> {
    return this as unknown as vscode.QuickPick<T>;
  }
}

export class FakeStatusBarItem {
  text = "";
  tooltip: string | undefined;
  command: unknown;
  name: string | undefined;
  backgroundColor: unknown;
  shown = false;
  show(): void {
    this.shown = true;
  }
  dispose(): void {
    this.shown = false;
  }
  asItem(): vscode.StatusBarItem {
    return this as unknown as vscode.StatusBarItem;
  }
}

export class FakeLog {
  readonly lines: string[] = [];
  shown = false;
  info(m: string): void {
    this.lines.push(`info ${m}`);
  }
  warn(m: string): void {
    this.lines.push(`warn ${m}`);
  }
  error(m: string): void {
    this.lines.push(`error ${m}`);
  }
  show(): void {
    this.shown = true;
  }
  asLog(): vscode.LogOutputChannel {
    return this as unknown as vscode.LogOutputChannel;
  }
}

export class FakeMemento {
  readonly data = new Map<string, unknown>();
  get(key: string): unknown {
    return this.data.get(key);
  }
  update(key: string, value: unknown): Promise<void> {
    this.data.set(key, value);
    return Promise.resolve();
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The sidecar's $/progress as a test plays it: `created.fire(token)`, then the handler a
 * follower subscribed for that token (gone once it unsubscribes). */
export class FakeProgress {
  readonly created = new EventEmitter<string>();
  readonly handlers = new Map<string, (v: ProgressValue) => void>();
  readonly source = {
    onDidCreateProgress: this.created.event,
    onProgress: (t: string | number, h: (v: ProgressValue) => void) => {
      this.handlers.set(String(t), h);
      return new Disposable(() => this.handlers.delete(String(t)));
    },
  } as unknown as ProgressSource;

  /** A token created, then each value sent on it. */
  play(token: string, ...values: ProgressValue[]): void {
    this.created.fire(token);
    for (const v of values) this.handlers.get(token)?.(v);
  }
}

/** A webview panel as the transcript's host side uses it: what it posted, and the page's
 * messages played with `send`. */
export class FakeWebviewPanel {
  readonly posted: { type: string; message?: string }[] = [];
  title = "";
  visible = true;
  private readonly received = new EventEmitter<unknown>();
  private readonly disposed = new EventEmitter<undefined>();
  readonly webview = {
    options: {},
    html: "",
    cspSource: "vscode-webview:",
    asWebviewUri: (u: unknown) => u,
    postMessage: (m: { type: string }) => {
      this.posted.push(m);
      return Promise.resolve(true);
    },
    onDidReceiveMessage: this.received.event,
  };
  readonly onDidDispose = this.disposed.event;
  reveal(): void {
    this.visible = true;
  }
  dispose(): void {
    this.disposed.fire(undefined);
  }
  send(m: unknown): void {
    this.received.fire(m);
  }
  asPanel(): vscode.WebviewPanel {
    return this as unknown as vscode.WebviewPanel;
  }
}

/** Polls `fn` until true; throws naming `what` after `ms` (a condition, never a sleep). */
export async function until(what: string, fn: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

/** A sidecar connection that starts at once and answers every request from `answer`; `kill`
 * plays the process going away unasked. */
export class FakeConnection implements SidecarConnection {
  started = false;
  stopped = false;
  private readonly stoppedEmitter = new EventEmitter<undefined>();

  constructor(
    readonly launch: Launch,
    private readonly answer: (method: string, params: unknown) => unknown = () => ({}),
  ) {}

  start(): Promise<void> {
    this.started = true;
    return Promise.resolve();
  }
  stop(): Promise<void> {
    this.stopped = true;
    this.stoppedEmitter.fire(undefined);
    return Promise.resolve();
  }
  kill(): void {
    this.stoppedEmitter.fire(undefined);
  }
  sendRequest(method: string, params: unknown): Promise<unknown> {
    checkSent(method, params);
    return Promise.resolve(this.answer(method, params));
  }
  onStopped(handler: () => void): Subscription {
    return this.stoppedEmitter.event(() => { handler(); });
  }
  onNotification(): Subscription {
    return { dispose: () => undefined };
  }
  onProgressCreated(): Subscription {
    return { dispose: () => undefined };
  }
  onProgress(): Subscription {
    return { dispose: () => undefined };
  }
}
