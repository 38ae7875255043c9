// The Health view: `lazy doctor`'s checks (doctor/run), one row per check with its detail
// under it; a check whose fix is a lazy command has a button that runs it in a terminal,
// where it previews and asks before it writes (nothing runs on its own).
import * as vscode from "vscode";
import { needsSidecar, registerCommands, type Ctx } from "../ctx";
import { type DoctorReport, type HealthCheck, isRecord } from "../protocol";
import { describeFailure, type LazyClient } from "../protocol/client";
import type { SidecarState } from "../sidecar/sidecar";
import { lazyShellArgs, type LazyCommand } from "../sidecar/terminal";

export type HealthNode =
  | { kind: "check"; check: HealthCheck }
  | { kind: "detail"; text: string; parent: string }
  | { kind: "notice"; text: string; down?: boolean };

const ICONS: Record<HealthCheck["status"], [string, string]> = {
  ok: ["pass", "testing.iconPassed"],
  // worth knowing, nothing to fix (the hooks while VS Code itself captures live)
  info: ["info", "notificationsInfoIcon.foreground"],
  warn: ["warning", "list.warningForeground"],
  fail: ["error", "list.errorForeground"],
};

/** The arguments of a fix that is a lazy command ("lazy doctor --reimport-conversations"),
 * else undefined (a fix for the user to do, such as starting Docker). */
export function lazyArgs(fix: string | null | undefined): string[] | undefined {
  const words = (fix ?? "").trim().split(/\s+/);
  return words[0] === "lazy" && words.length > 1 ? words.slice(1) : undefined;
}

export class HealthProvider implements vscode.TreeDataProvider<HealthNode> {
  private readonly emitter = new vscode.EventEmitter<HealthNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private result: DoctorReport | undefined;
  private error: string | undefined;
  /** Why there is no sidecar to ask, while it is down: shown instead of any checks. */
  private down: string | undefined;
  /** The checks were asked for: a sidecar (re)started runs them again. */
  private asked = false;
  /** Bumped by each run and each stop: an answer of an older one is dropped (a sweep of a
   * sidecar that died meanwhile, or of the store before a restart, is never shown). */
  private generation = 0;

  constructor(private readonly client: () => LazyClient | undefined) {}

  /** The checks are of one sidecar and its store: when it goes down they go (the view says
   * it is down), and when it is back they run again if they were shown. */
  setSidecarState(state: SidecarState): void {
    if (state.kind === "running") {
      this.down = undefined;
      if (this.asked) void this.refresh();
      else this.emitter.fire(undefined);
      return;
    }
    this.generation++;
    this.result = undefined;
    this.error = undefined;
    this.down =
      state.kind === "starting"
        ? "Starting the lazy sidecar…"
        : state.kind === "missing"
          ? `No lazy sidecar: ${state.problem ?? "install lazy-builders or set lazy.sidecar.path."}`
          : `The lazy sidecar is not running${state.reason ? ` (${state.reason})` : ""}. Lazy: Restart Sidecar starts it.`;
    this.emitter.fire(undefined);
  }

  async refresh(): Promise<void> {
    this.asked = true;
    const gen = ++this.generation;
    const c = this.client();
    if (!c) {
      this.result = undefined;
      this.error = "The lazy sidecar is not running.";
    } else {
      try {
        const result = await c.request("doctor/run", {});
        if (gen !== this.generation) return;
        this.result = result;
        this.error = undefined;
      } catch (e) {
        if (gen !== this.generation) return;
        this.result = undefined;
        this.error = `lazy doctor failed: ${describeFailure(e)}`;
      }
    }
    this.emitter.fire(undefined);
  }

  getChildren(node?: HealthNode): HealthNode[] {
    if (node?.kind === "check") return (node.check.detail ?? []).map((text) => ({ kind: "detail", text, parent: node.check.title }));
    if (node) return [];
    if (this.down) return [{ kind: "notice", text: this.down, down: true }];
    if (this.error) return [{ kind: "notice", text: this.error }];
    if (!this.result) return []; // the view's welcome offers to run the checks
    return this.result.checks.map((check) => ({ kind: "check", check }));
  }

  getTreeItem(node: HealthNode): vscode.TreeItem {
    if (node.kind === "notice") {
      const item = new vscode.TreeItem(node.text);
      if (node.down) {
        item.id = "sidecar-down";
        item.iconPath = new vscode.ThemeIcon("debug-disconnect", new vscode.ThemeColor("list.errorForeground"));
        item.command = { title: "Restart Sidecar", command: "lazy.restartSidecar" };
      }
      return item;
    }
    if (node.kind === "detail") {
      const item = new vscode.TreeItem(node.text);
      item.id = `detail:${node.parent}:${node.text}`;
      return item;
    }
    const { check } = node;
    const item = new vscode.TreeItem(
      check.title,
      check.detail?.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `check:${check.title}`;
    const [icon, color] = ICONS[check.status];
    item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
    item.description = check.fix && check.status === "info" ? `optional: ${check.fix}` : (check.fix ?? "");
    const fix = check.status === "info" ? "Optional" : "Fix";
    item.tooltip = [check.title, ...(check.detail ?? []), ...(check.fix ? ["", `${fix}: ${check.fix}`] : [])].join("\n");
    // a fix to run: for what is wrong (an info's is the user's choice, in its description)
    item.contextValue = lazyArgs(check.fix) && (check.status === "warn" || check.status === "fail") ? "check.fixable" : "check";
    return item;
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/** The terminal that runs a check's fix with the sidecar's own lazy. */
export function fixTerminal(check: HealthCheck, lazy: LazyCommand): vscode.TerminalOptions | undefined {
  const args = lazyArgs(check.fix);
  if (!args) return undefined;
  return { name: `Lazy: ${args.join(" ")}`, shellPath: lazy.command, shellArgs: lazyShellArgs(lazy, args), env: lazy.env };
}

/** The Health view and its commands: run the checks, run a check's fix in a terminal. */
export function registerHealthView(ctx: Ctx): vscode.Disposable[] {
  const { health } = ctx;
  return [
    vscode.window.createTreeView("lazy.health", { treeDataProvider: health }),
    ...registerCommands(ctx, [
      ["lazy.health.refresh", () => () => vscode.window.withProgress({ location: { viewId: "lazy.health" } }, () => health.refresh())],
      ["lazy.health.fix", needsSidecar(() => ({ lazy }, node) => {
        if (!isRecord(node) || node.kind !== "check") return;
        const options = fixTerminal((node as Extract<HealthNode, { kind: "check" }>).check, lazy);
        if (options) vscode.window.createTerminal(options).show();
      })],
    ]),
  ];
}
