// The Builders view: Builders of the workspace (or of every project), grouped by project,
// newest first, paged with builders/list's cursor; a project of one Builder is that Builder
// alone at the top (its project in its description), each Builder marked with its agent's
// icon. A workspace with none while the store has others says so, and offers them all.
// Node objects are cached by their stable id: VS Code keys tree elements by identity, so a
// partial refresh must fire the very object it handed out.
import { usageTooltip } from "../usage/format";
import * as path from "node:path";
import * as vscode from "vscode";
import { describeFailure, type LazyClient } from "../protocol/client";
import { type BuilderInfo, type BuildersDidChange, isRecord, type Scope, type SidechainInfo } from "../protocol";
import { plainText } from "../text";
import { formatTimestamp, relativeTime } from "../time";
import { agentIcon, agentMark, agentName } from "../agents";

export type Node =
  | { kind: "project"; id: string; project: string | null }
  | { kind: "builder"; id: string; info: BuilderInfo }
  | { kind: "sidechain"; id: string; builderId: string; info: SidechainInfo }
  | { kind: "loadMore"; id: string }
  | { kind: "notice"; id: string; message: string; icon: string; command?: vscode.Command; error?: boolean };

export type BuilderNode = Extract<Node, { kind: "builder" }>;

/** A tree node, when a command was run from the view (menus pass the element). */
export function asNode(arg: unknown): Node | undefined {
  return isRecord(arg) && typeof arg.kind === "string" && typeof arg.id === "string" ? (arg as unknown as Node) : undefined;
}

/** A command's argument: a tree node or a Builder id. */
export function builderIdOf(arg: unknown): string | undefined {
  if (typeof arg === "string") return arg;
  const node = asNode(arg);
  if (node?.kind === "builder") return node.info.id;
  if (node?.kind === "sidechain") return node.builderId;
  return undefined;
}

export const PAGE_SIZE = 50;
const MAX_PAGE = 500;
const LAST_OPENED_KEY = "lazy.lastOpenedCounts";
/** Where the scope the user picked is kept (context.workspaceState): per workspace. */
export const ALL_PROJECTS_KEY = "lazy.allProjects";

/** The slice of Memento the badge needs (context.globalState). */
export interface CountStore {
  get(key: string): unknown;
  update(key: string, value: unknown): Thenable<void>;
}

export interface BuildersOptions {
  client: () => LazyClient | undefined;
  workspaceFolders: () => readonly string[];
  store: CountStore;
  /** The workspace's own memento (context.workspaceState): its scope, all projects or not. */
  workspaceStore?: CountStore;
  /** For the agents' icons (media/agents/); without it, their codicons. */
  extensionUri?: vscode.Uri;
  log?: vscode.LogOutputChannel;
  debounceMs?: number;
  now?: () => Date;
}

function short(p: string): string {
  return path.basename(p) || p;
}

/** A Builder's name: its summary, else its title, else its short id; agent text, so plain. */
/** A Builder's name in the tree: its alias ("Name This Builder…"), else what it is about. */
export function builderLabel(info: BuilderInfo): string {
  return info.alias ?? aboutLabel(info);
}

function aboutLabel(info: BuilderInfo): string {
  return plainText(info.summary.trim() || info.title?.trim() || info.short_id).replace(/\s+/g, " ");
}

