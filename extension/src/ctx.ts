// The context every command gets: the sidecar, the output channel, the views and panels, and
// the one place a command meets a sidecar that is not running (whenRunning). Built once by
// activate() (extension.ts).
// Only types come from the modules below: each view imports this one to register its commands.
import * as vscode from "vscode";
import type { AnswerPanels, AskTarget } from "./ask/ask";
import type { LazyClient } from "./protocol/client";
import type { Sidecar } from "./sidecar/sidecar";
import type { LazyCommand } from "./sidecar/terminal";
import type { TeamProvider } from "./team/tree";
import type { TranscriptPanels } from "./transcript/panels";
import type { BuildersProvider } from "./views/builders";
import type { HealthProvider } from "./views/doctor";
import type { StatusBar } from "./views/status";
import type { TasksProvider } from "./views/tasks";

/** What a command that needs the sidecar gets: its client, and how to run lazy like it. */
export interface Running {
  client: LazyClient;
  lazy: LazyCommand;
}

export interface Ctx {
  readonly extensionUri: vscode.Uri;
  readonly log: vscode.LogOutputChannel;
  readonly sidecar: Sidecar;
  readonly builders: BuildersProvider;
  readonly health: HealthProvider;
  readonly tasks: TasksProvider;
  /** The Team view's tree: the team database's Builders this member may read. */
  readonly team: TeamProvider;
  readonly status: StatusBar;
  readonly panels: TranscriptPanels;
  readonly answers: AnswerPanels;
  /** The running sidecar's client; undefined while it is down (the views say so). */
  readonly client: () => LazyClient | undefined;
  /** The running sidecar, or undefined once the user was told it is not running. */
  readonly whenRunning: () => Running | undefined;
  /** A command failed: logged, and shown. */
  readonly report: (what: string, e: unknown) => void;
  readonly ask: (target: AskTarget) => void;
  readonly refreshTasks: () => void;
  /** Everything built here, for context.subscriptions. */
  readonly disposables: readonly Disposable[];
}

/** What context.subscriptions takes (vscode's Disposable, and anything with a dispose). */
export interface Disposable {
  dispose(): unknown;
}

export const NOT_RUNNING = "Lazy: the sidecar is not running (Lazy: Restart Sidecar).";

/** A command body, from the arguments VS Code (or a menu, or a caller) passes. */
export type Handler = (...args: unknown[]) => unknown;
export type Factory = (ctx: Ctx) => Handler;
export type CommandTable = readonly (readonly [id: string, factory: Factory])[];

/** A factory of a command that needs the sidecar: while it is down the command does nothing
 * but tell the user so (whenRunning). */
export function needsSidecar(make: (ctx: Ctx) => (running: Running, ...args: unknown[]) => unknown): Factory {
  return (ctx) => {
    const handler = make(ctx);
    return (...args) => {
      const running = ctx.whenRunning();
      return running ? handler(running, ...args) : undefined;
    };
  };
}

export function registerCommands(ctx: Ctx, table: CommandTable): vscode.Disposable[] {
  return table.map(([id, factory]) => vscode.commands.registerCommand(id, factory(ctx)));
}

/** The running sidecar, else undefined once the user was told it is not running: the one
 * place a command meets a sidecar that is down. */
export function whenRunning(sidecar: Sidecar): Running | undefined {
  const client = sidecar.state.kind === "running" ? sidecar.client : undefined;
  const lazy = sidecar.lazyCommand;
  if (client && lazy) return { client, lazy };
  void vscode.window.showErrorMessage(NOT_RUNNING);
  return undefined;
}
