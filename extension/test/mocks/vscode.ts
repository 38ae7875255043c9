// A small stand-in for the `vscode` API: real classes where the code under test constructs
// them (TreeItem, ThemeIcon, EventEmitter, CancellationTokenSource), recorders where it
// calls out (window, commands). Tests replace window's functions as they need.
 

export class Disposable {
  constructor(private readonly fn: () => unknown) {}
  static from(...ds: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => { ds.forEach((d) => d.dispose()); });
  }
  dispose(): void {
    this.fn();
  }
}

export type Event<T> = (listener: (e: T) => unknown) => Disposable;

export class EventEmitter<T> {
  private listeners: ((e: T) => unknown)[] = [];
  readonly event: Event<T> = (listener) => {
    this.listeners.push(listener);
    return new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    });
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export interface CancellationToken {
  isCancellationRequested: boolean;
  onCancellationRequested: Event<unknown>;
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<unknown>();
  readonly token: CancellationToken;
  constructor() {
    const emitter = this.emitter;
    this.token = { isCancellationRequested: false, onCancellationRequested: emitter.event };
  }
  cancel(): void {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    this.emitter.fire(undefined);
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}

export class MarkdownString {
  constructor(public value = "") {}
}

export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: string | MarkdownString;
  iconPath?: ThemeIcon;
  contextValue?: string;
  command?: { title: string; command: string; arguments?: unknown[] };
  constructor(
    public label: string,
    public collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    readonly query: string,
  ) {}
  static file(p: string): Uri {
    return new Uri("file", p, "");
  }
  static parse(s: string): Uri {
    const m = /^([a-z][a-z0-9+.-]*):(.*)$/i.exec(s);
    return new Uri(m?.[1] ?? "file", m?.[2] ?? s, "");
  }
  static from(c: { scheme: string; path?: string; query?: string }): Uri {
    return new Uri(c.scheme, c.path ?? "", c.query ?? "");
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, [base.path, ...parts].join("/"), "");
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path}${this.query ? `?${this.query}` : ""}`;
  }
}

export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ViewColumn {
  Active = -1,
  One = 1,
}

export class Position {}

export class Range {
  constructor(
    readonly startLine: number,
    readonly startCharacter: number,
    readonly endLine: number,
    readonly endCharacter: number,
  ) {}
}

// ---- recorders ----------------------------------------------------------------------------

export interface Recorded {
  method: string;
  args: unknown[];
}

export const calls: Recorded[] = [];

/** The first argument (the message) of each recorded call of `method`, e.g. "window.showErrorMessage". */
export function shownBy(method: string): string[] {
  return calls.filter((c) => c.method === method).map((c) => String(c.args[0]));
}

function recorder(method: string, answer?: unknown): (...args: unknown[]) => Promise<unknown> {
  return (...args: unknown[]) => {
    calls.push({ method, args });
    return Promise.resolve(answer);
  };
}

/** Every command registered, by id (registering one twice throws, as VS Code does). */
export const registered = new Map<string, (...args: unknown[]) => unknown>();

export const commands = {
  executeCommand: recorder("commands.executeCommand"),
  registerCommand: (id: string, fn: (...args: unknown[]) => unknown) => {
    if (registered.has(id)) throw new Error(`command '${id}' already exists`);
    registered.set(id, fn);
    return new Disposable(() => registered.delete(id));
  },
};

export const window = {
  showInformationMessage: recorder("window.showInformationMessage"),
  showWarningMessage: recorder("window.showWarningMessage"),
  showErrorMessage: recorder("window.showErrorMessage"),
  withProgress: (async (_o: unknown, task: (p: { report(v: unknown): void }, t: CancellationToken) => Promise<unknown>) =>
    task({ report: () => undefined }, new CancellationTokenSource().token)) as (...args: never[]) => Promise<unknown>,
  createQuickPick: (): unknown => {
    throw new Error("tests pass their own QuickPick");
  },
  createStatusBarItem: (): unknown => {
    throw new Error("tests pass their own StatusBarItem");
  },
  showQuickPick: recorder("window.showQuickPick") as (...args: never[]) => Promise<unknown>,
  createWebviewPanel: (..._args: unknown[]): unknown => {
    throw new Error("a test that opens a panel sets window.createWebviewPanel");
  },
  registerUriHandler: (handler: unknown): Disposable => {
    calls.push({ method: "window.registerUriHandler", args: [handler] });
    return new Disposable(() => undefined);
  },
  setStatusBarMessage: recorder("window.setStatusBarMessage"),
  createTreeView: (id: string): unknown => ({ id, description: undefined as string | undefined, dispose: () => undefined }),
  showInputBox: recorder("window.showInputBox") as (...args: unknown[]) => Promise<string | undefined>,
  showTextDocument: recorder("window.showTextDocument"),
  showSaveDialog: recorder("window.showSaveDialog"),
};

/** VS Code's MCP API (1.101+), absent unless a test puts it in place with setMcpApi. */
export const lm: Record<string, unknown> = {};
export let McpStdioServerDefinition: unknown = undefined;
export function setMcpApi(register: unknown, definition: unknown): void {
  if (register === undefined) delete lm.registerMcpServerDefinitionProvider;
  else lm.registerMcpServerDefinitionProvider = register;
  McpStdioServerDefinition = definition;
}

/** Fired by tests that change a setting (``{ affectsConfiguration }``). */
export const configurationChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();

export const workspace = {
  workspaceFolders: undefined as unknown,
  getConfiguration: () => ({ get: () => undefined }),
  onDidChangeConfiguration: configurationChanged.event,
  fs: { writeFile: recorder("workspace.fs.writeFile") },
};

export const env = {
  clipboard: { writeText: recorder("env.clipboard.writeText") },
  openExternal: recorder("env.openExternal", true),
};

/** Forget what was recorded and put back the default window functions. */
export function resetMock(): void {
  calls.length = 0;
  window.showInformationMessage = recorder("window.showInformationMessage");
  window.showWarningMessage = recorder("window.showWarningMessage");
  window.showErrorMessage = recorder("window.showErrorMessage");
  window.showInputBox = recorder("window.showInputBox") as (...args: unknown[]) => Promise<string | undefined>;
  window.showTextDocument = recorder("window.showTextDocument");
  window.createWebviewPanel = (): unknown => {
    throw new Error("a test that opens a panel sets window.createWebviewPanel");
  };
  window.showQuickPick = recorder("window.showQuickPick");
  window.showSaveDialog = recorder("window.showSaveDialog");
  window.createQuickPick = (): unknown => {
    throw new Error("tests pass their own QuickPick");
  };
  window.withProgress = (async (_o: unknown, task: (p: { report(v: unknown): void }, t: CancellationToken) => Promise<unknown>) =>
    task({ report: () => undefined }, new CancellationTokenSource().token));
}