export class BuildersProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;

  private items: BuilderInfo[] = [];
  private nextCursor: string | null = null;
  private loaded = false;
  private loading: Promise<void> | undefined;
  private error: string | undefined;
  private down = false;
  private allProjects: boolean;
  /** The workspace shows none: how many Builders there are in every project (0: none). */
  private elsewhere = 0;
  private readonly messageEmitter = new vscode.EventEmitter<string | undefined>();
  /** The view's message changed (TreeView.message: the empty workspace's sentence). */
  readonly onDidChangeMessage = this.messageEmitter.event;
  private generation = 0;
  private readonly nodes = new Map<string, Node>();
  private pendingIds = new Set<string>();
  private debounce: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly opts: BuildersOptions) {
    this.allProjects = opts.workspaceStore?.get(ALL_PROJECTS_KEY) === true;
    if (this.allProjects) void vscode.commands.executeCommand("setContext", "lazy.allProjects", true);
  }

  /** What the view says above its rows: an empty workspace, when the store has others. */
  get message(): string | undefined {
    if (this.elsewhere === 0) return undefined;
    const n = this.elsewhere;
    return `No conversations for this workspace; ${n} in other project${n === 1 ? "" : "s"}.`;
  }

  get showsAllProjects(): boolean {
    return this.allProjects;
  }

  scope(): Scope {
    return { all_projects: this.allProjects, workspace_folders: [...this.opts.workspaceFolders()] };
  }

  /** The Builders loaded so far, in server order (newest first). */
  get loadedBuilders(): readonly BuilderInfo[] {
    return this.items;
  }

  get hasMore(): boolean {
    return this.nextCursor !== null;
  }

  // ---- loading ------------------------------------------------------------------------------

  private async fetch(limit: number, cursor: string | null): Promise<{ items: BuilderInfo[]; next: string | null } | undefined> {
    const client = this.opts.client();
    if (!client || this.down) return undefined;
    const r = await client.request("builders/list", { ...this.scope(), cursor, limit });
    return { items: r.items, next: r.next_cursor ?? null };
  }

  private load(limit: number): Promise<void> {
    const gen = ++this.generation;
    const p = (async () => {
      try {
        const page = await this.fetch(limit, null);
        const elsewhere = page && page.items.length === 0 ? await this.countElsewhere() : 0;
        if (gen !== this.generation) return;
        this.items = page?.items ?? [];
        this.nextCursor = page?.next ?? null;
        this.error = undefined;
        this.loaded = page !== undefined;
        this.setElsewhere(elsewhere);
      } catch (e) {
        if (gen !== this.generation) return;
        this.items = [];
        this.nextCursor = null;
        this.error = describeFailure(e);
        this.opts.log?.error(`builders/list: ${this.error}`);
        this.loaded = true;
        this.setElsewhere(0);
      }
      this.setEmpty();
    })();
    this.loading = p;
    return p;
  }

  /** The workspace showed none: how many there are in every project (its scope aside). */
  private async countElsewhere(): Promise<number> {
    const client = this.opts.client();
    if (!client || this.allProjects) return 0;
    try {
      const all = await client.request("builders/list", { all_projects: true, workspace_folders: [], limit: 1 });
      return all.total ?? all.items.length;
    } catch (e) {
      this.opts.log?.warn(`builders/list (all projects, to count): ${describeFailure(e)}`);
      return 0;
    }
  }

  private setElsewhere(n: number): void {
    if (n === this.elsewhere) return;
    this.elsewhere = n;
    this.messageEmitter.fire(this.message);
  }

  /** lazy.empty: nothing captured at all (Import); lazy.emptyWorkspace: nothing under the
   * open folders, and some elsewhere (Show All Projects). */
  private setEmpty(): void {
    const none = this.loaded && !this.error && !this.down && this.items.length === 0;
    void vscode.commands.executeCommand("setContext", "lazy.empty", none && this.elsewhere === 0);
    void vscode.commands.executeCommand("setContext", "lazy.emptyWorkspace", none && this.elsewhere > 0);
  }

  /** Reload what is shown (as many Builders as were loaded) and redraw. */
  async refresh(): Promise<void> {
    const limit = Math.min(MAX_PAGE, Math.max(PAGE_SIZE, this.items.length));
    await this.load(limit);
    this.emitter.fire(undefined);
  }

  async loadMore(): Promise<void> {
    if (this.loading) await this.loading;
    const cursor = this.nextCursor;
    if (cursor === null) return;
    const gen = this.generation;
    try {
      const page = await this.fetchPage(cursor);
      if (!page || gen !== this.generation) return;
      const known = new Set(this.items.map((b) => b.id));
      this.items.push(...page.items.filter((b) => !known.has(b.id)));
      this.nextCursor = page.next;
    } catch (e) {
      const msg = describeFailure(e);
      this.opts.log?.error(`builders/list (more): ${msg}`);
      void vscode.window.showErrorMessage(`Lazy: could not load more Builders: ${msg}`);
    }
    this.emitter.fire(undefined);
  }

  private fetchPage(cursor: string): Promise<{ items: BuilderInfo[]; next: string | null } | undefined> {
    return this.fetch(PAGE_SIZE, cursor);
  }

  async setAllProjects(all: boolean): Promise<void> {
    if (this.allProjects === all) return;
    this.allProjects = all;
    void vscode.commands.executeCommand("setContext", "lazy.allProjects", all);
    void this.opts.workspaceStore?.update(ALL_PROJECTS_KEY, all);
    this.items = [];
    this.nextCursor = null;
    await this.load(PAGE_SIZE);
    this.emitter.fire(undefined);
  }

  /** The sidecar went away: show nothing until it is back. */
  clear(reason?: string): void {
    this.down = true;
    this.generation++;
    this.items = [];
    this.nextCursor = null;
    this.loaded = false;
    this.loading = undefined;
    this.error = reason;
    this.nodes.clear();
    this.setElsewhere(0);
    this.setEmpty();
    this.emitter.fire(undefined);
  }

  /** The sidecar is (back) up. */
  async resume(): Promise<void> {
    this.down = false;
    this.error = undefined;
    await this.refresh();
  }

  // ---- change notifications ---------------------------------------------------------------

  onBuildersDidChange(change: BuildersDidChange): void {
    for (const id of change.builder_ids) this.pendingIds.add(id);
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      const ids = [...this.pendingIds];
      this.pendingIds = new Set();
      void this.applyChanges(ids);
    }, this.opts.debounceMs ?? 300);
  }

  /** Changed Builders that are all on screen are fetched one by one and redrawn in place;
   * any other change (a new Builder) reloads the list, since it may land anywhere. */
  async applyChanges(ids: string[]): Promise<void> {
    const client = this.opts.client();
    const loaded = new Set(this.items.map((b) => b.id));
    if (!client || ids.length === 0 || !ids.every((id) => loaded.has(id))) {
      await this.refresh();
      return;
    }
    try {
      const fresh = await Promise.all(ids.map((id) => client.request("builders/get", { id })));
      for (const info of fresh) {
        const i = this.items.findIndex((b) => b.id === info.id);
        if (i < 0) continue;
        const before = this.items[i];
        this.items[i] = info;
        if (before?.forked_from !== info.forked_from || before?.project !== info.project) {
          await this.refresh();
          return;
        }
        const node = this.nodes.get(`builder:${info.id}`);
        if (node?.kind === "builder") {
          node.info = info;
          this.emitter.fire(node);
        } else {
          this.emitter.fire(undefined);
        }
      }
    } catch (e) {
      this.opts.log?.warn(`builders/get after a change: ${describeFailure(e)}; reloading`);
      await this.refresh();
    }
  }

  // ---- the grew badge -----------------------------------------------------------------------

  private lastOpened(): Record<string, number> {
    const raw = this.opts.store.get(LAST_OPENED_KEY);
    const out: Record<string, number> = {};
    if (isRecord(raw)) for (const [k, v] of Object.entries(raw)) if (typeof v === "number") out[k] = v;
    return out;
  }

  /** A Builder has grown since it was last opened (never opened: no badge). */
  grew(info: BuilderInfo): boolean {
    const seen = this.lastOpened()[info.id];
    return seen !== undefined && info.message_count > seen;
  }

  async markOpened(id: string, messageCount: number): Promise<void> {
    const counts = { ...this.lastOpened(), [id]: messageCount };
    await this.opts.store.update(LAST_OPENED_KEY, counts);
    const node = this.nodes.get(`builder:${id}`);
    if (node) this.emitter.fire(node);
  }

  // ---- the tree -----------------------------------------------------------------------------

  private node<N extends Node>(fresh: N): N {
    const cached = this.nodes.get(fresh.id);
    if (cached?.kind === fresh.kind) {
      Object.assign(cached, fresh);
      return cached as N;
    }
    this.nodes.set(fresh.id, fresh);
    return fresh;
  }

  private isNestedFork(b: BuilderInfo): boolean {
    return !!b.forked_from && b.forked_from !== b.id && this.items.some((x) => x.id === b.forked_from);
  }

  /** Which workspace folder a project belongs to (the folder itself or inside it); -1: none. */
  private workspaceRank(project: string | null): number {
    if (!project) return -1;
    const folders = this.opts.workspaceFolders();
    return folders.findIndex((f) => project === f || project.startsWith(f.endsWith(path.sep) ? f : f + path.sep));
  }

  /** Projects in display order: the workspace's first (in folder order), then the others
   * in the order of their newest Builder. */
  projects(): (string | null)[] {
    const seen: (string | null)[] = [];
    for (const b of this.items) {
      if (this.isNestedFork(b)) continue;
      if (!seen.includes(b.project)) seen.push(b.project);
    }
    const rank = (p: string | null): number => {
      const r = this.workspaceRank(p);
      return r < 0 ? Number.MAX_SAFE_INTEGER : r;
    };
    return seen
      .map((p, i) => ({ p, i }))
      .sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i)
      .map((x) => x.p);
  }

  /** The Builders listed under a project (its forks nest under the Builder they forked). */
  private ofProject(project: string | null): BuilderInfo[] {
    return this.items.filter((b) => b.project === project && !this.isNestedFork(b));
  }

  /** A Builder alone in its project: shown at the top, with no folder of its own. */
  private standsAlone(b: BuilderInfo): boolean {
    return !this.isNestedFork(b) && this.ofProject(b.project).length === 1;
  }

  private async roots(): Promise<Node[]> {
    if (this.down) {
      return this.error
        ? [this.node({ kind: "notice", id: "notice:down", message: this.error, icon: "error", error: true,
            command: { title: "Restart Sidecar", command: "lazy.restartSidecar" } })]
        : [];
    }
    if (!this.loaded) await (this.loading ?? this.load(PAGE_SIZE));
    if (this.error) {
      return [this.node({ kind: "notice", id: "notice:error", message: this.error, icon: "error", error: true,
        command: { title: "Retry", command: "lazy.refresh" } })];
    }
    if (this.items.length === 0 && this.elsewhere > 0) {
      // the view's message says how many; this row widens the scope to show them
      return [this.node({ kind: "notice", id: "notice:showAll", message: "Show All Projects", icon: "globe",
        command: { title: "Show All Projects", command: "lazy.toggleAllProjects" } })];
    }
    const roots: Node[] = this.projects().map((p) => {
      const [only, ...more] = this.ofProject(p);
      return only && more.length === 0
        ? this.builderNode(only)
        : this.node({ kind: "project", id: `project:${p ?? ""}`, project: p });
    });
    if (this.nextCursor !== null) roots.push(this.node({ kind: "loadMore", id: "loadMore" }));
    return roots;
  }

  async getChildren(element?: Node): Promise<Node[]> {
    if (!element) return this.roots();
    switch (element.kind) {
      case "project":
        return this.ofProject(element.project).map((b) => this.builderNode(b));
      case "builder": {
        const id = element.info.id;
        const forks = this.items.filter((b) => b.forked_from === id && b.id !== id).map((b) => this.builderNode(b));
        const sidechains = (element.info.sidechains ?? []).map((s) =>
          this.node({ kind: "sidechain", id: `sidechain:${id}:${s.session_id}`, builderId: id, info: s }),
        );
        return [...forks, ...sidechains];
      }
      default:
        return [];
    }
  }

  private builderNode(info: BuilderInfo): BuilderNode {
    return this.node({ kind: "builder", id: `builder:${info.id}`, info });
  }

  getParent(element: Node): Node | undefined {
    switch (element.kind) {
      case "builder": {
        const b = element.info;
        if (this.isNestedFork(b) && b.forked_from) return this.nodes.get(`builder:${b.forked_from}`);
        if (this.standsAlone(b)) return undefined;
        return this.nodes.get(`project:${b.project ?? ""}`);
      }
      case "sidechain":
        return this.nodes.get(`builder:${element.builderId}`);
      default:
        return undefined;
    }
  }

  /** The node of a loaded Builder, for reveal. */
  builderNodeOf(id: string): BuilderNode | undefined {
    const info = this.items.find((b) => b.id === id);
    return info ? this.builderNode(info) : undefined;
  }

  getTreeItem(element: Node): vscode.TreeItem {
    switch (element.kind) {
      case "project": {
        const p = element.project;
        const item = new vscode.TreeItem(p ? short(p) : "(no project)", vscode.TreeItemCollapsibleState.Expanded);
        item.id = element.id;
        item.description = p ?? "";
        item.tooltip = p ?? "Builders without a project";
        item.iconPath = new vscode.ThemeIcon(this.workspaceRank(p) >= 0 ? "root-folder" : "folder");
        item.contextValue = "project";
        return item;
      }
      case "builder":
        return this.builderItem(element.info);
      case "sidechain": {
        const s = element.info;
        const item = new vscode.TreeItem(`Subagent ${s.agent_id ?? s.session_id.slice(-8)}`, vscode.TreeItemCollapsibleState.None);
        item.id = element.id;
        item.description = s.message_count !== undefined ? `${s.message_count} msgs` : "";
        item.tooltip = `Subagent session ${s.session_id}`;
        item.iconPath = new vscode.ThemeIcon("type-hierarchy-sub");
        item.contextValue = "sidechain";
        item.command = {
          title: "Open Transcript",
          command: "lazy.openTranscript",
          arguments: [element.builderId, undefined, s.session_id],
        };
        return item;
      }
      case "loadMore": {
        const item = new vscode.TreeItem("Load more…", vscode.TreeItemCollapsibleState.None);
        item.id = element.id;
        item.iconPath = new vscode.ThemeIcon("ellipsis");
        item.contextValue = "loadMore";
        item.command = { title: "Load More", command: "lazy.loadMore" };
        return item;
      }
      case "notice": {
        const item = new vscode.TreeItem(element.message, vscode.TreeItemCollapsibleState.None);
        item.id = element.id;
        item.iconPath = new vscode.ThemeIcon(element.icon, element.error ? new vscode.ThemeColor("list.errorForeground") : undefined);
        item.tooltip = element.message;
        item.command = element.command;
        item.contextValue = "notice";
        return item;
      }
    }
  }

  builderItem(info: BuilderInfo): vscode.TreeItem {
    const hasChildren =
      (info.sidechains?.length ?? 0) > 0 || this.items.some((b) => b.forked_from === info.id && b.id !== info.id);
    const item = new vscode.TreeItem(
      builderLabel(info),
      hasChildren ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `builder:${info.id}`;
    const grew = this.grew(info);
    const when = relativeTime(info.updated_at ?? info.started_at, this.opts.now?.() ?? new Date());
    const count = `${info.message_count} msg${info.message_count === 1 ? "" : "s"}`;
    // alone at the top, no folder names its project: its description does
    const where = this.standsAlone(info) ? (info.project ? short(info.project) : "(no project)") : "";
    item.description = `${grew ? "● " : ""}${[where, when, count].filter(Boolean).join(" · ")}`;
    item.iconPath = this.iconOf(info.tool);
    // plain text: summaries are agent output, never markdown we would render
    item.tooltip = [
      ...(info.alias ? [`${info.alias}: ${aboutLabel(info)}`] : [aboutLabel(info)]),
      "",
      `Id: ${info.id}`,
      `Agent: ${agentName(info.tool)}`,
      `Project: ${info.project ?? "(none)"}`,
      `Started: ${formatTimestamp(info.started_at) || "unknown"}`,
      `Updated: ${formatTimestamp(info.updated_at) || "unknown"}`,
      `Messages: ${info.message_count}${grew ? " (new since last opened)" : ""}`,
      ...(info.forked_from ? [`Forked from: ${info.forked_from}`] : []),
      ...usageTooltip(info.usage),
    ].join("\n");
    // Claude Code conversations can be resumed in a terminal (lazy builder runs Claude Code)
    item.contextValue = info.tool === "claude" ? "builder.claude" : "builder";
    item.command = { title: "Open Transcript", command: "lazy.openTranscript", arguments: [info.id] };
    return item;
  }

  /** The agent's own mark (light and dark), else its codicon. */
  private iconOf(agent: string): vscode.TreeItem["iconPath"] {
    const mark = this.opts.extensionUri && agentMark(this.opts.extensionUri, agent);
    return mark ?? new vscode.ThemeIcon(agentIcon(agent));
  }

  dispose(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.emitter.dispose();
    this.messageEmitter.dispose();
  }
}
