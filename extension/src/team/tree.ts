// The Team view: the teammates' Builders this member may read on the team database
// (team/builders), grouped by project (the remote's normalised name), newest first, each marked
// when it grew since the viewer last opened it (the server keeps that per viewer, so it is the
// same on every machine of theirs). A machine that has not joined says so (its welcome, keyed
// on lazy.team.notJoined); a server that refuses or cannot be reached is one error row, never
// a thrown error: the team is a convenience, local work goes on without it.
// Node objects are cached by their stable id, as in the Builders view (VS Code keys tree
// elements by identity).
import * as vscode from "vscode";
import { agentIcon, agentMark, agentName } from "../agents";
import { describeFailure, rpcFailure, type LazyClient } from "../protocol/client";
import { ErrorCodes, isRecord, type TeamBuilder, type TeamStatusResult } from "../protocol";
import { plainText } from "../text";
import { formatTimestamp, relativeTime } from "../time";

export type TeamNode =
  | { kind: "teamProject"; id: string; project: string }
  | { kind: "teamBuilder"; id: string; info: TeamBuilder }
  | { kind: "teamNotice"; id: string; message: string; icon: string; error?: boolean; command?: vscode.Command };

/** A teammate's Builder as team/page names it: the same id may be two members' (a fork), so
 * the member's email goes with it. */
export interface TeamRef {
  builderId: string;
  email: string;
}

/** The context keys the manifest reads: the welcome of a machine with no team, and the
 * commands only a joined machine has (Push Now). */
export const JOINED_KEY = "lazy.team.joined";
export const NOT_JOINED_KEY = "lazy.team.notJoined";

/** How many Builders the view asks for (team/builders' default). */
export const TEAM_LIMIT = 200;

/** What a row of a grown Builder says, in its tooltip. */
export const GREW_TOOLTIP = "new messages since you last opened it";

export interface TeamOptions {
  client: () => LazyClient | undefined;
  /** For the agents' marks (media/agents/); without it, their codicons. */
  extensionUri?: vscode.Uri;
  log?: vscode.LogOutputChannel;
  now?: () => Date;
}

/** A command's argument: a Team view row (a menu passes it) or a TeamRef (a row's click). */
export function teamRefOf(arg: unknown): TeamRef | undefined {
  if (!isRecord(arg)) return undefined;
  if (arg.kind === "teamBuilder" && isRecord(arg.info)) {
    const { builder_id, email } = arg.info;
    return typeof builder_id === "string" && typeof email === "string" ? { builderId: builder_id, email } : undefined;
  }
  const { builderId, email } = arg;
  return typeof builderId === "string" && builderId && typeof email === "string" ? { builderId, email } : undefined;
}

/** A team Builder's name in the tree: its title, one line of plain text (agent text). */
export function teamLabel(b: TeamBuilder): string {
  return plainText(b.title).replace(/\s+/g, " ").trim() || b.builder_id.slice(0, 8);
}

type Load =
  | { kind: "unknown" }
  | { kind: "down"; reason: string | undefined }
  | { kind: "notJoined" }
  | { kind: "failed"; message: string }
  | { kind: "loaded"; items: TeamBuilder[] };

export class TeamProvider implements vscode.TreeDataProvider<TeamNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TeamNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly statusEmitter = new vscode.EventEmitter<TeamStatusResult | undefined>();
  /** team/status was asked again (the view's description names who this machine pushes as). */
  readonly onDidChangeStatus = this.statusEmitter.event;
  private state: Load = { kind: "unknown" };
  private last: TeamStatusResult | undefined;
  private loading: Promise<void> | undefined;
  private generation = 0;
  private readonly nodes = new Map<string, TeamNode>();

  constructor(private readonly opts: TeamOptions) {}

  /** What team/status said last (undefined: not asked yet, or the sidecar is down). */
  get status(): TeamStatusResult | undefined {
    return this.last;
  }

  /** The team's Builders loaded (none until the server answered). */
  get items(): readonly TeamBuilder[] {
    return this.state.kind === "loaded" ? this.state.items : [];
  }

  // ---- loading ------------------------------------------------------------------------------

  private load(): Promise<void> {
    const gen = ++this.generation;
    const p = (async () => {
      const next = await this.ask();
      if (gen !== this.generation) return;
      this.state = next;
      this.setContext();
    })();
    this.loading = p;
    return p;
  }

  /** team/status (local, cheap), then the server's list when joined; every failure is a state. */
  private async ask(): Promise<Load> {
    const client = this.opts.client();
    if (!client) return { kind: "down", reason: undefined };
    try {
      this.setStatus(await client.request("team/status", {}));
    } catch (e) {
      this.setStatus(undefined);
      this.opts.log?.warn(`team/status: ${describeFailure(e)}`);
      return { kind: "failed", message: rpcFailure(e).message };
    }
    if (!this.last?.joined) return { kind: "notJoined" };
    try {
      const r = await client.request("team/builders", { limit: TEAM_LIMIT });
      return { kind: "loaded", items: r.items };
    } catch (e) {
      const f = rpcFailure(e);
      this.opts.log?.warn(`team/builders: ${describeFailure(e)}`);
      // team.json went away (or broke) since team/status read it
      if (f.code === ErrorCodes.TEAM_FAILED && isRecord(f.data) && f.data.kind === "not-joined") return { kind: "notJoined" };
      return { kind: "failed", message: f.message };
    }
  }

  private setStatus(s: TeamStatusResult | undefined): void {
    this.last = s;
    this.statusEmitter.fire(s);
  }

  private setContext(): void {
    const s = this.state.kind;
    void vscode.commands.executeCommand("setContext", NOT_JOINED_KEY, s === "notJoined");
    void vscode.commands.executeCommand("setContext", JOINED_KEY, s !== "down" && s !== "notJoined" && this.last?.joined === true);
  }

  /** Ask again (status and Builders) and redraw: the title bar's Refresh, after a push, after
   * a teammate's Builder was opened (which marked it seen). */
  async refresh(): Promise<void> {
    if (this.state.kind === "down") return;
    await this.load();
    this.emitter.fire(undefined);
  }

  /** The sidecar went away: nothing of the team is shown until it is back. */
  clear(reason?: string): void {
    this.generation++;
    this.loading = undefined;
    this.state = { kind: "down", reason };
    this.nodes.clear();
    this.setStatus(undefined);
    this.setContext();
    this.emitter.fire(undefined);
  }

  /** The sidecar is (back) up. */
  async resume(): Promise<void> {
    this.state = { kind: "unknown" };
    await this.refresh();
  }

  // ---- the tree -----------------------------------------------------------------------------

  private node<N extends TeamNode>(fresh: N): N {
    const cached = this.nodes.get(fresh.id);
    if (cached?.kind === fresh.kind) {
      Object.assign(cached, fresh);
      return cached as N;
    }
    this.nodes.set(fresh.id, fresh);
    return fresh;
  }

  /** Projects in the order of their newest Builder (the server's order). */
  projects(): string[] {
    return [...new Set(this.items.map((b) => b.project))];
  }

  private ofProject(project: string): TeamBuilder[] {
    return this.items.filter((b) => b.project === project);
  }

  private async roots(): Promise<TeamNode[]> {
    if (this.state.kind === "unknown") await (this.loading ?? this.load());
    const s = this.state;
    switch (s.kind) {
      case "unknown":
        return [];
      case "down":
        // the Builders view offers the restart; this one only says why it is empty (nothing
        // while the sidecar starts)
        return s.reason ? [this.node({ kind: "teamNotice", id: "team:notice:down", message: s.reason, icon: "debug-disconnect" })] : [];
      case "notJoined":
        return []; // its welcome (package.json) says how to join
      case "failed":
        return [this.node({ kind: "teamNotice", id: "team:notice:error", message: s.message, icon: "error", error: true,
          command: { title: "Retry", command: "lazy.team.refresh" } })];
      case "loaded":
        if (s.items.length === 0) {
          return [this.node({ kind: "teamNotice", id: "team:notice:empty", message: "No Builders on the team yet: Push Now sends yours.",
            icon: "info", command: { title: "Push Now", command: "lazy.team.push" } })];
        }
        return this.projects().map((p) => this.node({ kind: "teamProject", id: `team:project:${p}`, project: p }));
    }
  }

  async getChildren(element?: TeamNode): Promise<TeamNode[]> {
    if (!element) return this.roots();
    if (element.kind !== "teamProject") return [];
    return this.ofProject(element.project).map((b) => this.builderNode(b));
  }

  private builderNode(info: TeamBuilder): TeamNode {
    return this.node({ kind: "teamBuilder", id: `team:builder:${info.email}/${info.builder_id}`, info });
  }

  getParent(element: TeamNode): TeamNode | undefined {
    return element.kind === "teamBuilder" ? this.nodes.get(`team:project:${element.info.project}`) : undefined;
  }

  getTreeItem(element: TeamNode): vscode.TreeItem {
    switch (element.kind) {
      case "teamProject":
        return this.projectItem(element);
      case "teamBuilder":
        return this.builderItem(element);
      case "teamNotice": {
        const item = new vscode.TreeItem(element.message, vscode.TreeItemCollapsibleState.None);
        item.id = element.id;
        item.iconPath = new vscode.ThemeIcon(element.icon, element.error ? new vscode.ThemeColor("list.errorForeground") : undefined);
        item.tooltip = element.message;
        item.command = element.command;
        item.contextValue = "teamNotice";
        return item;
      }
    }
  }

  private projectItem(element: Extract<TeamNode, { kind: "teamProject" }>): vscode.TreeItem {
    const builders = this.ofProject(element.project);
    const grown = builders.filter((b) => b.grew).length;
    // a project name is the teammate's remote: shown as text, like any other of theirs
    const item = new vscode.TreeItem(plainText(element.project), vscode.TreeItemCollapsibleState.Expanded);
    item.id = element.id;
    const count = `${builders.length} Builder${builders.length === 1 ? "" : "s"}`;
    item.description = grown > 0 ? `${count} · ${grown} grew` : count;
    item.tooltip = `Project ${plainText(element.project)}: ${count} on the team`;
    item.iconPath = new vscode.ThemeIcon("repo");
    item.contextValue = "teamProject";
    return item;
  }

  private builderItem(element: Extract<TeamNode, { kind: "teamBuilder" }>): vscode.TreeItem {
    const b = element.info;
    const item = new vscode.TreeItem(teamLabel(b), vscode.TreeItemCollapsibleState.None);
    item.id = element.id;
    const when = relativeTime(b.updated_at, this.opts.now?.() ?? new Date());
    const member = plainText(b.member);
    item.description = `${b.grew ? "● " : ""}${[member, agentName(b.agent), when].filter(Boolean).join(" · ")}`;
    item.iconPath = b.grew ? new vscode.ThemeIcon("circle-filled", new vscode.ThemeColor("notificationsInfoIcon.foreground")) : this.iconOf(b.agent);
    // plain text: every field is the teammate's (their title is agent output)
    item.tooltip = [
      teamLabel(b),
      "",
      `Member: ${member} <${plainText(b.email)}>`,
      `Project: ${plainText(b.project)}`,
      `Agent: ${agentName(b.agent)}`,
      `Updated: ${formatTimestamp(b.updated_at) || "unknown"}`,
      `Messages: ${b.message_count}${b.grew ? ` (${GREW_TOOLTIP})` : ""}`,
      `Id: ${b.builder_id}`,
    ].join("\n");
    item.contextValue = "teamBuilder";
    const ref: TeamRef = { builderId: b.builder_id, email: b.email };
    item.command = { title: "Open Teammate's Transcript", command: "lazy.team.open", arguments: [ref] };
    return item;
  }

  private iconOf(agent: string): vscode.TreeItem["iconPath"] {
    const mark = this.opts.extensionUri && agentMark(this.opts.extensionUri, agent);
    return mark ?? new vscode.ThemeIcon(agentIcon(agent));
  }

  dispose(): void {
    this.emitter.dispose();
    this.statusEmitter.dispose();
  }
}
